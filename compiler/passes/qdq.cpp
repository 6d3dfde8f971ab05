// fold_qdq: QuantizeLinear / DequantizeLinear pairs of a QDQ ONNX model -> quantized tensors.
//
// A QDQ model computes in float between DequantizeLinear (DQ) and QuantizeLinear (Q) nodes;
// the quantized graph is what the int8 kernels run. The pass:
//   1. constant DQ (int8/uint8 weights, int32 biases) -> a quantized constant;
//   2. uint8 activations -> int8 (zero point moved by 128: the same real values);
//   3. an operator whose data operands are all dequantized values and whose only reader is
//      a Q reads the quantized tensors and writes the Q's output (the Q and DQ disappear);
//      a Relu or constant Clip between a Conv, Gemm, MatMul, Add, Sub or Mul and its Q (PyTorch's
//      fused ConvReLU, LinearReLU, add_relu) becomes that operator's fused clamp: Q(relu(x)) is
//      clamp(Q(x), Q(0)) exactly, rounding being monotone;
//   3b. an elementwise op with no int8 kernel (HardSigmoid, Exp, Erf...) between the DQ of one
//      value and its Q becomes a lookup table (IR "Table", plan op TABLE): DequantizeLinear of
//      each of the 256 int8 values, the op on the float kernels, QuantizeLinear;
//   4. a Clip that keeps its input's quantization, after a Conv, Gemm or Add that only it
//      reads, folds into that operator as "fused_clip" (the int8 kernels' clamp);
//   5. a float32 model input read only by a Q, and a model output written by a DQ, become
//      the quantized tensors with the declared dtype float32 (tigris_input_write and
//      tigris_output_read convert);
//   6. the Q and DQ left (float sections) become Casts, which the int8 dispatcher runs;
//   7. those that cannot (constant data, run-time or per-axis parameters, data that is not
//      int8-quantized) are evaluated or computed in float as the specification writes them
//      (expand_remaining).
// Constant operands are normalized on the way: a weight whose zero point is not 0 is stored
// as w - zero point when that fits int8 (the same real values); a bias is rescaled to the
// scale the int8 kernels give it (input scale x weight scale) with its zero point removed; a
// mean (GlobalAveragePool, ReduceMean, AveragePool) that keeps its quantization rounds the
// exact average, as the specification's float mean then QuantizeLinear does.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "compiler/passes/int8_tables.h"
#include "compiler/passes/ops.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/rewrite.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

bool is_q(const ir::Node& n) { return n.domain.empty() && n.op == "QuantizeLinear"; }
bool is_dq(const ir::Node& n) { return n.domain.empty() && n.op == "DequantizeLinear"; }

// Operators whose int8 form follows TFLite's: every data operand and the output quantized.
bool quantizable(const ir::Node& n) {
  static const char* ops[] = {
      "Conv",        "Gemm",    "MatMul",  "Add",        "Sub",       "Mul",       "GlobalAveragePool",
      "AveragePool", "MaxPool", "Flatten", "Reshape",    "Concat",    "Relu",      "Sigmoid",
      "Tanh",        "Softmax", "Max",     "Min",        "Clip",      "Squeeze",   "Unsqueeze",
      "Transpose",   "Pad",     "Resize",  "ReduceMean", "HardSwish", "LeakyRelu", "GlobalMaxPool",
      "Slice"};
  if (!n.domain.empty()) return false;
  for (const char* op : ops)
    if (n.op == op) return true;
  return false;
}

