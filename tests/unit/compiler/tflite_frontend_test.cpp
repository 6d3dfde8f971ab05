// The TFLite frontend and int8 lowering on a hand-built model, values derived by hand from
// TFLite's formulas: FULLY_CONNECTED, int8, per-channel weights, int32 bias, fused RELU6.
//   x = {2, -1, 5, 1} (scale 0.5, zp 0); W row 0 = {4, -8, 2, 0} (scale 0.25), row 1 = {1, 1, 1, 1}
//   (scale 0.125); bias {40, -5} (scales 0.125 and 0.0625, i.e. input x weight scale).
//   y quantized with scale 0.25, zp -10; RELU6 clamps to [-10, round(6 / 0.25) - 10 = 14].
//   unit 0: acc = 8 + 8 + 10 + 0 + 40 = 66, 66 * 0.125 / 0.25 = 33 -> 23 -> clamped to 14
//   unit 1: acc = 7 - 5 = 2, 2 * 0.0625 / 0.25 = 0.5, a tie: away from zero -> 1 -> -9
#include <gtest/gtest.h>

#include <cstring>
#include <functional>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "export/tflite/model.h"
#include "export/tflite/writer.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;
using tigris::test::bytes_of;

tfl::Tensor tensor(const std::string& name, std::vector<int32_t> shape, tfl::TensorType type, uint32_t buffer,
                   std::vector<float> scales, std::vector<int64_t> zps, int32_t axis = 0) {
  tfl::Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.type = type;
  t.buffer = buffer;
  tfl::Quantization q;
  q.scale = std::move(scales);
  q.zero_point = std::move(zps);
  q.quantized_dimension = axis;
  t.quantization = q;
  return t;
}

// `edit` changes the tensors' records before the model is written.
std::vector<uint8_t> fc_model(tfl::Activation act, const std::function<void(std::vector<tfl::Tensor>&)>& edit = {}) {
  tfl::Model m;
  m.buffers.resize(4);
  m.buffers[1].data = bytes_of(std::vector<int8_t>{4, -8, 2, 0, 1, 1, 1, 1});
  m.buffers[2].data = bytes_of(std::vector<int32_t>{40, -5});
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kFullyConnected, std::nullopt, 1});
  tfl::SubGraph sg;
  sg.tensors = {tensor("x", {1, 4}, tfl::TensorType::Int8, 0, {0.5f}, {0}),
                tensor("w", {2, 4}, tfl::TensorType::Int8, 1, {0.25f, 0.125f}, {0, 0}),
                tensor("b", {2}, tfl::TensorType::Int32, 2, {0.125f, 0.0625f}, {0, 0}),
                tensor("y", {1, 2}, tfl::TensorType::Int8, 0, {0.25f}, {-10})};
  if (edit) edit(sg.tensors);
  tfl::Operator op;
  op.inputs = {0, 1, 2};
  op.outputs = {3};
  tfl::FullyConnectedOptions o;
  o.activation = act;
  op.options.type = tfl::OptionsType::FullyConnected;
  op.options.value = o;
  sg.operators.push_back(op);
  sg.inputs = {0};
  sg.outputs = {3};
  m.subgraphs.push_back(sg);
  return tfl::write_model(m);
}

