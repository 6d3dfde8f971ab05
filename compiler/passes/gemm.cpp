// Gemm to its canonical form Gemm(A[M,K], W[N,K] constant, bias[N] constant): alpha, beta,
// transA, transB folded; MatMul with a constant weight becomes Gemm, batched ones reshaped.
#include <algorithm>
#include <map>
#include <optional>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/rewrite.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

// Insert a node before position `at`; returns its output tensor.
ir::TensorId insert_node(ir::Graph& g, size_t at, const std::string& op, std::vector<ir::TensorId> inputs,
                         const ir::Shape& out_shape, ir::DType dtype, const std::string& base,
                         ir::Attributes attrs = {}) {
  ir::TensorId out = add_activation(g, base, dtype, out_shape);
  ir::Node n;
  n.name = g.unique_node_name(base);
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = {out};
  n.attrs = std::move(attrs);
  g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(at), std::move(n));
  return out;
}

// The fused clamp a folded QDQ operator carries ("fused_clip", "fused_activation"), moved to `to`.
void keep_fused(const ir::Attributes& from, ir::Attributes& to) {
  for (const char* a : {"fused_clip", "fused_activation"})
    if (from.has(a)) to.set(a, from.all().at(a));
}

ir::Attributes perm_attr(std::vector<int64_t> perm) {
  ir::Attributes a;
  a.set("perm", std::move(perm));
  return a;
}

// Weights a Gemm can take: float32, or int8 quantized (QDQ folded) when not scaled.
bool gemm_weight_type(const ir::Tensor& b, float alpha) {
  return b.dtype == ir::DType::Float32 || (b.dtype == ir::DType::Int8 && b.quant && alpha == 1.0f);
}

// int8 B[K,N] -> W[N,K]: the per-channel axis (output columns, 1) becomes 0.
ir::TensorId transposed_int8_weight(ir::Graph& g, ir::TensorId b) {
  const ir::Tensor bt = g.tensor(b);
  ir::TensorId w = add_constant(g, bt.name + "_gemm", bt.dtype, {bt.shape[1], bt.shape[0]},
                                transpose_data(bt.data, bt.shape, {1, 0}, 1));
  ir::QuantParam q = *bt.quant;
  if (q.per_channel()) q.axis = q.axis == 1 ? 0 : 1;
  g.tensor(w).quant = q;
  return w;
}

// W[N,K] from B (constant), scaled by alpha.
ir::TensorId gemm_weight(ir::Graph& g, ir::TensorId b, bool trans_b, float alpha) {
  if (trans_b && alpha == 1.0f) return b;  // already [N, K]
  if (g.tensor(b).dtype == ir::DType::Int8) return transposed_int8_weight(g, b);
  const ir::Tensor& bt = g.tensor(b);
  std::vector<float> w = const_floats(bt);
  ir::Shape shape = bt.shape;
  if (!trans_b) {
    std::vector<uint8_t> moved = transpose_data(encode_floats(w), shape, {1, 0}, 4);
    w.assign(reinterpret_cast<const float*>(moved.data()), reinterpret_cast<const float*>(moved.data()) + w.size());
    shape = {shape[1], shape[0]};
  }
  if (alpha != 1.0f)
    for (float& v : w) v *= alpha;
  return add_float_constant(g, bt.name + "_gemm", shape, w);
}

// bias[N] when C broadcasts along rows only (scalar, [N], [1,N]); else nullopt.
std::optional<ir::TensorId> gemm_bias(ir::Graph& g, ir::TensorId c, int64_t n_out, float beta) {
  const ir::Tensor& ct = g.tensor(c);
  int64_t count = ct.elements();
  bool per_column = count == n_out && (ct.rank() == 1 || (ct.rank() == 2 && ct.shape[0] == 1));
  // An int32 bias (a folded QDQ bias, or TFLite's, whose record the kernels never read) already
  // has one value per column.
  if (ct.constant && ct.dtype == ir::DType::Int32 && per_column && beta == 1.0f) {
    if (ct.rank() == 1) return c;
    ir::TensorId b = add_constant(g, ct.name + "_bias", ir::DType::Int32, {n_out}, ct.data);
    g.tensor(b).quant = g.tensor(c).quant;
    return b;
  }
  if (!ct.constant || ct.dtype != ir::DType::Float32) return std::nullopt;
  if (count != 1 && !per_column) return std::nullopt;
  std::vector<float> v = const_floats(ct);
  std::vector<float> bias(static_cast<size_t>(n_out));
  for (int64_t i = 0; i < n_out; ++i) bias[static_cast<size_t>(i)] = beta * v[count == 1 ? 0 : static_cast<size_t>(i)];
  return add_float_constant(g, ct.name + "_bias", {n_out}, bias);
}

