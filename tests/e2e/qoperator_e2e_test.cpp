// A QOperator model as ONNX Runtime's quantizer writes one (QuantizeLinear at the input,
// QLinearConv with per-channel and per-tensor int8 weights and int32 biases, MaxPool and
// Flatten straight on quantized data, QLinearMatMul, DequantizeLinear at the output), with
// uint8 and with int8 activations, scales calibrated on the float model. It compiles into
// int8 operators only and matches the specification layer by layer (qdq_layers.h: each
// layer computed from the plan's own inputs gives >= 99% of its values equal, none more than
// one step apart), at one stage and banded.
#include <gtest/gtest.h>

#include <random>

#include "e2e/qdq_layers.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;
using test::OnnxBuilder;

class QOperatorModel {
 public:
  // quantize = false: the float model (for the calibration). int8: int8 activations.
  QOperatorModel(bool quantize, bool int8, std::map<std::string, std::pair<double, double>> ranges)
      : q_(quantize), int8_(int8), ranges_(std::move(ranges)) {}

  std::vector<uint8_t> build() {
    b_.input("x", {1, 3, 16, 16});
    b_.output("y", {1, 10});
    std::string x = "x";
    if (q_) {
      params("x");
      b_.node("QuantizeLinear", {"x", "x_s", "x_z"}, {"x_q"}, "quantize_input");
      x = "x_q";
    }
    std::string c1 = conv(x, "x", "c1", 8, 3, 3, 1, 1, true);
    std::string c2 = conv(c1, "c1", "c2", 8, 1, 3, 1, 8, true);  // depthwise
    std::string p = "p";
    auto& pool = b_.node("MaxPool", {c2}, {p}, "pool");
    OnnxBuilder::attr(pool, "kernel_shape", std::vector<int64_t>{2, 2});
    OnnxBuilder::attr(pool, "strides", std::vector<int64_t>{2, 2});
    std::string c3 = conv(p, "c2", "c3", 16, 8, 1, 0, 1, false);  // per-tensor weights
    OnnxBuilder::attr(b_.node("Flatten", {c3}, {"f"}, "flatten"), "axis", int64_t{1});
    std::string y = q_ ? "mm" : "y";
    std::vector<float> ws;
    std::string w = weight("wm", {1024, 10}, false, &ws);
    if (q_) {
      params("mm");
      b_.node("QLinearMatMul", {"f", "c3_s", "c3_z", w, w + "_s", w + "_z", "mm_s", "mm_z"}, {y}, "matmul");
      b_.node("DequantizeLinear", {"mm", "mm_s", "mm_z"}, {"y"}, "dequantize_output");
    } else {
      b_.node("MatMul", {"f", w}, {y}, "matmul");
    }
    return b_.bytes();
  }

 private:
  void raw(const std::string& name, int type, const std::vector<int64_t>& dims, const void* data, size_t bytes) {
    auto* t = b_.proto().mutable_graph()->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    for (int64_t d : dims) t->add_dims(d);
    t->set_raw_data(std::string(static_cast<const char*>(data), bytes));
  }
  int act_type() const { return int8_ ? onnx::TensorProto::INT8 : onnx::TensorProto::UINT8; }
  // Scale and zero point of activation `t` (initializers t_s, t_z) from its calibrated range.
  float params(const std::string& t) {
    auto r = ranges_.count(t) ? ranges_.at(t) : std::pair<double, double>{-1, 1};
    double lo = std::min(0.0, r.first), hi = std::max(0.0, r.second);
    float scale = static_cast<float>(std::max(hi - lo, 1e-3) / 255.0);
    int zp = static_cast<int>(std::clamp(std::nearbyint(-lo / scale), 0.0, 255.0)) - (int8_ ? 128 : 0);
    b_.init(t + "_s", {}, {scale});
    uint8_t z = static_cast<uint8_t>(zp);
    raw(t + "_z", act_type(), {}, &z, 1);
    return scale;
  }
  std::string weight(const std::string& name, const std::vector<int64_t>& dims, bool per_channel,
                     std::vector<float>* scales) {
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
    scales->assign(channels, 0.0f);
    std::vector<int8_t> wq(w.size());
    for (size_t c = 0; c < channels; ++c) {
      float mx = 1e-6f;
      for (size_t i = 0; i < inner; ++i) mx = std::max(mx, std::fabs(w[c * inner + i]));
      (*scales)[c] = mx / 127.0f;
      for (size_t i = 0; i < inner; ++i)
        wq[c * inner + i] = static_cast<int8_t>(std::nearbyint(w[c * inner + i] / (*scales)[c]));
    }
    std::vector<int8_t> zeros(channels, 0);
    std::vector<int64_t> sd =
        per_channel ? std::vector<int64_t>{static_cast<int64_t>(channels)} : std::vector<int64_t>{};
    raw(name, onnx::TensorProto::INT8, dims, wq.data(), wq.size());
    b_.init(name + "_s", sd, *scales);
    raw(name + "_z", onnx::TensorProto::INT8, sd, zeros.data(), channels);
    return name;
  }
  std::string conv(const std::string& x, const std::string& in_name, const std::string& name, int64_t out,
                   int64_t in_per_group, int64_t k, int64_t pad, int64_t group, bool per_channel) {
    std::vector<float> ws;
    std::string w = weight(name + "_w", {out, in_per_group, k, k}, per_channel, &ws);
    std::uniform_real_distribution<float> dist(-0.2f, 0.2f);
    std::vector<float> bf(static_cast<size_t>(out));
    for (float& v : bf) v = dist(rng_);
    onnx::NodeProto* n;
    if (!q_) {
      b_.init(name + "_b", {out}, bf);
      n = &b_.node("Conv", {x, w, name + "_b"}, {name}, name);
    } else {
      float sx = scale_of(in_name);
      std::vector<int32_t> bq(static_cast<size_t>(out));
      for (size_t c = 0; c < bq.size(); ++c)
        bq[c] = static_cast<int32_t>(std::nearbyint(bf[c] / (sx * ws[per_channel ? c : 0])));
      raw(name + "_b", onnx::TensorProto::INT32, {out}, bq.data(), 4 * bq.size());
      params(name);
      n = &b_.node("QLinearConv",
                   {x, in_name + "_s", in_name + "_z", w, w + "_s", w + "_z", name + "_s", name + "_z", name + "_b"},
                   {name}, name);
    }
    OnnxBuilder::attr(*n, "kernel_shape", std::vector<int64_t>{k, k});
    OnnxBuilder::attr(*n, "pads", std::vector<int64_t>{pad, pad, pad, pad});
    OnnxBuilder::attr(*n, "group", group);
    return name;
  }
  float scale_of(const std::string& t) const {
    auto r = ranges_.count(t) ? ranges_.at(t) : std::pair<double, double>{-1, 1};
    return static_cast<float>(std::max(std::max(0.0, r.second) - std::min(0.0, r.first), 1e-3) / 255.0);
  }

