// How the TFLite frontend presents patterns of models converted from PyTorch, on hand-built
// models with values derived by hand:
// - PAD (filling with the input's zero point) before a convolution folds into its padding;
//   a PAD filling with another value stays.
//     x int8 [1,2,2,1] (scale 1, zp 3) = {5, 7, 9, 11}, PAD 1 on each side of H and W,
//     CONV_2D 3x3 VALID stride 2, weights 1 (scale 1), output scale 1 zp 0:
//     the one window holds the four inputs and five pad taps:
//     (5-3) + (7-3) + (9-3) + (11-3) = 20 when the pad is the zero point (pad taps add 0),
//     20 + 5 * (5-3) = 30 with PADV2 filling 5.
// - A model input whose one use is TRANSPOSE [0, 2, 3, 1] (NCHW -> NHWC) is that transpose's
//   output given channels-first: the caller's array is the same, the plan has no Transpose.
#include <gtest/gtest.h>

#include <cstring>

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
                   std::optional<std::pair<float, int64_t>> q = std::nullopt) {
  tfl::Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.type = type;
  t.buffer = buffer;
  if (q) {
    tfl::Quantization r;
    r.scale = {q->first};
    r.zero_point = {q->second};
    t.quantization = r;
  }
  return t;
}

// x -> PAD (or PADV2 filling `fill`) -> CONV_2D 3x3 VALID stride 2 -> y.
std::vector<uint8_t> pad_conv_model(std::optional<int8_t> fill) {
  tfl::Model m;
  m.buffers.resize(5);
  m.buffers[1].data = bytes_of(std::vector<int32_t>{0, 0, 1, 1, 1, 1, 0, 0});
  m.buffers[2].data = bytes_of(std::vector<int8_t>(9, 1));
  m.buffers[3].data = bytes_of(std::vector<int32_t>{0});
  m.buffers[4].data = bytes_of(std::vector<int8_t>{fill.value_or(3)});
  m.operator_codes.push_back(tfl::OperatorCode{fill ? tfl::op::kPadV2 : tfl::op::kPad, std::nullopt, 1});
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kConv2D, std::nullopt, 1});
  tfl::SubGraph sg;
  const auto s8 = tfl::TensorType::Int8;
  sg.tensors = {tensor("x", {1, 2, 2, 1}, s8, 0, {{1.0f, 3}}),
                tensor("paddings", {4, 2}, tfl::TensorType::Int32, 1),
                tensor("padded", {1, 4, 4, 1}, s8, 0, {{1.0f, 3}}),
                tensor("w", {1, 3, 3, 1}, s8, 2, {{1.0f, 0}}),
                tensor("b", {1}, tfl::TensorType::Int32, 3),
                tensor("y", {1, 1, 1, 1}, s8, 0, {{1.0f, 0}}),
                tensor("fill", {1}, s8, 4, {{1.0f, 3}})};
  tfl::Operator pad;
  pad.opcode_index = 0;
  pad.inputs = {0, 1};
  if (fill) pad.inputs.push_back(6);
  pad.outputs = {2};
  tfl::Operator conv;
  conv.opcode_index = 1;
  conv.inputs = {2, 3, 4};
  conv.outputs = {5};
  tfl::Conv2DOptions o;
  o.padding = tfl::Padding::Valid;
  o.stride_h = o.stride_w = 2;
  o.dilation_h = o.dilation_w = 1;
  conv.options.type = tfl::OptionsType::Conv2D;
  conv.options.value = o;
  sg.operators = {pad, conv};
  sg.inputs = {0};
  sg.outputs = {5};
  m.subgraphs.push_back(sg);
  return tfl::write_model(m);
}

struct PlanOutcome {
  std::vector<uint8_t> output;
  std::vector<std::string> ops;  // plan operators
};

