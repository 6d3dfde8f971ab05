// Operators without a kernel of their own, rewritten as sequences of ones that have one.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "compiler/passes/decompose_internal.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/rewrite.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

using Fn = DecomposeFn;

bool is_float(const ir::Graph& g, ir::TensorId id) { return g.tensor(id).dtype == ir::DType::Float32; }

// Reduce variants: elementwise `pre` (may be ""), ReduceSum with the node's axes, then `post`.
Fn reduce_via_sum(const std::string& pre, const std::string& post) {
  return [pre, post](ir::Graph& g, size_t i, Rewrite& r) {
    ir::Node n = g.nodes[i];
    ir::TensorId x = n.inputs[0], y = n.outputs[0];
    if ((pre == "Square" || !post.empty()) && !is_float(g, x)) return false;
    ir::Attributes ra = n.attrs;
    if (pre == "Square")
      x = r.op_like("Mul", {x, x}, x);
    else if (!pre.empty())
      x = r.op_like(pre, {x}, x);
    if (post.empty()) {
      r.op_like("ReduceSum", {x}, y, ra, y);
    } else {
      ir::TensorId s = r.op_like("ReduceSum", {x}, y, ra);
      r.op_like(post, {s}, y, {}, y);
    }
    return true;
  };
}

bool pow_const(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (n.inputs.size() != 2 || !is_const(g, n.inputs[1]) || !is_float(g, n.inputs[0])) return false;
  std::vector<float> e = const_floats(g.tensor(n.inputs[1]));
  if (e.empty() || std::any_of(e.begin(), e.end(), [&](float v) { return v != e[0]; })) return false;
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (g.tensor(x).shape != g.tensor(y).shape) return false;
  if (e[0] == 2.0f)
    r.op_like("Mul", {x, x}, y, {}, y);
  else if (e[0] == 3.0f)
    r.op_like("Mul", {r.op_like("Mul", {x, x}, x), x}, y, {}, y);
  else if (e[0] == 0.5f)
    r.op_like("Sqrt", {x}, y, {}, y);
  else if (e[0] == 1.0f)
    r.op_like("Reshape", {x}, y, attr("shape", g.tensor(y).shape), y);
  else if (e[0] == -1.0f)
    r.op_like("Div", {r.scalar(1.0f), x}, y, {}, y);
  else if (e[0] == -0.5f)
    r.op_like("Rsqrt", {x}, y, {}, y);
  else
    return false;
  return true;
}

bool layer_norm(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (n.outputs.size() < 2 || !is_float(g, n.inputs[0])) return false;
  ir::TensorId x = n.inputs[0];
  int64_t rank = g.tensor(x).rank();
  int64_t axis = normalize_axis(n.attrs.get_int("axis", -1), rank, n);
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
  ir::Shape reduced = g.tensor(x).shape;
  for (int64_t a : axes) reduced[static_cast<size_t>(a)] = 1;
  ir::Attributes ra = attr("axes", axes);
  ra.set("keepdims", int64_t{1});
  ir::TensorId mean_out = n.outputs[1], inv_out = n.outputs.size() > 2 ? n.outputs[2] : ir::kNoTensor;
  ir::TensorId mean = r.op("ReduceMean", {x}, reduced, ir::DType::Float32, ra, mean_out);
  ir::TensorId d = r.op_like("Sub", {x, mean}, x);
  ir::TensorId var = r.op("ReduceMean", {r.op_like("Mul", {d, d}, x)}, reduced, ir::DType::Float32, ra);
  ir::TensorId ve = r.op_like("Add", {var, r.scalar(n.attrs.get_float("epsilon", 1e-5f))}, var);
  ir::TensorId inv = r.op_like("Rsqrt", {ve}, ve, {}, inv_out);
  ir::TensorId norm = r.op_like("Mul", {d, inv}, x);
  bool has_bias = n.inputs.size() > 2 && n.inputs[2] >= 0;
  ir::TensorId scaled = r.op_like("Mul", {norm, n.inputs[1]}, x, {}, has_bias ? ir::kNoTensor : n.outputs[0]);
  if (has_bias) r.op_like("Add", {scaled, n.inputs[2]}, x, {}, n.outputs[0]);
  return true;
}

bool nary_chain(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId y = n.outputs[0];
  if (n.inputs.size() == 2) return false;
  if (n.inputs.size() == 1) {
    r.op_like("Expand", {n.inputs[0]}, y, {}, y);
    return true;
  }
  ir::TensorId acc = n.inputs[0];
  for (size_t k = 1; k < n.inputs.size(); ++k) {
    ir::Shape s = ir::broadcast_shapes(g.tensor(acc).shape, g.tensor(n.inputs[k]).shape);
    acc = r.op(n.op, {acc, n.inputs[k]}, s, g.tensor(y).dtype, {}, k + 1 == n.inputs.size() ? y : ir::kNoTensor);
  }
  return true;
}

bool tile(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  std::vector<int64_t> rep = n.attrs.get_ints("repeats");
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (rep.size() != static_cast<size_t>(g.tensor(x).rank())) return false;
  std::vector<size_t> axes;
  for (size_t a = 0; a < rep.size(); ++a)
    if (rep[a] != 1) axes.push_back(a);
  if (axes.empty() || std::any_of(rep.begin(), rep.end(), [](int64_t v) { return v < 1; })) return false;
  ir::Shape shape = g.tensor(x).shape;
  for (size_t a : axes) {
    shape[a] *= rep[a];
    std::vector<ir::TensorId> copies(static_cast<size_t>(rep[a]), x);
    x = r.op("Concat", copies, shape, g.tensor(y).dtype, attr("axis", static_cast<int64_t>(a)),
             a == axes.back() ? y : ir::kNoTensor);
  }
  return true;
}

