// 16x8 quantization (int16 activations, int8 weights) through the TFLite frontend, int16
// lowering and the int16 kernels, on hand-built single-operator models; every expected value
// is derived by hand from TensorFlow Lite Micro's formulas (the 127 seanet models and a local
// TensorFlow Lite Micro build check the kernels on real data: tests/e2e, scripts/).
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/api.h"
#include "compiler/plan/int16_tables.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "export/tflite/model.h"
#include "export/tflite/writer.h"
#include "runtime/src/kernels/s16/s16_params.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;
using tigris::test::bytes_of;
using tigris::test::values_of;

struct Spec {
  std::string name;
  std::vector<int32_t> shape;
  tfl::TensorType type;
  std::vector<float> scales = {};
  std::vector<int64_t> zps = {};
  std::vector<uint8_t> data = {};
};

// One operator over the given tensors; inputs/outputs are tensor indices.
struct OneOp {
  tfl::Model m;
  tfl::SubGraph sg;
  OneOp() { m.buffers.resize(1); }
  int32_t add(const Spec& s) {
    tfl::Tensor t;
    t.name = s.name;
    t.shape = s.shape;
    t.type = s.type;
    if (!s.scales.empty()) {
      tfl::Quantization q;
      q.scale = s.scales;
      q.zero_point = s.zps;
      t.quantization = q;
    }
    if (!s.data.empty()) {
      m.buffers.push_back(tfl::Buffer{s.data});
      t.buffer = static_cast<uint32_t>(m.buffers.size() - 1);
    }
    sg.tensors.push_back(t);
    return static_cast<int32_t>(sg.tensors.size() - 1);
  }
  std::vector<uint8_t> build(int32_t code, std::vector<int32_t> in, int32_t out, tfl::Options options,
                             std::vector<int32_t> graph_inputs) {
    m.operator_codes.push_back(tfl::OperatorCode{code, std::nullopt, 1});
    tfl::Operator op;
    op.inputs = std::move(in);
    op.outputs = {out};
    op.options = std::move(options);
    sg.operators.push_back(op);
    sg.inputs = std::move(graph_inputs);
    sg.outputs = {out};
    m.subgraphs.push_back(sg);
    return tfl::write_model(m);
  }
};

template <class O>
tfl::Options options(tfl::OptionsType t, O o) {
  tfl::Options x;
  x.type = t;
  x.value = o;
  return x;
}