  bool q_, int8_;
  std::map<std::string, std::pair<double, double>> ranges_;
  OnnxBuilder b_;
  std::mt19937 rng_{3};
};

std::vector<float> qop_test_input() {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> x(3 * 16 * 16);
  for (float& v : x) v = dist(rng);
  return x;
}

std::vector<uint8_t> calibrated_model(const std::vector<float>& x, bool int8) {
  std::vector<uint8_t> fbytes = QOperatorModel(false, int8, {}).build();
  onnx::ModelProto fm;
  fm.ParseFromArray(fbytes.data(), static_cast<int>(fbytes.size()));
  test::OnnxReference ref(fm);
  ref.run(test::RefTensor{{1, 3, 16, 16}, std::vector<double>(x.begin(), x.end())});
  std::map<std::string, std::pair<double, double>> ranges{{"x", {-1.0, 1.0}}};
  for (const auto& n : fm.graph().node()) {
    const std::vector<double>& v = ref.value(n.output(0)).v;
    ranges[n.output(0) == "y" ? "mm" : n.output(0)] = {*std::min_element(v.begin(), v.end()),
                                                       *std::max_element(v.begin(), v.end())};
  }
  return QOperatorModel(true, int8, ranges).build();
}

class QOperatorE2e : public ::testing::TestWithParam<bool> {};

TEST_P(QOperatorE2e, Int8OperatorsOnly) {
  compiler::Model m = compiler::load_model_bytes(calibrated_model(qop_test_input(), GetParam()), "qop.onnx");
  const compiler::ModelSummary& s = m.summary();
  ASSERT_TRUE(s.supported()) << s.unsupported_operators.at(0).name << ": " << s.unsupported_operators[0].reason;
  EXPECT_EQ(s.dtype, "int8");
  EXPECT_EQ(s.inputs.at(0).dtype, "float32");
  EXPECT_EQ(s.outputs.at(0).dtype, "float32");
  std::vector<std::string> types;
  for (const compiler::OperatorSummary& o : s.ops) types.push_back(o.type);
  // The Transpose is the layout's (channels-last storage to the model's order before the
  // Flatten), as in the float model; no Cast, no Q/DQ.
  EXPECT_EQ(types, (std::vector<std::string>{"Conv", "DepthwiseConv", "MaxPool", "Conv", "Transpose", "Gemm"}));
}

TEST_P(QOperatorE2e, MatchesTheSpecificationLayerByLayer) {
  std::vector<float> x = qop_test_input();
  std::vector<uint8_t> bytes = calibrated_model(x, GetParam());
  for (uint64_t fast : {uint64_t{1} << 20, uint64_t{3} << 10}) {
    test::QdqComparison c = test::compare_qdq_layers(bytes, "qop.onnx", x, fast);
    ASSERT_EQ(c.error, "");
    test::print_comparison(std::string(GetParam() ? "int8" : "uint8") + " at " + std::to_string(fast), c);
    EXPECT_EQ(c.isolated.size(), 4u);  // c1, c2, pool, c3 (the matmul writes the float output)
    for (const test::LayerDiff& d : c.isolated) {
      EXPECT_GE(d.equal_or_tie_share(), 0.99) << d.name;
      EXPECT_LE(d.max_steps, 1) << d.name;
    }
    EXPECT_EQ(c.argmax, c.reference_argmax);
    EXPECT_LE(c.output_steps, 3.0);
  }
}

INSTANTIATE_TEST_SUITE_P(Activations, QOperatorE2e, ::testing::Values(false, true),
                         [](const auto& info) { return std::string(info.param ? "Int8" : "UInt8"); });

}  // namespace