// Inputs of `n` that carry data (the others are parameters: Clip bounds, Reshape shape...).
std::vector<size_t> data_inputs(const ir::Node& n) {
  if (n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul") return {0};
  if (n.op == "Add" || n.op == "Sub" || n.op == "Mul" || n.op == "Max" || n.op == "Min" || n.op == "Concat") {
    std::vector<size_t> all;
    for (size_t i = 0; i < n.inputs.size(); ++i) all.push_back(i);
    return all;
  }
  return {0};
}

// (scale, zero point, uint8) of a Q/DQ node from its constant operands; nullopt when they
// are computed at run time.
struct QdqParams {
  ir::QuantParam q;
  bool uint8 = false;
};

std::optional<QdqParams> params_of(const ir::Graph& g, const ir::Node& n) {
  ir::TensorId s = input_or_none(n, 1), z = input_or_none(n, 2);
  if (s < 0 || !is_const(g, s) || (z >= 0 && !is_const(g, z))) return std::nullopt;
  QdqParams p;
  p.q.scales = const_floats(g.tensor(s));
  if (p.q.scales.empty()) return std::nullopt;
  for (float v : p.q.scales)
    if (!(v > 0.0f) || !std::isfinite(v)) throw node_error(n, "scale that is not positive and finite");
  if (z >= 0) {
    for (int64_t v : const_ints(g.tensor(z))) p.q.zero_points.push_back(static_cast<int32_t>(v));
    p.uint8 = g.tensor(z).dtype == ir::DType::UInt8;
  } else {
    p.q.zero_points.assign(p.q.scales.size(), 0);
    // ONNX: no zero point -> a uint8 output (Q), the input's type (DQ).
    p.uint8 = is_q(n) || g.tensor(n.inputs.at(0)).dtype == ir::DType::UInt8;
  }
  if (p.q.zero_points.size() != p.q.scales.size()) return std::nullopt;
  if (p.q.scales.size() > 1) p.q.axis = static_cast<int>(n.attrs.get_int("axis", 1));
  if (p.uint8)
    for (int32_t& zp : p.q.zero_points) zp -= 128;
  return p;
}

// Operators whose int8 kernels clamp their output (a fused activation).
bool clamps(const ir::Node& n) {
  return n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul" || n.op == "Add" || n.op == "Sub" || n.op == "Mul";
}

bool is_mean(const ir::Node& n) { return n.op == "GlobalAveragePool" || n.op == "ReduceMean" || n.op == "AveragePool"; }

// Clip bounds when constant (opset 11+ operands, or the older attributes).
std::optional<std::vector<float>> clip_bounds(const ir::Graph& g, const ir::Node& c) {
  float lo = c.attrs.get_float("min", -INFINITY), hi = c.attrs.get_float("max", INFINITY);
  ir::TensorId lo_id = input_or_none(c, 1), hi_id = input_or_none(c, 2);
  if ((lo_id >= 0 && !is_const(g, lo_id)) || (hi_id >= 0 && !is_const(g, hi_id))) return std::nullopt;
  if (lo_id >= 0) lo = std::max(lo, const_floats(g.tensor(lo_id)).at(0));
  if (hi_id >= 0) hi = std::min(hi, const_floats(g.tensor(hi_id)).at(0));
  return std::vector<float>{lo, hi};
}

// Quantized constant `data` (int8 bytes, one zero point per channel along `axis` of `shape`)
// minus its zero points, when every value still fits int8.
std::optional<std::vector<uint8_t>> without_zero_point(const std::vector<uint8_t>& data, const ir::Shape& shape,
                                                       const ir::QuantParam& q) {
  size_t channels = q.zero_points.size();
  int64_t inner = 1;
  if (channels > 1)
    for (size_t d = static_cast<size_t>(q.axis) + 1; d < shape.size(); ++d) inner *= shape[d];
  std::vector<uint8_t> out(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    size_t c = channels > 1 ? (i / static_cast<size_t>(inner)) % channels : 0;
    int32_t v = static_cast<int8_t>(data[i]) - q.zero_points[c];
    if (v < -128 || v > 127) return std::nullopt;
    out[i] = static_cast<uint8_t>(static_cast<int8_t>(v));
  }
  return out;
}

struct Folder {
  ir::Graph& g;
  std::vector<char> remove;
  std::map<ir::TensorId, ir::TensorId> quantized;  // float value -> its quantized tensor

  explicit Folder(ir::Graph& graph) : g(graph), remove(graph.nodes.size(), 0) {}

  // Activation q (uint8 or int8) gets the int8 form of `p`.
  void quantize_activation(ir::TensorId id, const QdqParams& p) {
    ir::Tensor& t = g.tensor(id);
    if (t.dtype == ir::DType::UInt8) {
      t.dtype = ir::DType::Int8;
      // A uint8 boundary stays uint8 for the caller (the runtime moves the zero point).
      if (g.is_input(id) || g.is_output(id)) t.declared_dtype = ir::DType::UInt8;
    }
    t.quant = p.q;
  }

  // `x` is written by a Q that cannot become a quantizing Cast (run-time or per-axis
  // parameters): it stays plain uint8/int8 data, computed in float (expand_remaining).
  bool from_expanded_q(ir::TensorId x) const {
    int p = g.producer(x);
    if (p < 0 || !is_q(g.nodes[static_cast<size_t>(p)])) return false;
    std::optional<QdqParams> q = params_of(g, g.nodes[static_cast<size_t>(p)]);
    return !q || q->q.scales.size() != 1;
  }

  // Step 1 and the activation DQs: record every dequantized value.
  void record_dequantized() {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      const ir::Node& n = g.nodes[i];
      if (!is_dq(n) || n.inputs.empty()) continue;
      std::optional<QdqParams> p = params_of(g, n);
      if (!p) continue;
      ir::TensorId x = n.inputs[0], y = n.outputs.at(0);
      const ir::Tensor& xt = g.tensor(x);
      if (xt.constant) {
        if (xt.dtype != ir::DType::Int8 && xt.dtype != ir::DType::UInt8 && xt.dtype != ir::DType::Int32) continue;
        std::vector<uint8_t> data = xt.data;
        ir::DType dt = xt.dtype;
        if (dt == ir::DType::UInt8) {
          for (uint8_t& b : data) b ^= 0x80;  // u - 128 in two's complement
          dt = ir::DType::Int8;
        }
        ir::QuantParam q = p->q;
        if (q.per_channel() && (q.axis < 0 || q.axis >= xt.rank())) throw node_error(n, "axis out of range");
        bool zero = std::all_of(q.zero_points.begin(), q.zero_points.end(), [](int32_t z) { return z == 0; });
        if (dt == ir::DType::Int8 && !zero) {
          if (std::optional<std::vector<uint8_t>> moved = without_zero_point(data, xt.shape, q)) {
            data = std::move(*moved);
            q.zero_points.assign(q.zero_points.size(), 0);
          }
        }
        ir::TensorId c = add_constant(g, xt.name + "_q", dt, g.tensor(x).shape, std::move(data));
        g.tensor(c).quant = q;
        quantized[y] = c;
      } else if (p->q.scales.size() == 1 && !from_expanded_q(x)) {
        quantize_activation(x, *p);
        quantized[y] = x;
      }
    }
  }

  // The Q node that is the only reader of `y`, or -1.
  int only_q_reader(ir::TensorId y) const {
    if (g.is_output(y)) return -1;
    std::vector<int> readers = g.consumers(y);
    if (readers.size() != 1 || !is_q(g.nodes[static_cast<size_t>(readers[0])])) return -1;
    const ir::Node& q = g.nodes[static_cast<size_t>(readers[0])];
    std::optional<QdqParams> p = params_of(g, q);
    if (!p || p->q.scales.size() != 1) return -1;
    return readers[0];
  }

  // The Relu or constant-bound Clip that is the only reader of `y` and whose only reader is
  // a Q, or -1.
  int activation_before_q(ir::TensorId y) const {
    if (g.is_output(y)) return -1;
    std::vector<int> readers = g.consumers(y);
    if (readers.size() != 1) return -1;
    const ir::Node& a = g.nodes[static_cast<size_t>(readers[0])];
    if (!a.domain.empty() || (a.op != "Relu" && a.op != "Clip") || a.outputs.size() != 1) return -1;
    if (a.op == "Clip" && !clip_bounds(g, a)) return -1;
    return only_q_reader(a.outputs[0]) >= 0 ? readers[0] : -1;
  }

  // The int32 bias of conv-like `n` (input 2) in the units the int8 kernels add it in:
  // input scale x weight scale of its channel, zero point 0. Returns the tensor to read.
  ir::TensorId kernel_bias(const ir::Node& n, ir::TensorId b) {
    const ir::Tensor& bt = g.tensor(b);
    const ir::QuantParam* in = g.tensor(n.inputs[0]).quant ? &*g.tensor(n.inputs[0]).quant : nullptr;
    const ir::QuantParam* w = g.tensor(n.inputs[1]).quant ? &*g.tensor(n.inputs[1]).quant : nullptr;
    if (!bt.quant || !in || !w || bt.dtype != ir::DType::Int32) return b;
    std::vector<double> v = const_doubles(bt);
    const ir::QuantParam& bq = *bt.quant;
    bool changed = false;
    ir::QuantParam want;
    for (size_t c = 0; c < v.size(); ++c) {
      double ws = w->scales[w->scales.size() > 1 ? c % w->scales.size() : 0];
      double unit = static_cast<double>(in->scales[0]) * ws;
      size_t k = bq.scales.size() > 1 ? c % bq.scales.size() : 0;
      double scaled = (v[c] - bq.zero_points[k]) * static_cast<double>(bq.scales[k]) / unit;
      double r = std::nearbyint(scaled);
      // Scales equal to float precision and no zero point: the stored values stand.
      changed = changed || bq.zero_points[k] != 0 || std::fabs(scaled - v[c]) > 1e-6 * std::max(1.0, std::fabs(v[c]));
      if (std::fabs(r) > 2147483647.0) throw node_error(n, "bias that overflows int32 at the kernels' scale");
      v[c] = r;
      want.scales.push_back(static_cast<float>(unit));
      want.zero_points.push_back(0);
    }
    if (!changed) return b;
    want.axis = want.scales.size() > 1 ? 0 : -1;
    ir::TensorId nb = add_constant(g, bt.name + "_k", ir::DType::Int32, bt.shape, encode(ir::DType::Int32, v));
    g.tensor(nb).quant = want;
    return nb;
  }

  // Step 3: quantized operators.
  void fold_operators() {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (remove[i]) continue;
      ir::Node& n = g.nodes[i];
      if (!quantizable(n) || n.outputs.size() != 1) {
        fold_to_table(i);
        continue;
      }
      std::vector<size_t> data = data_inputs(n);
      bool all = true;
      for (size_t k : data) all = all && k < n.inputs.size() && quantized.count(n.inputs[k]);
      if (n.op == "Conv" || n.op == "Gemm" || n.op == "MatMul") {  // weights (and bias) dequantized constants
        for (size_t k = 1; k < n.inputs.size(); ++k)
          all = all && n.inputs[k] >= 0 && quantized.count(n.inputs[k]) && g.tensor(quantized[n.inputs[k]]).constant;
        // The int8 kernels take symmetric weights only, and MatMul as a Gemm (a 2-D weight).
        if (all) {
          const ir::Tensor& w = g.tensor(quantized[n.inputs[1]]);
          for (int32_t z : w.quant->zero_points) all = all && z == 0;
          all = all && (n.op != "MatMul" || w.rank() == 2) && w.dtype == ir::DType::Int8;
        }
      }
      if (!all) continue;
      int act = -1, qi = only_q_reader(n.outputs[0]);
      if (qi < 0 && clamps(n) && !n.attrs.has("fused_clip")) {
        act = activation_before_q(n.outputs[0]);
        if (act >= 0) qi = only_q_reader(g.nodes[static_cast<size_t>(act)].outputs[0]);
      }
      if (qi < 0) continue;
      std::vector<float> clip;
      if (act >= 0) {
        const ir::Node& a = g.nodes[static_cast<size_t>(act)];
        clip = a.op == "Relu" ? std::vector<float>{0.0f, INFINITY} : *clip_bounds(g, a);
        remove[static_cast<size_t>(act)] = 1;
      }
      ir::Node& q = g.nodes[static_cast<size_t>(qi)];
      quantize_activation(q.outputs.at(0), *params_of(g, q));
      ir::Node& m = g.nodes[i];  // (no node was added: the reference is still valid)
      for (size_t k = 0; k < m.inputs.size(); ++k)
        if (m.inputs[k] >= 0 && quantized.count(m.inputs[k])) m.inputs[k] = quantized[m.inputs[k]];
      m.outputs[0] = q.outputs[0];
      if (!clip.empty()) m.attrs.set("fused_clip", clip);
      if ((m.op == "Conv" || m.op == "Gemm") && m.inputs.size() > 2) {
        ir::TensorId b = kernel_bias(m, m.inputs[2]);
        g.nodes[i].inputs[2] = b;
      }
      const ir::Node& f = g.nodes[i];
      if (is_mean(f) && g.tensor(f.inputs[0]).quant == g.tensor(f.outputs[0]).quant)
        g.nodes[i].attrs.set("average_pool_rounding", int64_t{1});
      remove[static_cast<size_t>(qi)] = 1;
    }
  }

  // Step 3b: an elementwise op without an int8 kernel, of one dequantized value, whose only
  // reader is a Q: a lookup table of the specification's arithmetic (int8_tables.h).
  void fold_to_table(size_t i) {
    const ir::Node& n = g.nodes[i];
    if (!n.domain.empty() || n.outputs.size() != 1) return;
    ir::TensorId x = ir::kNoTensor;
    for (ir::TensorId id : n.inputs) {
      if (id < 0) return;
      if (g.tensor(id).constant) continue;
      if (x != ir::kNoTensor) return;
      x = id;
    }
    if (x == ir::kNoTensor || !quantized.count(x) || g.tensor(quantized[x]).constant) return;
    if (layout_rule(g, n) != LayoutRule::Elementwise) return;
    const std::optional<ir::QuantParam> in = g.tensor(quantized[x]).quant;
    const int qi = only_q_reader(n.outputs[0]);
    if (!in || in->per_channel() || qi < 0) return;
    const std::optional<QdqParams> out = params_of(g, g.nodes[static_cast<size_t>(qi)]);
    if (!out || out->q.per_channel()) return;
    std::optional<std::vector<uint8_t>> table = dequantized_op_table(g, static_cast<int>(i), x, *in, out->q);
    if (!table) return;
    const ir::TensorId y = g.nodes[static_cast<size_t>(qi)].outputs.at(0);
    quantize_activation(y, *out);
    ir::Node& m = g.nodes[i];
    m.op = "Table";
    m.inputs = {quantized[x]};
    m.outputs[0] = y;
    m.attrs = {};
    m.attrs.set("table", table_entries(*table));
    remove[static_cast<size_t>(qi)] = 1;
  }

  // Readers of `id` that stay: a DQ whose value nobody reads any more does not count.
  size_t live_readers(ir::TensorId id) const {
    size_t count = 0;
    for (int r : g.consumers(id)) {
      const ir::Node& n = g.nodes[static_cast<size_t>(r)];
      if (remove[static_cast<size_t>(r)]) continue;
      if (is_dq(n) && g.consumers(n.outputs.at(0)).empty() && !g.is_output(n.outputs[0])) continue;
      ++count;
    }
    return count;
  }

  // Step 4: Clip(x) with x written by a clamping operator only for it: the operator
  // requantizes straight to the Clip's output and clamps.
  void fold_clips() {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      ir::Node& c = g.nodes[i];
      if (c.op != "Clip" || remove[i] || c.inputs.empty() || g.tensor(c.outputs.at(0)).dtype != ir::DType::Int8)
        continue;
      ir::TensorId x = c.inputs[0];
      int p = g.producer(x);
      if (p < 0 || live_readers(x) != 1 || g.tensor(x).dtype != ir::DType::Int8 || g.is_output(x)) continue;
      // Exact only when the Clip does not requantize: clamping then commutes with rounding.
      if (g.tensor(x).quant != g.tensor(c.outputs[0]).quant) continue;
      ir::Node& prod = g.nodes[static_cast<size_t>(p)];
      if (prod.op != "Conv" && prod.op != "Gemm" && prod.op != "Add") continue;
      if (prod.attrs.has("fused_clip")) continue;
      float lo = -INFINITY, hi = INFINITY;
      ir::TensorId lo_id = input_or_none(c, 1), hi_id = input_or_none(c, 2);
      if ((lo_id >= 0 && !is_const(g, lo_id)) || (hi_id >= 0 && !is_const(g, hi_id))) continue;
      if (lo_id >= 0) lo = const_floats(g.tensor(lo_id)).at(0);
      if (hi_id >= 0) hi = const_floats(g.tensor(hi_id)).at(0);
      lo = std::max(lo, c.attrs.get_float("min", -INFINITY));
      hi = std::min(hi, c.attrs.get_float("max", INFINITY));
      prod.attrs.set("fused_clip", std::vector<float>{lo, hi});
      prod.outputs[0] = c.outputs[0];
      remove[i] = 1;
    }
  }

  // Step 5: the model's float boundary stays float for the caller.
  void fold_boundaries() {
    for (ir::TensorId& in : g.inputs) {
      std::vector<int> readers = g.consumers(in);
      if (g.tensor(in).dtype != ir::DType::Float32 || readers.size() != 1) continue;
      int qi = readers[0];
      if (!is_q(g.nodes[static_cast<size_t>(qi)]) || remove[static_cast<size_t>(qi)]) continue;
      std::optional<QdqParams> p = params_of(g, g.nodes[static_cast<size_t>(qi)]);
      if (!p || p->q.scales.size() != 1) continue;
      ir::TensorId q = g.nodes[static_cast<size_t>(qi)].outputs.at(0);
      quantize_activation(q, *p);
      swap_names(in, q);
      g.tensor(q).declared_dtype = ir::DType::Float32;
      in = q;
      remove[static_cast<size_t>(qi)] = 1;
    }
    for (ir::TensorId& out : g.outputs) {
      int d = g.producer(out);
      if (d < 0 || !is_dq(g.nodes[static_cast<size_t>(d)]) || remove[static_cast<size_t>(d)]) continue;
      ir::TensorId x = g.nodes[static_cast<size_t>(d)].inputs.at(0);
      if (g.tensor(x).constant || g.is_output(x) || g.is_input(x) || g.tensor(x).dtype != ir::DType::Int8 ||
          !g.tensor(x).quant)
        continue;
      swap_names(out, x);
      g.tensor(x).declared_dtype = ir::DType::Float32;
      out = x;
      // The DQ still feeds any other reader.
      if (g.consumers(g.nodes[static_cast<size_t>(d)].outputs[0]).empty()) remove[static_cast<size_t>(d)] = 1;
    }
  }

  void swap_names(ir::TensorId a, ir::TensorId b) { std::swap(g.tensor(a).name, g.tensor(b).name); }

  // Step 6: what is left converts between float and int8 at run time. A DQ whose output
  // nobody reads any more goes.
  void remaining_to_casts() {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      ir::Node& n = g.nodes[i];
      if (remove[i] || (!is_q(n) && !is_dq(n))) continue;
      if (is_dq(n) && g.consumers(n.outputs.at(0)).empty() && !g.is_output(n.outputs[0])) {
        remove[i] = 1;
        continue;
      }
      std::optional<QdqParams> p = params_of(g, n);
      // Constants, run-time or per-axis parameters, unquantized data: expand_remaining.
      if (!p || p->q.scales.size() != 1 || g.tensor(n.inputs.at(0)).constant) continue;
      if (is_dq(n) && !g.tensor(n.inputs[0]).quant) continue;
      if (is_q(n) && g.tensor(n.inputs[0]).dtype != ir::DType::Float32) continue;
      ir::DType to = is_q(n) ? ir::DType::Int8 : ir::DType::Float32;
      if (is_q(n)) quantize_activation(n.outputs.at(0), *p);
      n.op = "Cast";
      n.inputs.resize(1);
      n.attrs = {};
      n.attrs.set("to", static_cast<int64_t>(to));
    }
  }
};

