// Row geometry of the operators export can compute in bands.
#include "export/banding/geometry.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace tigris::banding {
namespace {

namespace op = tflite::op;
using tflite::Padding;
using tflite::Tensor;
using tflite::TensorType;

bool is_unary(int32_t c) {
  return c == op::kRelu || c == op::kRelu6 || c == op::kLogistic || c == op::kTanh || c == op::kHardSwish ||
         c == op::kLeakyRelu || c == op::kQuantize || c == op::kAbs;
}
bool is_binary(int32_t c) {
  return c == op::kAdd || c == op::kSub || c == op::kMul || c == op::kMaximum || c == op::kMinimum;
}

const Tensor* input(const tflite::SubGraph& g, const tflite::Operator& o, size_t i) {
  if (i >= o.inputs.size() || o.inputs[i] < 0) return nullptr;
  return &g.tensors[static_cast<size_t>(o.inputs[i])];
}

bool int8_4d(const Tensor* t) { return t && t->type == TensorType::Int8 && t->shape.size() == 4; }

// Fills a window along one axis from the operator's options; checks the output size.
bool fill_window(Window& w, int64_t in, int64_t out, Padding padding, std::string* why) {
  if (w.stride < 1 || w.dilation < 1 || w.kernel < 1) return *why = "a stride, dilation or kernel below 1", false;
  int64_t expected =
      padding == Padding::Same ? (in + w.stride - 1) / w.stride : (in - w.extent() + w.stride) / w.stride;
  if (expected != out) return *why = "an output size its padding does not give", false;
  if (padding == Padding::Same)
    std::tie(w.pad_before, w.pad_after) = same_padding(in, out, w.stride, w.extent());
  else if (padding != Padding::Valid)
    return *why = "an unknown padding", false;
  return true;
}

bool window_op(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& o, int32_t code, BandOp& b,
               std::string* why) {
  const Tensor* in = input(g, o, 0);
  const Tensor& out = g.tensors[static_cast<size_t>(o.outputs[0])];
  if (!int8_4d(in) || tflite::is_constant(m, *in)) return *why = "an input that is not an int8 4-D activation", false;
  Padding padding = Padding::Valid;
  if (code == op::kConv2D || code == op::kDepthwiseConv2D) {
    const Tensor* filter = input(g, o, 1);
    const Tensor* bias = input(g, o, 2);
    if (!filter || filter->shape.size() != 4 || !tflite::is_constant(m, *filter) ||
        (bias && !tflite::is_constant(m, *bias)))
      return *why = "weights that are not constant", false;
    b.h.kernel = filter->shape[1];
    b.w.kernel = filter->shape[2];
    if (auto* c = o.options.get<tflite::Conv2DOptions>()) {
      padding = c->padding;
      b.h.stride = c->stride_h, b.w.stride = c->stride_w;
      b.h.dilation = c->dilation_h, b.w.dilation = c->dilation_w;
    } else if (auto* d = o.options.get<tflite::DepthwiseConv2DOptions>()) {
      padding = d->padding;
      b.h.stride = d->stride_h, b.w.stride = d->stride_w;
      b.h.dilation = d->dilation_h, b.w.dilation = d->dilation_w;
    } else {
      return *why = "no convolution options", false;
    }
  } else {
    auto* p = o.options.get<tflite::Pool2DOptions>();
    if (!p) return *why = "no pooling options", false;
    padding = p->padding;
    b.h.kernel = p->filter_h, b.w.kernel = p->filter_w;
    b.h.stride = p->stride_h, b.w.stride = p->stride_w;
  }
  if (!fill_window(b.h, in->shape[1], out.shape[1], padding, why) ||
      !fill_window(b.w, in->shape[2], out.shape[2], padding, why))
    return false;
  if (code == op::kAveragePool2D && (b.h.pad_before || b.h.pad_after || b.w.pad_before || b.w.pad_after))
    return *why = "padding that an average pool would leave out of its mean", false;
  b.row_inputs = {0};
  b.strided_or_pool = code == op::kMaxPool2D || code == op::kAveragePool2D || b.h.stride > 1 || b.w.stride > 1;
  return true;
}

bool pad_op(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& o, BandOp& b, std::string* why) {
  const Tensor* in = input(g, o, 0);
  const Tensor& out = g.tensors[static_cast<size_t>(o.outputs[0])];
  if (!int8_4d(in) || tflite::is_constant(m, *in)) return *why = "an input that is not an int8 4-D activation", false;
  auto pads = pad_amounts(m, g, o);
  if (pads.size() != 4) return *why = "paddings that are not a constant int32 [4, 2]", false;
  for (size_t d = 0; d < 4; ++d)
    if (pads[d][0] < 0 || pads[d][1] < 0 || in->shape[d] + pads[d][0] + pads[d][1] != out.shape[d])
      return *why = "paddings that do not give its output shape", false;
  if (o.inputs.size() > 2) {
    const Tensor* value = input(g, o, 2);
    if (!value || !tflite::is_constant(m, *value)) return *why = "a pad value that is not constant", false;
  }
  b.h.pad_before = pads[1][0], b.h.pad_after = pads[1][1];
  b.w.pad_before = pads[2][0], b.w.pad_after = pads[2][1];
  b.pad_n = pads[0];
  b.pad_c = pads[3];
  b.row_inputs = {0};
  return true;
}

bool elementwise_op(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& o, int32_t code,
                    BandOp& b, std::string* why) {
  const Tensor& out = g.tensors[static_cast<size_t>(o.outputs[0])];
  size_t operands = is_binary(code) ? 2 : 1;
  if (o.inputs.size() < operands) return *why = "missing inputs", false;
  for (size_t i = 0; i < operands; ++i) {
    const Tensor* t = input(g, o, i);
    if (!t || t->type != TensorType::Int8) return *why = "an input that is not int8", false;
    bool carries_rows = t->shape.size() == 4 && t->shape[1] == out.shape[1] && out.shape[1] > 1;
    if (carries_rows) {
      if (tflite::is_constant(m, *t)) return *why = "a constant operand with rows", false;
      b.row_inputs.push_back(i);
    } else if (t->shape.size() > 4 || (t->shape.size() == 4 && t->shape[1] != 1)) {
      return *why = "an operand that does not broadcast over rows", false;
    }
  }
  if (b.row_inputs.empty()) return *why = "no input with rows", false;
  return true;
}

}  // namespace

