// The QDQ patterns of PyTorch's exports beyond MobileNetV2, on one small model built here the
// way torch.onnx.export writes a quantized graph: scales and zero points as Constant nodes of
// one-element 1-D arrays, a Cast uint8 -> uint8 after every QuantizeLinear, int8 per-channel
// weights (axis 0) as Constant nodes, int32 biases whose zero points are ConstantOfShape ->
// Cast. Patterns: fused ConvReLU (Conv -> Relu -> Q), MaxPool, depthwise conv, add_relu
// (Add -> Relu -> Q), quantized Mul and Concat, the channel shuffle (Reshape, 5-D Transpose,
// Reshape) and chunk (Slice) of ShuffleNet, AveragePool, GlobalAveragePool, Flatten, fused
// LinearReLU (Gemm -> Relu -> Q), MatMul with constant int8 weights, SiLU and hard-swish
// (x * Sigmoid(x), x * HardSigmoid(x), every op with its Q/DQ: one TABLE op each in the plan).
// Scales come from the float graph's ranges on the test input (a calibration, as PyTorch's
// observers do). The folded plan runs only int8 operators (no Cast, no copy) and matches the
// graph evaluated as the ONNX specification defines it, layer by layer (qdq_layers.h).
#include <gtest/gtest.h>

#include <random>

#include "e2e/qdq_layers.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;
using test::OnnxBuilder;

class PatternModel {
 public:
  // quantize = false: the float graph (for the calibration ranges).
  PatternModel(bool quantize, std::map<std::string, std::pair<double, double>> ranges)
      : q_(quantize), ranges_(std::move(ranges)) {}

