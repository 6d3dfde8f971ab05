// Shape and axis operators: RESHAPE, SQUEEZE, EXPAND_DIMS, TRANSPOSE, CONCATENATION, PAD,
// PADV2, MEAN, SOFTMAX, RESIZE_NEAREST_NEIGHBOR, RESIZE_BILINEAR, STRIDED_SLICE, SLICE.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

#include "compiler/frontend/tflite/importer.h"

namespace tigris::frontend::tflite {

namespace {

int64_t normalized_axis(int64_t axis, int rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) refuse("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
  return a;
}

bool rank34(int r) { return r == 3 || r == 4; }

// The tensor an operator computing TFLite-order data writes for output y (IR order).
ir::TensorId tfl_target(Importer& imp, ir::TensorId y, const std::vector<int64_t>& ys) {
  return rank34(static_cast<int>(ys.size())) ? imp.temp(y, ys, "tfl") : y;
}
void finish(Importer& imp, ir::TensorId written, ir::TensorId y) {
  if (written != y) imp.from_tfl_order(written, y);
}

// RESHAPE, SQUEEZE, EXPAND_DIMS: TFLite's row-major order, whatever the IR order.
void reshape(Importer& imp) {
  int32_t x = imp.input(0), y = imp.output(0);
  ir::DType t = imp.act_dtype(x);
  if (imp.act_dtype(y) != t) refuse("input and output types differ");
  std::vector<int64_t> ys = imp.tfl_shape(y);
  ir::TensorId xt = imp.tfl_order(imp.act(x));
  if (imp.g.tensor(xt).elements() != ir::num_elements(ys)) refuse("the output has a different element count");
  ir::TensorId yid = imp.act(y);
  ir::TensorId dst = tfl_target(imp, yid, ys);
  imp.add_node("Reshape", {xt}, {dst}).attrs.set("shape", ys);
  finish(imp, dst, yid);
}

void transpose(Importer& imp) {
  int32_t x = imp.input(0), y = imp.output(0);
  imp.act_dtype(x);
  std::vector<int64_t> perm = imp.ints(imp.input(1)), xs = imp.tfl_shape(x), ys = imp.tfl_shape(y);
  if (perm.size() != xs.size()) refuse("permutation of the wrong length");
  for (int64_t& p : perm) p = normalized_axis(p, static_cast<int>(xs.size()));
  if (ir::permute_shape(xs, perm) != ys) refuse("output shape does not match the permuted input");
  ir::TensorId xt = imp.tfl_order(imp.act(x));
  ir::TensorId yid = imp.act(y);
  ir::TensorId dst = tfl_target(imp, yid, ys);
  imp.add_node("Transpose", {xt}, {dst}).attrs.set("perm", perm);
  finish(imp, dst, yid);
}

// The value every element of constant i holds, if they all hold one (raw bytes, any type).
std::optional<std::vector<uint8_t>> uniform_fill(Importer& imp, int32_t i) {
  std::span<const uint8_t> d = imp.data(i);
  const size_t esize = ir::dtype_size(imp.act_dtype(imp.output(0)));
  if (esize == 0 || d.empty() || d.size() % esize) return std::nullopt;
  for (size_t k = esize; k < d.size(); ++k)
    if (d[k] != d[k % esize]) return std::nullopt;
  return std::vector<uint8_t>(d.begin(), d.begin() + static_cast<long>(esize));
}

// Constant operands before and after the activations that all hold one value (zeros around a
// spectrum, say) are a PAD of the joined activations; other constant operands are refused.
void concatenation(Importer& imp) {
  const auto& o = options<tfl::ConcatenationOptions>(imp);
  int32_t y = imp.output(0);
  ir::DType t = imp.act_dtype(y);
  int rank = static_cast<int>(imp.tfl_shape(y).size());
  if (rank == 0) refuse("scalar operands");
  const int64_t axis = normalized_axis(o.axis, rank);
  std::vector<ir::TensorId> in;
  int64_t before = 0, after = 0;
  std::optional<std::vector<uint8_t>> fill;
  for (size_t k = 0; k < imp.num_inputs(); ++k) {
    int32_t i = imp.input(k);
    if (static_cast<int>(imp.tfl_shape(i).size()) != rank) refuse("operands of different ranks");
    if (imp.is_const(i)) {
      if (imp.type(i) != imp.type(y)) refuse("operands of different types");
      std::optional<std::vector<uint8_t>> f = uniform_fill(imp, i);
      if (!f || (fill && *f != *fill)) refuse("a constant operand that is not one fill value");
      if (after > 0 || !in.empty()) {
        after += imp.tfl_shape(i)[static_cast<size_t>(axis)];
      } else {
        before += imp.tfl_shape(i)[static_cast<size_t>(axis)];
      }
      fill = f;
      continue;
    }
    if (after > 0) refuse("a constant operand between activations");
    if (imp.act_dtype(i) != t) refuse("operands of different types");
    in.push_back(imp.act(i));
  }
  if (in.empty()) refuse("every operand is a constant");
  if (fill && o.activation != tfl::Activation::None) refuse("constant operands with a fused activation");
  ir::TensorId yid = imp.act(y);
  ir::TensorId joined = yid;
  if (fill) {
    std::vector<int64_t> js = imp.g.tensor(yid).shape;
    const size_t ir_ax = static_cast<size_t>(ir_axis(axis, rank));
    js[ir_ax] -= before + after;
    joined = in.size() == 1 ? in[0] : imp.temp(yid, js, "joined");
  }
  if (!fill || in.size() > 1) {
    ir::Node& n = imp.add_node("Concat", in, {joined});
    n.attrs.set("axis", ir_axis(axis, rank));
    imp.fuse(imp.g.nodes.size() - 1, o.activation, false);
  }
  if (!fill) return;
  // The fill as the Pad's float value: exact for float32 and for integers below 2^24.
  double v = 0;
  const std::vector<uint8_t>& f = *fill;
  if (t == ir::DType::Float32) {
    float x;
    std::memcpy(&x, f.data(), 4);
    v = x;
  } else if (t == ir::DType::Int32 || t == ir::DType::Int16 || t == ir::DType::Int8) {
    int32_t x = 0;
    if (t == ir::DType::Int32) std::memcpy(&x, f.data(), 4);
    if (t == ir::DType::Int16) x = static_cast<int16_t>(f[0] | (f[1] << 8));
    if (t == ir::DType::Int8) x = static_cast<int8_t>(f[0]);
    if (x > (1 << 24) || x < -(1 << 24)) refuse("a fill value a PAD cannot hold exactly");
    if (imp.act_quant(y)) refuse("constant operands of a quantized concatenation");
    v = x;
  } else {
    refuse("constant operands of type " + ir::dtype_name(t));
  }
  std::vector<int64_t> pads(static_cast<size_t>(2 * rank), 0);
  const size_t ir_ax = static_cast<size_t>(ir_axis(axis, rank));
  pads[ir_ax] = before;
  pads[ir_ax + static_cast<size_t>(rank)] = after;
  ir::Node& p = imp.add_node("Pad", {joined}, {yid}, "fill");
  p.attrs.set("mode", std::string("constant"));
  p.attrs.set("pads", pads);
  p.attrs.set("value", static_cast<float>(v));
}

// PAD and PADV2 (constant fill; PADV2's value dequantized for int8 tensors).
void pad(Importer& imp) {
  int32_t x = imp.input(0), y = imp.output(0);
  ir::DType t = imp.act_dtype(x);
  if (imp.act_dtype(y) != t) refuse("input and output types differ");
  std::vector<int64_t> xs = imp.tfl_shape(x), p = imp.ints(imp.input(1));
  int rank = static_cast<int>(xs.size());
  if (p.size() != 2 * xs.size()) refuse("paddings of the wrong shape");
  std::vector<int64_t> perm = ir_perm(rank), pads(2 * xs.size());
  for (int j = 0; j < rank; ++j) {
    size_t a = static_cast<size_t>(perm[static_cast<size_t>(j)]);
    if (p[2 * a] < 0 || p[2 * a + 1] < 0) refuse("negative paddings");
    pads[static_cast<size_t>(j)] = p[2 * a];
    pads[static_cast<size_t>(j + rank)] = p[2 * a + 1];
  }
  float value = 0.0f;
  if (t == ir::DType::Int16) {
    value = dequantized_pad_value(imp, imp.input(2), y);
  } else if (imp.input(2) >= 0) {
    int32_t v = imp.input(2);
    if (!imp.is_const(v) || imp.data(v).empty()) refuse("pad value computed at run time");
    std::span<const uint8_t> d = imp.data(v);
    if (imp.type(v) == tfl::TensorType::Float32) {
      std::memcpy(&value, d.data(), 4);
    } else if (imp.type(v) == tfl::TensorType::Int8 && imp.quant(v)) {
      ir::QuantParam q = *imp.quant(v);
      value = static_cast<float>(static_cast<double>(q.scales[0]) * (static_cast<int8_t>(d[0]) - q.zero_points[0]));
    } else {
      refuse(std::string("pad value of type ") + tfl::tensor_type_name(imp.type(v)));
    }
  }
  ir::Node& n = imp.add_node("Pad", {imp.act(x)}, {imp.act(y)});
  n.attrs.set("pads", pads);
  n.attrs.set("mode", std::string("constant"));
  if (value != 0.0f) n.attrs.set("value", value);
}

void mean(Importer& imp) {
  const auto& o = options<tfl::ReducerOptions>(imp);
  int32_t x = imp.input(0), y = imp.output(0);
  ir::DType t = imp.act_dtype(x);
  if (t != ir::DType::Float32 && !quantized_dtype(t)) refuse("no kernel for " + ir::dtype_name(t) + " data");
  imp.act_dtype(y);
  std::vector<int64_t> xs = imp.tfl_shape(x), ys = imp.tfl_shape(y), axes = imp.ints(imp.input(1));
  int rank = static_cast<int>(xs.size());
  std::vector<int64_t> kept = xs, ir_axes;
  for (int64_t a : axes) {
    int64_t n = normalized_axis(a, rank);
    kept[static_cast<size_t>(n)] = 1;
    ir_axes.push_back(ir_axis(n, rank));
  }
  std::sort(ir_axes.begin(), ir_axes.end());
  ir_axes.erase(std::unique(ir_axes.begin(), ir_axes.end()), ir_axes.end());
  ir::TensorId yid = imp.act(y);
  bool direct = o.keep_dims && ys == kept;
  ir::TensorId out = direct ? yid : imp.temp(yid, ir::permute_shape(kept, ir_perm(rank)), "kept");
  ir::Node& n = imp.add_node("ReduceMean", {imp.act(x)}, {out});
  n.attrs.set("axes", ir_axes);
  n.attrs.set("keepdims", int64_t{1});
  if (direct) return;
  if (ir::num_elements(ys) != ir::num_elements(kept)) refuse("output shape does not match the reduction");
  ir::TensorId kt = imp.tfl_order(out);
  ir::TensorId dst = tfl_target(imp, yid, ys);
  imp.add_node("Reshape", {kt}, {dst}, "shape").attrs.set("shape", ys);
  finish(imp, dst, yid);
}

void softmax(Importer& imp) {
  const auto& o = options<tfl::SoftmaxOptions>(imp);
  int32_t x = imp.input(0), y = imp.output(0);
  ir::DType t = imp.act_dtype(x);
  if (t != ir::DType::Float32 && !quantized_dtype(t)) refuse("no kernel for " + ir::dtype_name(t) + " data");
  ir::DType ty = imp.act_dtype(y);
  if (t == ir::DType::Int8 && ty == ir::DType::Int16) {
    // TFLite Micro's int8 -> int16 softmax: output (1/65536 within 0.1%, -32768).
    ir::QuantParam q = *imp.act_quant(y);
    if (q.zero_points[0] != -32768 || std::fabs(q.scales[0] - 1.0f / 65536.0f) > 0.001f / 65536.0f)
      refuse("int8 -> int16 softmax with an output quantization other than (1/65536, -32768)");
  } else if (ty != t) {
    refuse(std::string("input and output types differ (") + ir::dtype_name(t) + " -> " + ir::dtype_name(ty) +
           "; TFLite Micro's softmax takes float32, int8 -> int8, int8 -> int16 and int16 -> int16)");
  }
  if (t == ir::DType::Int16) check_int16_softmax(imp, x, y);
  if (t == ir::DType::Int8 && ty == ir::DType::Int8) {
    ir::QuantParam q = *imp.quant(y);
    if (q.scales[0] != 1.0f / 256.0f || q.zero_points[0] != -128)
      refuse("int8 output quantization other than (1/256, -128)");
  }
  int rank = static_cast<int>(imp.tfl_shape(x).size());
  if (rank == 0) refuse("scalar input");
  ir::Node& n = imp.add_node("Softmax", {imp.act(x)}, {imp.act(y)});
  n.attrs.set("axis", ir_axis(rank - 1, rank));
  if (o.beta != 1.0f) n.attrs.set("beta", o.beta);
}

void resize(Importer& imp, bool bilinear) {
  const auto& o = options<tfl::ResizeOptions>(imp);
  int32_t x = imp.input(0), y = imp.output(0);
  ir::DType t = imp.act_dtype(x);
  if (t != ir::DType::Float32 && t != ir::DType::Int8) refuse("no kernel for " + ir::dtype_name(t) + " data");
  if (imp.act_dtype(y) != t) refuse("input and output types differ");
  std::vector<int64_t> xs = imp.tfl_shape(x), ys = imp.tfl_shape(y), size = imp.ints(imp.input(1));
  if (xs.size() != 4 || size.size() != 2) refuse("expects a rank-4 input and a size of two values");
  if (ys != std::vector<int64_t>{xs[0], size[0], size[1], xs[3]}) refuse("output shape does not match the size");
  if (o.align_corners && o.half_pixel_centers) refuse("align_corners together with half_pixel_centers");
  ir::Node& n = imp.add_node("Resize", {imp.act(x)}, {imp.act(y)});
  n.attrs.set("mode", std::string(bilinear ? "linear" : "nearest"));
  n.attrs.set("scales", std::vector<float>{1.0f, 1.0f, static_cast<float>(size[0]) / static_cast<float>(xs[1]),
                                           static_cast<float>(size[1]) / static_cast<float>(xs[2])});
  std::string coord = o.align_corners        ? "align_corners"
                      : o.half_pixel_centers ? (bilinear ? "half_pixel" : "tf_half_pixel_for_nn")
                                             : "asymmetric";
  n.attrs.set("coordinate_transformation_mode", coord);
  n.attrs.set("nearest_mode", std::string(o.align_corners ? "round_prefer_ceil" : "floor"));
  // TFLite derives align-corners coordinates from the tensor sizes: keep the mode as is.
  n.attrs.set("exact_align_corners", int64_t{1});
}

void resize_nearest(Importer& imp) { resize(imp, false); }
void resize_bilinear(Importer& imp) { resize(imp, true); }

struct SliceAxis {
  int64_t start = 0, stop = 0, step = 1, count = 0;
};

// TFLite's StartForAxis / StopForAxis for one axis.
SliceAxis slice_axis(const tfl::StridedSliceOptions& o, int a, int64_t dim, int64_t b, int64_t e, int64_t s) {
  SliceAxis r;
  bool shrink = (o.shrink_axis_mask >> a) & 1;
  if (s == 0) refuse("stride 0");
  r.step = shrink ? 1 : s;
  if ((o.begin_mask >> a) & 1 && !shrink) {
    r.start = s > 0 ? 0 : dim - 1;
  } else {
    r.start = b < 0 ? b + dim : b;
    r.start = s > 0 || shrink ? std::clamp<int64_t>(r.start, 0, dim) : std::clamp<int64_t>(r.start, -1, dim - 1);
  }
  if (shrink) {
    r.stop = r.start + 1;
  } else if ((o.end_mask >> a) & 1) {
    r.stop = s > 0 ? dim : -1;
  } else {
    r.stop = e < 0 ? e + dim : e;
    r.stop = s > 0 ? std::clamp<int64_t>(r.stop, 0, dim) : std::clamp<int64_t>(r.stop, -1, dim - 1);
  }
  r.count = r.step > 0 ? (r.stop - r.start + r.step - 1) / r.step : (r.start - r.stop - r.step - 1) / -r.step;
  if (r.count <= 0) refuse("an empty slice");
  return r;
}

void strided_slice(Importer& imp) {
  const auto& o = options<tfl::StridedSliceOptions>(imp);
  if (o.ellipsis_mask || o.new_axis_mask) refuse("ellipsis or new-axis masks");
  if (o.offset) refuse("offset slices");
  int32_t x = imp.input(0), y = imp.output(0);
  ir::DType t = imp.act_dtype(x);
  if (imp.act_dtype(y) != t) refuse("input and output types differ");
  std::vector<int64_t> xs = imp.tfl_shape(x), ys = imp.tfl_shape(y);
  std::vector<int64_t> b = imp.ints(imp.input(1)), e = imp.ints(imp.input(2)), s = imp.ints(imp.input(3));
  int rank = static_cast<int>(xs.size());
  if (b.size() != xs.size() || e.size() != xs.size() || s.size() != xs.size())
    refuse("begin, end and strides of the wrong length");
  std::vector<SliceAxis> axes;
  std::vector<int64_t> full, kept;
  for (int a = 0; a < rank; ++a) {
    size_t k = static_cast<size_t>(a);
    axes.push_back(slice_axis(o, a, xs[k], b[k], e[k], s[k]));
    full.push_back(axes.back().count);
    if (!((o.shrink_axis_mask >> a) & 1)) kept.push_back(axes.back().count);
  }
  if (kept != ys) refuse("output shape does not match the slice");
  std::vector<int64_t> perm = ir_perm(rank), starts, ends, steps, ir_axes;
  for (int j = 0; j < rank; ++j) {
    const SliceAxis& sa = axes[static_cast<size_t>(perm[static_cast<size_t>(j)])];
    int64_t dim = xs[static_cast<size_t>(perm[static_cast<size_t>(j)])];
    starts.push_back(sa.start);
    ends.push_back(sa.step < 0 && sa.stop == -1 ? -(dim + 1) : sa.stop);  // ONNX: -1 would mean dim - 1
    steps.push_back(sa.step);
    ir_axes.push_back(j);
  }
  ir::TensorId yid = imp.act(y);
  bool direct = full == ys;
  ir::TensorId out = direct ? yid : imp.temp(yid, ir::permute_shape(full, perm), "full");
  ir::Node& n = imp.add_node("Slice", {imp.act(x)}, {out});
  n.attrs.set("starts", starts);
  n.attrs.set("ends", ends);
  n.attrs.set("axes", ir_axes);
  n.attrs.set("steps", steps);
  if (direct) return;
  ir::TensorId ft = imp.tfl_order(out);
  ir::TensorId dst = tfl_target(imp, yid, ys);
  imp.add_node("Reshape", {ft}, {dst}, "shrink").attrs.set("shape", ys);
  finish(imp, dst, yid);
}

// SLICE: begin and size per TFLite axis (size -1: to the end).
void slice(Importer& imp) {
  int32_t x = imp.input(0), y = imp.output(0);
  ir::DType t = imp.act_dtype(x);
  if (imp.act_dtype(y) != t) refuse("input and output types differ");
  std::vector<int64_t> xs = imp.tfl_shape(x), ys = imp.tfl_shape(y);
  std::vector<int64_t> b = imp.ints(imp.input(1)), n = imp.ints(imp.input(2));
  int rank = static_cast<int>(xs.size());
  if (b.size() != xs.size() || n.size() != xs.size()) refuse("begin and size of the wrong length");
  std::vector<int64_t> counts;
  for (size_t a = 0; a < xs.size(); ++a) {
    int64_t count = n[a] == -1 ? xs[a] - b[a] : n[a];
    if (b[a] < 0 || count <= 0 || b[a] + count > xs[a]) refuse("a slice outside the input");
    counts.push_back(count);
  }
  if (counts != ys) refuse("output shape does not match the slice");
  std::vector<int64_t> perm = ir_perm(rank), starts, ends, axes, steps;
  for (int j = 0; j < rank; ++j) {
    size_t a = static_cast<size_t>(perm[static_cast<size_t>(j)]);
    starts.push_back(b[a]);
    ends.push_back(b[a] + counts[a]);
    axes.push_back(j);
    steps.push_back(1);
  }
  ir::Node& node = imp.add_node("Slice", {imp.act(x)}, {imp.act(y)});
  node.attrs.set("starts", starts);
  node.attrs.set("ends", ends);
  node.attrs.set("axes", axes);
  node.attrs.set("steps", steps);
}

}  // namespace

void register_shape(std::map<int32_t, Converter>& t) {
  t[tfl::op::kReshape] = reshape;
  t[tfl::op::kSqueeze] = reshape;
  t[70] = reshape;  // EXPAND_DIMS
  t[tfl::op::kTranspose] = transpose;
  t[tfl::op::kConcatenation] = concatenation;
  t[tfl::op::kPad] = pad;
  t[tfl::op::kPadV2] = pad;
  t[tfl::op::kMean] = mean;
  t[tfl::op::kSoftmax] = softmax;
  t[tfl::op::kResizeNearestNeighbor] = resize_nearest;
  t[tfl::op::kResizeBilinear] = resize_bilinear;
  t[tfl::op::kStridedSlice] = strided_slice;
  t[tfl::op::kSlice] = slice;
}

}  // namespace tigris::frontend::tflite
