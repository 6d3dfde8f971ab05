// A deliberately plain ONNX interpreter for the small test models (float32, NCHW, model
// order, double accumulation), written independently of the compiler and the kernels:
// Conv (groups, pads, strides, dilations; 1-D and 2-D), BatchNormalization, Relu, Tanh,
// Sigmoid, Add, Mul, Gemm (transB), Flatten, GlobalAveragePool; for QDQ models Clip,
// QuantizeLinear (round half to even, saturate) and DequantizeLinear as the ONNX spec
// defines them (per tensor or per axis), with the float math between them in double.
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
    for (const auto& init : m.graph().initializer()) {
      ir::TensorValue tv = frontend::onnx::tensor_from_proto(init);
      RefTensor t{tv.shape, {}};
      const float* f = reinterpret_cast<const float*>(tv.data.data());
      const uint8_t* d = tv.data.data();
      if (tv.dtype == ir::DType::Float32) t.v.assign(f, f + tv.data.size() / 4);
      for (size_t i = 0; tv.dtype == ir::DType::UInt8 && i < tv.data.size(); ++i) t.v.push_back(d[i]);
      for (size_t i = 0; tv.dtype == ir::DType::Int8 && i < tv.data.size(); ++i)
        t.v.push_back(static_cast<int8_t>(d[i]));
      for (size_t i = 0; tv.dtype == ir::DType::Int32 && i + 4 <= tv.data.size(); i += 4) {
        int32_t v;
        std::memcpy(&v, d + i, 4);
        t.v.push_back(v);
      }
      t.uint8 = tv.dtype == ir::DType::UInt8;
      values_[init.name()] = t;
    }
  }

  RefTensor run(const RefTensor& input) {
    values_[model_.graph().input(0).name()] = input;
    for (const auto& n : model_.graph().node()) values_[n.output(0)] = eval(n);
    return values_.at(model_.graph().output(0).name());
  }
  // Any tensor of the last run, by name.
  const RefTensor& value(const std::string& name) const { return values_.at(name); }

 private:
  static int64_t count(const std::vector<int64_t>& s) {
    int64_t c = 1;
    for (int64_t d : s) c *= d;
    return c;
  }
  static std::vector<int64_t> ints(const onnx::NodeProto& n, const std::string& a, std::vector<int64_t> d) {
    for (const auto& at : n.attribute())
      if (at.name() == a) return std::vector<int64_t>(at.ints().begin(), at.ints().end());
    return d;
  }
  static int64_t intv(const onnx::NodeProto& n, const std::string& a, int64_t d) {
    for (const auto& at : n.attribute())
      if (at.name() == a) return at.i();
    return d;
  }
  static double floatv(const onnx::NodeProto& n, const std::string& a, double d) {
    for (const auto& at : n.attribute())
      if (at.name() == a) return at.f();
    return d;
  }
  const RefTensor& in(const onnx::NodeProto& n, int i) { return values_.at(n.input(i)); }

  RefTensor unary(const RefTensor& x, double (*f)(double)) {
    RefTensor y = x;
    for (double& v : y.v) v = f(v);
    return y;
  }

  RefTensor binary(const RefTensor& a, const RefTensor& b, bool mul) {
    // b broadcasts onto a's shape (right-aligned).
    RefTensor y = a;
    int64_t n = count(a.shape), m = count(b.shape);
    for (int64_t i = 0; i < n; ++i) {
      int64_t idx = 0, stride = 1, rem = i;
      for (size_t d = a.shape.size(); d-- > 0;) {
        int64_t c = rem % a.shape[d];
        rem /= a.shape[d];
        size_t off = a.shape.size() - b.shape.size();
        if (d >= off) {
          int64_t e = b.shape[d - off];
          if (e != 1) idx += c * stride;
          stride *= e;
        }
      }
      double bv = b.v[static_cast<size_t>(m == 1 ? 0 : idx)];
      y.v[static_cast<size_t>(i)] = mul ? a.v[static_cast<size_t>(i)] * bv : a.v[static_cast<size_t>(i)] + bv;
    }
    return y;
  }

  RefTensor conv(const onnx::NodeProto& n) {
    const RefTensor &x = in(n, 0), &w = in(n, 1);
    size_t sr = x.shape.size() - 2;  // 1 or 2 spatial axes
    std::vector<int64_t> xs = x.shape, ws = w.shape;
    if (sr == 1) {  // treat [N,C,L] as [N,C,1,L]
      xs.insert(xs.begin() + 2, 1);
      ws.insert(ws.begin() + 2, 1);
    }
    auto k = ints(n, "kernel_shape", {}), s = ints(n, "strides", {}), d = ints(n, "dilations", {}),
         p = ints(n, "pads", {});
    if (sr == 1) {
      k = {1, ws[3]};
      s = {1, s.empty() ? 1 : s[0]};
      d = {1, d.empty() ? 1 : d[0]};
      p = p.empty() ? std::vector<int64_t>{0, 0, 0, 0} : std::vector<int64_t>{0, p[0], 0, p[1]};
    } else {
      if (k.empty()) k = {ws[2], ws[3]};
      if (s.empty()) s = {1, 1};
      if (d.empty()) d = {1, 1};
      if (p.empty()) p = {0, 0, 0, 0};
    }
    int64_t g = intv(n, "group", 1), N = xs[0], C = xs[1], H = xs[2], W = xs[3], OC = ws[0], icg = ws[1];
    int64_t OH = (H + p[0] + p[2] - (d[0] * (k[0] - 1) + 1)) / s[0] + 1;
    int64_t OW = (W + p[1] + p[3] - (d[1] * (k[1] - 1) + 1)) / s[1] + 1;
    RefTensor y{{N, OC, OH, OW}, std::vector<double>(static_cast<size_t>(N * OC * OH * OW))};
    const RefTensor* b = n.input_size() > 2 ? &in(n, 2) : nullptr;
    for (int64_t b0 = 0; b0 < N; ++b0)
      for (int64_t o = 0; o < OC; ++o)
        for (int64_t oy = 0; oy < OH; ++oy)
          for (int64_t ox = 0; ox < OW; ++ox) {
            double acc = b ? b->v[static_cast<size_t>(o)] : 0.0;
            int64_t gi = o / (OC / g);
            for (int64_t c = 0; c < icg; ++c)
              for (int64_t ky = 0; ky < k[0]; ++ky)
                for (int64_t kx = 0; kx < k[1]; ++kx) {
                  int64_t iy = oy * s[0] - p[0] + ky * d[0], ix = ox * s[1] - p[1] + kx * d[1];
                  if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
                  int64_t ci = gi * icg + c;
                  acc += x.v[static_cast<size_t>(((b0 * C + ci) * H + iy) * W + ix)] *
                         w.v[static_cast<size_t>(((o * icg + c) * k[0] + ky) * k[1] + kx)];
                }
            y.v[static_cast<size_t>(((b0 * OC + o) * OH + oy) * OW + ox)] = acc;
          }
    if (sr == 1) y.shape = {N, OC, OW};
    return y;
  }

  // QuantizeLinear / DequantizeLinear: scale and zero point per tensor or along `axis`.
  RefTensor qdq(const onnx::NodeProto& n, bool quantize) {
    RefTensor y = in(n, 0);
    const RefTensor& sc = in(n, 1);
    const RefTensor* zp = n.input_size() > 2 && !n.input(2).empty() ? &in(n, 2) : nullptr;
    int64_t axis = intv(n, "axis", 1), inner = 1;
    if (sc.v.size() > 1)
      for (size_t d = static_cast<size_t>(axis) + 1; d < y.shape.size(); ++d) inner *= y.shape[d];
    bool u8 = zp ? zp->uint8 : true;
    y.uint8 = quantize && u8;
    for (size_t i = 0; i < y.v.size(); ++i) {
      size_t c = sc.v.size() > 1
                     ? static_cast<size_t>((static_cast<int64_t>(i) / inner) % static_cast<int64_t>(sc.v.size()))
                     : 0;
      double s = static_cast<float>(sc.v[c]), z = zp ? zp->v[c] : 0.0;
      if (quantize) {
        double q = std::nearbyint(static_cast<float>(y.v[i]) / static_cast<float>(s)) + z;  // ties to even
        y.v[i] = std::clamp(q, u8 ? 0.0 : -128.0, u8 ? 255.0 : 127.0);
      } else {
        y.v[i] = static_cast<float>((y.v[i] - z) * s);
      }
    }
    return y;
  }

  RefTensor eval(const onnx::NodeProto& n) {
    const std::string& op = n.op_type();
    if (op == "QuantizeLinear") return qdq(n, true);
    if (op == "DequantizeLinear") return qdq(n, false);
    if (op == "Clip") {
      double lo = n.input_size() > 1 && !n.input(1).empty() ? in(n, 1).v.at(0) : -INFINITY;
      double hi = n.input_size() > 2 && !n.input(2).empty() ? in(n, 2).v.at(0) : INFINITY;
      RefTensor y = in(n, 0);
      for (double& v : y.v) v = std::clamp(v, lo, hi);
      return y;
    }
    if (op == "Conv") return conv(n);
    if (op == "Relu") return unary(in(n, 0), [](double v) { return v > 0 ? v : 0.0; });
    if (op == "Tanh") return unary(in(n, 0), [](double v) { return std::tanh(v); });
    if (op == "Sigmoid") return unary(in(n, 0), [](double v) { return 1.0 / (1.0 + std::exp(-v)); });
    if (op == "Add") return binary(in(n, 0), in(n, 1), false);
    if (op == "Mul") return binary(in(n, 0), in(n, 1), true);
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
    if (op == "Flatten") {
      RefTensor y = in(n, 0);
      int64_t axis = intv(n, "axis", 1), outer = 1;
      for (int64_t d = 0; d < axis; ++d) outer *= y.shape[static_cast<size_t>(d)];
      y.shape = {outer, count(y.shape) / outer};
      return y;
    }
    if (op == "Gemm") {
      const RefTensor &a = in(n, 0), &w = in(n, 1);
      if (intv(n, "transB", 0) != 1 || intv(n, "transA", 0) != 0) throw std::runtime_error("Gemm form");
      int64_t M = a.shape[0], K = a.shape[1], N = w.shape[0];
      RefTensor y{{M, N}, std::vector<double>(static_cast<size_t>(M * N))};
      for (int64_t i = 0; i < M; ++i)
        for (int64_t j = 0; j < N; ++j) {
          double acc = n.input_size() > 2 ? in(n, 2).v[static_cast<size_t>(j)] : 0.0;
          for (int64_t kk = 0; kk < K; ++kk)
            acc += a.v[static_cast<size_t>(i * K + kk)] * w.v[static_cast<size_t>(j * K + kk)];
          y.v[static_cast<size_t>(i * N + j)] = acc;
        }
      return y;
    }
    throw std::runtime_error("reference interpreter lacks " + op);
  }

  const onnx::ModelProto& model_;
  std::map<std::string, RefTensor> values_;
};

}  // namespace tigris::test