  std::vector<uint8_t> build() {
    b_.input("x", {1, 3, 16, 16});
    b_.output("y", {1, 100});
    std::string x = act("x");
    std::string r1 = relu(conv(x, "c1", 8, 3, 3, 1, 1), "r1");  // ConvReLU
    std::string p1 = node("MaxPool", {r1}, "p1", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}});
    std::string c2 = act(conv(p1, "c2", 8, 8, 1, 0, 1));
    std::string c3 = act(conv(p1, "c3", 8, 1, 3, 1, 8));       // depthwise
    std::string a1 = relu(raw("Add", {c2, c3}, "a1"), "a1r");  // add_relu
    std::string m1 = node("Mul", {a1, c2}, "m1");
    std::string cat = node("Concat", {m1, p1}, "cat", {}, 1);
    b_.init_ints("shape5", {5}, {1, 2, 8, 8, 8});
    b_.init_ints("shape4", {4}, {1, 16, 8, 8});
    std::string sh = node("Reshape", {cat, "shape5"}, "sh1");
    sh = node("Transpose", {sh}, "sh2", {{"perm", {0, 2, 1, 3, 4}}});
    sh = node("Reshape", {sh, "shape4"}, "sh3");
    b_.init_ints("zero", {1}, {0});
    b_.init_ints("eight", {1}, {8});
    b_.init_ints("sixteen", {1}, {16});
    b_.init_ints("one", {1}, {1});
    std::string s0 = node("Slice", {sh, "zero", "eight", "one"}, "s0");
    std::string s1 = node("Slice", {sh, "eight", "sixteen", "one"}, "s1");
    std::string ap = node("AveragePool", {s0}, "ap", {{"kernel_shape", {2, 2}}, {"strides", {2, 2}}});
    std::string gap = node("GlobalAveragePool", {s1}, "gap");
    std::string f1 = node("Flatten", {ap}, "f1", {}, 1);
    std::string g1 = relu(gemm(f1, "g1", 100, 128), "g1r");  // LinearReLU
    std::string mm = node("MatMul", {g1, weight("wm", {100, 100}, false)}, "mm");
    std::string f2 = node("Flatten", {gap}, "f2", {}, 1);
    std::string mm2 = node("MatMul", {f2, weight("wm2", {8, 100}, false)}, "mm2");
    std::string sw = node("Mul", {mm2, node("Sigmoid", {mm2}, "sg")}, "swish");    // SiLU
    std::string hs = node("Mul", {mm, node("HardSigmoid", {mm}, "hsg")}, "hswish");  // hard-swish
    std::string sum = raw("Add", {hs, sw}, "sum");
    if (q_) {
      std::string yq = quantize(sum);
      b_.node("DequantizeLinear", {yq, sum + "_s", sum + "_z"}, {"y"});
    } else {
      b_.node("Identity", {sum}, {"y"});
    }
    return b_.bytes();
  }

 private:
  // PyTorch's observers: max/avg pools, cat and the shape ops share their input's observer,
  // so these tensors have one quantization (their union range).
  static bool shares_observer(const std::string& t) {
    for (const char* s : {"r1", "p1", "m1", "cat", "sh1", "sh2", "sh3", "s0", "s1", "ap", "gap", "f1", "f2"})
      if (t == s) return true;
    return false;
  }
  std::pair<double, double> range(const std::string& t) const {
    if (!shares_observer(t)) return ranges_.count(t) ? ranges_.at(t) : std::pair<double, double>{-1, 1};
    std::pair<double, double> r{0, 0};
    for (const auto& [name, v] : ranges_)
      if (shares_observer(name)) r = {std::min(r.first, v.first), std::max(r.second, v.second)};
    return r;
  }
  // Scale and zero point (uint8, asymmetric) of an activation from its calibrated range.
  std::pair<float, int> qparams(const std::string& t) const {
    auto r = range(t);
    double lo = std::min(0.0, r.first), hi = std::max(0.0, r.second);
    float scale = static_cast<float>(std::max(hi - lo, 1e-3) / 255.0);
    int zp = static_cast<int>(std::clamp(std::nearbyint(-lo / scale), 0.0, 255.0));
    return {scale, zp};
  }
  void constant(const std::string& name, int type, const std::vector<int64_t>& dims, const void* data, size_t bytes) {
    auto& n = b_.node("Constant", {}, {name}, name + "_node");
    auto* a = n.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(std::string(static_cast<const char*>(data), bytes));
  }
  // Q (Constant scale / zero point, shape [1]) and the Cast uint8 -> uint8 torch writes.
  std::string quantize(const std::string& t) {
    auto [scale, zp] = qparams(t);
    uint8_t z = static_cast<uint8_t>(zp);
    constant(t + "_s", onnx::TensorProto::FLOAT, {1}, &scale, 4);
    constant(t + "_z", onnx::TensorProto::UINT8, {1}, &z, 1);
    b_.node("QuantizeLinear", {t, t + "_s", t + "_z"}, {t + "_q"}, t + "_quant");
    auto& cast = b_.node("Cast", {t + "_q"}, {t + "_qc"}, t + "_cast");
    OnnxBuilder::attr(cast, "to", int64_t{onnx::TensorProto::UINT8});
    return t + "_qc";
  }
  // An activation as its readers see it: Q -> Cast -> DQ.
  std::string act(const std::string& t) {
    if (!q_) return t;
    std::string qc = quantize(t);
    b_.node("DequantizeLinear", {qc, t + "_s", t + "_z"}, {t + "_dq"}, t + "_deq");
    return t + "_dq";
  }
  float scale_of(const std::string& activation) const { return qparams(activation).first; }

  // Random weights; quantized: int8 symmetric, per channel (axis 0) or per tensor.
  std::string weight(const std::string& name, const std::vector<int64_t>& dims, bool per_channel,
                     std::vector<float>* scales_out = nullptr) {
    int64_t count = 1;
    for (int64_t d : dims) count *= d;
    std::uniform_real_distribution<float> dist(-0.5f, 0.5f);
    std::vector<float> w(static_cast<size_t>(count));
    for (float& v : w) v = dist(rng_);
    if (!q_) {
      b_.init(name, dims, w);
      return name;
    }
    size_t channels = per_channel ? static_cast<size_t>(dims[0]) : 1, inner = w.size() / channels;
    std::vector<float> scales(channels);
    std::vector<int8_t> wq(w.size());
    for (size_t c = 0; c < channels; ++c) {
      float mx = 1e-6f;
      for (size_t i = 0; i < inner; ++i) mx = std::max(mx, std::fabs(w[c * inner + i]));
      scales[c] = mx / 127.0f;
      for (size_t i = 0; i < inner; ++i)
        wq[c * inner + i] =
            static_cast<int8_t>(std::clamp(std::nearbyint(w[c * inner + i] / scales[c]), -127.0f, 127.0f));
    }
    std::vector<int8_t> zeros(channels, 0);
    std::vector<int64_t> sdims = {static_cast<int64_t>(channels)};
    constant(name + "_w", onnx::TensorProto::INT8, dims, wq.data(), wq.size());
    constant(name + "_ws", onnx::TensorProto::FLOAT, sdims, scales.data(), 4 * channels);
    constant(name + "_wz", onnx::TensorProto::INT8, sdims, zeros.data(), channels);
    auto& dq = b_.node("DequantizeLinear", {name + "_w", name + "_ws", name + "_wz"}, {name}, name + "_deq");
    if (per_channel) OnnxBuilder::attr(dq, "axis", int64_t{0});
    if (scales_out) *scales_out = scales;
    return name;
  }
  // int32 bias at scale in_scale * w_scale, zero point ConstantOfShape -> Cast (torch's form).
  std::string bias(const std::string& name, int64_t n, const std::string& input, const std::vector<float>& ws) {
    std::uniform_real_distribution<float> dist(-0.2f, 0.2f);
    std::vector<float> bf(static_cast<size_t>(n));
    for (float& v : bf) v = dist(rng_);
    if (!q_) {
      b_.init(name, {n}, bf);
      return name;
    }
    float sx = scale_of(input);
    std::vector<int32_t> bq(static_cast<size_t>(n));
    std::vector<float> bs(static_cast<size_t>(n));
    for (size_t c = 0; c < bq.size(); ++c) {
      bs[c] = sx * ws[c];
      bq[c] = static_cast<int32_t>(std::nearbyint(bf[c] / bs[c]));
    }
    constant(name + "_b", onnx::TensorProto::INT32, {n}, bq.data(), 4 * bq.size());
    constant(name + "_bs", onnx::TensorProto::FLOAT, {n}, bs.data(), 4 * bs.size());
    b_.init_ints(name + "_zshape", {1}, {n});
    auto& cs = b_.node("ConstantOfShape", {name + "_zshape"}, {name + "_zi"}, name + "_zeros");
    auto* a = cs.add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    a->mutable_t()->set_data_type(onnx::TensorProto::INT32);
    a->mutable_t()->add_dims(1);
    int32_t zero = 0;
    a->mutable_t()->set_raw_data(std::string(reinterpret_cast<const char*>(&zero), 4));
    OnnxBuilder::attr(b_.node("Cast", {name + "_zi"}, {name + "_bz"}, name + "_zcast"), "to",
                      int64_t{onnx::TensorProto::INT32});
    auto& dq = b_.node("DequantizeLinear", {name + "_b", name + "_bs", name + "_bz"}, {name}, name + "_deq");
    OnnxBuilder::attr(dq, "axis", int64_t{0});
    return name;
  }
  // The input's name before its DQ (the activation whose scale a bias uses).
  static std::string source(const std::string& t) {
    return t.size() > 3 && t.ends_with("_dq") ? t.substr(0, t.size() - 3) : t;
  }
  std::string conv(const std::string& x, const std::string& name, int64_t out, int64_t in_per_group, int64_t k,
                   int64_t pad, int64_t group) {
    std::vector<float> ws;
    std::string w = weight(name + "_weight", {out, in_per_group, k, k}, true, &ws);
    if (!q_) ws.assign(static_cast<size_t>(out), 1.0f);
    std::string bname = bias(name + "_bias", out, source(x), ws);
    auto& n = b_.node("Conv", {x, w, bname}, {name}, name);
    OnnxBuilder::attr(n, "kernel_shape", std::vector<int64_t>{k, k});
    OnnxBuilder::attr(n, "pads", std::vector<int64_t>{pad, pad, pad, pad});
    OnnxBuilder::attr(n, "group", group);
    return name;
  }
  std::string gemm(const std::string& x, const std::string& name, int64_t out, int64_t in) {
    std::vector<float> ws;
    std::string w = weight(name + "_weight", {out, in}, true, &ws);
    if (!q_) ws.assign(static_cast<size_t>(out), 1.0f);
    std::string bname = bias(name + "_bias", out, source(x), ws);
    OnnxBuilder::attr(b_.node("Gemm", {x, w, bname}, {name}, name), "transB", int64_t{1});
    return name;
  }
  // Relu straight after its producer (no Q between: PyTorch's fused modules), then Q/DQ.
  std::string relu(const std::string& y, const std::string& name) {
    b_.node("Relu", {y}, {name}, name);
    return act(name);
  }
  // An op whose output is read before any Q (the Relu of a fused pattern follows).
  std::string raw(const std::string& op, const std::vector<std::string>& in, const std::string& name) {
    b_.node(op, in, {name}, name);
    return name;
  }
  std::string node(const std::string& op, const std::vector<std::string>& in, const std::string& name,
                   const std::map<std::string, std::vector<int64_t>>& ints = {}, int64_t axis = -100) {
    auto& n = b_.node(op, in, {name}, name);
    for (const auto& [a, v] : ints) OnnxBuilder::attr(n, a, v);
    if (axis != -100) OnnxBuilder::attr(n, "axis", axis);
    return act(name);
  }

  bool q_;
  std::map<std::string, std::pair<double, double>> ranges_;
  OnnxBuilder b_;
  std::mt19937 rng_{11};
};

