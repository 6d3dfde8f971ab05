// Convolutions, pools and resize.
#include <cmath>

#include "compiler/plan/lower_internal.h"

namespace tigris::plan::detail {

// kernel/strides/dilations/pads attributes (explicit after normalization) -> spatial block.
void fill_spatial(const ir::Node& n, int spatial_rank, tigris_spatial_t& s) {
  std::vector<int64_t> k = n.attrs.get_ints("kernel_shape"), st = n.attrs.get_ints("strides");
  std::vector<int64_t> d = n.attrs.get_ints("dilations"), p = n.attrs.get_ints("pads");
  size_t r = static_cast<size_t>(spatial_rank);
  if (k.size() != r || st.size() != r || d.size() != r || p.size() != 2 * r) unsupported(n, "spatial attributes");
  s.kernel_h = fit_u8(n, k[0], "kernel height");
  s.stride_h = fit_u8(n, st[0], "stride");
  s.dilation_h = fit_u16(n, d[0], "dilation");
  s.pad_top = fit_u16(n, p[0], "padding");
  s.pad_bottom = fit_u16(n, p[r], "padding");
  if (r == 2) {
    s.kernel_w = fit_u8(n, k[1], "kernel width");
    s.stride_w = fit_u8(n, st[1], "stride");
    s.dilation_w = fit_u16(n, d[1], "dilation");
    s.pad_left = fit_u16(n, p[1], "padding");
    s.pad_right = fit_u16(n, p[3], "padding");
  } else {
    s.kernel_w = s.stride_w = 1;
    s.dilation_w = 1;
  }
}

namespace {

ir::TensorId input_at(const ir::Node& n, size_t i) { return i < n.inputs.size() ? n.inputs[i] : ir::kNoTensor; }

ir::TensorId data_input(const ir::Graph& g, const ir::Node& n, int rank) {
  if (n.inputs.empty() || n.inputs[0] < 0 || g.tensor(n.inputs[0]).constant) unsupported(n, "constant data input");
  const ir::Tensor& x = g.tensor(n.inputs[0]);
  if (x.rank() != rank)
    unsupported(n, "input rank " + std::to_string(x.rank()) + " (needs " + std::to_string(rank) + ")");
  if (x.layout != ir::Layout::ChannelsLast || g.tensor(n.outputs[0]).layout != ir::Layout::ChannelsLast)
    unsupported(n, "spatial operator on a tensor in model order");
  if (is_q8(g, n.inputs[0]))
    require_all_q8(g, n);
  else
    require_dtype(g, n, n.inputs[0], kFloat);
  return n.inputs[0];
}

uint16_t float_weight(const ir::Graph& g, const ir::Node& n, size_t i, WeightTable& w, const std::string& tag,
                      std::vector<uint8_t> (*convert)(const ir::Tensor&)) {
  ir::TensorId id = i < n.inputs.size() ? n.inputs[i] : ir::kNoTensor;
  if (id < 0 || !g.tensor(id).constant) runtime_operand(g, n, id);
  if (g.tensor(id).dtype != ir::DType::Float32) unsupported(n, "weight of type " + ir::dtype_name(g.tensor(id).dtype));
  return w.get(g, id, tag, convert);
}

std::vector<uint8_t> same_bytes(const ir::Tensor& t) { return t.data; }

void bias(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) op.bias = float_weight(g, n, 2, w, "", same_bytes);
}

void conv(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (n.inputs.size() < 2 || n.inputs[1] < 0 || !g.tensor(n.inputs[1]).constant) runtime_operand(g, n, input_at(n, 1));
  bool one_d = n.op == "Conv1D";
  op.inputs = {data_input(g, n, one_d ? 3 : 4)};
  int64_t group = n.attrs.get_int("group", 1);
  fill_spatial(n, one_d ? 1 : 2, op.spatial);
  op.spatial.group = fit_u16(n, group, "group");
  bool q8 = is_q8(g, op.inputs[0]);
  const ir::Tensor& y = g.tensor(n.outputs[0]);
  int64_t channels = y.shape.empty() ? 0 : y.shape.back();
  auto weight = [&](const std::string& tag, std::vector<uint8_t> (*convert)(const ir::Tensor&)) {
    return q8 ? int8_weight(g, n, 1, w, tag, convert, channels) : float_weight(g, n, 1, w, tag, convert);
  };
  if (n.op == "DepthwiseConv") {
    op.type = TIGRIS_OP_DEPTHWISE;
    op.weight = weight("khkwc", depthwise_weight);
  } else {
    op.type = one_d ? TIGRIS_OP_CONV1D : TIGRIS_OP_CONV;
    op.weight = one_d ? weight("okc", conv1d_weight) : weight("ohwi", conv_weight_ohwi);
  }
  op.fused_act = fused_activation(n);
  if (!q8) {
    bias(g, n, w, op);
    return;
  }
  op.bias = int32_bias(g, n, 2, w, channels);
  conv_factors(g, n, op, false);
  int8_clamp(g, n, op);
}

void conv_transpose(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  ir::TensorId wid = n.inputs.size() > 1 ? n.inputs[1] : ir::kNoTensor;
  if (wid < 0 || !g.tensor(wid).constant) runtime_operand(g, n, wid);
  op.inputs = {data_input(g, n, 4)};
  op.type = TIGRIS_OP_CONV_TRANSPOSE;
  int64_t group = n.attrs.get_int("group", 1);
  fill_spatial(n, 2, op.spatial);
  op.spatial.group = fit_u16(n, group, "group");
  if (g.tensor(wid).dtype != ir::DType::Float32 || g.tensor(wid).rank() != 4) unsupported(n, "weight layout");
  op.weight = w.get(g, wid, "ohwi_t" + std::to_string(group),
                    [group](const ir::Tensor& t) { return conv_transpose_weight(t, group); });
  bias(g, n, w, op);
  if (n.attrs.has("fused_activation")) unsupported(n, "fused activation");
}

void pool(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  int rank = g.tensor(n.inputs.at(0)).rank();
  op.inputs = {data_input(g, n, rank == 3 ? 3 : 4)};
  if (n.outputs.size() > 1) unsupported(n, "the Indices output");
  fill_spatial(n, rank - 2, op.spatial);
  if (is_q8(g, op.inputs[0]))
    int8_clamp(g, n, op);
  else if (n.attrs.has("fused_activation"))
    unsupported(n, "a fused activation on a float pool");
  uint8_t flags = 0;
  if (n.op == "MaxPool") {
    op.type = TIGRIS_OP_MAX_POOL;
  } else if (n.op == "AveragePool") {
    op.type = TIGRIS_OP_AVG_POOL;
    if (op.spatial.dilation_h > 1 || op.spatial.dilation_w > 1) unsupported(n, "dilated average pooling");
    if (n.attrs.get_int("count_include_pad", 0)) flags |= 2;
  } else {
    op.type = TIGRIS_OP_L2_POOL;
    if (n.attrs.get_int("p", 2) != 2) unsupported(n, "Lp pooling with p other than 2");
    if (op.spatial.dilation_h > 1 || op.spatial.dilation_w > 1) unsupported(n, "dilated Lp pooling");
    flags |= 4;
  }
  if (flags) add_attr(op, TIGRIS_ATTR_POOL_ROUNDING, Payload().u8(flags));
}

void global_pool(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  int rank = g.tensor(n.inputs.at(0)).rank();
  op.inputs = {data_input(g, n, rank == 3 ? 3 : 4)};
  op.type = n.op == "GlobalMaxPool" ? TIGRIS_OP_GLOBAL_MAX : TIGRIS_OP_GLOBAL_AVG;
  // int8 mean of an AveragePool over the whole map: TFLite's AVERAGE_POOL_2D rounding.
  if (op.type == TIGRIS_OP_GLOBAL_AVG && is_q8(g, op.inputs[0]) && n.attrs.get_int("average_pool_rounding", 0))
    add_attr(op, TIGRIS_ATTR_POOL_ROUNDING, Payload().u8(1));
}

uint8_t coord_mode(const ir::Node& n) {
  std::string m = n.attrs.get_string("coordinate_transformation_mode", "half_pixel");
  if (m == "asymmetric") return 0;
  if (m == "half_pixel") return 1;
  if (m == "pytorch_half_pixel") return 2;
  if (m == "align_corners") return 3;
  if (m == "tf_half_pixel_for_nn") return 4;
  if (m == "tf_crop_and_resize") return 5;
  unsupported(n, "coordinate_transformation_mode " + m);
}

uint8_t nearest_mode(const ir::Node& n) {
  std::string m = n.attrs.get_string("nearest_mode", "round_prefer_floor");
  if (m == "floor") return 0;
  if (m == "round_prefer_floor") return 1;
  if (m == "round_prefer_ceil") return 2;
  if (m == "ceil") return 3;
  unsupported(n, "nearest_mode " + m);
}

// Whether nearest resizing by integer factors (<= 255) maps output o to input floor(o / s)
// for this coordinate and rounding mode: asymmetric with floor; half-pixel (also PyTorch's)
// with round-prefer-floor/ceil, where (o + 0.5) / s - 0.5 lies strictly within half a row of
// floor(o / s); TensorFlow's half-pixel for nearest with floor.
bool integer_factor_form(uint8_t coord, uint8_t nearest, float sh, float sw) {
  for (float v : {sh, sw})
    if (v < 1.0f || v > 255.0f || v != std::floor(v)) return false;
  if (coord == 0) return nearest == 0;
  if (coord == 1 || coord == 2) return nearest == 1 || nearest == 2;
  return coord == 4 && nearest == 0;
}

void resize(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  const ir::Tensor& x = g.tensor(n.inputs.at(0));
  if (x.rank() != 4) unsupported(n, "resize of a rank-" + std::to_string(x.rank()) + " tensor");
  op.inputs = {n.inputs[0]};
  if (x.layout != ir::Layout::ChannelsLast) unsupported(n, "resize of a tensor in model order");
  std::string mode = n.attrs.get_string("mode", "nearest");
  std::vector<float> s = n.attrs.get_floats("scales");  // model order N, C, H, W
  if (s.size() != 4 || s[0] != 1.0f || s[1] != 1.0f) unsupported(n, "resizing the batch or channel axis");
  if (mode == "nearest") {
    op.type = TIGRIS_OP_RESIZE;
  } else if (mode == "linear" || mode == "cubic") {
    op.type = TIGRIS_OP_RESIZE_LINEAR;
    if (is_q8(g, op.inputs[0]) && mode == "linear")
      require_all_q8(g, n);
    else
      require_dtype(g, n, op.inputs[0], kFloat);
  } else {
    unsupported(n, "mode " + mode);
  }
  for (float v : s)
    if (!(v > 0.0f) || !std::isfinite(v)) unsupported(n, "scale must be positive and finite");
  uint8_t coord = coord_mode(n);
  float sh = s[2], sw = s[3];
  int64_t ih = x.shape[1], iw = x.shape[2];
  // TFLite models keep align_corners: their kernels derive it from the tensor sizes.
  if (coord == 3 && ih > 1 && iw > 1 && !n.attrs.get_int("exact_align_corners", 0)) {
    // align_corners maps o to o*(I-1)/(I*s-1) (ONNX uses the unrounded I*s): asymmetric with
    // the scale (I*s-1)/(I-1).
    coord = 0;
    sh = static_cast<float>((static_cast<double>(ih) * s[2] - 1.0) / static_cast<double>(ih - 1));
    sw = static_cast<float>((static_cast<double>(iw) * s[3] - 1.0) / static_cast<double>(iw - 1));
    if (!(sh > 0.0f) || !(sw > 0.0f)) unsupported(n, "align_corners to a single row or column");
  }
  if (op.type == TIGRIS_OP_RESIZE && integer_factor_form(coord, nearest_mode(n), sh, sw)) {
    // Output row o reads row o / factor: the form band rules can stripe and tile (no attribute).
    op.spatial.stride_h = static_cast<uint8_t>(sh);
    op.spatial.stride_w = static_cast<uint8_t>(sw);
    return;
  }
  uint8_t rounding = op.type == TIGRIS_OP_RESIZE ? nearest_mode(n) : 0;
  if (mode != "cubic" && coord != 5) {
    add_attr(op, TIGRIS_ATTR_RESIZE_SCALES, Payload().f32(sh).f32(sw).u8(coord).u8(rounding).u8(0).u8(0));
    return;
  }
  // Cubic and tf_crop_and_resize: the long form (docs/plan-format.md, RESIZE_SCALES), float32 only.
  require_dtype(g, n, op.inputs[0], kFloat);
  std::vector<float> roi = n.attrs.get_floats("roi");  // starts then ends, model order
  float h0 = 0, h1 = 1, w0 = 0, w1 = 1;
  if (coord == 5) {
    if (roi.size() != 8 || roi[0] != 0.0f || roi[1] != 0.0f || roi[4] != 1.0f || roi[5] != 1.0f)
      unsupported(n, "tf_crop_and_resize roi cropping the batch or channel axis");
    h0 = roi[2], w0 = roi[3], h1 = roi[6], w1 = roi[7];
    for (float v : {h0, h1, w0, w1})
      if (!std::isfinite(v)) unsupported(n, "tf_crop_and_resize roi must be finite");
  }
  float a = n.attrs.get_float("cubic_coeff_a", -0.75f), extrapolation = n.attrs.get_float("extrapolation_value", 0.0f);
  if (!std::isfinite(a) || !std::isfinite(extrapolation)) unsupported(n, "cubic_coeff_a and extrapolation_value must be finite");
  add_attr(op, TIGRIS_ATTR_RESIZE_SCALES,
           Payload()
               .f32(sh).f32(sw).u8(coord).u8(rounding)
               .u8(mode == "cubic" ? 1 : 0)
               .u8(n.attrs.get_int("exclude_outside", 0) != 0 ? 1 : 0)
               .f32(a).f32(h0).f32(h1).f32(w0).f32(w1).f32(extrapolation));
}

}  // namespace

void register_spatial(std::map<std::string, LowerFn>& t) {
  t["Conv"] = conv;
  t["DepthwiseConv"] = conv;
  t["Conv1D"] = conv;
  t["ConvTranspose"] = conv_transpose;
  t["MaxPool"] = pool;
  t["AveragePool"] = pool;
  t["LpPool"] = pool;
  t["GlobalAveragePool"] = global_pool;
  t["GlobalMaxPool"] = global_pool;
  t["Resize"] = resize;
}

}  // namespace tigris::plan::detail