PlanOutcome compile_and_run(const std::vector<uint8_t>& model, const std::vector<uint8_t>& input) {
  PlanOutcome out;
  compiler::Model m = compiler::load_model_bytes(model, "m.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  EXPECT_TRUE(c.ok()) << c.error;
  if (!c.ok()) return out;
  test::PlanRun r = test::run_plan(c.plan, {input}, 1 << 16);
  EXPECT_EQ(r.error, "");
  if (r.error.empty()) out.output = r.outputs.at(0);
  tigris_plan_t plan;
  EXPECT_EQ(tigris_plan_load(c.plan.data(), static_cast<uint32_t>(c.plan.size()), &plan), TIGRIS_OK);
  for (uint16_t i = 0; i < plan.header->num_ops; ++i) out.ops.push_back(std::to_string(plan.ops[i].op_type));
  return out;
}

const std::vector<uint8_t> kInput = {5, 7, 9, 11};

TEST(TfliteBoundary, PadOfTheZeroPointFoldsIntoTheConvolution) {
  PlanOutcome r = compile_and_run(pad_conv_model(std::nullopt), kInput);
  EXPECT_EQ(r.output, std::vector<uint8_t>{20});
  EXPECT_EQ(r.ops, std::vector<std::string>{std::to_string(TIGRIS_OP_CONV)});
  // PADV2 filling the zero point folds the same.
  r = compile_and_run(pad_conv_model(int8_t{3}), kInput);
  EXPECT_EQ(r.output, std::vector<uint8_t>{20});
  EXPECT_EQ(r.ops.size(), 1u);
}

TEST(TfliteBoundary, PadOfAnotherValueStays) {
  PlanOutcome r = compile_and_run(pad_conv_model(int8_t{5}), kInput);
  EXPECT_EQ(r.output, std::vector<uint8_t>{30});
  EXPECT_EQ(r.ops, (std::vector<std::string>{std::to_string(TIGRIS_OP_PAD), std::to_string(TIGRIS_OP_CONV)}));
}

// x float [1,2,2,2] (read as NCHW) -> TRANSPOSE [0,2,3,1] -> NHWC -> CONV_2D 1x1 with the
// identity as weights -> y [1,2,2,2] (NHWC, as TFLite outputs are given).
std::vector<uint8_t> transposed_input_model() {
  tfl::Model m;
  m.buffers.resize(3);
  m.buffers[1].data = bytes_of(std::vector<int32_t>{0, 2, 3, 1});
  m.buffers[2].data = bytes_of(std::vector<float>{1, 0, 0, 1});
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kTranspose, std::nullopt, 1});
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kConv2D, std::nullopt, 1});
  tfl::SubGraph sg;
  const auto f32 = tfl::TensorType::Float32;
  sg.tensors = {tensor("image", {1, 2, 2, 2}, f32, 0), tensor("perm", {4}, tfl::TensorType::Int32, 1),
                tensor("nhwc", {1, 2, 2, 2}, f32, 0), tensor("w", {2, 1, 1, 2}, f32, 2),
                tensor("y", {1, 2, 2, 2}, f32, 0)};
  tfl::Operator t;
  t.opcode_index = 0;
  t.inputs = {0, 1};
  t.outputs = {2};
  tfl::Operator c;
  c.opcode_index = 1;
  c.inputs = {2, 3, -1};
  c.outputs = {4};
  tfl::Conv2DOptions o;
  o.padding = tfl::Padding::Valid;
  o.stride_h = o.stride_w = 1;
  o.dilation_h = o.dilation_w = 1;
  c.options.type = tfl::OptionsType::Conv2D;
  c.options.value = o;
  sg.operators = {t, c};
  sg.inputs = {0};
  sg.outputs = {4};
  m.subgraphs.push_back(sg);
  return tfl::write_model(m);
}

TEST(TfliteBoundary, InputTransposedToChannelsLastIsGivenChannelsFirst) {
  std::vector<float> x(8);
  for (size_t i = 0; i < 8; ++i) x[i] = static_cast<float>(i);  // [c][h][w] = 4c + 2h + w
  compiler::Model m = compiler::load_model_bytes(transposed_input_model(), "m.tflite");
  ASSERT_EQ(m.summary().inputs.size(), 1u);
  EXPECT_EQ(m.summary().inputs[0].name, "image");
  EXPECT_EQ(m.summary().inputs[0].shape, (std::vector<int64_t>{1, 2, 2, 2}));
  PlanOutcome r = compile_and_run(transposed_input_model(), bytes_of(x));
  ASSERT_EQ(r.output.size(), 32u);
  std::vector<float> y(8);
  std::memcpy(y.data(), r.output.data(), 32);
  // NHWC order: [h][w][c] = x[4c + 2h + w].
  EXPECT_EQ(y, (std::vector<float>{0, 4, 1, 5, 2, 6, 3, 7}));
  EXPECT_EQ(r.ops, std::vector<std::string>{std::to_string(TIGRIS_OP_CONV)});
}

}  // namespace
