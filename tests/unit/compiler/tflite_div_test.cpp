// Float DIV (TFLite, with its fused activation) through the frontend, lowering and the float
// binary kernel; values exact in binary floating point, derived by hand:
//   x = {3, -8, 1.5, 10} / {2, -4, 0.5, 8} = {1.5, 2, 3, 1.25}; x = {-3, 8, 1, 4} / same =
//   {-1.5, -2, 2, 0.5}, with a fused ReLU {0, 0, 2, 0.5}. A quantized DIV is refused by name.
// int32 DIV (TensorFlow Lite Micro's, unquantized): C++'s division, truncating toward zero:
//   {7, -7, -8, 1000} / {2, -4, 3, 8} = {3, 1, -2, 125}.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "export/tflite/model.h"
#include "export/tflite/writer.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;
using tigris::test::floats;

std::vector<uint8_t> div_model(tfl::Activation act, tfl::TensorType type = tfl::TensorType::Float32) {
  tfl::Model m;
  m.buffers.resize(2);
  if (type == tfl::TensorType::Int32) {
    const int32_t d[4] = {2, -4, 3, 8};
    m.buffers[1].data.assign(reinterpret_cast<const uint8_t*>(d), reinterpret_cast<const uint8_t*>(d) + 16);
  } else {
    m.buffers[1].data = floats({2, -4, 0.5f, 8});
  }
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kDiv, std::nullopt, 1});
  tfl::SubGraph sg;
  for (auto [name, buffer] : std::vector<std::pair<std::string, uint32_t>>{{"x", 0}, {"d", 1}, {"y", 0}}) {
    tfl::Tensor t;
    t.name = name;
    t.shape = {1, 4};
    t.type = name == "d" && type != tfl::TensorType::Int32 ? tfl::TensorType::Float32 : type;
    t.buffer = buffer;
    if (type == tfl::TensorType::Int8 && name != "d") t.quantization = tfl::Quantization{{}, {}, {0.5f}, {0}, 0};
    sg.tensors.push_back(t);
  }
  tfl::Operator op;
  op.inputs = {0, 1};
  op.outputs = {2};
  op.options.type = tfl::OptionsType::Div;
  op.options.value = tfl::MulOptions{act};
  sg.operators.push_back(op);
  sg.inputs = {0};
  sg.outputs = {2};
  m.subgraphs.push_back(sg);
  return tfl::write_model(m);
}

std::vector<float> run(const std::vector<uint8_t>& model, const std::vector<float>& x) {
  compiler::Model m = compiler::load_model_bytes(model, "div.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  EXPECT_TRUE(c.ok()) << c.error;
  if (!c.ok()) return {};
  test::PlanRun r = test::run_plan(c.plan, {floats(x)}, 1 << 16);
  EXPECT_EQ(r.error, "");
  std::vector<float> y(4);
  if (r.outputs.empty() || r.outputs[0].size() != 16) return {};
  std::memcpy(y.data(), r.outputs[0].data(), 16);
  return y;
}

TEST(TfliteDiv, FloatDivideWithAndWithoutFusedRelu) {
  EXPECT_EQ(run(div_model(tfl::Activation::None), {3, -8, 1.5f, 10}), (std::vector<float>{1.5f, 2, 3, 1.25f}));
  EXPECT_EQ(run(div_model(tfl::Activation::None), {-3, 8, 1, 4}), (std::vector<float>{-1.5f, -2, 2, 0.5f}));
  EXPECT_EQ(run(div_model(tfl::Activation::Relu), {-3, 8, 1, 4}), (std::vector<float>{0, 0, 2, 0.5f}));
}

TEST(TfliteDiv, QuantizedDivIsRefusedByName) {
  std::string error;
  try {
    compiler::Model m = compiler::load_model_bytes(div_model(tfl::Activation::None, tfl::TensorType::Int8), "q.tflite");
    compiler::Budgets b;
    b.fast = 1 << 16;
    error = compiler::compile(m, b).error;
  } catch (const std::exception& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("DIV"), std::string::npos) << error;
  EXPECT_NE(error.find("only float32 and int32 DIV are supported"), std::string::npos) << error;
}

TEST(TfliteDiv, Int32DivideTruncatesTowardZero) {
  compiler::Model m = compiler::load_model_bytes(div_model(tfl::Activation::None, tfl::TensorType::Int32), "i.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  ASSERT_TRUE(c.ok()) << c.error;
  const int32_t x[4] = {7, -7, -8, 1000};
  test::PlanRun r = test::run_plan(c.plan, {std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(x),
                                                                 reinterpret_cast<const uint8_t*>(x) + 16)},
                                   1 << 16);
  ASSERT_EQ(r.error, "");
  std::vector<int32_t> y(4);
  ASSERT_EQ(r.outputs.at(0).size(), 16u);
  std::memcpy(y.data(), r.outputs[0].data(), 16);
  EXPECT_EQ(y, (std::vector<int32_t>{3, 1, -2, 125}));
}

}  // namespace
