// The normalization pipeline: named passes over the IR, run in one fixed order.
//
// Each pass is a function of the graph. Passes do not print; they rewrite the graph or
// throw ir::CompileError naming the operator/tensor at fault. The order is listed once,
// in pipeline.cpp.
#pragma once

#include <string_view>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::passes {

struct Pass {
  std::string_view name;
  void (*run)(ir::Graph&);
};

// The passes in the order they run.
const std::vector<Pass>& normalization_pipeline();

// Run them all: on each subgraph first (recursively), then on the graph, then
// materialize_control_constants.
void normalize(ir::Graph& g);

// Constant operands of If/While nodes and constant outputs of their graphs become tensors
// computed exactly from a one-element run-time tensor (the runtime copies tensors, not
// weights); passes/control.cpp.
void materialize_control_constants(ir::Graph& g);
// fold_constants for the nodes writing graph outputs (a subgraph's outputs are bound by
// position, so a constant one becomes a constant the control-flow pass makes a tensor).
void fold_constant_outputs(ir::Graph& g);
// The main graph's outputs that are (after folding) compile-time constants become run-time
// tensors written by a Constant node (lowered to the CONSTANT op, the value its weight);
// throws naming the output when its dtype or a zero-size shape cannot be held (const_fold.cpp).
void produce_constant_outputs(ir::Graph& g);
// ONNX Scan (axis 0, forward) unrolled over its static sequence length: the body inlined
// once per step, Gather slices in, Reshape + Concat out (scan.cpp).
void unroll_scans(ir::Graph& g);

// ---- the passes (one line each: what it rewrites) ----
void remove_identities(ir::Graph& g);  // Dropout, Identity (initializer Identity included), same-type Cast
void fold_constants(ir::Graph& g);     // Constant nodes -> weights; constant subgraphs evaluated
void fold_shape_chains(ir::Graph& g);  // Shape of a static tensor -> constant, then fold again
void expand_qoperators(
    ir::Graph& g);            // QLinearConv/MatMul -> Q/DQ around Conv/MatMul; Conv/MatMulInteger -> exact float
void fold_qdq(ir::Graph& g);  // QDQ ONNX: Q/DQ pairs -> quantized tensors, int8 operators (qdq.cpp)
void canonicalize_operands(ir::Graph& g);  // constant operand inputs (axes, pads, shape...) -> attributes
void decompose_recurrent(ir::Graph& g);    // LSTM/GRU/RNN unrolled over the sequence into Gemm + gate ops
void decompose_operators(ir::Graph& g);    // Reciprocal, Pow(const), Reduce L1/L2/..., HardSigmoid... -> kernels' ops
void fold_gemm_scalars(ir::Graph& g);      // Gemm alpha/beta/transA/transB -> plain Gemm(A, W[N,K], b[N])
void matmul_to_gemm(ir::Graph& g);         // MatMul(A[M,K], const W[K,N]) -> Gemm
void fold_batchnorm(ir::Graph& g);         // BatchNormalization into the preceding Conv, else Mul+Add
void fold_constant_arithmetic(ir::Graph& g);  // Neg -> Mul(-1); Sub const -> Add(-c); Div const -> Mul(1/c)
void fold_bias(ir::Graph& g);                 // Add of a per-channel constant after Conv/Gemm -> bias
void fuse_swish(ir::Graph& g);                // float x*Sigmoid(x) -> Silu, x*HardSigmoid(x) -> HardSwish
void relabel_convolutions(ir::Graph& g);      // Conv: group == C_in -> DepthwiseConv, rank 3 -> Conv1D
void clip_to_relu(ir::Graph& g);              // Clip(0, 6) -> Relu6, Clip(0, inf) -> Relu
void separate_3d_pools(ir::Graph& g);        // rank-5 pools -> an H x W pool and a D pool, with Reshapes
void relabel_global_pools(ir::Graph& g);      // ReduceMean over H,W / whole-map pools -> Global*Pool
void squeeze_to_reshape(ir::Graph& g);        // Squeeze/Unsqueeze/Flatten -> Reshape
void extract_resize_scales(ir::Graph& g);     // Resize/Upsample scales, per-opset defaults
void fuse_activations(ir::Graph& g);          // Relu/Relu6 after Conv/DW/Conv1D/Gemm/Add -> fused
void channel_shuffle_to_gather(ir::Graph& g);  // Reshape-Transpose-Reshape permuting one axis -> Gather
void assign_layouts(ir::Graph& g);            // rank-3/4 spatial tensors -> channels-last, explicit layout transposes
void remap_axes(ir::Graph& g);  // Concat/Softmax/Reduce/Pad/... axes of channels-last tensors -> stored axes
void transpose_permutations(ir::Graph& g);  // Transpose perms in stored terms, validated; data-free ones -> copies
void fold_reshapes(ir::Graph& g);           // Reshape chains and Reshape -> Gemm read the bytes directly
void lower_batched_matmul(ir::Graph& g);    // MatMul(A[..,M,K], const W) -> Reshape, Gemm, Reshape
void fold_int8_tables(ir::Graph& g);        // int8 elementwise region of one tensor -> Table (int8_tables.cpp)
void split_wide_concats_pass(ir::Graph& g);  // Concat of > TIGRIS_MAX_STAGE_INPUTS inputs -> tree (concat_split.h)
void remove_unused(ir::Graph& g);           // dead nodes, unused weights and tensors

}  // namespace tigris::passes
