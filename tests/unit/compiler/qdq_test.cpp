// fold_qdq on a hand-built QDQ graph, values derived by hand:
//   x (float) -Q(0.5, u8 128)-> -DQ-> Gemm(W = DQ(int8, 0.25), b = DQ(int32, 0.125))
//   -Q(0.25, u8 100)-> -DQ-> Clip(0, 4) -Q(0.25, u8 100)-> -DQ-> y (float)
// x = {1.0, -0.5, 2.3, 0.26} quantizes to {2, -1, 5, 1} (int8 after moving the zero point
// by 128), i.e. {1.0, -0.5, 2.5, 0.5}. W = {{4, -8, 2, 0}, {1, 1, 1, 1}} * 0.25, b = {8, -4} * 0.125:
//   y0 = 1 + 1 + 1.25 + 0 + 1.0 = 4.25 (accumulator 34 * 0.125), clipped to 4.0 -> q 16 -> 4.0
//   y1 = 0.25 * 3.5 - 0.5 = 0.375 (accumulator 3) -> 1.5 steps: rounds to 2 -> 0.5
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;

void scalar_f(test::OnnxBuilder& b, const std::string& name, float v) { b.init(name, {}, {v}); }
void scalar_u8(test::OnnxBuilder& b, const std::string& name, uint8_t v) {
  raw(b, name, onnx::TensorProto::UINT8, {}, &v, 1);
}

std::vector<uint8_t> qdq_model() {
  test::OnnxBuilder b;
  b.input("x", {1, 4});
  b.output("y", {1, 2});
  scalar_f(b, "s_x", 0.5f);
  scalar_u8(b, "z_x", 128);
  scalar_f(b, "s_w", 0.25f);
  scalar_f(b, "s_b", 0.125f);
  scalar_f(b, "s_y", 0.25f);
  scalar_u8(b, "z_y", 100);
  int8_t w[8] = {4, -8, 2, 0, 1, 1, 1, 1};
  int32_t bias[2] = {8, -4};
  int8_t zero = 0;
  raw(b, "w_q", onnx::TensorProto::INT8, {2, 4}, w, sizeof w);
  raw(b, "z_w", onnx::TensorProto::INT8, {}, &zero, 1);
  raw(b, "b_q", onnx::TensorProto::INT32, {2}, bias, sizeof bias);
  b.init("lo", {}, {0.0f});
  b.init("hi", {}, {4.0f});
  b.node("QuantizeLinear", {"x", "s_x", "z_x"}, {"xq"});
  b.node("DequantizeLinear", {"xq", "s_x", "z_x"}, {"xf"});
  b.node("DequantizeLinear", {"w_q", "s_w", "z_w"}, {"wf"});
  b.node("DequantizeLinear", {"b_q", "s_b"}, {"bf"});
  test::OnnxBuilder::attr(b.node("Gemm", {"xf", "wf", "bf"}, {"g"}), "transB", int64_t{1});
  b.node("QuantizeLinear", {"g", "s_y", "z_y"}, {"gq"});
  b.node("DequantizeLinear", {"gq", "s_y", "z_y"}, {"gf"});
  b.node("Clip", {"gf", "lo", "hi"}, {"c"});
  b.node("QuantizeLinear", {"c", "s_y", "z_y"}, {"cq"});
  b.node("DequantizeLinear", {"cq", "s_y", "z_y"}, {"y"});
  return b.bytes();
}

TEST(FoldQdq, OneInt8GemmWithFloatBoundaries) {
  compiler::Model m = compiler::load_model_bytes(qdq_model(), "qdq.onnx");
  const compiler::ModelSummary& s = m.summary();
  ASSERT_TRUE(s.supported());
  EXPECT_EQ(s.dtype, "int8");
  EXPECT_EQ(s.operators, 1u);  // the Gemm; every Q/DQ folded, the Clip fused
  EXPECT_EQ(s.inputs.at(0).name, "x");
  EXPECT_EQ(s.inputs.at(0).dtype, "float32");
  EXPECT_EQ(s.outputs.at(0).name, "y");
  EXPECT_EQ(s.outputs.at(0).dtype, "float32");
}

TEST(FoldQdq, HandDerivedValues) {
  compiler::Model m = compiler::load_model_bytes(qdq_model(), "qdq.onnx");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  ASSERT_TRUE(c.ok()) << c.error;
  float x[4] = {1.0f, -0.5f, 2.3f, 0.26f};
  std::vector<uint8_t> in(sizeof x);
  std::memcpy(in.data(), x, sizeof x);
  test::PlanRun r = test::run_plan(c.plan, {in}, 1 << 16);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.outputs.at(0).size(), 8u);
  float y[2];
  std::memcpy(y, r.outputs[0].data(), sizeof y);
  EXPECT_EQ(y[0], 4.0f);
  EXPECT_EQ(y[1], 0.5f);
}

}  // namespace
