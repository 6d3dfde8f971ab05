// 16x8 quantization (int16 activations, int8 weights): the checks and operand forms the
// operator converters use for int16 data, TRANSPOSE_CONV, and QUANTIZE / DEQUANTIZE with an
// int16 (or int32) side. TensorFlow Lite Micro's rules: zero points of int16 activations are
// 0 in converted models (its convolutions ignore them, the others apply them); biases are
// int64 (int32 selects the convolution's int32 accumulator; TRANSPOSE_CONV's int16 widens).
#include <cmath>
#include <cstring>

#include "compiler/frontend/tflite/importer.h"

namespace tigris::frontend::tflite {

namespace {

// An int64 copy of an integer bias (int16 / int32 / int64 values).
ir::TensorId widened_bias(Importer& imp, int32_t b) {
  ir::TensorId id = imp.bias(b);
  ir::Tensor& t = imp.g.tensor(id);
  if (t.dtype == ir::DType::Int64) return id;
  std::vector<int64_t> v;
  std::span<const uint8_t> d = imp.data(b);
  size_t size = ir::dtype_size(t.dtype);
  for (size_t k = 0; k + size <= d.size(); k += size) {
    if (size == 2) {
      int16_t x;
      std::memcpy(&x, d.data() + k, 2);
      v.push_back(x);
    } else {
      int32_t x;
      std::memcpy(&x, d.data() + k, 4);
      v.push_back(x);
    }
  }
  t.dtype = ir::DType::Int64;
  t.data.resize(v.size() * 8);
  if (!v.empty()) std::memcpy(t.data.data(), v.data(), t.data.size());
  return id;
}

// TRANSPOSE_CONV: output_shape (ignored, as TFLite Micro reads the output tensor's shape),
// weights [OC, KH, KW, IC], input, optional bias. Float and 16x8.
void transpose_conv(Importer& imp) {
  const auto& o = options<tfl::TransposeConvOptions>(imp);
  int32_t shape = imp.input(0), w = imp.input(1), x = imp.input(2), b = imp.input(3), y = imp.output(0);
  std::vector<int64_t> xs = imp.tfl_shape(x), ws = imp.tfl_shape(w), ys = imp.tfl_shape(y);
  if (xs.size() != 4 || ws.size() != 4 || ys.size() != 4) refuse("expects rank-4 input, filter and output");
  if (ws[0] != ys[3] || ws[3] != xs[3]) refuse("filter shape does not match the input and output channels");
  if (imp.is_const(shape) && imp.ints(shape) != ys) refuse("output_shape does not match the output tensor");
  ir::DType t = imp.act_dtype(x);
  if (imp.act_dtype(y) != t) refuse("input and output types differ");
  if (!imp.is_const(w)) refuse("weights computed at run time");
  ir::TensorId bias = ir::kNoTensor;
  if (t == ir::DType::Float32) {
    if (imp.type(w) != tfl::TensorType::Float32) refuse("hybrid operator; TFLite Micro refuses hybrid models too");
    if (b >= 0 && imp.type(b) != tfl::TensorType::Float32) refuse("float operator with a non-float bias");
    if (b >= 0) bias = imp.bias(b);
  } else if (t == ir::DType::Int16) {
    check_int16_weights(imp, w, ys[3]);
    if (b >= 0) {
      tfl::TensorType bt = imp.type(b);
      if (bt != tfl::TensorType::Int64 && bt != tfl::TensorType::Int32 && bt != tfl::TensorType::Int16)
        refuse(std::string("16x8 operator with a ") + tfl::tensor_type_name(bt) + " bias");
      bias = widened_bias(imp, b);
    }
  } else {
    refuse("no kernel for " + ir::dtype_name(t) + " data");
  }
  if (b >= 0 && imp.tfl_shape(b) != std::vector<int64_t>{ys[3]})
    refuse("bias shape does not match the output channels");
  if (o.stride_h < 1 || o.stride_w < 1) refuse("strides must be positive");
  // TFLite Micro's padding: that of a convolution from the output's extent back to the
  // input (top/left); the far side is what remains.
  std::vector<int64_t> strides = {o.stride_h, o.stride_w}, kernel = {ws[1], ws[2]}, pads(4, 0);
  for (size_t a = 0; a < 2; ++a) {
    int64_t out = ys[a + 1], in = xs[a + 1], k = kernel[a], s = strides[a];
    int64_t conv_out = o.padding == tfl::Padding::Same ? (out + s - 1) / s : (out + s - k) / s;
    int64_t total = std::max<int64_t>((conv_out - 1) * s + k - out, 0);
    pads[a] = total / 2;
    int64_t base = (in - 1) * s + k - pads[a];  // rows the input reaches from row 0
    pads[a + 2] = std::max<int64_t>(base - out, 0);
    if (out - (base - pads[a + 2]) >= s) refuse("the output extends past what the input reaches");
  }
  // IR weight in ONNX's layout [IC, OC, KH, KW], quantized along OC (axis 1).
  ir::TensorId wid = imp.weight(w, {3, 0, 1, 2}, "iohw");
  if (imp.g.tensor(wid).quant && imp.g.tensor(wid).quant->per_channel()) imp.g.tensor(wid).quant->axis = 1;
  std::vector<ir::TensorId> in = {imp.act(x), wid};
  if (bias >= 0) in.push_back(bias);
  ir::Node& n = imp.add_node("ConvTranspose", in, {imp.act(y)});
  n.attrs.set("kernel_shape", kernel);
  n.attrs.set("strides", strides);
  n.attrs.set("dilations", std::vector<int64_t>{1, 1});
  n.attrs.set("pads", pads);
  n.attrs.set("group", int64_t{1});
  imp.fuse(imp.g.nodes.size() - 1, o.activation, true);
}

}  // namespace

bool quantized_dtype(ir::DType t) { return t == ir::DType::Int8 || t == ir::DType::Int16; }

void check_int16_weights(Importer& imp, int32_t w, int64_t out_channels) {
  std::optional<ir::QuantParam> wq = imp.quant(w);
  if (imp.type(w) != tfl::TensorType::Int8 || !wq)
    refuse(std::string("16x8 operator with ") + tfl::tensor_type_name(imp.type(w)) + " weights");
  for (int32_t z : wq->zero_points)
    if (z != 0) refuse("int8 weights with a non-zero zero point");
  check_weight_scales(imp, w, out_channels);
}

void check_int16_bias(Importer& imp, int32_t b, bool int32_allowed) {
  if (b < 0) return;
  tfl::TensorType bt = imp.type(b);
  if (bt == tfl::TensorType::Int64 || (int32_allowed && bt == tfl::TensorType::Int32)) return;
  refuse(std::string("16x8 operator with a ") + tfl::tensor_type_name(bt) + " bias (TFLite Micro reads " +
         (int32_allowed ? "int64 or int32)" : "int64)"));
}

float dequantized_pad_value(Importer& imp, int32_t v, int32_t y) {
  std::optional<ir::QuantParam> q = imp.act_quant(y);
  if (!q) refuse("int16 pad without quantization");
  int32_t raw = 0;  // TFLite Micro pads int16 with 0 (not the zero point) when PADV2 gives none
  if (v >= 0) {
    if (!imp.is_const(v) || imp.data(v).size() < 2) refuse("pad value computed at run time");
    if (imp.type(v) != tfl::TensorType::Int16) refuse("int16 pad with a non-int16 value");
    int16_t x;
    std::memcpy(&x, imp.data(v).data(), 2);
    raw = x;
  }
  return static_cast<float>(static_cast<double>(q->scales[0]) * (raw - q->zero_points[0]));
}

void check_int16_softmax(Importer& imp, int32_t x, int32_t y) {
  ir::QuantParam qx = *imp.act_quant(x), qy = *imp.act_quant(y);
  if (qx.zero_points[0] != 0 || qy.zero_points[0] != 0) refuse("int16 softmax with a non-zero zero point");
  // TFLite Micro: output scale 1/32768 within 0.1%.
  if (std::fabs(qy.scales[0] - 1.0f / 32768.0f) > 0.001f / 32768.0f)
    refuse("int16 output quantization other than (1/32768, 0)");
}

void register_int16(std::map<int32_t, Converter>& t) { t[tfl::op::kTransposeConv] = transpose_conv; }

}  // namespace tigris::frontend::tflite
