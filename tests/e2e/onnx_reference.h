// A deliberately plain ONNX interpreter for the test models (NCHW, model order, double
// accumulation), written independently of the compiler and the kernels, from the ONNX
// operator specification:
//   Conv (groups, pads, auto_pad, strides, dilations; 1-D and 2-D), BatchNormalization, Relu,
//   Clip, Tanh, Sigmoid, HardSigmoid, HardSwish, Add, Sub, Mul, Div (numpy broadcasting), Gemm
//   (transA/transB, alpha, beta), MatMul (batched, broadcast), Flatten, Reshape, Transpose,
//   Concat, Squeeze, Unsqueeze, GlobalAveragePool, AveragePool, MaxPool, ReduceMean, Softmax,
//   Constant, ConstantOfShape, Cast, Identity, Shape, Gather, Slice;
//   QLinearConv and QLinearMatMul (integer accumulation, float32 multiplier, round half to even);
//   QuantizeLinear (float32 division, round half to even, saturate to the zero point's type) and
//   DequantizeLinear, per tensor or along `axis`, scales and zero points of any rank-0/1 form.
// For QDQ models the float math between Q and DQ is done in double, the Q/DQ exactly.
// `run_forced` evaluates the graph with given values substituted for named tensors: each
// layer then computes from the substitutes, isolating its own arithmetic (layer by layer).
#pragma once

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/frontend/onnx/tensor_proto.h"

namespace tigris::test {

struct RefTensor {
  std::vector<int64_t> shape;
  std::vector<double> v;
  bool uint8 = false;  // uint8 data (a zero point, a QuantizeLinear output): the output saturates to [0, 255]
};

class OnnxReference {
 public:
  explicit OnnxReference(const onnx::ModelProto& m) : model_(m) {
    for (const auto& init : m.graph().initializer())
      consts_[init.name()] = from_value(frontend::onnx::tensor_from_proto(init));
  }

  RefTensor run(const RefTensor& input) { return run(std::map<std::string, RefTensor>{{runtime_inputs()[0], input}}); }
  RefTensor run(const std::map<std::string, RefTensor>& inputs) {
    run_forced(inputs, {});
    return values_.at(model_.graph().output(0).name());
  }
  // Evaluate with `forced` values standing for those tensors: a node whose output is forced
  // computes it from its (possibly forced) inputs, records it (computed()), then its readers
  // see the forced value.
  void run_forced(const std::map<std::string, RefTensor>& inputs, const std::map<std::string, RefTensor>& forced) {
    values_ = consts_;
    computed_.clear();
    for (const auto& [name, t] : inputs) values_[name] = t;
    for (const auto& n : model_.graph().node()) {
      producer_[n.output(0)] = &n;
      RefTensor y = eval(n);
      auto f = forced.find(n.output(0));
      if (f == forced.end()) {
        values_[n.output(0)] = std::move(y);
        continue;
      }
      computed_[n.output(0)] = std::move(y);
      values_[n.output(0)] = f->second;
    }
  }
  // Any tensor of the last run, by name; what a forced tensor's node computed.
  const RefTensor& value(const std::string& name) const { return values_.at(name); }
  const RefTensor& computed(const std::string& name) const { return computed_.at(name); }
  // The values a QuantizeLinear rounded to give tensor `name` (x / scale + zero point, before
  // rounding and saturation), traced back through Clip/Relu of dequantized values to the
  // QuantizeLinear where the rounding happened; empty when `name` is no such output.
  std::vector<double> before_rounding(const std::string& name) const {
    std::string t = name;
    for (int hops = 0; hops < 8; ++hops) {
      auto q = producer_.find(t);
      if (q == producer_.end()) return {};
      const std::string& qop = q->second->op_type();
      if (qop == "QLinearConv" || qop == "QLinearMatMul") return prerounding_.at(t);
      if (qop != "QuantizeLinear") return {};
      const onnx::NodeProto* act = producer(q->second->input(0));
      const onnx::NodeProto* dq =
          act && (act->op_type() == "Clip" || act->op_type() == "Relu") ? producer(act->input(0)) : nullptr;
      const onnx::NodeProto* src = dq && dq->op_type() == "DequantizeLinear" ? producer(dq->input(0)) : nullptr;
      while (src && src->op_type() == "Cast") src = producer(src->input(0));
      if (!src || src->op_type() != "QuantizeLinear") return prerounding_.at(t);
      t = src->output(0);
    }
    return {};
  }

  std::vector<std::string> runtime_inputs() const {
    std::vector<std::string> names;
    for (const auto& i : model_.graph().input())
      if (!consts_.count(i.name())) names.push_back(i.name());
    return names;
  }

 private:
  using Shape = std::vector<int64_t>;

