// PAD folding.
#include "export/banding/fold.h"

#include <algorithm>

#include "export/banding/geometry.h"
#include "export/tflite/edit.h"

namespace tigris::banding {
namespace {

namespace op = tflite::op;
using tflite::Tensor;

size_t readers(const tflite::SubGraph& g, int32_t t, size_t* reader) {
  size_t n = 0;
  for (size_t i = 0; i < g.operators.size(); ++i)
    for (int32_t x : g.operators[i].inputs)
      if (x == t) ++n, *reader = i;
  return n;
}

bool same_quantization(const Tensor& a, const Tensor& b) {
  return a.quantization && b.quantization && a.quantization->scale == b.quantization->scale &&
         a.quantization->zero_point == b.quantization->zero_point;
}

// The convolution's padding and strides, if it is a VALID CONV_2D / DEPTHWISE_CONV_2D.
bool valid_conv(tflite::Operator& c, tflite::Padding** padding, int64_t* sh, int64_t* sw, int64_t* dh, int64_t* dw) {
  if (auto* o = c.options.get<tflite::Conv2DOptions>()) {
    *padding = &o->padding, *sh = o->stride_h, *sw = o->stride_w, *dh = o->dilation_h, *dw = o->dilation_w;
  } else if (auto* d = c.options.get<tflite::DepthwiseConv2DOptions>()) {
    *padding = &d->padding, *sh = d->stride_h, *sw = d->stride_w, *dh = d->dilation_h, *dw = d->dilation_w;
  } else {
    return false;
  }
  return **padding == tflite::Padding::Valid && *sh > 0 && *sw > 0;
}

// Folds PAD operator p if it qualifies; returns true if it did.
bool try_fold(tflite::Model& m, size_t p) {
  tflite::SubGraph& g = m.subgraphs[0];
  const tflite::Operator& pad = g.operators[p];
  if (tflite::builtin_code(m, pad) != op::kPad || pad.inputs.size() != 2 || pad.outputs.size() != 1) return false;
  int32_t x = pad.inputs[0], t = pad.outputs[0];
  size_t c = 0;
  if (readers(g, t, &c) != 1 || std::count(g.outputs.begin(), g.outputs.end(), t)) return false;
  tflite::Operator& conv = g.operators[c];
  int32_t code = tflite::builtin_code(m, conv);
  if ((code != op::kConv2D && code != op::kDepthwiseConv2D) || conv.inputs[0] != t) return false;
  const Tensor& in = g.tensors[static_cast<size_t>(x)];
  const Tensor& out = g.tensors[static_cast<size_t>(conv.outputs[0])];
  const Tensor& filter = g.tensors[static_cast<size_t>(conv.inputs[1])];
  if (in.type != tflite::TensorType::Int8 || in.shape.size() != 4 || out.shape.size() != 4 ||
      filter.shape.size() != 4 || !same_quantization(in, g.tensors[static_cast<size_t>(t)]))
    return false;
  auto pads = pad_amounts(m, g, pad);
  tflite::Padding* padding = nullptr;
  int64_t sh, sw, dh, dw;
  if (pads.size() != 4 || !valid_conv(conv, &padding, &sh, &sw, &dh, &dw)) return false;
  if (pads[0][0] || pads[0][1] || pads[3][0] || pads[3][1]) return false;
  for (int axis : {1, 2}) {
    int64_t stride = axis == 1 ? sh : sw;
    int64_t extent = (filter.shape[static_cast<size_t>(axis)] - 1) * (axis == 1 ? dh : dw) + 1;
    int64_t same_out = (in.shape[static_cast<size_t>(axis)] + stride - 1) / stride;
    if (same_out != out.shape[static_cast<size_t>(axis)]) return false;
    auto [before, after] = same_padding(in.shape[static_cast<size_t>(axis)], same_out, stride, extent);
    if (before != pads[static_cast<size_t>(axis)][0] || after != pads[static_cast<size_t>(axis)][1]) return false;
  }
  conv.inputs[0] = x;
  *padding = tflite::Padding::Same;
  g.operators.erase(g.operators.begin() + static_cast<long>(p));
  return true;
}

}  // namespace

Folded fold_pads(const tflite::Model& m) {
  Folded f{m, 0, {}};
  for (size_t i = 0; i < m.subgraphs[0].operators.size(); ++i) f.origin.push_back(static_cast<int>(i));
  for (size_t i = 0; i < f.model.subgraphs[0].operators.size();) {
    if (try_fold(f.model, i)) {
      f.origin.erase(f.origin.begin() + static_cast<long>(i));
      ++f.folded;
    } else {
      ++i;
    }
  }
  if (f.folded) tflite::drop_unreferenced(f.model);
  return f;
}

}  // namespace tigris::banding
