// CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED and the 2-D pools.
#include <cmath>

#include "compiler/frontend/tflite/importer.h"

namespace tigris::frontend::tflite {

// TFLite Micro's rules for a conv-like weight's scales (PopulateConvolutionQuantizationParams
// and the kernels' Prepare): one scale, or one per output channel when the quantized
// dimension names an axis of that extent. The channel of scale k is output channel k
// whatever that axis is, so the IR weight is quantized along its output-channel axis.
void check_weight_scales(Importer& imp, int32_t w, int64_t out_channels) {
  const ir::QuantParam q = *imp.quant(w);
  const std::string& name = imp.tensor(w).name;
  for (float s : q.scales)
    if (!std::isfinite(s)) refuse("weights '" + name + "' have a scale that is not finite");
  if (!q.per_channel()) return;
  std::vector<int64_t> ws = imp.tfl_shape(w);
  if (static_cast<int64_t>(q.scales.size()) != out_channels)
    refuse("weights '" + name + "' have " + std::to_string(q.scales.size()) + " scales for " +
           std::to_string(out_channels) + " output channels");
  if (q.axis < 0 || q.axis >= static_cast<int>(ws.size()) || ws[static_cast<size_t>(q.axis)] != out_channels)
    refuse("weights '" + name + "' have quantized dimension " + std::to_string(q.axis) +
           ", which is not an axis of their " + std::to_string(out_channels) + " output channels");
}

namespace {

// The IR weight (made by `make`) quantized per output channel along IR axis 0.
ir::TensorId output_channel_weight(Importer& imp, ir::TensorId id) {
  ir::Tensor& t = imp.g.tensor(id);
  if (t.quant && t.quant->per_channel()) t.quant->axis = 0;
  return id;
}

// Input dtype of a conv-like op and its weight: float with float weights, or int8 with
// int8 weights (symmetric); anything else is hybrid or unsupported.
void check_weights(Importer& imp, int32_t x, int32_t w, int32_t b, int64_t out_channels, bool int32_bias = true) {
  ir::DType xt = imp.act_dtype(x);
  tfl::TensorType wt = imp.type(w);
  if (!imp.is_const(w)) refuse("weights computed at run time");
  if (xt == ir::DType::Float32) {
    if (wt != tfl::TensorType::Float32)
      refuse(std::string("hybrid operator (float32 activations, ") + tfl::tensor_type_name(wt) +
             " weights); TFLite Micro refuses hybrid models too");
    if (b >= 0 && imp.type(b) != tfl::TensorType::Float32) refuse("float operator with a non-float bias");
    return;
  }
  if (xt == ir::DType::Int16) {
    check_int16_weights(imp, w, out_channels);
    check_int16_bias(imp, b, int32_bias);
    if (imp.act_dtype(imp.output(0)) != ir::DType::Int16) refuse("16x8 operator with a non-int16 output");
    return;
  }
  if (xt != ir::DType::Int8) refuse("no kernel for " + ir::dtype_name(xt) + " data");
  std::optional<ir::QuantParam> wq = imp.quant(w);
  if (wt != tfl::TensorType::Int8 || !wq)
    refuse(std::string("int8 operator with ") + tfl::tensor_type_name(wt) + " weights");
  for (int32_t z : wq->zero_points)
    if (z != 0) refuse("int8 weights with a non-zero zero point");
  check_weight_scales(imp, w, out_channels);
  if (b >= 0 && imp.type(b) != tfl::TensorType::Int32)
    refuse(std::string("int8 operator with a ") + tfl::tensor_type_name(imp.type(b)) + " bias");
  imp.act_dtype(imp.output(0));
}

std::vector<int64_t> spatial_of(const std::vector<int64_t>& nhwc) { return {nhwc.at(1), nhwc.at(2)}; }

void conv(Importer& imp, bool depthwise) {
  int32_t x = imp.input(0), w = imp.input(1), b = imp.input(2), y = imp.output(0);
  std::vector<int64_t> xs = imp.tfl_shape(x), ws = imp.tfl_shape(w), ys = imp.tfl_shape(y);
  if (xs.size() != 4 || ws.size() != 4 || ys.size() != 4) refuse("expects rank-4 input, filter and output");
  check_weights(imp, x, w, b, ys[3], !depthwise);  // TFLite Micro's 16x8 depthwise reads int64 biases
  int64_t cin = xs[3], cout = ys[3];
  std::vector<int64_t> strides, dilations;
  tfl::Padding padding;
  tfl::Activation act;
  int64_t group = 1;
  if (depthwise) {
    const auto& o = options<tfl::DepthwiseConv2DOptions>(imp);
    strides = {o.stride_h, o.stride_w};
    dilations = {o.dilation_h, o.dilation_w};
    padding = o.padding;
    act = o.activation;
    if (ws[0] != 1 || ws[3] != cout || cout % cin != 0) refuse("filter shape does not match a depthwise convolution");
    group = cin;
  } else {
    const auto& o = options<tfl::Conv2DOptions>(imp);
    strides = {o.stride_h, o.stride_w};
    dilations = {o.dilation_h, o.dilation_w};
    padding = o.padding;
    act = o.activation;
    if (ws[0] != cout || ws[3] <= 0 || cin % ws[3] != 0) refuse("filter shape does not match the input channels");
    group = cin / ws[3];
  }
  std::vector<int64_t> kernel = {ws[1], ws[2]};
  std::vector<int64_t> pads = window_pads(padding, spatial_of(xs), spatial_of(ys), kernel, strides, dilations);
  if (b >= 0 && imp.tfl_shape(b) != std::vector<int64_t>{cout}) refuse("bias shape does not match the output channels");
  // IR weights: OIHW (from OHWI), depthwise [C*m, 1, KH, KW] (from [1, KH, KW, C*m]).
  ir::TensorId wid =
      output_channel_weight(imp, depthwise ? imp.weight(w, {3, 0, 1, 2}, "oihw") : imp.weight(w, {0, 3, 1, 2}, "oihw"));
  std::vector<ir::TensorId> in = {imp.act(x), wid};
  if (b >= 0) in.push_back(imp.bias(b));
  ir::Node& c = imp.add_node("Conv", in, {imp.act(y)});
  c.attrs.set("kernel_shape", kernel);
  c.attrs.set("strides", strides);
  c.attrs.set("dilations", dilations);
  c.attrs.set("pads", pads);
  c.attrs.set("group", group);
  imp.fuse(imp.g.nodes.size() - 1, act, true);
}

void conv2d(Importer& imp) { conv(imp, false); }
void depthwise(Importer& imp) { conv(imp, true); }

void fully_connected(Importer& imp) {
  int32_t x = imp.input(0), w = imp.input(1), b = imp.input(2), y = imp.output(0);
  const auto& o = options<tfl::FullyConnectedOptions>(imp);
  if (o.weights_format != 0) refuse("shuffled weights format");
  std::vector<int64_t> ws = imp.tfl_shape(w), ys = imp.tfl_shape(y);
  if (ws.size() != 2) refuse("weights of rank " + std::to_string(ws.size()));
  check_weights(imp, x, w, b, ws[0]);
  int64_t units = ws[0], depth = ws[1];
  ir::TensorId xin = imp.act(x);
  int64_t elements = imp.g.tensor(xin).elements();
  if (depth <= 0 || elements % depth != 0) refuse("input elements are not a multiple of the weights' depth");
  int64_t rows = elements / depth;
  if (ir::num_elements(ys) != rows * units) refuse("output shape does not match the weights");
  if (b >= 0 && imp.tfl_shape(b) != std::vector<int64_t>{units}) refuse("bias shape does not match the units");
  ir::TensorId a = imp.tfl_order(xin);
  if (imp.g.tensor(a).shape != ir::Shape{rows, depth}) {
    ir::TensorId r = imp.temp(a, {rows, depth}, "rows");
    imp.add_node("Reshape", {a}, {r}, "rows").attrs.set("shape", ir::Shape{rows, depth});
    a = r;
  }
  std::vector<ir::TensorId> in = {a, output_channel_weight(imp, imp.constant(w))};
  if (b >= 0) in.push_back(imp.bias(b));
  ir::TensorId yid = imp.act(y);
  bool direct = ys == std::vector<int64_t>{rows, units};
  ir::TensorId out = direct ? yid : imp.temp(yid, {rows, units}, "rows");
  ir::Node& n = imp.add_node("Gemm", in, {out});
  n.attrs.set("transB", int64_t{1});
  imp.fuse(imp.g.nodes.size() - 1, o.activation, true);
  if (direct) return;
  // keep_num_dims or a differently shaped output: back to TFLite's shape, then IR order.
  int rank = static_cast<int>(ys.size());
  if (rank == 3 || rank == 4) {
    ir::TensorId t = imp.temp(yid, ys, "tfl");
    imp.add_node("Reshape", {out}, {t}, "shape").attrs.set("shape", ys);
    imp.from_tfl_order(t, yid);
  } else {
    imp.add_node("Reshape", {out}, {yid}, "shape").attrs.set("shape", ys);
  }
}

void pool(Importer& imp, const char* op) {
  int32_t x = imp.input(0), y = imp.output(0);
  const auto& o = options<tfl::Pool2DOptions>(imp);
  ir::DType t = imp.act_dtype(x);
  if (t != ir::DType::Float32 && !quantized_dtype(t)) refuse("no kernel for " + ir::dtype_name(t) + " data");
  imp.act_dtype(y);
  std::vector<int64_t> xs = imp.tfl_shape(x), ys = imp.tfl_shape(y);
  if (xs.size() != 4 || ys.size() != 4) refuse("expects rank-4 tensors");
  std::vector<int64_t> kernel = {o.filter_h, o.filter_w}, strides = {o.stride_h, o.stride_w}, dil = {1, 1};
  std::vector<int64_t> pads = window_pads(o.padding, spatial_of(xs), spatial_of(ys), kernel, strides, dil);
  ir::Node& n = imp.add_node(op, {imp.act(x)}, {imp.act(y)});
  n.attrs.set("kernel_shape", kernel);
  n.attrs.set("strides", strides);
  n.attrs.set("pads", pads);
  imp.fuse(imp.g.nodes.size() - 1, o.activation, quantized_dtype(t));
}

void avg_pool(Importer& imp) { pool(imp, "AveragePool"); }
void max_pool(Importer& imp) { pool(imp, "MaxPool"); }

}  // namespace

void register_conv(std::map<int32_t, Converter>& t) {
  t[tfl::op::kConv2D] = conv2d;
  t[tfl::op::kDepthwiseConv2D] = depthwise;
  t[tfl::op::kFullyConnected] = fully_connected;
  t[tfl::op::kAveragePool2D] = avg_pool;
  t[tfl::op::kMaxPool2D] = max_pool;
}

}  // namespace tigris::frontend::tflite
