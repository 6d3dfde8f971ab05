/*
 * TiGrIS runtime build configuration: tensor alignment and executor limits.
 *
 * Every runtime translation unit and every application that includes the
 * public headers must see the same definitions. Override with -D flags.
 */
#ifndef TIGRIS_CONFIG_H
#define TIGRIS_CONFIG_H

/* ---- Tensor alignment ------------------------------------------------- */

#ifndef TIGRIS_TENSOR_ALIGN
#  if defined(__ARM_FEATURE_SVE)
#    define TIGRIS_TENSOR_ALIGN          64
#    define TIGRIS_TENSOR_ALIGN_AUTO_SVE 1
#  elif defined(__aarch64__)
#    define TIGRIS_TENSOR_ALIGN 16
#  elif defined(__x86_64__)
#    define TIGRIS_TENSOR_ALIGN 32
#  elif defined(__riscv_vector)
#    define TIGRIS_TENSOR_ALIGN 16
#  elif defined(__XTENSA__)
#    define TIGRIS_TENSOR_ALIGN 16
#  elif defined(__ARM_NEON)
#    define TIGRIS_TENSOR_ALIGN 16
#  elif defined(__ARM_FEATURE_DSP)
#    define TIGRIS_TENSOR_ALIGN 16
#  else
#    define TIGRIS_TENSOR_ALIGN 4
#  endif
#endif

#if defined(TIGRIS_TENSOR_ALIGN_AUTO_SVE)
#  error \
      "TIGRIS_TENSOR_ALIGN: SVE selects 64 bytes but plans are sized for at most 32; build with -DTIGRIS_TENSOR_ALIGN=32"
#endif
#if (TIGRIS_TENSOR_ALIGN) < 1 || ((TIGRIS_TENSOR_ALIGN) & ((TIGRIS_TENSOR_ALIGN)-1)) != 0
#  error "TIGRIS_TENSOR_ALIGN must be a power of two"
#endif

/* The largest alignment compiled plans are sized for. */
#define TIGRIS_PLAN_MAX_ALIGN 32

/* ---- Executor limits --------------------------------------------------- */

#ifndef TIGRIS_MAX_TENSORS
#  define TIGRIS_MAX_TENSORS 512
#endif
#ifndef TIGRIS_MAX_STAGE_INPUTS
#  define TIGRIS_MAX_STAGE_INPUTS 16
#endif
#ifndef TIGRIS_MAX_STAGE_OUTPUTS
#  define TIGRIS_MAX_STAGE_OUTPUTS 16
#endif
#ifndef TIGRIS_MAX_CHAIN_STAGES
#  define TIGRIS_MAX_CHAIN_STAGES 16
#endif
#ifndef TIGRIS_MAX_SPATIAL_OPS_PER_STAGE
#  define TIGRIS_MAX_SPATIAL_OPS_PER_STAGE 8
#endif
#ifndef TIGRIS_MAX_SUBGRAPHS
#  define TIGRIS_MAX_SUBGRAPHS 16
#endif
#ifndef TIGRIS_MAX_SUBGRAPH_DEPTH
#  define TIGRIS_MAX_SUBGRAPH_DEPTH 4
#endif

#if (TIGRIS_MAX_TENSORS) < 1 || (TIGRIS_MAX_TENSORS) > 65535
#  error "TIGRIS_MAX_TENSORS must be 1..65535"
#endif
#if (TIGRIS_MAX_STAGE_INPUTS) < 1 || (TIGRIS_MAX_STAGE_INPUTS) > 65535
#  error "TIGRIS_MAX_STAGE_INPUTS must be 1..65535"
#endif
#if (TIGRIS_MAX_STAGE_OUTPUTS) < 1 || (TIGRIS_MAX_STAGE_OUTPUTS) > 65535
#  error "TIGRIS_MAX_STAGE_OUTPUTS must be 1..65535"
#endif
#if (TIGRIS_MAX_CHAIN_STAGES) < 2 || (TIGRIS_MAX_CHAIN_STAGES) > 65535
#  error "TIGRIS_MAX_CHAIN_STAGES must be 2..65535"
#endif
#if (TIGRIS_MAX_SPATIAL_OPS_PER_STAGE) < 1
#  error "TIGRIS_MAX_SPATIAL_OPS_PER_STAGE must be 1 or greater"
#endif
#if (TIGRIS_MAX_SUBGRAPHS) < 1 || (TIGRIS_MAX_SUBGRAPHS) > 65535
#  error "TIGRIS_MAX_SUBGRAPHS must be 1..65535"
#endif
#if (TIGRIS_MAX_SUBGRAPH_DEPTH) < 1 || (TIGRIS_MAX_SUBGRAPH_DEPTH) > 65535
#  error "TIGRIS_MAX_SUBGRAPH_DEPTH must be 1..65535"
#endif

/* tigris_run() keeps one process-global workspace unless this is 0. */
#ifndef TIGRIS_ENABLE_DEFAULT_EXECUTOR_WORKSPACE
#  define TIGRIS_ENABLE_DEFAULT_EXECUTOR_WORKSPACE 1
#endif

#endif /* TIGRIS_CONFIG_H */