  static RefTensor from_value(const ir::TensorValue& tv) {
    RefTensor t{tv.shape, {}};
    const uint8_t* d = tv.data.data();
    size_t n = 1;
    for (int64_t s : tv.shape) n *= static_cast<size_t>(s);
    for (size_t i = 0; i < n; ++i) {
      switch (tv.dtype) {
      case ir::DType::Float32: t.v.push_back(load<float>(d + 4 * i)); break;
      case ir::DType::Float64: t.v.push_back(load<double>(d + 8 * i)); break;
      case ir::DType::UInt8:
      case ir::DType::Bool: t.v.push_back(d[i]); break;
      case ir::DType::Int8: t.v.push_back(static_cast<int8_t>(d[i])); break;
      case ir::DType::Int32: t.v.push_back(load<int32_t>(d + 4 * i)); break;
      case ir::DType::Int64: t.v.push_back(static_cast<double>(load<int64_t>(d + 8 * i))); break;
      default: throw std::runtime_error("reference interpreter lacks dtype " + ir::dtype_name(tv.dtype));
      }
    }
    t.uint8 = tv.dtype == ir::DType::UInt8;
    return t;
  }
  template <typename T>
  static T load(const uint8_t* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }

  static int64_t count(const RefTensor& t) { return count(t.shape); }
  static int64_t count(const Shape& s) {
    int64_t c = 1;
    for (int64_t d : s) c *= d;
    return c;
  }
  static const onnx::AttributeProto* attr(const onnx::NodeProto& n, const std::string& a) {
    for (const auto& at : n.attribute())
      if (at.name() == a) return &at;
    return nullptr;
  }
  static Shape ints(const onnx::NodeProto& n, const std::string& a, Shape d) {
    const auto* at = attr(n, a);
    return at ? Shape(at->ints().begin(), at->ints().end()) : d;
  }
  static int64_t intv(const onnx::NodeProto& n, const std::string& a, int64_t d) {
    const auto* at = attr(n, a);
    return at ? at->i() : d;
  }
  static double floatv(const onnx::NodeProto& n, const std::string& a, double d) {
    const auto* at = attr(n, a);
    return at ? at->f() : d;
  }
  static std::string strv(const onnx::NodeProto& n, const std::string& a, const std::string& d) {
    const auto* at = attr(n, a);
    return at ? at->s() : d;
  }
  bool has(const onnx::NodeProto& n, int i) const { return n.input_size() > i && !n.input(i).empty(); }
  const RefTensor& in(const onnx::NodeProto& n, int i) { return values_.at(n.input(i)); }
  const onnx::NodeProto* producer(const std::string& t) const {
    auto p = producer_.find(t);
    return p == producer_.end() ? nullptr : p->second;
  }
  static Shape as_ints(const RefTensor& t) {
    Shape s;
    for (double d : t.v) s.push_back(static_cast<int64_t>(d));
    return s;
  }
  static int64_t axis_of(int64_t a, size_t rank) { return a < 0 ? a + static_cast<int64_t>(rank) : a; }
  static Shape strides(const Shape& s) {
    Shape st(s.size(), 1);
    for (size_t d = s.size(); d-- > 1;) st[d - 1] = st[d] * s[d];
    return st;
  }

  static RefTensor unary(const RefTensor& x, double (*f)(double)) {
    RefTensor y = x;
    y.uint8 = false;
    for (double& v : y.v) v = f(v);
    return y;
  }

  // numpy broadcasting of two operands.
  static RefTensor binary(const RefTensor& a, const RefTensor& b, char op) {
    size_t rank = std::max(a.shape.size(), b.shape.size());
    Shape as(rank - a.shape.size(), 1), bs(rank - b.shape.size(), 1), ys(rank);
    as.insert(as.end(), a.shape.begin(), a.shape.end());
    bs.insert(bs.end(), b.shape.begin(), b.shape.end());
    for (size_t d = 0; d < rank; ++d) ys[d] = std::max(as[d], bs[d]);
    Shape sa = strides(as), sb = strides(bs);
    RefTensor y{ys, std::vector<double>(static_cast<size_t>(count(ys)))};
    for (int64_t i = 0; i < count(ys); ++i) {
      int64_t rem = i, ia = 0, ib = 0;
      for (size_t d = rank; d-- > 0;) {
        int64_t c = rem % ys[d];
        rem /= ys[d];
        if (as[d] != 1) ia += c * sa[d];
        if (bs[d] != 1) ib += c * sb[d];
      }
      double x = a.v[static_cast<size_t>(ia)], z = b.v[static_cast<size_t>(ib)];
      double r = op == '+' ? x + z : op == '-' ? x - z : op == '*' ? x * z : x / z;
      y.v[static_cast<size_t>(i)] = r;
    }
    return y;
  }