std::vector<int8_t> run(const std::vector<uint8_t>& model) {
  compiler::Model m = compiler::load_model_bytes(model, "fc.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  EXPECT_TRUE(c.ok()) << c.error;
  if (!c.ok()) return {};
  test::PlanRun r = test::run_plan(c.plan, {{2, 0xFF, 5, 1}}, 1 << 16);
  EXPECT_EQ(r.error, "");
  if (!r.error.empty()) return {};
  return std::vector<int8_t>(r.outputs.at(0).begin(), r.outputs.at(0).end());
}

TEST(TfliteFrontend, Int8FullyConnectedPerChannelWithRelu6) {
  compiler::Model m = compiler::load_model_bytes(fc_model(tfl::Activation::Relu6), "fc.tflite");
  EXPECT_EQ(m.summary().format, "tflite");
  EXPECT_EQ(m.summary().dtype, "int8");
  EXPECT_EQ(run(fc_model(tfl::Activation::Relu6)), (std::vector<int8_t>{14, -9}));
}

TEST(TfliteFrontend, WithoutActivationNothingIsClamped) {
  // unit 0 -> 23 unclamped; unit 1 as before.
  EXPECT_EQ(run(fc_model(tfl::Activation::None)), (std::vector<int8_t>{23, -9}));
}

TEST(TfliteFrontend, AnOperatorThatDoesNotConvertIsNamed) {
  // A fused TANH has no int8 form: the operator is listed with its index, kind and reason.
  compiler::Model m = compiler::load_model_bytes(fc_model(tfl::Activation::Tanh), "fc.tflite");
  ASSERT_EQ(m.summary().unsupported_operators.size(), 1u);
  EXPECT_EQ(m.summary().unsupported_operators[0].type, "FULLY_CONNECTED");
  EXPECT_NE(m.summary().unsupported_operators[0].reason.find("TANH"), std::string::npos)
      << m.summary().unsupported_operators[0].reason;
}

// Quantization records as TensorFlow Lite Micro reads them (micro_allocator.cc and the
// kernels' Prepare): each is accepted, with the same values.
TEST(TfliteFrontend, QuantizationRecordsTfliteMicroAccepts) {
  const std::vector<int8_t> expect{14, -9};
  // A bias's record is never read: person_detect's biases name quantized dimension 3 of a
  // rank-1 tensor, others hold one scale or none.
  EXPECT_EQ(run(fc_model(tfl::Activation::Relu6, [](auto& t) { t[2].quantization->quantized_dimension = 3; })), expect);
  EXPECT_EQ(run(fc_model(tfl::Activation::Relu6, [](auto& t) { t[2].quantization->scale = {-1.0f}; })), expect);
  EXPECT_EQ(run(fc_model(tfl::Activation::Relu6, [](auto& t) { t[2].quantization.reset(); })), expect);
  // Zero points: one per scale, or any other count, of which the first is used.
  EXPECT_EQ(run(fc_model(tfl::Activation::Relu6, [](auto& t) { t[1].quantization->zero_point = {0}; })), expect);
  EXPECT_EQ(run(fc_model(tfl::Activation::Relu6, [](auto& t) { t[1].quantization->zero_point = {0, 0, 7}; })), expect);
  // An activation's kernels read the first scale and zero point (TfLiteTensor.params).
  EXPECT_EQ(run(fc_model(tfl::Activation::Relu6,
                         [](auto& t) {
                           t[3].quantization->scale = {0.25f, 3.0f};
                           t[3].quantization->zero_point = {-10, 5};
                           t[3].quantization->quantized_dimension = 1;
                         })),
            expect);
}

// What TensorFlow Lite Micro's FULLY_CONNECTED refuses, refused with the tensor named.
TEST(TfliteFrontend, WeightScalesOutsideTfliteMicroRulesAreRefused) {
  auto reason = [](const std::vector<uint8_t>& model) {
    compiler::Model m = compiler::load_model_bytes(model, "fc.tflite");
    return m.summary().unsupported_operators.empty() ? std::string() : m.summary().unsupported_operators[0].reason;
  };
  // Per-channel scales along the input axis (extent 4) for 2 output channels.
  EXPECT_EQ(reason(fc_model(tfl::Activation::None,
                            [](auto& t) {
                              t[1].quantization->scale = {0.25f, 0.25f, 0.25f, 0.25f};
                              t[1].quantization->zero_point = {0};
                              t[1].quantization->quantized_dimension = 1;
                            })),
            "weights 'w' have 4 scales for 2 output channels");
  EXPECT_EQ(reason(fc_model(tfl::Activation::None, [](auto& t) { t[1].quantization->quantized_dimension = 5; })),
            "weights 'w' have quantized dimension 5, which is not an axis of their 2 output channels");
}

}  // namespace
