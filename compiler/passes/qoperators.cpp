// expand_qoperators: QOperator models (ONNX Runtime's quantizer, older model zoos) in the
// forms the rest of the pipeline folds.
//   QLinearConv(x, sx, zx, w, sw, zw, sy, zy, B) -> DQ(x) -> Conv(DQ(w), DQ(B at sx*sw)) -> Q(sy, zy)
//   QLinearMatMul(a, sa, za, b, sb, zb, sy, zy)  -> DQ(a) -> MatMul(DQ(b)) -> Q(sy, zy)
// fold_qdq then makes them int8 convolutions / fully connected layers where the int8
// kernels take them (constant symmetric-able weights, per-tensor activations); what it cannot
// fold runs as float between exact Q/DQ (dequantized constants are evaluated).
//   ConvInteger(x, w, zx, zw), MatMulInteger(a, b, za, zb) -> float Conv/MatMul of x - zx and
// w - zw, cast to int32: exact, the products and sums being integers the compiler bounds below
// 2^24 (a larger bound is refused, naming the node).
#include <algorithm>
#include <cmath>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/rewrite.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

using ir::DType;

constexpr double kExactFloatSum = 16777216.0;  // 2^24: float32 holds every integer below it

ir::Attributes with_int(const std::string& name, int64_t v) {
  ir::Attributes a;
  a.set(name, v);
  return a;
}

// Input `i`, or a zero point 0 of `like`'s dtype (ONNX's default) when absent.
ir::TensorId zero_point_or_default(ir::Graph& g, const ir::Node& n, size_t i, ir::TensorId like) {
  ir::TensorId z = input_or_none(n, i);
  if (z >= 0) return z;
  DType t = g.tensor(like).dtype;
  return add_constant(g, n.name + "_zero_point", t, {}, std::vector<uint8_t>(ir::dtype_size(t), 0));
}

// Marks `n` as needing `id` at compile time (its operand is computed at run time).
bool require_constant(ir::Graph& g, ir::Node& n, ir::TensorId id) {
  if (id < 0 || g.tensor(id).constant) return true;
  n.attrs.set("__dynamic_operand", g.tensor(id).name);
  return false;
}

// The computation keeps the original node's name (the rewrite gave it to the first node).
void rename_first(ir::Graph& g, size_t first, size_t last, const std::string& op) {
  for (size_t k = first + 1; k <= last; ++k)
    if (g.nodes[k].op == op) {
      std::string base = g.nodes[first].name;
      g.nodes[first].name = "";
      g.nodes[first].name = g.unique_node_name(base + "_" + g.nodes[first].op);
      g.nodes[k].name = base;
      return;
    }
}

// Spatial attributes of a Conv-like node, for the float or dequantized Conv.
ir::Attributes conv_attrs(const ir::Node& n) {
  ir::Attributes a;
  for (const char* k : {"auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"})
    if (n.attrs.has(k)) a.set(k, n.attrs.all().at(k));
  return a;
}

size_t qlinear_conv(ir::Graph& g, size_t i) {
  ir::Node& n = g.nodes[i];
  if (n.inputs.size() < 8) throw node_error(n, "expects at least 8 inputs");
  ir::TensorId x = n.inputs[0], sx = n.inputs[1], w = n.inputs[3], sw = n.inputs[4], sy = n.inputs[6];
  ir::TensorId b = input_or_none(n, 8);
  for (ir::TensorId c : {w, sw, input_or_none(n, 5), b, b >= 0 ? sx : ir::kNoTensor})
    if (!require_constant(g, n, c)) return i;
  ir::TensorId zx = zero_point_or_default(g, n, 2, x), zw = zero_point_or_default(g, n, 5, w);
  ir::TensorId zy = zero_point_or_default(g, n, 7, n.inputs[0]);
  if (input_or_none(n, 7) < 0) g.tensor(zy).dtype = DType::UInt8;  // y defaults to uint8
  ir::Node copy = g.nodes[i];
  ir::TensorId y = copy.outputs.at(0);
  const ir::Tensor xt = g.tensor(x), wt = g.tensor(w), yt = g.tensor(y);
  Rewrite r(g, i);
  ir::TensorId xf = r.op("DequantizeLinear", {x, sx, zx}, xt.shape, DType::Float32);
  ir::TensorId wf = r.op("DequantizeLinear", {w, sw, zw}, wt.shape, DType::Float32, with_int("axis", 0));
  std::vector<ir::TensorId> conv_in = {xf, wf};
  if (b >= 0) {
    // The bias is in units of sx * sw (per output channel), zero point 0.
    std::vector<float> sxv = const_floats(g.tensor(sx)), swv = const_floats(g.tensor(sw));
    std::vector<float> sb;
    for (float s : swv) sb.push_back(sxv.at(0) * s);
    ir::Shape shape = sb.size() > 1 ? ir::Shape{static_cast<int64_t>(sb.size())} : ir::Shape{};
    ir::TensorId sbt = add_float_constant(g, copy.name + "_bias_scale", shape, sb);
    ir::TensorId zb =
        add_constant(g, copy.name + "_bias_zero_point", DType::Int32, shape, std::vector<uint8_t>(4 * sb.size(), 0));
    conv_in.push_back(r.op("DequantizeLinear", {b, sbt, zb}, g.tensor(b).shape, DType::Float32, with_int("axis", 0)));
  }
  ir::TensorId acc = r.op("Conv", conv_in, yt.shape, DType::Float32, conv_attrs(copy));
  r.op("QuantizeLinear", {acc, sy, zy}, yt.shape, yt.dtype, {}, y);
  size_t last = r.commit();
  rename_first(g, i, last, "Conv");
  return last;
}

