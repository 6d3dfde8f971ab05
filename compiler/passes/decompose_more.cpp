// More decompositions (see decompose.cpp): rearrangements and tests of values.
#include <cmath>
#include <limits>

#include "compiler/passes/decompose_internal.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

// Reshape -> Transpose -> Reshape through a rank-6 view.
void rearrange(ir::Graph& g, const ir::Node& n, Rewrite& r, const ir::Shape& view, const std::vector<int64_t>& perm) {
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  ir::DType t = g.tensor(x).dtype;
  ir::TensorId v = r.op("Reshape", {x}, view, t, attr("shape", view));
  ir::TensorId p = r.op("Transpose", {v}, ir::permute_shape(view, perm), t, attr("perm", perm));
  r.op_like("Reshape", {p}, y, attr("shape", g.tensor(y).shape), y);
}

bool depth_to_space(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  const ir::Shape& s = g.tensor(n.inputs[0]).shape;
  int64_t b = n.attrs.get_int("blocksize", 0);
  if (s.size() != 4 || b < 1 || s[1] % (b * b) != 0) return false;
  int64_t c = s[1] / (b * b);
  if (n.attrs.get_string("mode", "DCR") == "CRD")
    rearrange(g, n, r, {s[0], c, b, b, s[2], s[3]}, {0, 1, 4, 2, 5, 3});
  else
    rearrange(g, n, r, {s[0], b, b, c, s[2], s[3]}, {0, 3, 4, 1, 5, 2});
  return true;
}

bool space_to_depth(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  const ir::Shape& s = g.tensor(n.inputs[0]).shape;
  int64_t b = n.attrs.get_int("blocksize", 0);
  if (s.size() != 4 || b < 1 || s[2] % b != 0 || s[3] % b != 0) return false;
  rearrange(g, n, r, {s[0], s[1], s[2] / b, b, s[3] / b, b}, {0, 3, 5, 1, 2, 4});
  return true;
}

ir::TensorId compare(ir::Graph& g, Rewrite& r, const char* op, ir::TensorId x, ir::TensorId c) {
  return r.op(op, {x, c}, g.tensor(x).shape, ir::DType::Bool);
}

ir::TensorId constant_like(ir::Graph& g, ir::TensorId x, double v) {
  return add_constant(g, g.tensor(x).name + "_k", g.tensor(x).dtype, {}, encode(g.tensor(x).dtype, {v}));
}

bool sign(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  ir::TensorId zero = constant_like(g, x, 0);
  ir::Attributes to = attr("to", static_cast<int64_t>(g.tensor(x).dtype));
  ir::TensorId pos = r.op_like("Cast", {compare(g, r, "Greater", x, zero)}, x, to);
  ir::TensorId neg = r.op_like("Cast", {compare(g, r, "Less", x, zero)}, x, to);
  r.op_like("Sub", {pos, neg}, y, {}, y);
  return true;
}

bool is_nan(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  r.op_like("Not", {compare(g, r, "Equal", x, x)}, y, {}, y);
  return true;
}

bool is_inf(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (g.tensor(x).dtype != ir::DType::Float32) return false;
  bool pos = n.attrs.get_int("detect_positive", 1) != 0, neg = n.attrs.get_int("detect_negative", 1) != 0;
  const double inf = std::numeric_limits<double>::infinity();
  if (pos && neg) {
    ir::TensorId p = compare(g, r, "Equal", x, constant_like(g, x, inf));
    ir::TensorId m = compare(g, r, "Equal", x, constant_like(g, x, -inf));
    r.op_like("Or", {p, m}, y, {}, y);
  } else {
    r.op_like("Equal", {x, constant_like(g, x, pos ? inf : neg ? -inf : std::nan(""))}, y, {}, y);
  }
  return true;
}

bool shrink(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  if (g.tensor(x).dtype != ir::DType::Float32) return false;
  float lambd = n.attrs.get_float("lambd", 0.5f), bias = n.attrs.get_float("bias", 0.0f);
  ir::TensorId hi = r.op_like(
      "Where", {compare(g, r, "Greater", x, r.scalar(lambd)), r.op_like("Sub", {x, r.scalar(bias)}, x), r.scalar(0.0f)},
      x);
  r.op_like("Where", {compare(g, r, "Less", x, r.scalar(-lambd)), r.op_like("Add", {x, r.scalar(bias)}, x), hi}, y, {},
            y);
  return true;
}

// A 1-D ConvTranspose as a 2-D one over [N, C, 1, L].
bool conv_transpose_1d(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (g.tensor(n.inputs[0]).rank() != 3 || n.inputs.size() < 2 || !is_const(g, n.inputs[1])) return false;
  ir::TensorId x = n.inputs[0], y = n.outputs[0];
  ir::Shape xs = g.tensor(x).shape, ys = g.tensor(y).shape;
  ir::Shape x4 = {xs[0], xs[1], 1, xs[2]}, y4 = {ys[0], ys[1], 1, ys[2]};
  const ir::Tensor w = g.tensor(n.inputs[1]);
  ir::TensorId w4 = add_constant(g, w.name + "_2d", w.dtype, {w.shape[0], w.shape[1], 1, w.shape[2]}, w.data);
  ir::Attributes a = n.attrs;
  auto widen = [&](const char* name, int64_t one) {
    if (!a.has(name)) return;
    std::vector<int64_t> v = a.get_ints(name), out;
    if (std::string(name) == "pads" && v.size() == 2)
      out = {0, v[0], 0, v[1]};
    else if (v.size() == 1)
      out = {one, v[0]};
    a.set(name, out);
  };
  widen("kernel_shape", 1);
  widen("strides", 1);
  widen("dilations", 1);
  widen("output_padding", 0);
  widen("output_shape", 1);
  widen("pads", 0);
  ir::TensorId xr = r.op("Reshape", {x}, x4, g.tensor(x).dtype, attr("shape", x4));
  std::vector<ir::TensorId> ins = {xr, w4};
  if (n.inputs.size() > 2) ins.push_back(n.inputs[2]);
  ir::TensorId c = r.op("ConvTranspose", ins, y4, g.tensor(y).dtype, a);
  r.op_like("Reshape", {c}, y, attr("shape", ys), y);
  return true;
}

}  // namespace

void add_more_decompositions(std::map<std::string, DecomposeFn>& t) {
  t["DepthToSpace"] = depth_to_space;
  t["SpaceToDepth"] = space_to_depth;
  t["Sign"] = sign;
  t["IsNaN"] = is_nan;
  t["IsInf"] = is_inf;
  t["Shrink"] = shrink;
  t["ConvTranspose"] = conv_transpose_1d;
}

}  // namespace tigris::passes
