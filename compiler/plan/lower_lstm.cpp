// Lowering of the IR "Lstm" node (TFLite UNIDIRECTIONAL_SEQUENCE_LSTM) to the plan's LSTM
// (docs/operators.md row 86): activations x, h, c; the twelve weights and biases in the
// CONSTANTS attribute; the LSTM attribute. The quantized forms (TensorFlow Lite Micro's integer
// LSTM: int8 x, h and weights, int16 cell, int32 biases; or 16x8: int16 x and h, int64
// biases) add the sigmoid table as a 13th constant and the eight gate FC requantization
// factors to the attribute (the kernel derives the cell and hidden products' factors from the
// tensors' scales).
#include <cmath>

#include "compiler/plan/int16_tables.h"
#include "compiler/plan/lower_internal.h"
#include "runtime/src/kernels/s8/s8_lstm.h"
#include "runtime/src/kernels/s8/s8_params.h"

namespace tigris::plan::detail {

namespace {


void lstm(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (n.inputs.size() != 15 || n.outputs.size() != 3) unsupported(n, "expects 15 inputs and 3 outputs");
  for (size_t i = 0; i < 3; ++i)
    if (n.inputs[i] < 0 || g.tensor(n.inputs[i]).constant) unsupported(n, "x, h and c must be tensors");
  const ir::TensorId x = n.inputs[0], h = n.inputs[1], c = n.inputs[2];
  const bool int16 = g.tensor(x).dtype == ir::DType::Int16;  // 16x8
  const bool quantized = int16 || g.tensor(x).dtype == ir::DType::Int8;
  const std::string form = int16 ? "16x8 LSTM" : "int8 LSTM";
  const int64_t time_major = n.attrs.get_int("time_major", 0);
  const float clip = n.attrs.get_float("cell_clip", 0.0f);
  if (time_major != 0 && time_major != 1) unsupported(n, "time_major must be 0 or 1");
  if (!(clip >= 0.0f) || !std::isfinite(clip)) unsupported(n, "cell_clip must be finite and non-negative");
  if (g.tensor(x).rank() != 3 || g.tensor(h).rank() != 2) unsupported(n, "expects x [.., .., I] and h [B, H]");
  const int64_t in = g.tensor(x).shape[2], hidden = g.tensor(h).shape[1];

  if (quantized) {
    for (ir::TensorId id : {x, h, n.outputs[0], n.outputs[1]})
      if (!(int16 ? is_q16(g, id) : is_q8(g, id)))
        unsupported(n,
                    form + " with '" + g.tensor(id).name + "' not per-tensor quantized " + (int16 ? "int16" : "int8"));
    for (ir::TensorId id : {c, n.outputs[2]})
      if (!is_q16(g, id) || g.tensor(id).quant->zero_points[0] != 0)
        unsupported(n, form + " needs an int16 cell state quantized with zero point 0");
  } else {
    for (size_t i = 0; i < 3; ++i) {
      require_dtype(g, n, n.inputs[i], kFloat);
      require_dtype(g, n, n.outputs[i], kFloat);
    }
  }

  Payload constants, attr;
  attr.i32(time_major).f32(clip);
  const float gate_scale = 1.0f / 4096.0f;  // TFLM: gate pre-activations are Q3.12
  std::vector<int32_t> multipliers(8);
  std::vector<int> shifts(8);
  for (size_t k = 3; k < 15; ++k) {
    const ir::TensorId id = n.inputs[k];
    const bool bias = k >= 11;
    if (id < 0) {
      if (!bias) unsupported(n, "a gate weight is absent");
      constants.u16(TIGRIS_NONE);
      continue;
    }
    const ir::Tensor& t = g.tensor(id);
    if (!t.constant) runtime_operand(g, n, id);
    const int64_t cols = k < 7 ? in : hidden;
    if (bias ? t.elements() != hidden : t.shape != ir::Shape{hidden, cols})
      unsupported(n, "constant '" + t.name + "' has the wrong shape");
    if (!quantized) {
      if (t.dtype != ir::DType::Float32) unsupported(n, "float LSTM with a " + ir::dtype_name(t.dtype) + " constant");
    } else if (bias) {
      if (t.dtype != (int16 ? ir::DType::Int64 : ir::DType::Int32))
        unsupported(n, form + " with a " + ir::dtype_name(t.dtype) + " bias");
    } else {
      if (t.dtype != ir::DType::Int8 || !t.quant || t.quant->scales.size() != 1 || t.quant->zero_points[0] != 0)
        unsupported(n, form + " needs int8 weights with one scale and zero point 0");
      const float s_in = g.tensor(k < 7 ? x : h).quant->scales[0];
      tigris_s8::layer_multiplier(s_in, t.quant->scales[0], gate_scale, true, &multipliers[k - 3], &shifts[k - 3]);
    }
    constants.u16(w.get_stored(g, id));
  }
  if (quantized) {
    constants.u16(w.add_raw("int16_sigmoid_table", sigmoid_table_bytes()));
    for (size_t k = 0; k < 8; ++k) attr.i32(multipliers[k]).i32(shifts[k]);
    tigris_s8::LstmQuant q;
    if (!tigris_s8::lstm_quant(attr.bytes.data(), static_cast<uint8_t>(attr.bytes.size()), g.tensor(h).quant->scales[0],
                               g.tensor(c).quant->scales[0], int16, &q))
      unsupported(n, "the " + form + "'s requantization factors are out of range at these scales");
  }
  op.type = TIGRIS_OP_LSTM;
  op.inputs = {x, h, c};
  add_attr(op, TIGRIS_ATTR_CONSTANTS, constants);
  add_attr(op, TIGRIS_ATTR_LSTM, attr);
}

}  // namespace

void register_lstm(std::map<std::string, LowerFn>& table) { table["Lstm"] = lstm; }

}  // namespace tigris::plan::detail
