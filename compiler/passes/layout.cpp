// Layout assignment: which rank-3/4 activations are stored channels-last.
//
// Tensors joined by elementwise and axis operators form groups that share one layout.
// Spatial operators vote channels-last for the tensors they read and write, operators
// that need the model's axis order vote for it; a group takes the majority (a tie keeps
// model order, which needs no conversion at the model boundary). Where an operator's need
// differs from its tensor's group, an explicit layout Transpose (named layout_N) converts;
// one that moves no data (only extent-1 axes move) is a Reshape. Then shapes and broadcast
// constants are rewritten in the stored order, and the nodes whose axis attributes (or
// permutation) still speak model order are marked for remap_axes / transpose_permutations.
#include <algorithm>
#include <map>
#include <numeric>

#include "compiler/passes/layout_internal.h"
#include "compiler/passes/ops.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

using ir::Layout;

struct Groups {
  std::vector<ir::TensorId> parent;
  explicit Groups(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  ir::TensorId find(ir::TensorId x) {
    while (parent[static_cast<size_t>(x)] != x)
      x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  }
  void unite(ir::TensorId a, ir::TensorId b) {
    a = find(a);
    b = find(b);
    if (a != b) parent[static_cast<size_t>(std::max(a, b))] = std::min(a, b);
  }
};

bool candidate(const ir::Graph& g, ir::TensorId id) {
  if (id < 0) return false;
  const ir::Tensor& t = g.tensor(id);
  return !t.constant && (t.rank() == 3 || t.rank() == 4);
}

// Tensors of a node that its layout rule ties together, with the rank of its output.
std::vector<ir::TensorId> tied(const ir::Graph& g, const ir::Node& n) {
  std::vector<ir::TensorId> out;
  if (n.outputs.empty() || !candidate(g, n.outputs[0])) return out;
  int rank = g.tensor(n.outputs[0]).rank();
  LayoutRule rule = layout_rule(g, n);
  if (rule != LayoutRule::Elementwise && rule != LayoutRule::Axis) return out;
  size_t inputs = rule == LayoutRule::Axis && n.op != "Concat" ? 1 : n.inputs.size();
  for (size_t i = 0; i < inputs && i < n.inputs.size(); ++i)
    if (candidate(g, n.inputs[i]) && g.tensor(n.inputs[i]).rank() == rank) out.push_back(n.inputs[i]);
  for (ir::TensorId o : n.outputs)
    if (candidate(g, o) && g.tensor(o).rank() == rank) out.push_back(o);
  return out;
}

std::vector<Layout> decide(const ir::Graph& g) {
  Groups groups(g.tensors.size());
  for (const ir::Node& n : g.nodes) {
    std::vector<ir::TensorId> t = tied(g, n);
    for (size_t i = 1; i < t.size(); ++i) groups.unite(t[0], t[i]);
  }
  std::vector<int> votes(g.tensors.size(), 0);  // > 0 channels-last
  for (const ir::Node& n : g.nodes) {
    LayoutRule rule = layout_rule(g, n);
    if (rule == LayoutRule::Spatial) {
      for (ir::TensorId id : {n.inputs[0], n.outputs[0]})
        if (candidate(g, id)) votes[static_cast<size_t>(groups.find(id))] += 1;
    } else if (rule == LayoutRule::ModelOrder && !n.attrs.has("__layout_helper")) {
      for (const auto* list : {&n.inputs, &n.outputs})
        for (ir::TensorId id : *list)
          if (candidate(g, id)) votes[static_cast<size_t>(groups.find(id))] -= 1;
    }
  }
  // A boundary tensor the caller passes channels-last (TFLite) is stored that way whatever
  // the votes: the caller's array is then the stored one.
  for (size_t i = 0; i < g.tensors.size(); ++i)
    if (g.tensors[i].caller_channels_last && candidate(g, static_cast<ir::TensorId>(i)))
      votes[static_cast<size_t>(groups.find(static_cast<ir::TensorId>(i)))] += 1 << 20;
  std::vector<Layout> layout(g.tensors.size(), Layout::Model);
  for (size_t i = 0; i < g.tensors.size(); ++i)
    if (candidate(g, static_cast<ir::TensorId>(i)) &&
        votes[static_cast<size_t>(groups.find(static_cast<ir::TensorId>(i)))] > 0)
      layout[i] = Layout::ChannelsLast;
  return layout;
}

struct Rewriter {
  ir::Graph& g;
  std::vector<Layout>& layout;
  const std::vector<ir::Node>& original;  // for unique names
  std::vector<ir::Node> out;
  std::map<std::pair<ir::TensorId, Layout>, ir::TensorId> converted;
  int counter = 0;

  std::string fresh_name() {
    auto taken = [&](const std::string& name) {
      auto same = [&](const ir::Node& x) { return x.name == name; };
      return std::any_of(original.begin(), original.end(), same) || std::any_of(out.begin(), out.end(), same);
    };
    std::string name;
    do name = "layout_" + std::to_string(counter++);
    while (taken(name));
    return name;
  }

  // A conversion node from `src` (in layout[src]) to `to`, writing `dst`.
  ir::Node conversion(ir::TensorId src, ir::TensorId dst, Layout to) {
    int rank = g.tensor(src).rank();
    std::vector<int64_t> perm =
        to == Layout::ChannelsLast ? ir::to_channels_last_perm(rank) : ir::to_channels_first_perm(rank);
    ir::Node n;
    n.name = fresh_name();
    // Model-order shape of the source decides whether data moves.
    const ir::Shape& s = g.tensor(src).shape;
    if (moves_no_data(s, perm)) {
      n.op = "Reshape";
      n.attrs.set("shape", ir::permute_shape(s, perm));
    } else {
      n.op = "Transpose";
      n.attrs.set("perm", perm);
    }
    n.attrs.set("__model_order_perm", int64_t{1});
    n.inputs = {src};
    n.outputs = {dst};
    return n;
  }