// Compile at 64 KiB, run once; the output's bytes.
std::vector<uint8_t> run(const std::vector<uint8_t>& model, const std::vector<std::vector<uint8_t>>& inputs) {
  compiler::Model m = compiler::load_model_bytes(model, "int16.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  EXPECT_TRUE(c.ok()) << c.error;
  if (!c.ok()) return {};
  test::PlanRun r = test::run_plan(c.plan, inputs, 1 << 16);
  EXPECT_EQ(r.error, "");
  return r.error.empty() ? r.outputs.at(0) : std::vector<uint8_t>{};
}

const auto kI16 = tfl::TensorType::Int16;
const auto kI8 = tfl::TensorType::Int8;

// CONV_2D 1x1 over x = {8002, -8002, 2000}, weight 1 (scale 1), input scale 1, output scale
// 4: TFLite's factor of 0.25 is (2^30, -1). An int64 bias takes the 64-bit MBQM, which rounds
// halves up: 8002 / 4 = 2000.5 -> 2001, -2000.5 -> -2000; an int32 bias the int32 MBQM, which
// rounds them away from zero: -2001. Bias {0}; ReLU6 clamps at round(6 / 4) = 2 (2000 -> 2).
std::vector<uint8_t> conv_model(tfl::TensorType bias_type, tfl::Activation act) {
  OneOp b;
  int32_t x = b.add({"x", {1, 1, 3, 1}, kI16, {1.0f}, {0}});
  int32_t w = b.add({"w", {1, 1, 1, 1}, kI8, {1.0f}, {0}, bytes_of(std::vector<int8_t>{1})});
  std::vector<uint8_t> bias =
      bias_type == tfl::TensorType::Int64 ? bytes_of(std::vector<int64_t>{0}) : bytes_of(std::vector<int32_t>{0});
  int32_t bb = b.add({"b", {1}, bias_type, {}, {}, bias});
  int32_t y = b.add({"y", {1, 1, 3, 1}, kI16, {4.0f}, {0}});
  tfl::Conv2DOptions o;
  o.padding = tfl::Padding::Valid;
  o.stride_h = o.stride_w = 1;
  o.activation = act;
  return b.build(tfl::op::kConv2D, {x, w, bb}, y, options(tfl::OptionsType::Conv2D, o), {x});
}

const std::vector<uint8_t> kConvInput = bytes_of(std::vector<int16_t>{8002, -8002, 2000});

TEST(TfliteInt16, ConvWithAnInt64BiasRoundsHalvesUp) {
  EXPECT_EQ(values_of<int16_t>(run(conv_model(tfl::TensorType::Int64, tfl::Activation::None), {kConvInput})),
            (std::vector<int16_t>{2001, -2000, 500}));
}

TEST(TfliteInt16, ConvWithAnInt32BiasAccumulatesInInt32) {
  EXPECT_EQ(values_of<int16_t>(run(conv_model(tfl::TensorType::Int32, tfl::Activation::None), {kConvInput})),
            (std::vector<int16_t>{2001, -2001, 500}));
}

TEST(TfliteInt16, ConvClampsToTheFusedActivation) {
  EXPECT_EQ(values_of<int16_t>(run(conv_model(tfl::TensorType::Int64, tfl::Activation::Relu6), {kConvInput})),
            (std::vector<int16_t>{2, 0, 2}));
}

// ADD with scales 1, 1 -> 2 (TFLite's general path, left shift 15): 3 + 4 = 3.5 -> 4 and
// -3.5 -> -4 (MBQM rounds away from zero); 100 + 1 = 50.5 -> 51.
TEST(TfliteInt16, AddRescalesBothOperands) {
  OneOp b;
  int32_t x = b.add({"x", {1, 3}, kI16, {1.0f}, {0}});
  int32_t z = b.add({"z", {1, 3}, kI16, {1.0f}, {0}});
  int32_t y = b.add({"y", {1, 3}, kI16, {2.0f}, {0}});
  std::vector<uint8_t> model =
      b.build(tfl::op::kAdd, {x, z}, y, options(tfl::OptionsType::Add, tfl::AddSubOptions{}), {x, z});
  EXPECT_EQ(values_of<int16_t>(
                run(model, {bytes_of(std::vector<int16_t>{3, -3, 100}), bytes_of(std::vector<int16_t>{4, -4, 1})})),
            (std::vector<int16_t>{4, -4, 51}));
}

// QUANTIZE float32 -> int16 (scale 0.5): 1.25 / 0.5 = 2.5 -> 3, -2.5 -> -3, 1e6 saturates.
TEST(TfliteInt16, QuantizeFromFloatRoundsAwayAndSaturates) {
  OneOp b;
  int32_t x = b.add({"x", {1, 3}, tfl::TensorType::Float32});
  int32_t y = b.add({"y", {1, 3}, kI16, {0.5f}, {0}});
  std::vector<uint8_t> model = b.build(tfl::op::kQuantize, {x}, y, {}, {x});
  EXPECT_EQ(values_of<int16_t>(run(model, {bytes_of(std::vector<float>{1.25f, -1.25f, 1e6f})})),
            (std::vector<int16_t>{3, -3, 32767}));
}

// QUANTIZE int16 (scale 1, zp 0) -> int8 (scale 4, zp -10): 10 / 4 = 2.5 -> 3 - 10 = -7;
// 1000 saturates to 127.
TEST(TfliteInt16, RequantizeToInt8) {
  OneOp b;
  int32_t x = b.add({"x", {1, 2}, kI16, {1.0f}, {0}});
  int32_t y = b.add({"y", {1, 2}, kI8, {4.0f}, {-10}});
  std::vector<uint8_t> model = b.build(tfl::op::kQuantize, {x}, y, {}, {x});
  EXPECT_EQ(values_of<int8_t>(run(model, {bytes_of(std::vector<int16_t>{10, 1000})})), (std::vector<int8_t>{-7, 127}));
}

// TRANSPOSE_CONV, stride (1, 2) VALID: input {2, 3} through taps {1, 10} writes
// {2, 20, 3, 30}, plus the int64 bias 100.
TEST(TfliteInt16, TransposeConvScattersThroughItsTaps) {
  OneOp b;
  int32_t shape = b.add({"shape", {4}, tfl::TensorType::Int32, {}, {}, bytes_of(std::vector<int32_t>{1, 1, 4, 1})});
  int32_t w = b.add({"w", {1, 1, 2, 1}, kI8, {1.0f}, {0}, bytes_of(std::vector<int8_t>{1, 10})});
  int32_t x = b.add({"x", {1, 1, 2, 1}, kI16, {1.0f}, {0}});
  int32_t bb = b.add({"b", {1}, tfl::TensorType::Int64, {}, {}, bytes_of(std::vector<int64_t>{100})});
  int32_t y = b.add({"y", {1, 1, 4, 1}, kI16, {1.0f}, {0}});
  tfl::TransposeConvOptions o;
  o.padding = tfl::Padding::Valid;
  o.stride_h = 1;
  o.stride_w = 2;
  std::vector<uint8_t> model =
      b.build(tfl::op::kTransposeConv, {shape, w, x, bb}, y, options(tfl::OptionsType::TransposeConv, o), {x});
  EXPECT_EQ(values_of<int16_t>(run(model, {bytes_of(std::vector<int16_t>{2, 3})})),
            (std::vector<int16_t>{102, 120, 103, 130}));
}

// MEAN of {1, 2, 3, 4} at equal scales: TFLite folds 1/4 into the factor of 1, (2^30, -1),
// and 10 * 2^-2 = 2.5 rounds away to 3.
TEST(TfliteInt16, MeanFoldsTheCountIntoItsFactor) {
  OneOp b;
  int32_t x = b.add({"x", {1, 4}, kI16, {0.5f}, {0}});
  int32_t axes = b.add({"axes", {1}, tfl::TensorType::Int32, {}, {}, bytes_of(std::vector<int32_t>{1})});
  int32_t y = b.add({"y", {1, 1}, kI16, {0.5f}, {0}});
  tfl::ReducerOptions o;
  o.keep_dims = true;
  std::vector<uint8_t> model = b.build(tfl::op::kMean, {x, axes}, y, options(tfl::OptionsType::Reducer, o), {x});
  EXPECT_EQ(values_of<int16_t>(run(model, {bytes_of(std::vector<int16_t>{1, 2, 3, 4})})), (std::vector<int16_t>{3}));
}

// PAD of an int16 tensor whose zero point is 5: TensorFlow Lite Micro fills raw 0, not the
// zero point.
TEST(TfliteInt16, PadFillsZeroAsTfliteMicroDoes) {
  OneOp b;
  int32_t x = b.add({"x", {1, 2}, kI16, {0.25f}, {5}});
  int32_t p = b.add({"p", {2, 2}, tfl::TensorType::Int32, {}, {}, bytes_of(std::vector<int32_t>{0, 0, 1, 1})});
  int32_t y = b.add({"y", {1, 4}, kI16, {0.25f}, {5}});
  tfl::Options o;
  o.type = tfl::OptionsType::Pad;
  o.value = tfl::NoFieldOptions{};
  std::vector<uint8_t> model = b.build(tfl::op::kPad, {x, p}, y, o, {x});
  EXPECT_EQ(values_of<int16_t>(run(model, {bytes_of(std::vector<int16_t>{7, -9})})),
            (std::vector<int16_t>{0, 7, -9, 0}));
}

// LOGISTIC and TANH at 0 and far out (input scale 2^-11, output 2^-15): the table's first
// entry is sigmoid(0) = 1/2 in Q0.16, so logistic(0) = 16384 and tanh(0) = 0. +-16 rescales
// past the table's range (+-10.7): logistic saturates to (0x7FFF << 10 + 2^9) >> 10 = 32767
// and, below, to (2^25 - (0x7FFF << 10) + 2^9 - 1) >> 10 = 1; tanh to 32767 and -32767.
TEST(TfliteInt16, LogisticAndTanhAtTheirAnchors) {
  for (int32_t code : {tfl::op::kLogistic, tfl::op::kTanh}) {
    OneOp b;
    int32_t x = b.add({"x", {1, 3}, kI16, {1.0f / 2048}, {0}});
    int32_t y = b.add({"y", {1, 3}, kI16, {1.0f / 32768}, {0}});
    std::vector<uint8_t> model = b.build(code, {x}, y, {}, {x});
    std::vector<int16_t> got = values_of<int16_t>(run(model, {bytes_of(std::vector<int16_t>{0, 32767, -32768})}));
    if (code == tfl::op::kLogistic)
      EXPECT_EQ(got, (std::vector<int16_t>{16384, 32767, 1}));
    else
      EXPECT_EQ(got, (std::vector<int16_t>{0, 32767, -32767}));
  }
}

TEST(TfliteInt16, SigmoidTableAnchorsAndShape) {
  std::vector<uint16_t> t = values_of<uint16_t>(plan::sigmoid_table_bytes());
  ASSERT_EQ(t.size(), 256u);
  EXPECT_EQ(t.front(), 32768);  // sigmoid(0) in Q0.16
  EXPECT_EQ(t.back(), 65535);   // saturated
  for (size_t i = 1; i < t.size(); ++i) EXPECT_LE(t[i - 1], t[i]) << i;
  std::vector<int16_t> luts = values_of<int16_t>(plan::softmax_lut_bytes());
  ASSERT_EQ(luts.size(), 2u * 513u);
  EXPECT_EQ(luts[512], 32767);  // exp(0), the top of the int16 range
  EXPECT_EQ(luts[513], 32767);  // 1 / (1 + 0)
}

// The fixed-point steps TFLite's 16x8 kernels rest on.
TEST(TfliteInt16, FixedPointSteps) {
  // 64-bit MBQM: the factor 1/2 = (2^30, 0); halves round up (towards +inf).
  EXPECT_EQ(tigris_s16::multiply_by_quantized_multiplier_64(3, 1 << 30, 0), 2);
  EXPECT_EQ(tigris_s16::multiply_by_quantized_multiplier_64(-3, 1 << 30, 0), -1);
  EXPECT_EQ(tigris_s16::multiply_by_quantized_multiplier_64(int64_t{1} << 40, 1 << 30, -10), 1 << 29);
  int32_t lo = 0, hi = 0;
  tigris_s16::activation_range(TIGRIS_ACT_RELU6, 0.5f, 10, &lo, &hi);
  EXPECT_EQ(lo, 10);
  EXPECT_EQ(hi, 22);
  tigris_s16::activation_range(TIGRIS_ACT_NONE, 0.5f, 10, &lo, &hi);
  EXPECT_EQ(lo, -32768);
  EXPECT_EQ(hi, 32767);
  int log2 = 0;
  EXPECT_TRUE(tigris_s16::checked_log2(1.0f / 32768, &log2));
  EXPECT_EQ(log2, -15);
  EXPECT_FALSE(tigris_s16::checked_log2(0.0003f, &log2));
}

// What TensorFlow Lite Micro refuses or has no kernel for is refused, naming the reason.
TEST(TfliteInt16, RefusalsNameTheReason) {
  auto reason = [](const std::vector<uint8_t>& model) {
    compiler::Model m = compiler::load_model_bytes(model, "int16.tflite");
    return m.summary().unsupported_operators.empty() ? std::string() : m.summary().unsupported_operators[0].reason;
  };
  {  // softmax output quantization other than 1/32768
    OneOp b;
    int32_t x = b.add({"x", {1, 4}, kI16, {0.01f}, {0}});
    int32_t y = b.add({"y", {1, 4}, kI16, {1.0f / 256}, {0}});
    tfl::SoftmaxOptions o;
    o.beta = 1.0f;
    EXPECT_EQ(reason(b.build(tfl::op::kSoftmax, {x}, y, options(tfl::OptionsType::Softmax, o), {x})),
              "int16 output quantization other than (1/32768, 0)");
  }
  {  // a depthwise int32 bias (TFLite Micro's 16x8 depthwise reads int64)
    OneOp b;
    int32_t x = b.add({"x", {1, 1, 1, 1}, kI16, {1.0f}, {0}});
    int32_t w = b.add({"w", {1, 1, 1, 1}, kI8, {1.0f}, {0}, bytes_of(std::vector<int8_t>{1})});
    int32_t bb = b.add({"b", {1}, tfl::TensorType::Int32, {}, {}, bytes_of(std::vector<int32_t>{0})});
    int32_t y = b.add({"y", {1, 1, 1, 1}, kI16, {1.0f}, {0}});
    tfl::DepthwiseConv2DOptions o;
    o.padding = tfl::Padding::Valid;
    o.stride_h = o.stride_w = 1;
    o.depth_multiplier = 1;
    EXPECT_EQ(
        reason(b.build(tfl::op::kDepthwiseConv2D, {x, w, bb}, y, options(tfl::OptionsType::DepthwiseConv2D, o), {x})),
        "16x8 operator with a INT32 bias (TFLite Micro reads int64)");
  }
}

}  // namespace
