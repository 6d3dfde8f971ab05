#include "compiler/passes/pipeline.h"

namespace tigris::passes {

const std::vector<Pass>& normalization_pipeline() {
  static const std::vector<Pass> passes = {
      {"remove_identities", remove_identities},
      {"fold_constants", fold_constants},
      {"fold_shape_chains", fold_shape_chains},
      {"expand_qoperators", expand_qoperators},
      {"fold_qdq", fold_qdq},
      {"canonicalize_operands", canonicalize_operands},
      // Again, now that folded constants (a Pad's pads from a Constant node) are known.
      {"remove_noop_nodes", remove_identities},
      {"fuse_swish", fuse_swish},
      {"decompose_recurrent", decompose_recurrent},
      {"decompose_operators", decompose_operators},
      {"fold_gemm_scalars", fold_gemm_scalars},
      {"matmul_to_gemm", matmul_to_gemm},
      {"lower_batched_matmul", lower_batched_matmul},
      {"fold_batchnorm", fold_batchnorm},
      {"fold_constant_arithmetic", fold_constant_arithmetic},
      {"fold_bias", fold_bias},
      {"relabel_convolutions", relabel_convolutions},
      {"clip_to_relu", clip_to_relu},
      {"separate_3d_pools", separate_3d_pools},
      {"relabel_global_pools", relabel_global_pools},
      {"squeeze_to_reshape", squeeze_to_reshape},
      {"extract_resize_scales", extract_resize_scales},
      {"fuse_activations", fuse_activations},
      {"channel_shuffle_to_gather", channel_shuffle_to_gather},
      {"assign_layouts", assign_layouts},
      {"remap_axes", remap_axes},
      {"transpose_permutations", transpose_permutations},
      {"fold_reshapes", fold_reshapes},
      {"fold_int8_tables", fold_int8_tables},
      {"split_wide_concats", split_wide_concats_pass},
      {"remove_unused", remove_unused},
  };
  return passes;
}

void normalize(ir::Graph& g) {
  unroll_scans(g);  // Scan bodies inlined before anything sees them
  for (ir::Graph& sub : g.subgraphs) normalize(sub);  // the graphs of If/While nodes, alike
  for (const Pass& p : normalization_pipeline()) p.run(g);
  materialize_control_constants(g);
}

}  // namespace tigris::passes