// ---- Q/DQ that stay: evaluated (constant data) or computed in float as the specification
// writes them. QuantizeLinear: saturate(round_half_even(x / scale) + zero point) is
// Cast(Add(Round(Div(x, scale)), zero point)) (the Cast saturates); DequantizeLinear:
// (x - zero point) * scale is Mul(Sub(Cast(x), zero point), scale). Each is exact in float32:
// x / scale is one rounded division, the rest integers or one rounded product.

// A scale or zero point as float32, shaped to broadcast along `axis` of a rank-`rank` tensor.
ir::TensorId broadcast_param(ir::Graph& g, Rewrite& r, ir::TensorId p, int64_t axis, int64_t rank) {
  const ir::Tensor pt = g.tensor(p);
  ir::Shape shape = pt.shape;
  if (pt.elements() > 1) {
    shape.assign(static_cast<size_t>(rank), 1);
    shape[static_cast<size_t>(axis)] = pt.elements();
  } else {
    shape = {};
  }
  if (pt.constant) return add_float_constant(g, pt.name + "_float", shape, const_floats(pt));
  ir::TensorId f = p;
  if (pt.dtype != ir::DType::Float32) {
    ir::Attributes to;
    to.set("to", int64_t{1});
    f = r.op("Cast", {p}, pt.shape, ir::DType::Float32, to);
  }
  if (shape == pt.shape) return f;
  ir::Attributes rs;
  rs.set("shape", shape);
  return r.op("Reshape", {f}, shape, ir::DType::Float32, rs);
}

