// int8 (quantized) lowering: which tensors the int8 kernels own, weights and biases of
// conv-like ops, their requantization factors and TFLite's activation clamp
// (docs/operators.md §5).
#include <cmath>

#include "compiler/plan/lower_internal.h"
#include "runtime/src/kernels/s8/s8_params.h"

namespace tigris::plan::detail {

bool is_q8(const ir::Graph& g, ir::TensorId id) {
  if (id < 0) return false;
  const ir::Tensor& t = g.tensor(id);
  return t.dtype == ir::DType::Int8 && t.quant && !t.quant->per_channel();
}

bool is_q16(const ir::Graph& g, ir::TensorId id) {
  if (id < 0) return false;
  const ir::Tensor& t = g.tensor(id);
  return t.dtype == ir::DType::Int16 && t.quant && !t.quant->per_channel();
}

void require_all_q8(const ir::Graph& g, const ir::Node& n) {
  for (const auto* list : {&n.inputs, &n.outputs})
    for (ir::TensorId id : *list) {
      if (id < 0 || g.tensor(id).constant) continue;
      if (!is_q8(g, id))
        unsupported(n, "int8 operator with tensor '" + g.tensor(id).name + "' that is not per-tensor quantized int8");
    }
}

namespace {

const ir::QuantParam& quant_of(const ir::Graph& g, const ir::Node& n, ir::TensorId id) {
  if (id < 0 || !g.tensor(id).quant) unsupported(n, "an int8 operand without quantization");
  return *g.tensor(id).quant;
}

// TFLite's Quantize for an activation bound: zp + round_half_away(f / scale) (float).
int32_t quantized_bound(float f, float scale, int32_t zp) { return zp + static_cast<int32_t>(std::round(f / scale)); }

}  // namespace

void int8_clamp(const ir::Graph& g, const ir::Node& n, LoweredOp& op) {
  const ir::QuantParam& q = quant_of(g, n, n.outputs.at(0));
  float s = q.scales[0];
  int32_t zp = q.zero_points[0], lo = -128, hi = 127;
  std::string act = n.attrs.get_string("fused_activation", "");
  if (act == "Relu") {
    lo = std::max(lo, quantized_bound(0.0f, s, zp));
  } else if (act == "Relu6") {
    lo = std::max(lo, quantized_bound(0.0f, s, zp));
    hi = std::min(hi, quantized_bound(6.0f, s, zp));
  } else if (act == "ReluN1To1") {
    lo = std::max(lo, quantized_bound(-1.0f, s, zp));
    hi = std::min(hi, quantized_bound(1.0f, s, zp));
  } else if (!act.empty()) {
    unsupported(n, "fused activation " + act);
  }
  std::vector<float> clip = n.attrs.get_floats("fused_clip");  // [lo, hi] folded from a QDQ Clip
  if (clip.size() == 2) {
    if (std::isfinite(clip[0])) lo = std::max(lo, quantized_bound(clip[0], s, zp));
    if (std::isfinite(clip[1])) hi = std::min(hi, quantized_bound(clip[1], s, zp));
  }
  lo = std::clamp(lo, -128, 127);
  hi = std::clamp(hi, -128, 127);
  if (lo > hi) unsupported(n, "the activation clamp is empty at this output quantization");
  op.act_min = static_cast<int8_t>(lo);
  op.act_max = static_cast<int8_t>(hi);
}

uint16_t int8_weight(const ir::Graph& g, const ir::Node& n, size_t i, WeightTable& w, const std::string& tag,
                     std::vector<uint8_t> (*convert)(const ir::Tensor&), int64_t channels) {
  ir::TensorId id = i < n.inputs.size() ? n.inputs[i] : ir::kNoTensor;
  if (id < 0 || !g.tensor(id).constant) runtime_operand(g, n, id);
  const ir::Tensor& t = g.tensor(id);
  if (t.dtype != ir::DType::Int8 || !t.quant)
    unsupported(n, "int8 operator with " + ir::dtype_name(t.dtype) + " weights");
  for (int32_t z : t.quant->zero_points)
    if (z != 0) unsupported(n, "int8 weights with a non-zero zero point (asymmetric weights)");
  size_t count = t.quant->scales.size();
  if (count != 1 && (count != static_cast<size_t>(channels) || t.quant->axis != 0))
    unsupported(n, "weights quantized per channel on an axis other than the output channels");
  return w.get(g, id, tag, convert);
}

uint16_t int32_bias(const ir::Graph& g, const ir::Node& n, size_t i, WeightTable& w, int64_t channels) {
  ir::TensorId id = i < n.inputs.size() ? n.inputs[i] : ir::kNoTensor;
  if (id < 0) return TIGRIS_NONE;
  if (!g.tensor(id).constant) runtime_operand(g, n, id);
  const ir::Tensor& t = g.tensor(id);
  if (t.dtype != ir::DType::Int32) unsupported(n, "int8 operator with a " + ir::dtype_name(t.dtype) + " bias");
  if (t.elements() != channels) unsupported(n, "bias of the wrong length");
  return w.get_stored(g, id);
}

void conv_factors(const ir::Graph& g, const ir::Node& n, LoweredOp& op, bool fully_connected) {
  const ir::QuantParam& in = quant_of(g, n, n.inputs.at(0));
  const ir::QuantParam& wq = quant_of(g, n, n.inputs.at(1));
  const ir::QuantParam& out = quant_of(g, n, n.outputs.at(0));
  bool per_tensor_fc = fully_connected && wq.scales.size() == 1;
  for (float ws : wq.scales) {
    int32_t m = 0;
    int s = 0;
    tigris_s8::layer_multiplier(in.scales[0], ws, out.scales[0], per_tensor_fc, &m, &s);
    op.out_multipliers.push_back(m);
    op.out_shifts.push_back(s);
  }
}

}  // namespace tigris::plan::detail