size_t qlinear_matmul(ir::Graph& g, size_t i) {
  ir::Node copy = g.nodes[i];
  if (copy.inputs.size() < 8) throw node_error(copy, "expects 8 inputs");
  ir::TensorId a = copy.inputs[0], b = copy.inputs[3], y = copy.outputs.at(0);
  const ir::Tensor at = g.tensor(a), bt = g.tensor(b), yt = g.tensor(y);
  ir::TensorId za = zero_point_or_default(g, copy, 2, a), zb = zero_point_or_default(g, copy, 5, b);
  ir::TensorId zy = zero_point_or_default(g, copy, 7, a);
  if (input_or_none(copy, 7) < 0) g.tensor(zy).dtype = DType::UInt8;
  Rewrite r(g, i);
  ir::TensorId af = r.op("DequantizeLinear", {a, copy.inputs[1], za}, at.shape, DType::Float32);
  // b's scale may be per column: the axis of N, b's last.
  ir::TensorId bf =
      r.op("DequantizeLinear", {b, copy.inputs[4], zb}, bt.shape, DType::Float32, with_int("axis", bt.rank() - 1));
  ir::TensorId acc = r.op("MatMul", {af, bf}, yt.shape, DType::Float32);
  r.op("QuantizeLinear", {acc, copy.inputs[6], zy}, yt.shape, yt.dtype, {}, y);
  size_t last = r.commit();
  rename_first(g, i, last, "MatMul");
  return last;
}

// x - zx as float32 (x uint8/int8; zx a scalar or, for a per-row zero point, broadcast along
// `axis` of x).
ir::TensorId shifted_float(ir::Graph& g, Rewrite& r, ir::TensorId x, ir::TensorId z, int64_t axis) {
  const ir::Tensor xt = g.tensor(x);
  ir::TensorId xf = r.op("Cast", {x}, xt.shape, DType::Float32, with_int("to", 1));
  if (z < 0) return xf;
  const ir::Tensor zt = g.tensor(z);
  ir::Shape zshape = zt.shape;
  if (zt.elements() > 1) {
    zshape.assign(static_cast<size_t>(xt.rank()), 1);
    zshape[static_cast<size_t>(axis)] = zt.elements();
  }
  ir::TensorId zf;
  if (zt.constant) {
    std::vector<float> v = const_floats(zt);
    if (std::all_of(v.begin(), v.end(), [](float f) { return f == 0.0f; })) return xf;
    zf = add_float_constant(g, zt.name + "_float", zshape, v);
  } else {
    zf = r.op("Cast", {z}, zt.shape, DType::Float32, with_int("to", 1));
    if (zshape != zt.shape) {
      ir::Attributes a;
      a.set("shape", zshape);
      zf = r.op("Reshape", {zf}, zshape, DType::Float32, a);
    }
  }
  return r.op("Sub", {xf, zf}, xt.shape, DType::Float32);
}

// Constant w - zw (zero points per tensor or along `axis`) as float32 values.
std::vector<float> shifted_constant(const ir::Graph& g, ir::TensorId w, ir::TensorId z, int64_t axis) {
  const ir::Tensor& wt = g.tensor(w);
  std::vector<float> v = const_floats(wt);
  if (z < 0) return v;
  std::vector<float> zv = const_floats(g.tensor(z));
  int64_t inner = 1;
  for (int64_t d = axis + 1; d < wt.rank(); ++d) inner *= wt.shape[static_cast<size_t>(d)];
  for (size_t k = 0; k < v.size(); ++k)
    v[k] -= zv.size() > 1 ? zv[(k / static_cast<size_t>(inner)) % zv.size()] : zv.at(0);
  return v;
}

