// 3-D pools (rank-5 NCDHW) as two 2-D pools: MaxPool, AveragePool and LpPool windows are boxes,
// and each of them is separable over its axes — a max of maxes, a mean of means (the divisor,
// padded or not, is the product of the per-axis counts) and a p-norm of p-norms. The H x W
// window runs on [N, C*D, H, W], the D window on [N, C, D, H'*W'] (a kd x 1 window), with
// Reshapes between: the kernels and band forms of 2-D pools serve them.
#include "compiler/passes/pipeline.h"
#include "compiler/passes/spatial.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

ir::Node reshape_node(ir::Graph& g, const std::string& base, ir::TensorId in, ir::TensorId out) {
  ir::Node r;
  r.name = g.unique_node_name(base);
  r.op = "Reshape";
  r.inputs = {in};
  r.outputs = {out};
  r.attrs.set("shape", g.tensor(out).shape);
  return r;
}

// The pool's attributes for the axes `axes` of its three (d, h, w), padded out to 2-D with a
// unit window (kernel 1, stride 1, no pads) where only one axis is taken.
ir::Node pool_2d(const ir::Node& pool, const std::string& name, const std::vector<int>& axes) {
  ir::Node p = pool;
  p.name = name;
  std::vector<int64_t> k = pool.attrs.get_ints("kernel_shape"), s = pool.attrs.get_ints("strides");
  std::vector<int64_t> d = pool.attrs.get_ints("dilations"), pads = pool.attrs.get_ints("pads");
  std::vector<int64_t> k2, s2, d2, begin, end;
  for (int a : axes) k2.push_back(k[a]), s2.push_back(s[a]), d2.push_back(d[a]), begin.push_back(pads[a]), end.push_back(pads[a + 3]);
  while (k2.size() < 2) k2.push_back(1), s2.push_back(1), d2.push_back(1), begin.push_back(0), end.push_back(0);
  begin.insert(begin.end(), end.begin(), end.end());
  p.attrs.set("kernel_shape", k2);
  p.attrs.set("strides", s2);
  p.attrs.set("dilations", d2);
  p.attrs.set("pads", begin);
  return p;
}

}  // namespace

void separate_3d_pools(ir::Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& n = g.nodes[i];
    if (!is_pool(n.op) || !n.domain.empty() || n.inputs.empty() || g.tensor(n.inputs[0]).rank() != 5) continue;
    if (n.outputs.size() != 1) throw node_error(n, "a 3-D MaxPool's Indices output has no kernel");
    make_spatial_explicit(g, n);
    const ir::Node pool = n;
    const ir::Tensor x = g.tensor(pool.inputs[0]), y = g.tensor(pool.outputs[0]);
    if (!x.shape_known || !y.shape_known) throw node_error(pool, "a 3-D pool needs static shapes");
    int64_t N = x.shape[0], C = x.shape[1], D = x.shape[2], H = x.shape[3], W = x.shape[4];
    int64_t D2 = y.shape[2], H2 = y.shape[3], W2 = y.shape[4];
    ir::TensorId hw_in = add_activation(g, pool.name + "_hw_in", x.dtype, {N, C * D, H, W});
    ir::TensorId hw_out = add_activation(g, pool.name + "_hw_out", x.dtype, {N, C * D, H2, W2});
    ir::TensorId d_in = add_activation(g, pool.name + "_d_in", x.dtype, {N, C, D, H2 * W2});
    ir::TensorId d_out = add_activation(g, pool.name + "_d_out", x.dtype, {N, C, D2, H2 * W2});
    for (ir::TensorId t : {hw_in, hw_out, d_in, d_out}) g.tensor(t).quant = x.quant;
    ir::Node hw = pool_2d(pool, g.unique_node_name(pool.name + "_hw"), {1, 2});
    hw.inputs = {hw_in};
    hw.outputs = {hw_out};
    ir::Node depth = pool_2d(pool, g.unique_node_name(pool.name + "_d"), {0});
    depth.inputs = {d_in};
    depth.outputs = {d_out};
    std::vector<ir::Node> chain = {reshape_node(g, pool.name + "_to_hw", pool.inputs[0], hw_in), hw,
                                   reshape_node(g, pool.name + "_to_d", hw_out, d_in), depth,
                                   reshape_node(g, pool.name + "_to_dhw", d_out, pool.outputs[0])};
    g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(i));
    g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i), chain.begin(), chain.end());
    i += chain.size() - 1;
  }
}

}  // namespace tigris::passes