  // Spatial geometry of a conv or pool over axes 2.. of `x`: pads (begin..., end...) resolved.
  struct Window {
    Shape kernel, stride, dilation, pad_begin, pad_end, out;
  };
  static Window window(const onnx::NodeProto& n, const Shape& xs, const Shape& kernel, bool pool) {
    size_t sr = xs.size() - 2;
    Window w;
    w.kernel = kernel;
    w.stride = ints(n, "strides", Shape(sr, 1));
    w.dilation = ints(n, "dilations", Shape(sr, 1));
    Shape pads = ints(n, "pads", Shape(2 * sr, 0));
    std::string auto_pad = strv(n, "auto_pad", "NOTSET");
    bool ceil_mode = pool && intv(n, "ceil_mode", 0) != 0;
    for (size_t d = 0; d < sr; ++d) {
      int64_t size = xs[d + 2], ext = w.dilation[d] * (kernel[d] - 1) + 1;
      int64_t b = pads[d], e = pads[d + sr], out;
      if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        out = (size + w.stride[d] - 1) / w.stride[d];
        int64_t total = std::max<int64_t>(0, (out - 1) * w.stride[d] + ext - size);
        b = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
        e = total - b;
      } else if (auto_pad == "VALID") {
        b = e = 0;
        out = (size - ext) / w.stride[d] + 1;
      } else {
        int64_t span = size + b + e - ext;
        out = (ceil_mode ? (span + w.stride[d] - 1) / w.stride[d] : span / w.stride[d]) + 1;
        if (ceil_mode && (out - 1) * w.stride[d] >= size + b) --out;
      }
      w.pad_begin.push_back(b);
      w.pad_end.push_back(e);
      w.out.push_back(out);
    }
    return w;
  }

  RefTensor conv(const onnx::NodeProto& n) {
    const RefTensor &x = in(n, 0), &w = in(n, 1);
    // 1-D as 2-D with a unit height.
    Shape xs = x.shape, ws = w.shape;
    bool one_d = xs.size() == 3;
    if (one_d) {
      xs.insert(xs.begin() + 2, 1);
      ws.insert(ws.begin() + 2, 1);
    }
    onnx::NodeProto m = n;
    if (one_d) {
      auto widen = [&](const std::string& a, int64_t fill, size_t per) {
        Shape v = ints(n, a, {});
        if (v.empty()) return;
        Shape out;
        for (size_t i = 0; i < v.size(); i += per) {
          out.push_back(fill);
          for (size_t k = 0; k < per; ++k) out.push_back(v[i + k]);
        }
        for (auto& at : *m.mutable_attribute())
          if (at.name() == a) {
            at.clear_ints();
            for (int64_t o : out) at.add_ints(o);
          }
      };
      widen("strides", 1, 1);
      widen("dilations", 1, 1);
      Shape p = ints(n, "pads", {});
      if (!p.empty())
        for (auto& at : *m.mutable_attribute())
          if (at.name() == "pads") {
            at.clear_ints();
            for (int64_t o : {int64_t{0}, p[0], int64_t{0}, p[1]}) at.add_ints(o);
          }
      for (auto& at : *m.mutable_attribute())
        if (at.name() == "kernel_shape") {
          int64_t k = at.ints(0);
          at.clear_ints();
          at.add_ints(1);
          at.add_ints(k);
        }
    }
    Window g = window(m, xs, {ws[2], ws[3]}, false);
    int64_t groups = intv(n, "group", 1), N = xs[0], C = xs[1], H = xs[2], W = xs[3], OC = ws[0], icg = ws[1];
    int64_t OH = g.out[0], OW = g.out[1];
    RefTensor y{{N, OC, OH, OW}, std::vector<double>(static_cast<size_t>(N * OC * OH * OW))};
    const RefTensor* b = has(n, 2) ? &in(n, 2) : nullptr;
    // Per output value: the bias, then the taps in (channel, ky, kx) order; each tap is
    // swept over the output row at once.
    const int64_t s0 = g.stride[0], s1 = g.stride[1], d0 = g.dilation[0], d1 = g.dilation[1];
    const int64_t p0 = g.pad_begin[0], p1 = g.pad_begin[1];
    for (int64_t b0 = 0; b0 < N; ++b0)
      for (int64_t o = 0; o < OC; ++o) {
        double* yo = &y.v[static_cast<size_t>((b0 * OC + o) * OH * OW)];
        std::fill(yo, yo + OH * OW, b ? b->v[static_cast<size_t>(o)] : 0.0);
        int64_t gi = o / (OC / groups);
        for (int64_t c = 0; c < icg; ++c) {
          const double* xc = &x.v[static_cast<size_t>((b0 * C + gi * icg + c) * H * W)];
          for (int64_t ky = 0; ky < ws[2]; ++ky)
            for (int64_t kx = 0; kx < ws[3]; ++kx) {
              double wv = w.v[static_cast<size_t>(((o * icg + c) * ws[2] + ky) * ws[3] + kx)];
              int64_t shift = kx * d1 - p1;  // ix = ox * s1 + shift
              int64_t lo = shift >= 0 ? 0 : (-shift + s1 - 1) / s1;
              int64_t hi = std::min(OW, W - 1 - shift < 0 ? 0 : (W - 1 - shift) / s1 + 1);
              for (int64_t oy = 0; oy < OH; ++oy) {
                int64_t iy = oy * s0 - p0 + ky * d0;
                if (iy < 0 || iy >= H) continue;
                const double* xr = xc + iy * W + shift;
                double* yr = yo + oy * OW;
                for (int64_t ox = lo; ox < hi; ++ox) yr[ox] += wv * xr[ox * s1];
              }
            }
        }
      }
    if (one_d) y.shape = {N, OC, OW};
    return y;
  }

