// Hardmax, Trilu, GatherElements and OneHot (decompose_select.cpp) where the ONNX node tests
// do not reach: Hardmax before opset 13 (coerced to 2-D), a float Trilu whose zeroed part holds
// infinities and NaN, constant GatherElements indices, OneHot indices out of range. Expected
// values are worked out by hand from the specification. Also Pow with a run-time exponent and
// ReduceProd (decompose_math.cpp) over negative bases, zeros and non-integer exponents.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "onnx_builder.h"

namespace {

using namespace tigris;

std::vector<float> run(test::OnnxBuilder& b, const std::vector<std::vector<uint8_t>>& inputs) {
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  EXPECT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  compiler::Budgets budget;
  budget.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, budget);
  EXPECT_TRUE(c.ok()) << c.error;
  if (!c.ok()) return {};
  test::PlanRun r = test::run_plan(c.plan, inputs, 1 << 16);
  EXPECT_EQ(r.error, "");
  return r.error.empty() ? test::values_of<float>(r.outputs.at(0)) : std::vector<float>{};
}

TEST(SelectOps, HardmaxBeforeOpset13FlattensFromTheAxis) {
  // [2, 2, 3] at axis 1 is [2, 6]: one 1 per batch row, at the first maximum of its 6 values.
  test::OnnxBuilder b(11);
  b.input("x", {2, 2, 3});
  b.output("y", {2, 2, 3});
  test::OnnxBuilder::attr(b.node("Hardmax", {"x"}, {"y"}, "hm"), "axis", int64_t{1});
  std::vector<float> x = {1,  5,  2,  5,  0,  3,    // max 5 first at 1
                          -1, -2, -3, -4, -1, -5};  // max -1 first at 0
  std::vector<float> want = {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0};
  EXPECT_EQ(run(b, {test::floats(x)}), want);
}

TEST(SelectOps, FloatTriluZeroesInfinitiesAndNan) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  test::OnnxBuilder b(14);
  b.input("x", {2, 3});
  b.output("y", {2, 3});
  b.init_ints("k", {}, {1});
  b.node("Trilu", {"x", "k"}, {"y"}, "tri");  // upper, k = 1: j - i >= 1
  std::vector<float> x = {inf, 2, 3, nan, -inf, 6};
  std::vector<float> y = run(b, {test::floats(x)});
  ASSERT_EQ(y.size(), 6u);
  std::vector<float> want = {0, 2, 3, 0, 0, 6};
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(y[i], want[i]) << i;
}

TEST(SelectOps, GatherElementsWithConstantIndices) {
  test::OnnxBuilder b(13);
  b.input("data", {2, 3});
  b.output("y", {2, 2});
  b.init_ints("idx", {2, 2}, {2, -3, 0, 1});
  test::OnnxBuilder::attr(b.node("GatherElements", {"data", "idx"}, {"y"}, "ge"), "axis", int64_t{1});
  // y[i][j] = data[i][idx[i][j]], -3 wraps to 0.
  EXPECT_EQ(run(b, {test::floats({10, 11, 12, 20, 21, 22})}), (std::vector<float>{12, 10, 20, 21}));
}

TEST(SelectOps, OneHotOutOfRangeIndicesAreAllOff) {
  test::OnnxBuilder b(11);
  b.input("i", {3}, onnx::TensorProto::INT64);
  b.output("y", {3, 4});
  b.init_ints("depth", {}, {4});
  b.init("values", {2}, {-1.5f, 2.5f});
  b.node("OneHot", {"i", "depth", "values"}, {"y"}, "oh");
  std::vector<int64_t> idx = {1, -1, 7};  // -1 is depth - 1; 7 is out of range
  std::vector<uint8_t> in(idx.size() * 8);
  std::memcpy(in.data(), idx.data(), in.size());
  std::vector<float> want = {-1.5f, 2.5f, -1.5f, -1.5f, -1.5f, -1.5f, -1.5f, 2.5f, -1.5f, -1.5f, -1.5f, -1.5f};
  EXPECT_EQ(run(b, {in}), want);
}

TEST(MathOps, PowWithARunTimeExponentKeepsSignsZerosAndNan) {
  test::OnnxBuilder b(13);
  b.input("x", {8});
  b.input("e", {8});
  b.output("y", {8});
  b.node("Pow", {"x", "e"}, {"y"}, "pow");
  std::vector<float> x = {-2, -2, -8, 0, 0, 0, 3, 2};
  std::vector<float> e = {3, 2, 0.5f, 0, 2, -1, -2, 0.5f};
  std::vector<float> y = run(b, {test::floats(x), test::floats(e)});
  ASSERT_EQ(y.size(), 8u);
  std::vector<float> want = {-8, 4, 0, 1, 0, 0, 1.0f / 9, std::sqrt(2.0f)};
  for (size_t i : {0u, 1u, 3u, 4u, 6u, 7u}) EXPECT_NEAR(y[i], want[i], 1e-6f * std::fabs(want[i]) + 1e-7f) << i;
  EXPECT_TRUE(std::isnan(y[2])) << "(-8)^0.5 is " << y[2];
  EXPECT_TRUE(std::isinf(y[5]) && y[5] > 0) << "0^-1 is " << y[5];
}

TEST(MathOps, ReduceProdSignsAndZeros) {
  test::OnnxBuilder b(13);
  b.input("x", {3, 3});
  b.output("y", {3});
  onnx::NodeProto& n = b.node("ReduceProd", {"x"}, {"y"}, "prod");
  test::OnnxBuilder::attr(n, "axes", std::vector<int64_t>{1});
  test::OnnxBuilder::attr(n, "keepdims", int64_t{0});
  std::vector<float> y = run(b, {test::floats({-1, 2, -3, 4, 0, -5, -0.5f, 4, 3})});
  ASSERT_EQ(y.size(), 3u);
  EXPECT_NEAR(y[0], 6.0f, 6e-6f);
  EXPECT_EQ(y[1], 0.0f);
  EXPECT_NEAR(y[2], -6.0f, 6e-6f);
}

TEST(SelectOps, DropoutMaskInTrainingModeIsRefusedNamingTheNode) {
  test::OnnxBuilder b(13);
  b.input("x", {2, 3});
  b.output("y", {2, 3});
  b.output("mask", {2, 3}, onnx::TensorProto::BOOL);
  auto* t = b.proto().mutable_graph()->add_initializer();
  t->set_name("training");
  t->set_data_type(onnx::TensorProto::BOOL);
  t->add_int32_data(1);
  b.init("ratio", {}, {0.5f});
  b.node("Dropout", {"x", "ratio", "training"}, {"y", "mask"}, "drop");
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  ASSERT_EQ(m.summary().unsupported_operators.size(), 1u);
  EXPECT_EQ(m.summary().unsupported_operators[0].name, "drop");
  EXPECT_EQ(m.summary().unsupported_operators[0].reason, "training_mode is true (inference only)");
}

}  // namespace