// Gemm with a weight computed at run time: [Transpose], MatMul, [Mul alpha], [Add beta*C].
size_t gemm_as_matmul(ir::Graph& g, size_t i) {
  ir::Node n = g.nodes[i];
  float alpha = n.attrs.get_float("alpha", 1.0f), beta = n.attrs.get_float("beta", 1.0f);
  ir::TensorId a = n.inputs[0], b = n.inputs[1], c = input_or_none(n, 2), y = n.outputs[0];
  ir::DType dtype = g.tensor(y).dtype;
  Rewrite r(g, i);
  auto transposed = [&](ir::TensorId t) {
    ir::Shape s = g.tensor(t).shape;
    return r.op("Transpose", {t}, {s[1], s[0]}, g.tensor(t).dtype, perm_attr({1, 0}));
  };
  if (n.attrs.get_int("transA", 0)) a = transposed(a);
  if (n.attrs.get_int("transB", 0)) b = transposed(b);
  bool add_c = c >= 0 && beta != 0.0f;
  // A fused activation (TFLite FULLY_CONNECTED's) applies last, as its own node.
  const std::string act = n.attrs.get_string("fused_activation", "");
  ir::TensorId last = act.empty() ? y : ir::kNoTensor;
  ir::TensorId out =
      r.op("MatMul", {a, b}, g.tensor(y).shape, dtype, {}, alpha == 1.0f && !add_c ? last : ir::kNoTensor);
  if (alpha != 1.0f) out = r.op_like("Mul", {out, r.scalar(alpha)}, y, {}, add_c ? ir::kNoTensor : last);
  if (add_c) {
    if (beta != 1.0f) c = r.op_like("Mul", {c, r.scalar(beta)}, c);
    out = r.op_like("Add", {out, c}, y, {}, last);
  }
  if (!act.empty()) r.op_like(act, {out}, y, {}, y);
  return r.commit();
}

// Rewrites node i; returns the index of the last node of its replacement.
// Biases already converted, by (source tensor, beta): Gemms that read one bias share its copy.
using BiasCache = std::map<std::pair<ir::TensorId, float>, ir::TensorId>;

size_t fold_one_gemm(ir::Graph& g, size_t i, BiasCache& biases) {
  ir::Node n = g.nodes[i];
  if (n.inputs.size() < 2) return i;
  float alpha = n.attrs.get_float("alpha", 1.0f), beta = n.attrs.get_float("beta", 1.0f);
  bool trans_a = n.attrs.get_int("transA", 0) != 0, trans_b = n.attrs.get_int("transB", 0) != 0;
  ir::TensorId a = n.inputs[0], b = n.inputs[1], c = input_or_none(n, 2);
  ir::TensorId y = n.outputs[0];
  const ir::Tensor yt = g.tensor(y);  // a copy: adding tensors below moves the vector
  if (!is_const(g, b)) return gemm_as_matmul(g, i);
  if (!gemm_weight_type(g.tensor(b), alpha) || g.tensor(b).rank() != 2) return i;
  size_t at = i;
  if (trans_a) {
    const ir::Shape& as = g.tensor(a).shape;
    a = insert_node(g, at++, "Transpose", {a}, {as[1], as[0]}, g.tensor(a).dtype, n.name + "_transA",
                    perm_attr({1, 0}));
  }
  ir::TensorId w = gemm_weight(g, b, trans_b, alpha);
  std::optional<ir::TensorId> bias;
  if (c >= 0 && beta != 0.0f) {
    auto hit = biases.find({c, beta});
    if (hit != biases.end() && g.tensor(hit->second).elements() == yt.shape[1]) {
      bias = hit->second;
    } else {
      bias = gemm_bias(g, c, yt.shape[1], beta);
      if (bias) biases[{c, beta}] = *bias;
    }
  }
  ir::Node gemm;
  gemm.name = n.name;
  gemm.op = "Gemm";
  gemm.inputs = {a, w};
  if (bias) gemm.inputs.push_back(*bias);
  gemm.attrs.set("transB", int64_t{1});
  if (c < 0 || beta == 0.0f || bias) {
    keep_fused(n.attrs, gemm.attrs);
    gemm.outputs = {y};
    g.nodes[at] = gemm;
    return at;
  }
  // C is a full matrix (or computed at run time): Gemm, then Add(beta * C).
  ir::TensorId mid = add_activation(g, yt.name + "_gemm", yt.dtype, yt.shape);
  gemm.outputs = {mid};
  ir::TensorId addend = c;
  if (beta != 1.0f) {
    if (!is_const(g, c)) {
      ir::TensorId s = add_float_constant(g, n.name + "_beta", {}, {beta});
      addend = insert_node(g, at++, "Mul", {c, s}, g.tensor(c).shape, g.tensor(c).dtype, n.name + "_betaC");
    } else {
      std::vector<float> v = const_floats(g.tensor(c));
      for (float& x : v) x *= beta;
      addend = add_float_constant(g, g.tensor(c).name + "_beta", g.tensor(c).shape, v);
    }
  }
  g.nodes[at] = gemm;
  ir::Node add;
  add.name = g.unique_node_name(n.name + "_C");
  add.op = "Add";
  add.inputs = {mid, addend};
  add.outputs = {y};
  keep_fused(n.attrs, add.attrs);
  g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(at + 1), add);
  return at + 1;
}

}  // namespace