  // AveragePool / MaxPool over 1 or 2 spatial axes.
  RefTensor pool(const onnx::NodeProto& n, bool max) {
    const RefTensor& x = in(n, 0);
    Shape xs = x.shape, k = ints(n, "kernel_shape", {});
    bool one_d = xs.size() == 3;
    onnx::NodeProto m = n;
    if (one_d) {
      xs.insert(xs.begin() + 2, 1);
      k.insert(k.begin(), 1);
      for (auto& at : *m.mutable_attribute()) {
        Shape v(at.ints().begin(), at.ints().end());
        if (at.name() == "strides" || at.name() == "dilations")
          v.insert(v.begin(), 1);
        else if (at.name() == "pads")
          v = {0, v[0], 0, v[1]};
        else
          continue;
        at.clear_ints();
        for (int64_t o : v) at.add_ints(o);
      }
    }
    Window g = window(m, xs, k, true);
    bool include_pad = intv(n, "count_include_pad", 0) != 0;
    int64_t N = xs[0], C = xs[1], H = xs[2], W = xs[3], OH = g.out[0], OW = g.out[1];
    RefTensor y{{N, C, OH, OW}, {}};
    y.uint8 = x.uint8;
    for (int64_t i = 0; i < N * C; ++i)
      for (int64_t oy = 0; oy < OH; ++oy)
        for (int64_t ox = 0; ox < OW; ++ox) {
          double acc = max ? -INFINITY : 0.0;
          int64_t taps = 0, padded = 0;
          for (int64_t ky = 0; ky < k[0]; ++ky)
            for (int64_t kx = 0; kx < k[1]; ++kx) {
              int64_t iy = oy * g.stride[0] - g.pad_begin[0] + ky * g.dilation[0];
              int64_t ix = ox * g.stride[1] - g.pad_begin[1] + kx * g.dilation[1];
              if (iy < H + g.pad_end[0] && ix < W + g.pad_end[1]) ++padded;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              double v = x.v[static_cast<size_t>((i * H + iy) * W + ix)];
              acc = max ? std::max(acc, v) : acc + v;
              ++taps;
            }
          y.v.push_back(max ? acc : acc / static_cast<double>(include_pad ? padded : taps));
        }
    if (one_d) y.shape = {N, C, OW};
    return y;
  }

  // QuantizeLinear / DequantizeLinear: scale and zero point per tensor or along `axis`.
  RefTensor qdq(const onnx::NodeProto& n, bool quantize) {
    RefTensor y = in(n, 0);
    const RefTensor& sc = in(n, 1);
    const RefTensor* zp = has(n, 2) ? &in(n, 2) : nullptr;
    int64_t axis = axis_of(intv(n, "axis", 1), y.shape.size()), inner = 1;
    if (sc.v.size() > 1)
      for (size_t d = static_cast<size_t>(axis) + 1; d < y.shape.size(); ++d) inner *= y.shape[d];
    bool u8 = zp ? zp->uint8 : true;
    y.uint8 = quantize && u8;
    std::vector<double>& pre = prerounding_[n.output(0)];
    pre.clear();
    for (size_t i = 0; i < y.v.size(); ++i) {
      size_t c = sc.v.size() > 1
                     ? static_cast<size_t>((static_cast<int64_t>(i) / inner) % static_cast<int64_t>(sc.v.size()))
                     : 0;
      double s = static_cast<float>(sc.v[c]), z = zp ? zp->v[c] : 0.0;
      if (quantize) {
        double unrounded = static_cast<float>(static_cast<float>(y.v[i]) / static_cast<float>(s));
        pre.push_back(unrounded + z);
        double q = std::nearbyint(unrounded) + z;  // ties to even
        y.v[i] = std::clamp(q, u8 ? 0.0 : -128.0, u8 ? 255.0 : 127.0);
      } else {
        y.v[i] = static_cast<float>((y.v[i] - z) * s);
      }
    }
    return y;
  }