// The axis of per-axis parameters (only read when the scale has more than one element).
int64_t qdq_axis(const ir::Graph& g, const ir::Node& n) {
  if (g.tensor(n.inputs.at(1)).elements() <= 1) return 0;
  return normalize_axis(n.attrs.get_int("axis", 1), g.tensor(n.inputs.at(0)).rank(), n);
}

// Constant data through a Q or DQ, as the specification computes it.
std::vector<double> evaluate_qdq(const ir::Graph& g, const ir::Node& n) {
  const ir::Tensor& x = g.tensor(n.inputs[0]);
  std::vector<double> v = const_doubles(x), s = const_doubles(g.tensor(n.inputs[1]));
  ir::TensorId zid = input_or_none(n, 2);
  std::vector<double> z = zid >= 0 ? const_doubles(g.tensor(zid)) : std::vector<double>{0.0};
  int64_t inner = 1;
  if (s.size() > 1)
    for (int64_t d = qdq_axis(g, n) + 1; d < x.rank(); ++d) inner *= x.shape[static_cast<size_t>(d)];
  ir::DType out = g.tensor(n.outputs[0]).dtype;
  double lo = out == ir::DType::Int8 ? -128 : out == ir::DType::Int32 ? -2147483648.0 : 0;
  double hi = out == ir::DType::Int8 ? 127 : out == ir::DType::Int32 ? 2147483647.0 : 255;
  for (size_t i = 0; i < v.size(); ++i) {
    size_t c = s.size() > 1 ? (i / static_cast<size_t>(inner)) % s.size() : 0;
    float scale = static_cast<float>(s[c]);
    double zp = z.size() > 1 ? z[c] : z[0];
    if (is_dq(n))
      v[i] = static_cast<float>(static_cast<float>(v[i] - zp) * scale);
    else
      v[i] = std::clamp(std::nearbyint(static_cast<float>(v[i]) / scale) + zp, lo, hi);
  }
  return v;
}

