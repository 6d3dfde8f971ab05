// int16 (16x8) lowering: the compute operators on int16 activations with int8 weights and
// int64 (or int32) biases, as the int16 kernels (runtime/src/kernels/s16/) take them.
// Requantization factors of conv-like ops are TFLite Micro's (tigris_s8::layer_multiplier,
// stored on the output's quant param, as for int8); the kernels derive the other factors
// and the activation clamp from the tensors' quantizations and fused_act. Byte movement
// (Pad, Concat, Reshape, Transpose, Slice) and Cast lower as for any dtype.
#include <cmath>

#include "compiler/plan/int16_tables.h"
#include "compiler/plan/lower_internal.h"
#include "runtime/src/kernels/s16/s16_params.h"
#include "runtime/src/kernels/s8/s8_params.h"

namespace tigris::plan::detail {

// Named, not anonymous: its lowerings share names with the int8/float ones of other files.
namespace int16 {

using ir::DType;

bool touches_int16(const ir::Graph& g, const ir::Node& n) {
  for (const auto* list : {&n.inputs, &n.outputs})
    for (ir::TensorId id : *list)
      if (id >= 0 && !g.tensor(id).constant && is_q16(g, id)) return true;
  return false;
}

void require_all_q16(const ir::Graph& g, const ir::Node& n) {
  for (const auto* list : {&n.inputs, &n.outputs})
    for (ir::TensorId id : *list) {
      if (id < 0 || g.tensor(id).constant) continue;
      if (!is_q16(g, id))
        unsupported(n, "int16 operator with tensor '" + g.tensor(id).name + "' that is not per-tensor quantized int16");
    }
}

const ir::QuantParam& q(const ir::Graph& g, ir::TensorId id) { return *g.tensor(id).quant; }

// ReLU / ReLU6 on the ops whose records carry fused_act; anything else is refused.
uint8_t int16_activation(const ir::Node& n, bool allowed) {
  std::string act = n.attrs.get_string("fused_activation", "");
  if (act.empty()) return TIGRIS_ACT_NONE;
  if (!allowed) unsupported(n, "a fused activation on an int16 " + n.op);
  if (act == "Relu") return TIGRIS_ACT_RELU;
  if (act == "Relu6") return TIGRIS_ACT_RELU6;
  unsupported(n, "fused activation " + act + " on int16 data");
}

ir::TensorId spatial_input(const ir::Graph& g, const ir::Node& n, int rank) {
  if (n.inputs.empty() || n.inputs[0] < 0 || g.tensor(n.inputs[0]).constant) unsupported(n, "constant data input");
  const ir::Tensor& x = g.tensor(n.inputs[0]);
  if (x.rank() != rank)
    unsupported(n, "input rank " + std::to_string(x.rank()) + " (needs " + std::to_string(rank) + ")");
  if (x.layout != ir::Layout::ChannelsLast || g.tensor(n.outputs[0]).layout != ir::Layout::ChannelsLast)
    unsupported(n, "spatial operator on a tensor in model order");
  require_all_q16(g, n);
  return n.inputs[0];
}

// int8 symmetric weights, per tensor or per output channel (`channels` scales on `axis`).
uint16_t weights(const ir::Graph& g, const ir::Node& n, WeightTable& w, const std::string& tag,
                 std::vector<uint8_t> (*convert)(const ir::Tensor&), int64_t channels, int axis) {
  ir::TensorId id = n.inputs.size() > 1 ? n.inputs[1] : ir::kNoTensor;
  if (id < 0 || !g.tensor(id).constant) runtime_operand(g, n, id);
  const ir::Tensor& t = g.tensor(id);
  if (t.dtype != DType::Int8 || !t.quant) unsupported(n, "16x8 operator with " + ir::dtype_name(t.dtype) + " weights");
  for (int32_t z : t.quant->zero_points)
    if (z != 0) unsupported(n, "int8 weights with a non-zero zero point");
  size_t count = t.quant->scales.size();
  if (count != 1 && (count != static_cast<size_t>(channels) || t.quant->axis != axis))
    unsupported(n, "weights quantized per channel on an axis other than the output channels");
  return w.get(g, id, tag, convert);
}

// int64 or int32 bias of `channels` entries (input 2), TIGRIS_NONE when absent.
uint16_t bias(const ir::Graph& g, const ir::Node& n, WeightTable& w, int64_t channels) {
  ir::TensorId id = n.inputs.size() > 2 ? n.inputs[2] : ir::kNoTensor;
  if (id < 0) return TIGRIS_NONE;
  if (!g.tensor(id).constant) runtime_operand(g, n, id);
  const ir::Tensor& t = g.tensor(id);
  if (t.dtype != DType::Int64 && t.dtype != DType::Int32)
    unsupported(n, "16x8 operator with a " + ir::dtype_name(t.dtype) + " bias");
  if (t.elements() != channels) unsupported(n, "bias of the wrong length");
  return w.get_stored(g, id);
}

void factors(const ir::Graph& g, const ir::Node& n, LoweredOp& op, bool fully_connected) {
  const ir::QuantParam& wq = q(g, n.inputs.at(1));
  float in = q(g, n.inputs[0]).scales[0], out = q(g, n.outputs.at(0)).scales[0];
  for (float ws : wq.scales) {
    int32_t m = 0;
    int s = 0;
    tigris_s8::layer_multiplier(in, ws, out, fully_connected && wq.scales.size() == 1, &m, &s);
    op.out_multipliers.push_back(m);
    op.out_shifts.push_back(s);
  }
}

void conv(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  bool one_d = n.op == "Conv1D";
  op.inputs = {spatial_input(g, n, one_d ? 3 : 4)};
  fill_spatial(n, one_d ? 1 : 2, op.spatial);
  op.spatial.group = fit_u16(n, n.attrs.get_int("group", 1), "group");
  int64_t channels = g.tensor(n.outputs[0]).shape.back();
  if (n.op == "DepthwiseConv") {
    op.type = TIGRIS_OP_DEPTHWISE;
    op.weight = weights(g, n, w, "khkwc", depthwise_weight, channels, 0);
  } else {
    op.type = one_d ? TIGRIS_OP_CONV1D : TIGRIS_OP_CONV;
    op.weight = one_d ? weights(g, n, w, "okc", conv1d_weight, channels, 0)
                      : weights(g, n, w, "ohwi", conv_weight_ohwi, channels, 0);
  }
  op.bias = bias(g, n, w, channels);
  op.fused_act = int16_activation(n, true);
  factors(g, n, op, false);
}

void conv_transpose(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  op.inputs = {spatial_input(g, n, 4)};
  op.type = TIGRIS_OP_CONV_TRANSPOSE;
  int64_t group = n.attrs.get_int("group", 1);
  fill_spatial(n, 2, op.spatial);
  op.spatial.group = fit_u16(n, group, "group");
  if (op.spatial.dilation_h > 1 || op.spatial.dilation_w > 1) unsupported(n, "dilated int16 transposed convolution");
  ir::TensorId wid = n.inputs.size() > 1 ? n.inputs[1] : ir::kNoTensor;
  if (wid < 0 || g.tensor(wid).rank() != 4) unsupported(n, "weight layout");
  int64_t channels = g.tensor(n.outputs[0]).shape.back();
  if (group != 1) unsupported(n, "grouped int16 transposed convolution");
  op.weight = weights(
      g, n, w, "ohwi_t1", [](const ir::Tensor& t) { return conv_transpose_weight(t, 1); }, channels, 1);
  op.bias = bias(g, n, w, channels);
  int16_activation(n, false);
  factors(g, n, op, false);
}

void gemm(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  ir::TensorId a = n.inputs.at(0);
  if (g.tensor(a).constant) unsupported(n, "constant input");
  require_all_q16(g, n);
  ir::TensorId wid = n.inputs.size() > 1 ? n.inputs[1] : ir::kNoTensor;
  if (wid < 0 || !g.tensor(wid).constant) runtime_operand(g, n, wid);
  if (g.tensor(wid).rank() != 2 || n.attrs.get_int("transB", 0) != 1) unsupported(n, "weight layout");
  op.type = TIGRIS_OP_FULLY_CONN;
  op.inputs = {a};
  int64_t units = g.tensor(wid).shape[0];
  op.weight = weights(
      g, n, w, "", [](const ir::Tensor& t) { return t.data; }, units, 0);
  op.bias = bias(g, n, w, units);
  op.fused_act = int16_activation(n, true);
  factors(g, n, op, true);
}

void binary(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (n.inputs.size() != 2) unsupported(n, "expects two operands");
  require_all_q16(g, n);
  for (ir::TensorId id : n.inputs)
    if (g.tensor(id).dtype != DType::Int16 || !g.tensor(id).quant) unsupported(n, "operands of different types");
  op.type = n.op == "Add" ? TIGRIS_OP_ADD : n.op == "Sub" ? TIGRIS_OP_SUB : TIGRIS_OP_MUL;
  if (op.type == TIGRIS_OP_MUL)  // TFLite Micro's 16-bit MUL
    for (const auto* list : {&n.inputs, &n.outputs})
      for (ir::TensorId id : *list)
        if (q(g, id).zero_points[0] != 0) unsupported(n, "int16 MUL with a non-zero zero point");
  elementwise_operands(g, n, w, op);
  op.fused_act = int16_activation(n, op.type == TIGRIS_OP_ADD);
}

void leaky_relu(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  require_all_q16(g, n);
  op.type = TIGRIS_OP_LEAKY_RELU;
  op.inputs = {n.inputs.at(0)};
  add_attr(op, TIGRIS_ATTR_ALPHA, Payload().f32(n.attrs.get_float("alpha", 0.01f)));
}

void sigmoid_tanh(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  require_all_q16(g, n);
  bool tanh = n.op == "Tanh";
  const ir::QuantParam &qi = q(g, n.inputs.at(0)), &qo = q(g, n.outputs.at(0));
  tigris_s16::SigmoidTanhParams p;
  if (qi.zero_points[0] != 0 || qo.zero_points[0] != 0 ||
      !tigris_s16::sigmoid_tanh_params(qi.scales[0], qo.scales[0], tanh, &p))
    unsupported(n, "int16 quantization other than TFLite's (zero points 0, output scale 2^-15)");
  op.type = tanh ? TIGRIS_OP_TANH : TIGRIS_OP_SIGMOID;
  op.inputs = {n.inputs[0]};
  op.weight = w.add_raw("int16_sigmoid_table", sigmoid_table_bytes());
}

void softmax(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  require_all_q16(g, n);
  ir::TensorId x = n.inputs.at(0);
  int64_t rank = g.tensor(x).rank();
  if (rank < 1) unsupported(n, "scalar input");
  int64_t axis = axis_in(n, n.attrs.get_int("axis", -1), rank);
  if (axis != rank - 1) unsupported(n, "int16 softmax over an axis other than the last");
  if (q(g, x).zero_points[0] != 0 || q(g, n.outputs.at(0)).zero_points[0] != 0)
    unsupported(n, "int16 softmax with a non-zero zero point");
  op.type = TIGRIS_OP_SOFTMAX;
  op.inputs = {x};
  float beta = n.attrs.get_float("beta", 1.0f);
  if (beta != 1.0f) add_attr(op, TIGRIS_ATTR_ALPHA, Payload().f32(beta));
  add_attr(op, TIGRIS_ATTR_AXES, axes_payload(n, {axis}, rank));
  op.weight = w.add_raw("int16_softmax_luts", softmax_lut_bytes());
}

void pool(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  int rank = g.tensor(n.inputs.at(0)).rank();
  op.inputs = {spatial_input(g, n, rank == 3 ? 3 : 4)};
  if (n.outputs.size() > 1) unsupported(n, "the Indices output");
  fill_spatial(n, rank - 2, op.spatial);
  int16_activation(n, false);
  if (n.op == "MaxPool") {
    op.type = TIGRIS_OP_MAX_POOL;
  } else {
    op.type = TIGRIS_OP_AVG_POOL;
    if (op.spatial.dilation_h > 1 || op.spatial.dilation_w > 1) unsupported(n, "dilated average pooling");
    if (n.attrs.get_int("count_include_pad", 0)) unsupported(n, "int16 average pooling counting the padding");
  }
  if (!(q(g, n.inputs[0]) == q(g, n.outputs[0])))
    unsupported(n, "int16 pooling with different input and output quantizations");
}

void global_pool(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  int rank = g.tensor(n.inputs.at(0)).rank();
  op.inputs = {spatial_input(g, n, rank == 3 ? 3 : 4)};
  op.type = n.op == "GlobalMaxPool" ? TIGRIS_OP_GLOBAL_MAX : TIGRIS_OP_GLOBAL_AVG;
  if (op.type == TIGRIS_OP_GLOBAL_MAX && !(q(g, n.inputs[0]) == q(g, n.outputs[0])))
    unsupported(n, "int16 max pooling with different input and output quantizations");
  // An AVERAGE_POOL_2D over the whole map keeps its rounding (POOL_ROUNDING bit0).
  if (op.type == TIGRIS_OP_GLOBAL_AVG && n.attrs.get_int("average_pool_rounding", 0))
    add_attr(op, TIGRIS_ATTR_POOL_ROUNDING, Payload().u8(1));
}

void mean(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  require_all_q16(g, n);
  ir::TensorId x = n.inputs.at(0);
  op.type = TIGRIS_OP_REDUCE_MEAN;
  op.inputs = {x};
  int64_t rank = g.tensor(x).rank();
  std::vector<int64_t> axes = n.attrs.get_ints("axes");
  if (axes.empty() && n.attrs.get_int("noop_with_empty_axes", 0)) unsupported(n, "reduction over no axes");
  if (!axes.empty() && rank > 0) add_attr(op, TIGRIS_ATTR_AXES, axes_payload(n, axes, rank));
}

bool byte_movement(const std::string& op) {
  return op == "Pad" || op == "Concat" || op == "Reshape" || op == "Flatten" || op == "Squeeze" || op == "Unsqueeze" ||
         op == "Transpose" || op == "Slice" || op == "Cast" || op == "Identity";
}

}  // namespace int16

bool lower_int16(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (!int16::touches_int16(g, n) || int16::byte_movement(n.op)) return false;
  // int8 ops with an int16 side are the int8 lowering's: SVDF's int16 state, SOFTMAX int8 -> int16;
  // the quantized LSTM's int16 cell state is part of its own form (lower_lstm.cpp).
  if (n.op == "Lstm") return false;
  if ((n.op == "Svdf" || n.op == "Softmax") && !n.inputs.empty() && is_q8(g, n.inputs[0])) return false;
  static const std::map<std::string, LowerFn> table = {
      {"Conv", int16::conv},
      {"DepthwiseConv", int16::conv},
      {"Conv1D", int16::conv},
      {"ConvTranspose", int16::conv_transpose},
      {"Gemm", int16::gemm},
      {"Add", int16::binary},
      {"Sub", int16::binary},
      {"Mul", int16::binary},
      {"LeakyRelu", int16::leaky_relu},
      {"Sigmoid", int16::sigmoid_tanh},
      {"Tanh", int16::sigmoid_tanh},
      {"Softmax", int16::softmax},
      {"AveragePool", int16::pool},
      {"MaxPool", int16::pool},
      {"GlobalAveragePool", int16::global_pool},
      {"GlobalMaxPool", int16::global_pool},
      {"ReduceMean", int16::mean},
  };
  auto it = table.find(n.op);
  if (it == table.end()) unsupported(n, "no int16 kernel");
  it->second(g, n, w, op);
  return true;
}

}  // namespace tigris::plan::detail