  // QLinearConv / QLinearMatMul as the specification (and ONNX's reference implementation)
  // computes them: the integer convolution or product of x - zx and w - zw (plus B), times
  // x_scale * w_scale / y_scale formed in float32, plus y_zero_point, rounded half to even,
  // saturated.
  RefTensor qlinear(const onnx::NodeProto& n, bool conv_op) {
    auto shifted = [&](int data, int zero) {
      RefTensor t = in(n, data);
      const RefTensor* z = has(n, zero) ? &in(n, zero) : nullptr;
      int64_t inner = t.shape.empty() ? 1 : count(t) / t.shape[0];
      for (size_t i = 0; z && i < t.v.size(); ++i)
        t.v[i] -= z->v.size() > 1 ? z->v[i / static_cast<size_t>(inner)] : z->v[0];
      t.uint8 = false;
      return t;
    };
    RefTensor x = shifted(0, 2), w = shifted(3, 5);
    RefTensor acc;
    if (conv_op) {
      onnx::NodeProto m = n;  // conv() reads inputs 0, 1, 2: give it the shifted values
      m.clear_input();
      m.add_input("__qx");
      m.add_input("__qw");
      if (has(n, 8)) m.add_input(n.input(8));
      values_["__qx"] = x;
      values_["__qw"] = w;
      acc = conv(m);
    } else {
      if (in(n, 5).v.size() > 1) {  // per-column zero point of b: undo the row-wise shift
        w = in(n, 3);
        const std::vector<double>& z = in(n, 5).v;
        for (size_t i = 0; i < w.v.size(); ++i) w.v[i] -= z[i % z.size()];
        w.uint8 = false;
      }
      acc = matmul(x, w);
    }
    const RefTensor &sx = in(n, 1), &sw = in(n, 4), &sy = in(n, 6);
    const RefTensor* zy = has(n, 7) ? &in(n, 7) : nullptr;
    bool u8 = zy ? zy->uint8 : true;
    // Per output channel (conv: axis 1; matmul: the last axis) when w's scale is.
    int64_t inner = 1, channels = static_cast<int64_t>(sw.v.size());
    if (channels > 1 && conv_op)
      for (size_t d = 2; d < acc.shape.size(); ++d) inner *= acc.shape[d];
    std::vector<double>& pre = prerounding_[n.output(0)];
    pre.clear();
    for (size_t i = 0; i < acc.v.size(); ++i) {
      size_t c = channels > 1 ? (conv_op ? (i / static_cast<size_t>(inner)) % static_cast<size_t>(channels)
                                         : i % static_cast<size_t>(channels))
                              : 0;
      float m =
          static_cast<float>(static_cast<float>(sx.v[0]) * static_cast<float>(sw.v[c])) / static_cast<float>(sy.v[0]);
      double r = acc.v[i] * static_cast<double>(m) + (zy ? zy->v[0] : 0.0);
      pre.push_back(r);
      acc.v[i] = std::clamp(std::nearbyint(r), u8 ? 0.0 : -128.0, u8 ? 255.0 : 127.0);
    }
    acc.uint8 = u8;
    return acc;
  }

  RefTensor gemm(const onnx::NodeProto& n) {
    RefTensor a = in(n, 0), w = in(n, 1);
    if (intv(n, "transA", 0)) a = transpose(a, {1, 0});
    if (intv(n, "transB", 0)) w = transpose(w, {1, 0});
    double alpha = floatv(n, "alpha", 1.0), beta = floatv(n, "beta", 1.0);
    RefTensor y = matmul(a, w);
    for (double& v : y.v) v *= alpha;
    if (!has(n, 2)) return y;
    RefTensor c = in(n, 2);
    for (double& v : c.v) v *= beta;
    return binary(y, c, '+');
  }

  // numpy matmul: batch axes broadcast, 1-D operands promoted.
  static RefTensor matmul(RefTensor a, RefTensor b) {
    bool a1 = a.shape.size() == 1, b1 = b.shape.size() == 1;
    if (a1) a.shape.insert(a.shape.begin(), 1);
    if (b1) b.shape.push_back(1);
    int64_t M = a.shape[a.shape.size() - 2], K = a.shape.back(), N = b.shape.back();
    Shape ab(a.shape.begin(), a.shape.end() - 2), bb(b.shape.begin(), b.shape.end() - 2);
    size_t rank = std::max(ab.size(), bb.size());
    ab.insert(ab.begin(), rank - ab.size(), 1);
    bb.insert(bb.begin(), rank - bb.size(), 1);
    Shape ys(rank);
    for (size_t d = 0; d < rank; ++d) ys[d] = std::max(ab[d], bb[d]);
    Shape sa = strides(ab), sb = strides(bb);
    RefTensor y{ys, {}};
    for (int64_t i = 0; i < count(ys); ++i) {
      int64_t rem = i, ia = 0, ib = 0;
      for (size_t d = rank; d-- > 0;) {
        int64_t c = rem % ys[d];
        rem /= ys[d];
        if (ab[d] != 1) ia += c * sa[d];
        if (bb[d] != 1) ib += c * sb[d];
      }
      for (int64_t r = 0; r < M; ++r)
        for (int64_t col = 0; col < N; ++col) {
          double acc = 0;
          for (int64_t k = 0; k < K; ++k)
            acc += a.v[static_cast<size_t>((ia * M + r) * K + k)] * b.v[static_cast<size_t>((ib * K + k) * N + col)];
          y.v.push_back(acc);
        }
    }
    if (!a1) y.shape.push_back(M);
    if (!b1) y.shape.push_back(N);
    return y;
  }

