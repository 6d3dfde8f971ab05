// Layout helpers: broadcast-rank expansion and axis remapping into the stored order.
#include <algorithm>

#include "compiler/passes/layout_internal.h"
#include "compiler/passes/ops.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

ir::Shape with_rank(const ir::Shape& s, size_t rank) {
  ir::Shape out(rank - s.size(), 1);
  out.insert(out.end(), s.begin(), s.end());
  return out;
}

std::vector<int64_t> remap_list(const std::vector<int64_t>& axes, int rank, const ir::Node& n) {
  std::vector<int64_t> out;
  for (int64_t a : axes) out.push_back(ir::stored_axis(ir::Layout::ChannelsLast, rank, normalize_axis(a, rank, n)));
  return out;
}

void remap_int(ir::Node& n, const char* name, int64_t fallback, int rank) {
  int64_t a = normalize_axis(n.attrs.get_int(name, fallback), rank, n);
  n.attrs.set(name, ir::stored_axis(ir::Layout::ChannelsLast, rank, a));
}

// Per-axis list (one entry per model axis, or begins then ends) permuted to stored order.
std::vector<int64_t> permute_per_axis(const std::vector<int64_t>& v, int rank, size_t groups) {
  std::vector<int64_t> perm = ir::to_channels_last_perm(rank), out(v.size());
  for (size_t g = 0; g < groups; ++g)
    for (int j = 0; j < rank; ++j)
      out[g * static_cast<size_t>(rank) + static_cast<size_t>(j)] =
          v[g * static_cast<size_t>(rank) + static_cast<size_t>(perm[static_cast<size_t>(j)])];
  return out;
}

}  // namespace

void expand_broadcast_ranks(ir::Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (layout_rule(g, g.nodes[i]) != LayoutRule::Elementwise || g.nodes[i].outputs.empty()) continue;
    size_t rank = g.tensor(g.nodes[i].outputs[0]).shape.size();
    for (size_t k = 0; k < g.nodes[i].inputs.size(); ++k) {
      ir::TensorId id = g.nodes[i].inputs[k];
      if (id < 0 || g.tensor(id).shape.size() >= rank) continue;
      const ir::Tensor t = g.tensor(id);
      ir::Shape shape = with_rank(t.shape, rank);
      if (t.constant) {
        g.nodes[i].inputs[k] = add_constant(g, t.name + "_r" + std::to_string(rank), t.dtype, shape, t.data);
        g.tensor(g.nodes[i].inputs[k]).quant = t.quant;
        continue;
      }
      ir::TensorId out = add_activation(g, t.name + "_r" + std::to_string(rank), t.dtype, shape);
      g.tensor(out).quant = t.quant;
      ir::Node r;
      r.name = g.unique_node_name(t.name + "_rank" + std::to_string(rank));
      r.op = "Reshape";
      r.inputs = {id};
      r.outputs = {out};
      r.attrs.set("shape", shape);
      r.attrs.set("__layout_helper", int64_t{1});
      g.nodes[i].inputs[k] = out;
      g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i), std::move(r));
      ++i;
    }
  }
}

void remap_axes_to_stored(const ir::Graph& g, ir::Node& n) {
  int rank = g.tensor(n.inputs.at(0)).rank();
  const std::string& op = n.op;
  if (op == "Concat" || op == "Split" || op == "Gather") {
    remap_int(n, "axis", 0, rank);
  } else if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    remap_int(n, "axis", g.opset >= 13 ? -1 : 1, rank);
  } else if (op == "ArgMax" || op == "ArgMin") {
    remap_int(n, "axis", 0, rank);
  } else if (op.rfind("Reduce", 0) == 0) {
    std::vector<int64_t> axes = n.attrs.get_ints("axes");
    if (axes.empty() && !n.attrs.get_int("noop_with_empty_axes", 0))
      for (int a = 0; a < rank; ++a) axes.push_back(a);
    n.attrs.set("axes", remap_list(axes, rank, n));
  } else if (op == "Slice") {
    std::vector<int64_t> axes = n.attrs.get_ints("axes");
    if (axes.empty())
      for (size_t a = 0; a < n.attrs.get_ints("starts").size(); ++a) axes.push_back(static_cast<int64_t>(a));
    n.attrs.set("axes", remap_list(axes, rank, n));
  } else if (op == "CumSum") {
    std::vector<int64_t> a = n.attrs.get_ints("axis_list", {0});
    n.attrs.set("axis_list", remap_list({a.empty() ? 0 : a[0]}, rank, n));
  } else if (op == "Pad") {
    std::vector<int64_t> pads = n.attrs.get_ints("pads");
    if (pads.size() == 2 * static_cast<size_t>(rank)) n.attrs.set("pads", permute_per_axis(pads, rank, 2));
  } else if (op == "Tile") {
    std::vector<int64_t> rep = n.attrs.get_ints("repeats");
    if (rep.size() == static_cast<size_t>(rank)) n.attrs.set("repeats", permute_per_axis(rep, rank, 1));
  } else if (op == "ReverseSequence") {
    remap_int(n, "batch_axis", 1, rank);
    remap_int(n, "time_axis", 0, rank);
  }
}

bool moves_no_data(const ir::Shape& shape, const std::vector<int64_t>& perm) {
  std::vector<int64_t> order;
  for (int64_t p : perm)
    if (shape.at(static_cast<size_t>(p)) != 1) order.push_back(p);
  return std::is_sorted(order.begin(), order.end());
}

}  // namespace tigris::passes