void fold_gemm_scalars(ir::Graph& g) {
  BiasCache biases;
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].op == "Gemm" && g.nodes[i].domain.empty()) i = fold_one_gemm(g, i, biases);
  g.compact();
}

void matmul_to_gemm(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if (n.op != "MatMul" || !n.domain.empty() || n.inputs.size() != 2) continue;
    const ir::Tensor& a = g.tensor(n.inputs[0]);
    const ir::Tensor& b = g.tensor(n.inputs[1]);
    if (!b.constant || !gemm_weight_type(b, 1.0f) || b.rank() != 2 || a.rank() != 2 || a.constant) continue;
    n.inputs[1] = gemm_weight(g, n.inputs[1], false, 1.0f);
    n.op = "Gemm";
    ir::Attributes attrs;
    keep_fused(n.attrs, attrs);
    n.attrs = attrs;
    n.attrs.set("transB", int64_t{1});
  }
  g.compact();
}

void lower_batched_matmul(ir::Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node n = g.nodes[i];
    if (n.op != "MatMul" || !n.domain.empty() || n.inputs.size() != 2) continue;
    const ir::Tensor& a = g.tensor(n.inputs[0]);
    const ir::Tensor& b = g.tensor(n.inputs[1]);
    if (!b.constant || !gemm_weight_type(b, 1.0f) || b.rank() != 2 || a.constant || a.rank() < 1) continue;
    int64_t k = a.shape.back(), rows = a.elements() / std::max<int64_t>(k, 1), cols = b.shape[1];
    ir::TensorId y = n.outputs[0];
    ir::Attributes rs;
    rs.set("shape", ir::Shape{rows, k});
    std::optional<ir::QuantParam> aq = a.quant;  // int8 (QDQ folded): the reshapes keep the quantization
    ir::TensorId a2 = insert_node(g, i, "Reshape", {n.inputs[0]}, {rows, k}, a.dtype, n.name + "_rows", rs);
    g.tensor(a2).quant = aq;
    ir::TensorId w = gemm_weight(g, n.inputs[1], false, 1.0f);
    ir::Node gemm;
    gemm.name = n.name;
    gemm.op = "Gemm";
    gemm.inputs = {a2, w};
    gemm.attrs.set("transB", int64_t{1});
    keep_fused(n.attrs, gemm.attrs);
    gemm.outputs = {add_activation(g, g.tensor(y).name + "_rows", g.tensor(y).dtype, {rows, cols})};
    g.tensor(gemm.outputs[0]).quant = g.tensor(y).quant;
    ir::Node back;
    back.name = g.unique_node_name(n.name + "_unrows");
    back.op = "Reshape";
    back.inputs = {gemm.outputs[0]};
    back.outputs = {y};
    back.attrs.set("shape", g.tensor(y).shape);
    g.nodes[i + 1] = gemm;
    g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i + 2), back);
    i += 2;
  }
  g.compact();
}

}  // namespace tigris::passes