  static RefTensor transpose(const RefTensor& x, Shape perm) {
    size_t rank = x.shape.size();
    if (perm.empty())
      for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
    Shape ys(rank), st = strides(x.shape);
    for (size_t d = 0; d < rank; ++d) ys[d] = x.shape[static_cast<size_t>(perm[d])];
    RefTensor y{ys, {}};
    y.uint8 = x.uint8;
    for (int64_t i = 0; i < count(ys); ++i) {
      int64_t rem = i, src = 0;
      for (size_t d = rank; d-- > 0;) {
        src += (rem % ys[d]) * st[static_cast<size_t>(perm[d])];
        rem /= ys[d];
      }
      y.v.push_back(x.v[static_cast<size_t>(src)]);
    }
    return y;
  }

  RefTensor concat(const onnx::NodeProto& n) {
    const RefTensor& first = in(n, 0);
    size_t axis = static_cast<size_t>(axis_of(intv(n, "axis", 0), first.shape.size()));
    RefTensor y{first.shape, {}};
    y.uint8 = first.uint8;
    y.shape[axis] = 0;
    for (int i = 0; i < n.input_size(); ++i) y.shape[axis] += in(n, i).shape[axis];
    int64_t outer = count(Shape(first.shape.begin(), first.shape.begin() + static_cast<std::ptrdiff_t>(axis)));
    for (int64_t o = 0; o < outer; ++o)
      for (int i = 0; i < n.input_size(); ++i) {
        const RefTensor& t = in(n, i);
        int64_t chunk = count(Shape(t.shape.begin() + static_cast<std::ptrdiff_t>(axis), t.shape.end()));
        y.v.insert(y.v.end(), t.v.begin() + o * chunk, t.v.begin() + (o + 1) * chunk);
      }
    return y;
  }

  RefTensor slice(const onnx::NodeProto& n) {
    const RefTensor& x = in(n, 0);
    Shape starts = as_ints(in(n, 1)), ends = as_ints(in(n, 2)), axes, steps;
    if (has(n, 3)) axes = as_ints(in(n, 3));
    if (has(n, 4)) steps = as_ints(in(n, 4));
    size_t rank = x.shape.size();
    if (axes.empty())
      for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
    if (steps.empty()) steps.assign(starts.size(), 1);
    Shape begin(rank, 0), step(rank, 1), cnt = x.shape;
    for (size_t i = 0; i < axes.size(); ++i) {
      size_t a = static_cast<size_t>(axis_of(axes[i], rank));
      int64_t dim = x.shape[a], s = steps[i];
      auto fix = [&](int64_t v, int64_t lo, int64_t hi) { return std::clamp(v < 0 ? v + dim : v, lo, hi); };
      int64_t b = s > 0 ? fix(starts[i], 0, dim) : fix(starts[i], -1, dim - 1);
      int64_t e = s > 0 ? fix(ends[i], 0, dim) : fix(ends[i], -1, dim - 1);
      begin[a] = b;
      step[a] = s;
      cnt[a] = s > 0 ? std::max<int64_t>(0, (e - b + s - 1) / s) : std::max<int64_t>(0, (b - e - s - 1) / -s);
    }
    RefTensor y{cnt, {}};
    y.uint8 = x.uint8;
    Shape st = strides(x.shape);
    for (int64_t o = 0; o < count(cnt); ++o) {
      int64_t rem = o, src = 0;
      for (size_t d = rank; d-- > 0;) {
        src += (begin[d] + (rem % cnt[d]) * step[d]) * st[d];
        rem /= cnt[d];
      }
      y.v.push_back(x.v[static_cast<size_t>(src)]);
    }
    return y;
  }

  RefTensor gather(const onnx::NodeProto& n) {
    const RefTensor &x = in(n, 0), &idx = in(n, 1);
    size_t axis = static_cast<size_t>(axis_of(intv(n, "axis", 0), x.shape.size()));
    Shape ys(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    ys.insert(ys.end(), idx.shape.begin(), idx.shape.end());
    ys.insert(ys.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape.end());
    int64_t outer = count(Shape(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis)));
    int64_t inner = count(Shape(x.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape.end()));
    int64_t ext = x.shape[axis];
    RefTensor y{ys, {}};
    y.uint8 = x.uint8;
    for (int64_t o = 0; o < outer; ++o)
      for (double dv : idx.v) {
        int64_t k = static_cast<int64_t>(dv);
        if (k < 0) k += ext;
        for (int64_t j = 0; j < inner; ++j) y.v.push_back(x.v[static_cast<size_t>((o * ext + k) * inner + j)]);
      }
    return y;
  }

  RefTensor reshaped(const onnx::NodeProto& n, Shape to) {
    RefTensor y = in(n, 0);
    int64_t known = 1, infer = -1;
    for (size_t d = 0; d < to.size(); ++d) {
      if (to[d] == 0 && intv(n, "allowzero", 0) == 0) to[d] = y.shape[d];
      if (to[d] == -1)
        infer = static_cast<int64_t>(d);
      else
        known *= to[d];
    }
    if (infer >= 0) to[static_cast<size_t>(infer)] = count(y.shape) / known;
    y.shape = to;
    return y;
  }