void expand_remaining(ir::Graph& g) {
  std::vector<std::string> evaluated;  // names of the nodes whose outputs became constants
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node n = g.nodes[i];
    if ((!is_q(n) && !is_dq(n)) || n.inputs.size() < 2 || n.outputs.empty()) continue;
    ir::TensorId x = n.inputs[0], y = n.outputs[0], s = n.inputs[1], z = input_or_none(n, 2);
    if (x < 0 || s < 0) continue;
    bool constant = g.tensor(x).constant && is_const(g, s) && (z < 0 || is_const(g, z));
    if (constant && !g.is_output(y)) {
      ir::Tensor& t = g.tensor(y);
      t.data = encode(t.dtype, evaluate_qdq(g, n));
      t.constant = true;
      t.quant.reset();
      evaluated.push_back(n.name);
      continue;
    }
    const ir::Tensor yt = g.tensor(y), xt = g.tensor(x);
    int64_t axis = qdq_axis(g, n);
    Rewrite r(g, i);
    ir::Attributes to;
    if (is_q(n)) {
      ir::Attributes exact;
      exact.set("exact_division", int64_t{1});
      ir::TensorId q = r.op("Div", {x, broadcast_param(g, r, s, axis, xt.rank())}, xt.shape, ir::DType::Float32, exact);
      q = r.op("Round", {q}, xt.shape, ir::DType::Float32);
      if (z >= 0) q = r.op("Add", {q, broadcast_param(g, r, z, axis, xt.rank())}, xt.shape, ir::DType::Float32);
      to.set("to", static_cast<int64_t>(yt.dtype));
      r.op("Cast", {q}, yt.shape, yt.dtype, to, y);
    } else {
      to.set("to", int64_t{1});
      ir::TensorId d = r.op("Cast", {x}, xt.shape, ir::DType::Float32, to);
      if (z >= 0) d = r.op("Sub", {d, broadcast_param(g, r, z, axis, xt.rank())}, xt.shape, ir::DType::Float32);
      r.op("Mul", {d, broadcast_param(g, r, s, axis, xt.rank())}, yt.shape, ir::DType::Float32, {}, y);
    }
    i = r.commit();
  }
  std::vector<char> drop(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    drop[i] = std::find(evaluated.begin(), evaluated.end(), g.nodes[i].name) != evaluated.end();
  erase_nodes(g, drop);
}

}  // namespace

void fold_qdq(ir::Graph& g) {
  bool any = false;
  for (const ir::Node& n : g.nodes) any = any || is_q(n) || is_dq(n);
  if (!any) return;
  Folder f(g);
  f.record_dequantized();
  f.fold_operators();
  f.fold_clips();
  f.fold_boundaries();
  f.remaining_to_casts();
  erase_nodes(g, f.remove);
  expand_remaining(g);
  g.compact();
}

}  // namespace tigris::passes
