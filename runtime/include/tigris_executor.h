/*
 * TiGrIS runtime — executor: runs a loaded plan stage by stage against the
 * caller's arenas, with caller-owned working storage and no heap.
 */
#ifndef TIGRIS_EXECUTOR_H
#define TIGRIS_EXECUTOR_H

#include "tigris.h"
#include "tigris_mem.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    TIGRIS_EXEC_OK = 0,
    TIGRIS_EXEC_ERR_NULL = -1,
    TIGRIS_EXEC_ERR_MEM = -2,
    TIGRIS_EXEC_ERR_KERNEL = -3,
    TIGRIS_EXEC_ERR_NO_STAGES = -4,
    TIGRIS_EXEC_ERR_TILE = -5,
    TIGRIS_EXEC_ERR_WORKSPACE = -6,
    TIGRIS_EXEC_ERR_STATE = -7
} tigris_exec_error_t;

/* Execution statistics, filled by every entry point on every path. */
typedef struct tigris_exec_stats {
    uint16_t stages_normal;       /* stages executed without tiling */
    uint16_t stages_tiled;        /* stages executed with spatial tiling */
    uint16_t stages_chain;        /* stages executed as chain tiles */
    uint16_t total_tiles;         /* tile iterations across all stages */
    uint32_t slow_overflow_count; /* intra-stage allocations that overflowed to slow */
    uint32_t slow_overflow_bytes;
    uint32_t loads_bytes;  /* slow -> fast */
    uint32_t spills_bytes; /* fast -> slow */
    uint32_t compactions;  /* fast- and slow-pool compactions */
    uint32_t slow_peak;    /* high-water mark of slow_used */
    uint32_t weight_bytes; /* uncompressed weight bytes written to fast memory */
    uint32_t copy_bytes;   /* state and control-flow bytes copied */
} tigris_exec_stats_t;

/* Kernel dispatcher: called once per op with tensor pointers set in `mem`. 0 or negative. */
typedef int (*tigris_kernel_fn)(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
                                void *user_ctx);

/* Build-wide worst-case executor workspace, derived from the TIGRIS_MAX_* limits:
 * saved tensor pointers for stage and chain I/O, per-chain-stage and per-spatial-op
 * geometry, per-tensor line-buffer ranges and last-use tables, control-flow frames,
 * plus alignment slack so a byte buffer may start anywhere. */
#define TIGRIS_EXECUTOR_WORKSPACE_MIN_BYTES                                                                           \
  ((size_t)sizeof(void *) * ((size_t)TIGRIS_MAX_STAGE_INPUTS + TIGRIS_MAX_STAGE_OUTPUTS +                             \
                             2u * TIGRIS_MAX_CHAIN_STAGES + 2u * TIGRIS_MAX_SUBGRAPH_DEPTH) +                         \
   4u * ((size_t)14u * TIGRIS_MAX_CHAIN_STAGES +                                                                      \
         16u * (size_t)TIGRIS_MAX_CHAIN_STAGES * TIGRIS_MAX_SPATIAL_OPS_PER_STAGE + 2u * (size_t)TIGRIS_MAX_TENSORS + \
         16u * (size_t)TIGRIS_MAX_SUBGRAPH_DEPTH) +                                                                   \
   2u * (2u * (size_t)TIGRIS_MAX_TENSORS) + 64u)

#ifndef TIGRIS_EXECUTOR_WORKSPACE_BYTES
#  define TIGRIS_EXECUTOR_WORKSPACE_BYTES TIGRIS_EXECUTOR_WORKSPACE_MIN_BYTES
#endif

/* Opaque, naturally aligned executor working storage. */
typedef struct {
    union {
        void *p;
        uint64_t u;
        double d;
    } storage[(TIGRIS_EXECUTOR_WORKSPACE_BYTES + 7u) / 8u];
} tigris_executor_workspace_t;

TIGRIS_STATIC_ASSERT(TIGRIS_EXECUTOR_WORKSPACE_BYTES >= TIGRIS_EXECUTOR_WORKSPACE_MIN_BYTES,
                     executor_workspace_large_enough_for_limits);

/* Compatibility entry point with one process-global workspace (not re-entrant). */
tigris_exec_error_t tigris_run(const tigris_plan_t *plan, tigris_mem_t *mem, tigris_kernel_fn kernel, void *user_ctx,
                               tigris_exec_stats_t *stats);

/* Primary, re-entrant entry point with caller-owned working storage. */
tigris_exec_error_t tigris_run_with_workspace(const tigris_plan_t *plan, tigris_mem_t *mem, tigris_kernel_fn kernel,
                                              void *user_ctx, tigris_exec_stats_t *stats,
                                              tigris_executor_workspace_t *workspace);

/* As tigris_run_with_workspace, with a plan-sized byte buffer (any alignment). */
tigris_exec_error_t tigris_run_with_workspace_buffer(const tigris_plan_t *plan, tigris_mem_t *mem,
                                                     tigris_kernel_fn kernel, void *user_ctx,
                                                     tigris_exec_stats_t *stats, void *workspace,
                                                     size_t workspace_size);

/* Runs a plan that keeps variables between invocations; state NULL/0 for a plan without. */
tigris_exec_error_t tigris_run_with_state(const tigris_plan_t *plan, tigris_mem_t *mem, tigris_kernel_fn kernel,
                                          void *user_ctx, tigris_exec_stats_t *stats, void *workspace,
                                          size_t workspace_size, void *state, size_t state_size);

/* Workspace bytes a loaded plan needs, alignment headroom included; 0 = incomplete metadata. */
size_t tigris_executor_workspace_required(const tigris_plan_t *plan);

/* sizeof(tigris_executor_workspace_t) for this build. */
size_t tigris_executor_workspace_size(void);

/* Bytes of state the plan keeps across invocations; 0 without. */
size_t tigris_state_required(const tigris_plan_t *plan);

/* Write every variable's initial value into the state buffer (prepare or reset). */
tigris_exec_error_t tigris_state_init(const tigris_plan_t *plan, void *state, size_t state_size);

/* The plan's default dispatch dtype: TIGRIS_DTYPE_INT8 when any activation is int8, else FLOAT32. */
uint8_t tigris_plan_data_dtype(const tigris_plan_t *plan);

const char *tigris_exec_error_str(tigris_exec_error_t err);

#ifdef __cplusplus
}
#endif

#endif /* TIGRIS_EXECUTOR_H */