  ir::TensorId as_layout(ir::TensorId src, Layout to) {
    if (!candidate(g, src) || layout[static_cast<size_t>(src)] == to) return src;
    auto key = std::make_pair(src, to);
    if (auto it = converted.find(key); it != converted.end()) return it->second;
    const ir::Tensor t = g.tensor(src);
    ir::TensorId dst = add_activation(g, t.name + (to == Layout::ChannelsLast ? "_nhwc" : "_nchw"), t.dtype, t.shape);
    g.tensor(dst).quant = t.quant;
    layout.push_back(to);
    out.push_back(conversion(src, dst, to));
    converted[key] = dst;
    return dst;
  }

  void node(ir::Node n) {
    LayoutRule rule = layout_rule(g, n);
    if (rule != LayoutRule::Spatial && rule != LayoutRule::ModelOrder) {
      out.push_back(std::move(n));
      return;
    }
    Layout need = rule == LayoutRule::Spatial ? Layout::ChannelsLast : Layout::Model;
    size_t inputs = rule == LayoutRule::Spatial ? 1 : n.inputs.size();
    bool reshape = n.op == "Reshape";
    for (size_t i = 0; i < inputs && i < n.inputs.size(); ++i) {
      ir::TensorId id = n.inputs[i];
      // A Reshape copies bytes: a conversion that moves no data is not needed before it.
      if (reshape && candidate(g, id) && layout[static_cast<size_t>(id)] != need &&
          moves_no_data(g.tensor(id).shape, ir::to_channels_first_perm(g.tensor(id).rank())))
        continue;
      n.inputs[i] = as_layout(id, need);
    }
    std::vector<ir::Node> after;
    size_t outputs = rule == LayoutRule::Spatial ? 1 : n.outputs.size();
    for (size_t i = 0; i < outputs && i < n.outputs.size(); ++i) {
      ir::TensorId id = n.outputs[i];
      if (!candidate(g, id) || layout[static_cast<size_t>(id)] == need) continue;
      const ir::Tensor t = g.tensor(id);
      ir::TensorId tmp =
          add_activation(g, t.name + (need == Layout::ChannelsLast ? "_nhwc" : "_nchw"), t.dtype, t.shape);
      g.tensor(tmp).quant = t.quant;
      layout.push_back(need);
      n.outputs[i] = tmp;
      after.push_back(conversion(tmp, id, layout[static_cast<size_t>(id)]));
    }
    out.push_back(std::move(n));
    for (ir::Node& a : after) out.push_back(std::move(a));
  }
};

void apply_layouts(ir::Graph& g, const std::vector<Layout>& layout) {
  for (ir::Node& n : g.nodes) {
    LayoutRule rule = layout_rule(g, n);
    // Model-order attributes to be rewritten by remap_axes / transpose_permutations.
    if (n.op == "Transpose" && !n.attrs.has("__model_order_perm") && !n.inputs.empty())
      n.attrs.set("__perm_layouts",
                  std::vector<int64_t>{static_cast<int64_t>(layout[static_cast<size_t>(n.inputs[0])]),
                                       static_cast<int64_t>(layout[static_cast<size_t>(n.outputs[0])])});
    if (rule == LayoutRule::Axis && layout[static_cast<size_t>(n.inputs[0])] == Layout::ChannelsLast)
      n.attrs.set("__remap_axes", int64_t{1});
    if (rule == LayoutRule::Elementwise && !n.outputs.empty() &&
        layout[static_cast<size_t>(n.outputs[0])] == Layout::ChannelsLast) {
      for (ir::TensorId& id : n.inputs) {
        if (id < 0 || !g.tensor(id).constant || g.tensor(id).rank() != g.tensor(n.outputs[0]).rank()) continue;
        const ir::Tensor c = g.tensor(id);
        std::vector<int64_t> perm = ir::to_channels_last_perm(c.rank());
        id = add_constant(g, c.name + "_nhwc", c.dtype, ir::permute_shape(c.shape, perm),
                          transpose_data(c.data, c.shape, perm, ir::dtype_size(c.dtype)));
        g.tensor(id).quant = c.quant;
      }
    }
    n.attrs.erase("__model_order_perm");
    n.attrs.erase("__layout_helper");
  }
  for (size_t i = 0; i < layout.size() && i < g.tensors.size(); ++i) {
    if (layout[i] != Layout::ChannelsLast) continue;
    ir::Tensor& t = g.tensors[i];
    t.shape = ir::permute_shape(t.shape, ir::to_channels_last_perm(t.rank()));
    t.layout = Layout::ChannelsLast;
  }
}

}  // namespace

void assign_layouts(ir::Graph& g) {
  expand_broadcast_ranks(g);
  std::vector<Layout> layout = decide(g);
  std::vector<ir::Node> nodes = std::move(g.nodes);
  g.nodes.clear();
  Rewriter rw{g, layout, nodes, {}, {}, 0};
  for (ir::Node& n : nodes) rw.node(std::move(n));
  g.nodes = std::move(rw.out);
  apply_layouts(g, layout);
  g.compact();
}

}  // namespace tigris::passes
