// A small integer evaluator for checking that a banded model computes the same tensors
// as the original, independently of TFLite Micro. Its arithmetic is a stand-in (exact
// int64 accumulation, a fixed shift for requantization), the same for the original and
// the band copies; what it checks is the geometry: which rows, which halo, which padding
// values (the zero point for PAD and SAME convolutions, the lowest value for max pools).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <vector>

#include "export/tflite/model.h"

namespace tigris::test {

using tflite::Model;
using tflite::Tensor;
namespace op = tflite::op;

class MiniEval {
 public:
  explicit MiniEval(const Model& m) : m_(m), g_(m.subgraphs[0]), values_(g_.tensors.size()) {
    for (size_t i = 0; i < g_.tensors.size(); ++i) {
      auto data = tflite::tensor_data(m, g_.tensors[i]);
      if (data.empty()) continue;
      if (g_.tensors[i].type == tflite::TensorType::Int32) {
        values_[i].resize(data.size() / 4);
        std::memcpy(values_[i].data(), data.data(), data.size());
      } else {
        for (uint8_t b : data) values_[i].push_back(static_cast<int8_t>(b));
      }
    }
  }

  // Random int8 values for the graph inputs (seeded).
  void random_inputs(uint32_t seed) {
    std::mt19937 rng(seed);
    for (int32_t t : g_.inputs) {
      values_[t].resize(static_cast<size_t>(tflite::element_count(g_.tensors[t].shape)));
      for (int32_t& v : values_[t]) v = static_cast<int32_t>(rng() % 256) - 128;
    }
  }
  void set_inputs_from(const MiniEval& other) {
    for (size_t k = 0; k < g_.inputs.size(); ++k) values_[g_.inputs[k]] = other.values_[other.g_.inputs[k]];
  }

  // Runs operators in order while they are of a kind it knows.
  void run() {
    for (const tflite::Operator& o : g_.operators)
      if (!step(o)) return;
  }

  const std::vector<int32_t>& value(int32_t t) const { return values_[t]; }
  int32_t find(const std::string& name) const {
    for (size_t i = 0; i < g_.tensors.size(); ++i)
      if (g_.tensors[i].name == name) return static_cast<int32_t>(i);
    return -1;
  }

 private:
  const Tensor& T(int32_t t) const { return g_.tensors[t]; }
  int32_t zp(int32_t t) const {
    const Tensor& x = T(t);
    return x.quantization && !x.quantization->zero_point.empty() ? static_cast<int32_t>(x.quantization->zero_point[0])
                                                                 : 0;
  }
  static int32_t clamp8(int64_t v) { return static_cast<int32_t>(std::clamp<int64_t>(v, -128, 127)); }
  std::vector<int32_t>& out(const tflite::Operator& o) {
    auto& v = values_[o.outputs[0]];
    v.assign(static_cast<size_t>(tflite::element_count(T(o.outputs[0]).shape)), 0);
    return v;
  }

  bool step(const tflite::Operator& o) {
    int32_t code = tflite::builtin_code(m_, o);
    switch (code) {
    case op::kConv2D:
    case op::kDepthwiseConv2D:
    case op::kMaxPool2D:
    case op::kAveragePool2D: window(o, code); return true;
    case op::kPad:
    case op::kPadV2: pad(o, code); return true;
    case op::kSlice: slice(o); return true;
    case op::kConcatenation: concat(o); return true;
    case op::kAdd: add(o); return true;
    case op::kReshape: values_[o.outputs[0]] = values_[o.inputs[0]]; return true;
    case op::kRelu: {
      auto& y = out(o);
      const auto& x = values_[o.inputs[0]];
      for (size_t i = 0; i < y.size(); ++i) y[i] = std::max(x[i], zp(o.outputs[0]));
      return true;
    }
    default: return false;
    }
  }

  struct Geo {
    int64_t kh, kw, sh, sw, dh, dw, pt, pl;
    bool same;
  };

  Geo geometry(const tflite::Operator& o, int32_t code) const {
    const auto& in = T(o.inputs[0]).shape;
    const auto& outs = T(o.outputs[0]).shape;
    Geo g{1, 1, 1, 1, 1, 1, 0, 0, false};
    tflite::Padding padding = tflite::Padding::Valid;
    if (auto* c = o.options.get<tflite::Conv2DOptions>())
      g.sh = c->stride_h, g.sw = c->stride_w, g.dh = c->dilation_h, g.dw = c->dilation_w, padding = c->padding;
    if (auto* c = o.options.get<tflite::DepthwiseConv2DOptions>())
      g.sh = c->stride_h, g.sw = c->stride_w, g.dh = c->dilation_h, g.dw = c->dilation_w, padding = c->padding;
    if (auto* p = o.options.get<tflite::Pool2DOptions>())
      g.sh = p->stride_h, g.sw = p->stride_w, g.kh = p->filter_h, g.kw = p->filter_w, padding = p->padding;
    if (code == op::kConv2D || code == op::kDepthwiseConv2D) {
      g.kh = T(o.inputs[1]).shape[1];
      g.kw = T(o.inputs[1]).shape[2];
    }
    if (padding == tflite::Padding::Same) {
      g.same = true;
      g.pt = std::max<int64_t>((outs[1] - 1) * g.sh + (g.kh - 1) * g.dh + 1 - in[1], 0) / 2;
      g.pl = std::max<int64_t>((outs[2] - 1) * g.sw + (g.kw - 1) * g.dw + 1 - in[2], 0) / 2;
    }
    return g;
  }