size_t conv_integer(ir::Graph& g, size_t i) {
  ir::Node& n = g.nodes[i];
  ir::TensorId x = n.inputs.at(0), w = n.inputs.at(1), zx = input_or_none(n, 2), zw = input_or_none(n, 3);
  if (!require_constant(g, n, w) || !require_constant(g, n, zw)) return i;
  std::vector<float> wv = shifted_constant(g, w, zw, 0);
  // Largest |accumulator|: every |x - zx| <= 255 times the output channel's sum of |w - zw|.
  int64_t per_channel = static_cast<int64_t>(wv.size()) / std::max<int64_t>(1, g.tensor(w).shape.at(0));
  double worst = 0;
  for (size_t c = 0; c < wv.size(); c += static_cast<size_t>(per_channel)) {
    double sum = 0;
    for (int64_t k = 0; k < per_channel; ++k) sum += std::fabs(wv[c + static_cast<size_t>(k)]);
    worst = std::max(worst, 255.0 * sum);
  }
  if (worst >= kExactFloatSum) {
    n.attrs.set("__unsupported", "accumulators may reach " + std::to_string(static_cast<int64_t>(worst)) +
                                     ", beyond 2^24, where the float32 convolution would round");
    return i;
  }
  ir::Node copy = n;
  ir::TensorId y = copy.outputs.at(0);
  const ir::Tensor wt = g.tensor(w), yt = g.tensor(y);
  Rewrite r(g, i);
  ir::TensorId xf = shifted_float(g, r, x, zx, 1);
  ir::TensorId wf = add_float_constant(g, wt.name + "_shifted", wt.shape, wv);
  ir::TensorId acc = r.op("Conv", {xf, wf}, yt.shape, DType::Float32, conv_attrs(copy));
  r.op("Cast", {acc}, yt.shape, DType::Int32, with_int("to", static_cast<int64_t>(DType::Int32)), y);
  size_t last = r.commit();
  rename_first(g, i, last, "Conv");
  return last;
}

size_t matmul_integer(ir::Graph& g, size_t i) {
  ir::Node& n = g.nodes[i];
  ir::TensorId a = n.inputs.at(0), b = n.inputs.at(1), za = input_or_none(n, 2), zb = input_or_none(n, 3);
  const ir::Tensor& bt = g.tensor(b);
  int64_t k = g.tensor(a).shape.empty() ? 1 : g.tensor(a).shape.back();
  double worst = 255.0 * 255.0 * static_cast<double>(k);
  if (bt.constant && (zb < 0 || g.tensor(zb).constant)) {
    // Per column: 255 times its sum of |b - zb|.
    std::vector<float> bv = shifted_constant(g, b, zb, bt.rank() - 1);
    int64_t cols = bt.shape.back();
    std::vector<double> sums(static_cast<size_t>(cols), 0.0);
    for (size_t e = 0; e < bv.size(); ++e) sums[e % static_cast<size_t>(cols)] += std::fabs(bv[e]);
    worst = 0;
    for (double s : sums) worst = std::max(worst, 255.0 * s);
  }
  if (worst >= kExactFloatSum) {
    n.attrs.set("__unsupported", "accumulators may reach " + std::to_string(static_cast<int64_t>(worst)) +
                                     ", beyond 2^24, where the float32 product would round");
    return i;
  }
  ir::Node copy = n;
  ir::TensorId y = copy.outputs.at(0);
  const ir::Tensor yt = g.tensor(y), at = g.tensor(a);
  Rewrite r(g, i);
  // a's zero point may be per row (axis rank - 2), b's per column (its last axis).
  ir::TensorId af = shifted_float(g, r, a, za, std::max<int64_t>(0, at.rank() - 2));
  ir::TensorId bf;
  if (g.tensor(b).constant && (zb < 0 || g.tensor(zb).constant)) {
    bf = add_float_constant(g, g.tensor(b).name + "_shifted", g.tensor(b).shape,
                            shifted_constant(g, b, zb, g.tensor(b).rank() - 1));
  } else {
    bf = shifted_float(g, r, b, zb, g.tensor(b).rank() - 1);
  }
  ir::TensorId acc = r.op("MatMul", {af, bf}, yt.shape, DType::Float32);
  r.op("Cast", {acc}, yt.shape, DType::Int32, with_int("to", static_cast<int64_t>(DType::Int32)), y);
  size_t last = r.commit();
  rename_first(g, i, last, "MatMul");
  return last;
}

}  // namespace

void expand_qoperators(ir::Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (!n.domain.empty() || n.outputs.empty() || n.outputs[0] < 0) continue;
    if (n.op == "QLinearConv")
      i = qlinear_conv(g, i);
    else if (n.op == "QLinearMatMul")
      i = qlinear_matmul(g, i);
    else if (n.op == "ConvInteger")
      i = conv_integer(g, i);
    else if (n.op == "MatMulInteger")
      i = matmul_integer(g, i);
  }
  g.compact();
}

}  // namespace tigris::passes