  RefTensor reduce_mean(const onnx::NodeProto& n) {
    const RefTensor& x = in(n, 0);
    Shape axes = ints(n, "axes", {});
    if (has(n, 1)) axes = as_ints(in(n, 1));
    size_t rank = x.shape.size();
    std::vector<bool> red(rank, axes.empty());
    for (int64_t a : axes) red[static_cast<size_t>(axis_of(a, rank))] = true;
    Shape ys;
    for (size_t d = 0; d < rank; ++d) ys.push_back(red[d] ? 1 : x.shape[d]);
    RefTensor y{ys, std::vector<double>(static_cast<size_t>(count(ys)), 0.0)};
    Shape sy = strides(ys);
    for (int64_t i = 0; i < count(x.shape); ++i) {
      int64_t rem = i, o = 0;
      for (size_t d = rank; d-- > 0;) {
        int64_t c = rem % x.shape[d];
        rem /= x.shape[d];
        if (!red[d]) o += c * sy[d];
      }
      y.v[static_cast<size_t>(o)] += x.v[static_cast<size_t>(i)];
    }
    double per = static_cast<double>(count(x.shape) / std::max<int64_t>(1, count(ys)));
    for (double& v : y.v) v /= per;
    if (intv(n, "keepdims", 1) == 0) {
      Shape kept;
      for (size_t d = 0; d < rank; ++d)
        if (!red[d]) kept.push_back(x.shape[d]);
      y.shape = kept;
    }
    return y;
  }

