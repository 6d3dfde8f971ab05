// Relabelling by what the kernels distinguish: depthwise and 1-D convolutions, global
// pools, and shape-only operators as Reshape.
#include <algorithm>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/spatial.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

// A pool whose one window covers the whole (unpadded) map.
bool covers_map(const ir::Graph& g, const ir::Node& n) {
  const ir::Tensor& x = g.tensor(n.inputs[0]);
  const ir::Tensor& y = g.tensor(n.outputs[0]);
  if (x.rank() != 4 || n.outputs.size() != 1) return false;
  std::vector<int64_t> k = n.attrs.get_ints("kernel_shape"), p = n.attrs.get_ints("pads");
  std::vector<int64_t> d = n.attrs.get_ints("dilations");
  bool unpadded = std::all_of(p.begin(), p.end(), [](int64_t v) { return v == 0; });
  bool undilated = std::all_of(d.begin(), d.end(), [](int64_t v) { return v == 1; });
  return unpadded && undilated && k.size() == 2 && k[0] == x.shape[2] && k[1] == x.shape[3] && y.shape[2] == 1 &&
         y.shape[3] == 1;
}

// ReduceMean over exactly the spatial axes of a rank-4 tensor, keeping dims (or, with
// `keepdims` 0 asked for, dropping them: PyTorch's x.mean([2, 3])).
bool is_spatial_mean(const ir::Graph& g, const ir::Node& n, int64_t keepdims = 1) {
  const ir::Tensor& x = g.tensor(n.inputs[0]);
  if (x.rank() != 4 || !x.shape_known || n.attrs.get_int("keepdims", 1) != keepdims) return false;
  std::vector<int64_t> axes = n.attrs.get_ints("axes");
  for (int64_t& a : axes) a = a < 0 ? a + 4 : a;
  std::sort(axes.begin(), axes.end());
  return axes == std::vector<int64_t>{2, 3};
}

}  // namespace

void relabel_convolutions(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if ((n.op != "Conv" && n.op != "ConvTranspose") || !n.domain.empty() || n.inputs.size() < 2) continue;
    make_spatial_explicit(g, n);
    if (n.op != "Conv") continue;
    const ir::Tensor& x = g.tensor(n.inputs[0]);
    const ir::Tensor& y = g.tensor(n.outputs[0]);
    int64_t group = n.attrs.get_int("group", 1);
    int64_t cin = x.shape[1], cout = y.shape[1];
    if (x.rank() == 4 && group > 1 && group == cin && cout % cin == 0) {
      n.op = "DepthwiseConv";  // channel multiplier cout / cin
    } else if (x.rank() == 3) {
      n.op = "Conv1D";  // grouped 1-D convolutions too
    }
  }
}

void relabel_global_pools(ir::Graph& g) {
  // x.mean([2, 3]) without keepdims: a global pool to [N, C, 1, 1] (which bands like one),
  // then a Reshape to the [N, C] the model has.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (g.nodes[i].op != "ReduceMean" || !g.nodes[i].domain.empty() || g.nodes[i].inputs.empty() ||
        g.nodes[i].outputs.size() != 1 || !is_spatial_mean(g, g.nodes[i], 0))
      continue;
    const ir::Tensor x = g.tensor(g.nodes[i].inputs[0]), y = g.tensor(g.nodes[i].outputs[0]);
    const ir::TensorId pooled = add_activation(g, y.name + "_pooled", y.dtype, {x.shape[0], x.shape[1], 1, 1});
    g.tensor(pooled).quant = y.quant;
    ir::Node reshape;
    reshape.name = g.unique_node_name(g.nodes[i].name + "_flatten");
    reshape.op = "Reshape";
    reshape.inputs = {pooled};
    reshape.outputs = {g.nodes[i].outputs[0]};
    reshape.attrs.set("shape", y.shape);
    g.nodes[i].attrs.set("keepdims", int64_t{1});
    g.nodes[i].outputs = {pooled};
    g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i + 1), reshape);
  }
  for (ir::Node& n : g.nodes) {
    if (!n.domain.empty() || n.inputs.empty()) continue;
    if (is_pool(n.op)) {
      make_spatial_explicit(g, n);
      // (A fused clamp, int8 TFLite pools only, stays on the windowed pool that applies it.)
      if (n.op != "LpPool" && covers_map(g, n) && !n.attrs.has("fused_activation")) {
        bool average = n.op == "AveragePool";
        n.op = n.op == "MaxPool" ? "GlobalMaxPool" : "GlobalAveragePool";
        n.attrs = {};
        // int8: TFLite's AVERAGE_POOL_2D rounds the mean of the raw sum (not MEAN's factors).
        if (average) n.attrs.set("average_pool_rounding", int64_t{1});
      }
    } else if (n.op == "ReduceMean" && is_spatial_mean(g, n)) {
      n.op = "GlobalAveragePool";
      int64_t rounding = n.attrs.get_int("average_pool_rounding", 0);  // set by fold_qdq
      n.attrs = {};
      if (rounding) n.attrs.set("average_pool_rounding", rounding);
    }
  }
}

void squeeze_to_reshape(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if (!n.domain.empty() || n.outputs.size() != 1 || n.inputs.empty()) continue;
    if (n.op != "Squeeze" && n.op != "Unsqueeze" && n.op != "Flatten" && n.op != "Reshape") continue;
    if (n.attrs.has("__dynamic_operand")) continue;
    const ir::Tensor& y = g.tensor(n.outputs[0]);
    if (!y.shape_known) continue;
    n.op = "Reshape";
    n.inputs.resize(1);
    n.attrs = {};
    n.attrs.set("shape", y.shape);
  }
}

}  // namespace tigris::passes