  void window(const tflite::Operator& o, int32_t code) {
    const auto& is = T(o.inputs[0]).shape;
    const auto& os = T(o.outputs[0]).shape;
    const auto& x = values_[o.inputs[0]];
    Geo g = geometry(o, code);
    auto& y = out(o);
    int32_t zin = zp(o.inputs[0]), zout = zp(o.outputs[0]);
    int64_t cin = is[3], cout = os[3];
    for (int64_t n = 0; n < os[0]; ++n)
      for (int64_t oy = 0; oy < os[1]; ++oy)
        for (int64_t ox = 0; ox < os[2]; ++ox)
          for (int64_t c = 0; c < cout; ++c) {
            int64_t acc = 0, best = -1000, count = 0;
            if (code == op::kConv2D || code == op::kDepthwiseConv2D) acc = bias(o, c);
            for (int64_t ky = 0; ky < g.kh; ++ky)
              for (int64_t kx = 0; kx < g.kw; ++kx) {
                int64_t iy = oy * g.sh - g.pt + ky * g.dh, ix = ox * g.sw - g.pl + kx * g.dw;
                if (iy < 0 || ix < 0 || iy >= is[1] || ix >= is[2]) continue;  // skipped taps
                auto at = [&](int64_t ch) {
                  return x[static_cast<size_t>(((n * is[1] + iy) * is[2] + ix) * cin + ch)];
                };
                if (code == op::kConv2D) {
                  for (int64_t ci = 0; ci < cin; ++ci)
                    acc += (at(ci) - zin) * weight(o, ((c * g.kh + ky) * g.kw + kx) * cin + ci);
                } else if (code == op::kDepthwiseConv2D) {
                  acc += (at(c * cin / cout) - zin) * weight(o, (ky * g.kw + kx) * cout + c);
                } else {
                  best = std::max<int64_t>(best, at(c));
                  acc += at(c);
                  ++count;
                }
              }
            int64_t v = code == op::kMaxPool2D       ? best
                        : code == op::kAveragePool2D ? (count ? acc / count : 0)
                                                     : clamp8((acc >> 7) + zout);
            y[static_cast<size_t>(((n * os[1] + oy) * os[2] + ox) * cout + c)] = static_cast<int32_t>(v);
          }
  }
  int64_t weight(const tflite::Operator& o, int64_t i) const { return values_[o.inputs[1]][static_cast<size_t>(i)]; }
  int64_t bias(const tflite::Operator& o, int64_t c) const {
    return o.inputs.size() > 2 && o.inputs[2] >= 0 ? values_[o.inputs[2]][static_cast<size_t>(c)] : 0;
  }

  void pad(const tflite::Operator& o, int32_t code) {
    const auto& is = T(o.inputs[0]).shape;
    const auto& os = T(o.outputs[0]).shape;
    const auto& p = values_[o.inputs[1]];
    int32_t fill = code == op::kPadV2 ? values_[o.inputs[2]][0] : zp(o.outputs[0]);
    auto& y = out(o);
    std::fill(y.begin(), y.end(), fill);
    const auto& x = values_[o.inputs[0]];
    for (int64_t n = 0; n < is[0]; ++n)
      for (int64_t h = 0; h < is[1]; ++h)
        for (int64_t w = 0; w < is[2]; ++w)
          for (int64_t c = 0; c < is[3]; ++c)
            y[static_cast<size_t>((((n + p[0]) * os[1] + h + p[2]) * os[2] + w + p[4]) * os[3] + c + p[6])] =
                x[static_cast<size_t>(((n * is[1] + h) * is[2] + w) * is[3] + c)];
  }

  void slice(const tflite::Operator& o) {
    const auto& is = T(o.inputs[0]).shape;
    const auto& os = T(o.outputs[0]).shape;
    const auto& b = values_[o.inputs[1]];
    const auto& x = values_[o.inputs[0]];
    auto& y = out(o);
    size_t k = 0;
    for (int64_t n = 0; n < os[0]; ++n)
      for (int64_t h = 0; h < os[1]; ++h)
        for (int64_t w = 0; w < os[2]; ++w)
          for (int64_t c = 0; c < os[3]; ++c)
            y[k++] = x[static_cast<size_t>((((n + b[0]) * is[1] + h + b[1]) * is[2] + w + b[2]) * is[3] + c + b[3])];
  }

  void concat(const tflite::Operator& o) {  // along axis 1 for batch 1
    auto& y = out(o);
    size_t k = 0;
    for (int32_t t : o.inputs)
      for (int32_t v : values_[t]) y[k++] = v;
  }

  void add(const tflite::Operator& o) {
    auto& y = out(o);
    const auto& a = values_[o.inputs[0]];
    const auto& b = values_[o.inputs[1]];
    for (size_t i = 0; i < y.size(); ++i)
      y[i] = clamp8(int64_t{a[i % a.size()]} - zp(o.inputs[0]) + b[i % b.size()] - zp(o.inputs[1]) + zp(o.outputs[0]));
  }

  const Model& m_;
  const tflite::SubGraph& g_;
  std::vector<std::vector<int32_t>> values_;
};

}  // namespace tigris::test