  RefTensor softmax(const onnx::NodeProto& n) {
    RefTensor y = in(n, 0);
    size_t axis = static_cast<size_t>(axis_of(intv(n, "axis", -1), y.shape.size()));
    int64_t ext = y.shape[axis];
    int64_t inner = count(Shape(y.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, y.shape.end()));
    int64_t outer = count(y.shape) / (ext * inner);
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t j = 0; j < inner; ++j) {
        double mx = -INFINITY, sum = 0;
        for (int64_t k = 0; k < ext; ++k) mx = std::max(mx, y.v[static_cast<size_t>((o * ext + k) * inner + j)]);
        for (int64_t k = 0; k < ext; ++k) sum += std::exp(y.v[static_cast<size_t>((o * ext + k) * inner + j)] - mx);
        for (int64_t k = 0; k < ext; ++k) {
          double& v = y.v[static_cast<size_t>((o * ext + k) * inner + j)];
          v = std::exp(v - mx) / sum;
        }
      }
    return y;
  }

  RefTensor constant(const onnx::NodeProto& n) {
    if (const auto* a = attr(n, "value")) return from_value(frontend::onnx::tensor_from_proto(a->t()));
    if (const auto* a = attr(n, "value_float")) return RefTensor{{}, {a->f()}};
    if (const auto* a = attr(n, "value_int")) return RefTensor{{}, {static_cast<double>(a->i())}};
    if (const auto* a = attr(n, "value_ints")) {
      RefTensor t{{a->ints_size()}, {}};
      for (int64_t v : a->ints()) t.v.push_back(static_cast<double>(v));
      return t;
    }
    throw std::runtime_error("reference interpreter: Constant form");
  }

  RefTensor eval(const onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    if (op == "QuantizeLinear") return qdq(n, true);
    if (op == "DequantizeLinear") return qdq(n, false);
    if (op == "Constant") return constant(n);
    if (op == "Identity" || op == "Dropout") return in(n, 0);
    if (op == "Cast") {
      int64_t to = intv(n, "to", 1);
      RefTensor y = in(n, 0);
      y.uint8 = to == onnx::TensorProto::UINT8;
      if (to != onnx::TensorProto::FLOAT && to != onnx::TensorProto::DOUBLE)
        for (double& v : y.v) v = std::trunc(v);
      return y;
    }
    if (op == "ConstantOfShape") {
      RefTensor fill = attr(n, "value") ? from_value(frontend::onnx::tensor_from_proto(attr(n, "value")->t()))
                                        : RefTensor{{1}, {0.0}};
      Shape s = as_ints(in(n, 0));
      RefTensor y{s, std::vector<double>(static_cast<size_t>(count(s)), fill.v.at(0))};
      y.uint8 = fill.uint8;
      return y;
    }
    if (op == "Shape") {
      RefTensor y{{static_cast<int64_t>(in(n, 0).shape.size())}, {}};
      for (int64_t d : in(n, 0).shape) y.v.push_back(static_cast<double>(d));
      return y;
    }
    if (op == "Clip") {
      double lo = has(n, 1) ? in(n, 1).v.at(0) : floatv(n, "min", -INFINITY);
      double hi = has(n, 2) ? in(n, 2).v.at(0) : floatv(n, "max", INFINITY);
      RefTensor y = in(n, 0);
      for (double& v : y.v) v = std::clamp(v, lo, hi);
      return y;
    }
    if (op == "Conv") return conv(n);
    if (op == "QLinearConv") return qlinear(n, true);
    if (op == "QLinearMatMul") return qlinear(n, false);
    if (op == "MaxPool") return pool(n, true);
    if (op == "AveragePool") return pool(n, false);
    if (op == "Relu") return unary(in(n, 0), [](double v) { return v > 0 ? v : 0.0; });
    if (op == "Tanh") return unary(in(n, 0), [](double v) { return std::tanh(v); });
    if (op == "Sigmoid") return unary(in(n, 0), [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
    if (op == "HardSigmoid") {
      double a = floatv(n, "alpha", 0.2), b = floatv(n, "beta", 0.5);
      RefTensor y = in(n, 0);
      for (double& v : y.v) v = std::clamp(a * v + b, 0.0, 1.0);
      return y;
    }
    if (op == "HardSwish") return unary(in(n, 0), [](double v) { return v * std::clamp(v / 6.0 + 0.5, 0.0, 1.0); });
    if (op == "Add") return binary(in(n, 0), in(n, 1), '+');
    if (op == "Sub") return binary(in(n, 0), in(n, 1), '-');
    if (op == "Mul") return binary(in(n, 0), in(n, 1), '*');
    if (op == "Div") return binary(in(n, 0), in(n, 1), '/');
    if (op == "BatchNormalization") {
      RefTensor y = in(n, 0);
      const auto &sc = in(n, 1).v, &bi = in(n, 2).v, &mean = in(n, 3).v, &var = in(n, 4).v;
      double eps = floatv(n, "epsilon", 1e-5);
      int64_t C = y.shape[1], inner = count(y.shape) / (y.shape[0] * C);
      for (size_t i = 0; i < y.v.size(); ++i) {
        size_t c = static_cast<size_t>((static_cast<int64_t>(i) / inner) % C);
        y.v[i] = (y.v[i] - mean[c]) / std::sqrt(var[c] + eps) * sc[c] + bi[c];
      }
      return y;
    }
    if (op == "GlobalAveragePool") {
      const RefTensor& x = in(n, 0);
      int64_t N = x.shape[0], C = x.shape[1], inner = count(x.shape) / (N * C);
      RefTensor y{{N, C}, {}};
      for (size_t d = 2; d < x.shape.size(); ++d) y.shape.push_back(1);
      for (int64_t i = 0; i < N * C; ++i) {
        double s = 0;
        for (int64_t j = 0; j < inner; ++j) s += x.v[static_cast<size_t>(i * inner + j)];
        y.v.push_back(s / static_cast<double>(inner));
      }
      return y;
    }
    if (op == "ReduceMean") return reduce_mean(n);
    if (op == "Softmax") return softmax(n);
    if (op == "Flatten") {
      RefTensor y = in(n, 0);
      int64_t axis = axis_of(intv(n, "axis", 1), y.shape.size()), outer = 1;
      for (int64_t d = 0; d < axis; ++d) outer *= y.shape[static_cast<size_t>(d)];
      y.shape = {outer, count(y.shape) / outer};
      return y;
    }
    if (op == "Reshape") return reshaped(n, as_ints(in(n, 1)));
    if (op == "Squeeze" || op == "Unsqueeze") {
      RefTensor y = in(n, 0);
      Shape axes = has(n, 1) ? as_ints(in(n, 1)) : ints(n, "axes", {});
      if (op == "Squeeze") {
        Shape s;
        for (size_t d = 0; d < y.shape.size(); ++d) {
          bool listed = false;
          for (int64_t a : axes) listed = listed || axis_of(a, y.shape.size()) == static_cast<int64_t>(d);
          if (!(axes.empty() ? y.shape[d] == 1 : listed)) s.push_back(y.shape[d]);
        }
        y.shape = s;
      } else {
        size_t rank = y.shape.size() + axes.size();
        for (int64_t& a : axes) a = axis_of(a, rank);
        std::sort(axes.begin(), axes.end());
        for (int64_t a : axes) y.shape.insert(y.shape.begin() + a, 1);
      }
      return y;
    }
    if (op == "Transpose") return transpose(in(n, 0), ints(n, "perm", {}));
    if (op == "Concat") return concat(n);
    if (op == "Slice") return slice(n);
    if (op == "Gather") return gather(n);
    if (op == "Gemm") return gemm(n);
    if (op == "MatMul") return matmul(in(n, 0), in(n, 1));
    throw std::runtime_error("reference interpreter lacks " + op);
  }

  const onnx::ModelProto& model_;
  std::map<std::string, RefTensor> consts_, values_, computed_;
  std::map<std::string, std::vector<double>> prerounding_;
  std::map<std::string, const onnx::NodeProto*> producer_;
};

}  // namespace tigris::test