Rows hull(Rows a, Rows b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  return {std::min(a.lo, b.lo), std::max(a.hi, b.hi)};
}

std::pair<int64_t, int64_t> same_padding(int64_t in, int64_t out, int64_t stride, int64_t extent) {
  int64_t total = std::max<int64_t>((out - 1) * stride + extent - in, 0);
  return {total / 2, total - total / 2};
}

std::vector<std::array<int32_t, 2>> pad_amounts(const tflite::Model& m, const tflite::SubGraph& g,
                                                const tflite::Operator& o) {
  const Tensor* p = input(g, o, 1);
  if (!p || p->type != TensorType::Int32 || p->shape.size() != 2 || p->shape[1] != 2) return {};
  auto data = tflite::tensor_data(m, *p);
  size_t rows = static_cast<size_t>(p->shape[0]);
  if (data.size() != rows * 8) return {};
  std::vector<std::array<int32_t, 2>> out(rows);
  std::memcpy(out.data(), data.data(), data.size());  // little-endian host
  return out;
}

std::optional<BandOp> band_op(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& o,
                              std::string* why) {
  int32_t code = tflite::builtin_code(m, o);
  BandOp b;
  b.code = code;
  bool window =
      code == op::kConv2D || code == op::kDepthwiseConv2D || code == op::kMaxPool2D || code == op::kAveragePool2D;
  bool pad = code == op::kPad || code == op::kPadV2;
  if (!window && !pad && !is_unary(code) && !is_binary(code)) {
    *why = std::string(tflite::builtin_name(code)) + " is not computed in bands";
    return std::nullopt;
  }
  if (o.outputs.size() != 1 || !int8_4d(&g.tensors[static_cast<size_t>(o.outputs[0])])) {
    *why = "its output is not an int8 4-D tensor";
    return std::nullopt;
  }
  b.kind = window ? BandKind::Window : pad ? BandKind::Pad : BandKind::Elementwise;
  bool ok = window ? window_op(m, g, o, code, b, why)
            : pad  ? pad_op(m, g, o, b, why)
                   : elementwise_op(m, g, o, code, b, why);
  if (!ok) return std::nullopt;
  if (code == op::kQuantize && g.tensors[static_cast<size_t>(o.inputs[0])].type != TensorType::Int8) {
    *why = "QUANTIZE from a type other than int8";
    return std::nullopt;
  }
  return b;
}

}  // namespace tigris::banding