std::vector<float> test_input() {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(3 * 16 * 16);
  for (float& v : x) v = dist(rng);
  return x;
}

// The QDQ model, its scales calibrated on the float graph's values for `x`.
std::vector<uint8_t> calibrated_model(const std::vector<float>& x) {
  std::vector<uint8_t> fbytes = PatternModel(false, {}).build();
  onnx::ModelProto fm;
  fm.ParseFromArray(fbytes.data(), static_cast<int>(fbytes.size()));
  test::OnnxReference ref(fm);
  ref.run(test::RefTensor{{1, 3, 16, 16}, std::vector<double>(x.begin(), x.end())});
  std::map<std::string, std::pair<double, double>> ranges;
  for (const auto& n : fm.graph().node()) {
    const std::vector<double>& v = ref.value(n.output(0)).v;
    if (!v.empty())
      ranges[n.output(0)] = {*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end())};
  }
  ranges["x"] = {-1.0, 1.0};
  return PatternModel(true, ranges).build();
}

TEST(QdqPatterns, FoldIntoInt8OperatorsOnly) {
  std::vector<uint8_t> bytes = calibrated_model(test_input());
  compiler::Model m = compiler::load_model_bytes(bytes, "patterns.onnx");
  const compiler::ModelSummary& s = m.summary();
  ASSERT_TRUE(s.supported()) << s.unsupported_operators.at(0).name << ": " << s.unsupported_operators[0].reason;
  EXPECT_EQ(s.dtype, "int8");
  std::vector<std::string> types;
  for (const compiler::OperatorSummary& o : s.ops) types.push_back(o.type);
  // No Cast, no Relu (all fused), no Reshape copy for the Flattens (the Gemms read the bytes).
  for (const std::string& t : types) {
    EXPECT_NE(t, "Cast");
    EXPECT_NE(t, "Relu");
    EXPECT_NE(t, "QuantizeLinear");
    EXPECT_NE(t, "DequantizeLinear");
    EXPECT_NE(t, "Sigmoid");
    EXPECT_NE(t, "HardSigmoid");
  }
  // SiLU and hard-swish: each one int8 lookup table (x and y live, not x, the gate and y).
  EXPECT_EQ(std::count(types.begin(), types.end(), "Table"), 2);
  int fused = 0;
  for (const ir::Node& n : m.graph().nodes) fused += n.attrs.has("fused_clip");
  EXPECT_EQ(fused, 3);  // ConvReLU, add_relu, LinearReLU
}