bool reciprocal_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (!is_float(g, n.inputs[0])) return false;
  r.op_like("Div", {r.scalar(1.0f), n.inputs[0]}, n.outputs[0], {}, n.outputs[0]);
  return true;
}

bool cast_like_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  int64_t to = static_cast<int64_t>(g.tensor(n.inputs[1]).dtype);
  r.op_like("Cast", {n.inputs[0]}, n.outputs[0], attr("to", to), n.outputs[0]);
  return true;
}

bool xor_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId y = n.outputs[0];
  r.op_like("Not", {r.op_like("Equal", {n.inputs[0], n.inputs[1]}, y)}, y, {}, y);
  return true;
}

bool hard_sigmoid_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (!is_float(g, x)) return false;
  ir::TensorId a = r.op_like("Mul", {x, r.scalar(n.attrs.get_float("alpha", 0.2f))}, x);
  ir::TensorId b = r.op_like("Add", {a, r.scalar(n.attrs.get_float("beta", 0.5f))}, x);
  ir::Attributes c = attr("min", 0.0f);
  c.set("max", 1.0f);
  r.op_like("Clip", {b}, y, c, y);
  return true;
}

bool thresholded_relu_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (!is_float(g, x)) return false;
  ir::TensorId c = r.op("Greater", {x, r.scalar(n.attrs.get_float("alpha", 1.0f))}, g.tensor(x).shape, ir::DType::Bool);
  r.op_like("Where", {c, x, r.scalar(0.0f)}, y, {}, y);
  return true;
}

bool selu_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (!is_float(g, x)) return false;
  ir::TensorId e = r.op_like("Elu", {x}, x, attr("alpha", n.attrs.get_float("alpha", 1.67326319217681884765625f)));
  r.op_like("Mul", {e, r.scalar(n.attrs.get_float("gamma", 1.05070102214813232421875f))}, y, {}, y);
  return true;
}

bool celu_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  float alpha = n.attrs.get_float("alpha", 1.0f);
  if (!is_float(g, x) || alpha == 0.0f) return false;
  ir::TensorId s = r.op_like("Div", {x, r.scalar(alpha)}, x);
  ir::TensorId e = r.op_like("Elu", {s}, x, attr("alpha", 1.0f));
  r.op_like("Mul", {e, r.scalar(alpha)}, y, {}, y);
  return true;
}

bool softplus_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (!is_float(g, x)) return false;
  r.op_like("Log", {r.op_like("Add", {r.op_like("Exp", {x}, x), r.scalar(1.0f)}, x)}, y, {}, y);
  return true;
}

bool softsign_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (!is_float(g, x)) return false;
  r.op_like("Div", {x, r.op_like("Add", {r.op_like("Abs", {x}, x), r.scalar(1.0f)}, x)}, y, {}, y);
  return true;
}

bool tan_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (!is_float(g, x)) return false;
  r.op_like("Div", {r.op_like("Sin", {x}, x), r.op_like("Cos", {x}, x)}, y, {}, y);
  return true;
}

bool mean_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId y = n.outputs[0];
  if (!is_float(g, y)) return false;
  ir::TensorId s = r.op_like("Sum", n.inputs, y);
  r.op_like("Mul", {s, r.scalar(1.0f / static_cast<float>(n.inputs.size()))}, y, {}, y);
  return true;
}

std::map<std::string, Fn> table() {
  std::map<std::string, Fn> t;
  t["Reciprocal"] = reciprocal_rule;
  t["Pow"] = pow_const;
  t["CastLike"] = cast_like_rule;
  t["Xor"] = xor_rule;
  t["ReduceL1"] = reduce_via_sum("Abs", "");
  t["ReduceL2"] = reduce_via_sum("Square", "Sqrt");
  t["ReduceSumSquare"] = reduce_via_sum("Square", "");
  t["ReduceLogSum"] = reduce_via_sum("", "Log");
  t["ReduceLogSumExp"] = reduce_via_sum("Exp", "Log");
  t["HardSigmoid"] = hard_sigmoid_rule;
  t["ThresholdedRelu"] = thresholded_relu_rule;
  t["Selu"] = selu_rule;
  t["Celu"] = celu_rule;
  t["Softplus"] = softplus_rule;
  t["Softsign"] = softsign_rule;
  t["Tan"] = tan_rule;
  t["Mean"] = mean_rule;
  t["Max"] = nary_chain;
  t["Min"] = nary_chain;
  t["Tile"] = tile;
  t["LayerNormalization"] = layer_norm;
  add_more_decompositions(t);
  add_select_decompositions(t);
  add_math_decompositions(t);
  return t;
}

}  // namespace

void decompose_operators(ir::Graph& g) {
  static const std::map<std::string, Fn> rules = table();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (!n.domain.empty() || n.outputs.empty() || n.inputs.empty() || n.attrs.has("__dynamic_operand")) continue;
    if (n.op.rfind("Reduce", 0) == 0 && n.attrs.get_int("noop_with_empty_axes", 0) &&
        n.attrs.get_ints("axes").empty() && n.inputs.size() == 1) {
      ir::Node& m = g.nodes[i];  // reduces nothing: a copy
      m.op = "Reshape";
      m.attrs = {};
      m.attrs.set("shape", g.tensor(m.outputs[0]).shape);
      continue;
    }
    if (n.op == "Mod" && n.attrs.get_int("fmod", 0) == 0) {
      g.nodes[i].op = "FloorMod";
      continue;
    }
    auto it = rules.find(n.op);
    if (it == rules.end()) continue;
    Rewrite r(g, i);
    if (it->second(g, i, r)) i = r.commit();
  }
  g.compact();
}

}  // namespace tigris::passes
