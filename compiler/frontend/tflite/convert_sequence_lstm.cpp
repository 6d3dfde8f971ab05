// UNIDIRECTIONAL_SEQUENCE_LSTM -> IR "Lstm" (docs/operators.md row 86): inputs x (TFLite
// order [B,T,I] or time-major [T,B,I]), h, c (the operator's variable tensors, read through
// variable() and written back through assign()), then the constants W_i, W_f, W_c, W_o,
// R_i, R_f, R_c, R_o, b_i, b_f, b_c, b_o; outputs y, h_out, c_out; attributes time_major and
// cell_clip. TensorFlow Lite Micro's kernel is the standard Keras LSTM: it refuses CIFG
// (no input gate), peepholes, projection and layer normalization, and so does this; its
// float form runs float32 throughout, its integer forms int8 (or int16: 16x8) activations,
// int8 weights, an int16 cell state and int32 (int64) biases.
#include <cmath>

#include "compiler/frontend/tflite/importer.h"

namespace tigris::frontend::tflite {

namespace {

// TFLite's operand positions.
constexpr int kInput = 0, kInputWeights = 1, kRecurrentWeights = 5, kPeepholes = 9, kGateBiases = 12,
              kProjectionWeights = 16, kProjectionBias = 17, kOutputState = 18, kCellState = 19, kLayerNorm = 20;

void check_absent(Importer& imp, int first, int count, const std::string& feature) {
  for (int k = first; k < first + count; ++k)
    if (imp.input(static_cast<size_t>(k)) >= 0) refuse(feature + " is not supported (TFLite Micro's kernel has none)");
}

void sequence_lstm(Importer& imp) {
  const auto* o = imp.op().options.get<tfl::UnidirectionalSequenceLstmOptions>();
  if (!o) refuse("its options table is missing");
  if (imp.num_inputs() != 24) refuse("expects 24 operands, has " + std::to_string(imp.num_inputs()));
  if (imp.input(1) < 0 || imp.input(5) < 0) refuse("CIFG (coupled input and forget gates) is not supported");
  check_absent(imp, kPeepholes, 3, "peephole connections");
  check_absent(imp, kProjectionWeights, 1, "projection");
  check_absent(imp, kProjectionBias, 1, "projection");
  check_absent(imp, kLayerNorm, 4, "layer normalization");
  if (o->activation != tfl::Activation::Tanh)
    refuse("cell activation " + std::to_string(static_cast<int>(o->activation)) +
           " is not supported (TFLite Micro's kernel takes TANH)");
  if (!(o->cell_clip >= 0.0f) || !std::isfinite(o->cell_clip)) refuse("cell_clip must be finite and non-negative");

  const int32_t x = imp.input(kInput), h = imp.input(kOutputState), c = imp.input(kCellState), y = imp.output(0);
  if (!imp.is_variable(h) || !imp.is_variable(c)) refuse("the output and cell states must be variable tensors");
  std::vector<int64_t> xs = imp.tfl_shape(x), hs = imp.tfl_shape(h), cs = imp.tfl_shape(c), ys = imp.tfl_shape(y);
  if (xs.size() != 3 || ys.size() != 3) refuse("expects a rank-3 input and output");
  const int64_t batch = o->time_major ? xs[1] : xs[0], in = xs[2];
  if (hs.size() != 2 || hs[0] != batch || cs != hs) refuse("the output and cell states must be [batch, units] tensors");
  const int64_t units = hs[1];
  if (ys[0] != xs[0] || ys[1] != xs[1] || ys[2] != units)
    refuse("output shape does not follow from the input and state");

  const ir::DType t = imp.act_dtype(x);
  if (imp.act_dtype(y) != t || imp.act_dtype(h) != t) refuse("input, output and output state types differ");
  // int8: TFLM's 8x8->16 LSTM (int32 biases); int16: its 16x8->16 LSTM (int64 biases).
  const bool quantized = t == ir::DType::Int8 || t == ir::DType::Int16;
  if (!quantized && t != ir::DType::Float32)
    refuse("no kernel for " + ir::dtype_name(t) + " activations (float32, int8 and int16 are supported)");
  if (quantized && !imp.act_quant(x)) refuse("quantized activations without a quantization record");
  const ir::DType cell = imp.act_dtype(c);
  if (quantized && cell != ir::DType::Int16) refuse("the quantized forms need an int16 cell state");
  if (!quantized && cell != ir::DType::Float32) refuse("the float form needs a float32 cell state");
  const tfl::TensorType bias_type = t == ir::DType::Int16 ? tfl::TensorType::Int64
                                    : quantized           ? tfl::TensorType::Int32
                                                          : tfl::TensorType::Float32;
  if (quantized) {
    std::optional<ir::QuantParam> qc = imp.act_quant(c);
    if (!qc || qc->zero_points[0] != 0) refuse("the cell state must be quantized with zero point 0");
  }

  // Every check before the first IR tensor is made (variable() adds a state entry).
  std::vector<int32_t> constants;
  for (int k = 0; k < 8; ++k) {
    const int32_t w = imp.input(static_cast<size_t>(k < 4 ? kInputWeights + k : kRecurrentWeights + k - 4));
    if (!imp.is_const(w)) refuse("weights computed at run time");
    const int64_t cols = k < 4 ? in : units;
    if (imp.tfl_shape(w) != std::vector<int64_t>{units, cols})
      refuse("weight '" + imp.tensor(w).name + "' is not [" + std::to_string(units) + ", " + std::to_string(cols) +
             "]");
    if (quantized) {
      if (imp.type(w) != tfl::TensorType::Int8 || !imp.quant(w))
        refuse("quantized operator with weights that are not int8");
      const ir::QuantParam q = *imp.quant(w);
      if (q.scales.size() != 1) refuse("weights quantized per channel (TFLite Micro's LSTM reads one scale)");
      if (q.zero_points[0] != 0) refuse("int8 weights with a non-zero zero point");
    } else if (imp.type(w) != tfl::TensorType::Float32) {
      refuse("hybrid operator; TFLite Micro refuses hybrid models too");
    }
    constants.push_back(w);
  }
  for (int k = 0; k < 4; ++k) {
    const int32_t b = imp.input(static_cast<size_t>(kGateBiases + k));
    if (b < 0) refuse("gate bias " + std::to_string(k) + " is absent (TFLite Micro requires the four)");
    if (imp.type(b) != bias_type)
      refuse(ir::dtype_name(t) + " operator with a " + tfl::tensor_type_name(imp.type(b)) +
             " bias (TFLite Micro takes " + tfl::tensor_type_name(bias_type) + ")");
    if (imp.tfl_shape(b) != std::vector<int64_t>{units}) refuse("a gate bias is not [" + std::to_string(units) + "]");
    if (!imp.is_const(b)) refuse("a gate bias is computed at run time");
    constants.push_back(b);
  }

  std::vector<ir::TensorId> ins;
  ins.push_back(imp.tfl_order(imp.act(x)));
  ins.push_back(imp.variable(h));
  ins.push_back(imp.variable(c));
  for (size_t k = 0; k < constants.size(); ++k)
    ins.push_back(k < 8 ? imp.constant(constants[k]) : imp.bias(constants[k]));

  // y in TFLite's order, then to the IR's; h_out and c_out as the state inputs.
  const ir::TensorId y_ir = imp.act(y);
  const ir::TensorId y_tfl = imp.temp(y_ir, ir::Shape(ys.begin(), ys.end()), "tfl");
  const ir::TensorId h_out = imp.temp(ins[1], imp.g.tensor(ins[1]).shape, "next");
  const ir::TensorId c_out = imp.temp(ins[2], imp.g.tensor(ins[2]).shape, "next");
  ir::Node& n = imp.add_node("Lstm", ins, {y_tfl, h_out, c_out});
  n.attrs.set("time_major", static_cast<int64_t>(o->time_major ? 1 : 0));
  n.attrs.set("cell_clip", o->cell_clip);
  imp.from_tfl_order(y_tfl, y_ir);
  imp.assign(h, h_out);
  imp.assign(c, c_out);
}

}  // namespace

void register_sequence_lstm(std::map<int32_t, Converter>& table) {
  table[tfl::op::kUnidirectionalSequenceLstm] = sequence_lstm;
}

}  // namespace tigris::frontend::tflite