TEST(QdqPatterns, MatchTheSpecificationLayerByLayer) {
  std::vector<float> x = test_input();
  std::vector<uint8_t> bytes = calibrated_model(x);
  for (uint64_t fast : {uint64_t{1} << 20, uint64_t{6} << 10}) {
    test::QdqComparison c = test::compare_qdq_layers(bytes, "patterns.onnx", x, fast);
    ASSERT_EQ(c.error, "");
    test::print_comparison("patterns at " + std::to_string(fast) + " bytes", c);
    // The shuffle's 5-D Reshape and Transpose are one Gather: their layers are gone, sh3 stays.
    EXPECT_EQ(c.isolated.size(), 17u);
    for (const test::LayerDiff& d : c.isolated) {
      EXPECT_GE(d.equal_or_tie_share(), 0.99) << d.name;
      EXPECT_LE(d.max_steps, 1) << d.name;
      // What differs otherwise is a near-tie of the requantization.
      EXPECT_LT(d.tie_distance, 0.1) << d.name;
    }
    // End to end the head carries g1r's cumulative drift (up to 5 steps there, each layer
    // within 1 step in isolation); the hard-swish on that path passes it on.
    EXPECT_LE(c.output_steps, 5.0);
    EXPECT_EQ(c.argmax, c.reference_argmax);
  }
}

}  // namespace
