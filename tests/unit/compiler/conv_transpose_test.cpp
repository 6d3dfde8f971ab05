// ConvTranspose with output_shape beyond the full output: ONNX splits the (negative) total
// padding with floor division, so with auto_pad NOTSET the extra outputs come after the full
// output (bias only, like output_padding) and with SAME_UPPER they would come before it, which
// is refused naming the node. Expected values worked out by hand.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "onnx_builder.h"

namespace {

using namespace tigris;

// x [1,1,1,2] = {1, 2}, w [1,1,1,2] = {1, 1}, bias 0.5, strides (1, 2): the full output row is
// {1, 1, 2, 2} + 0.5; output_shape (1, 5) asks for one more column.
test::OnnxBuilder model(const std::string& auto_pad) {
  test::OnnxBuilder b(13);
  b.input("x", {1, 1, 1, 2});
  b.init("w", {1, 1, 1, 2}, {1, 1});
  b.init("b", {1}, {0.5f});
  b.output("y", {1, 1, 1, 5});
  auto& n = b.node("ConvTranspose", {"x", "w", "b"}, {"y"}, "up");
  test::OnnxBuilder::attr(n, "strides", std::vector<int64_t>{1, 2});
  test::OnnxBuilder::attr(n, "output_shape", std::vector<int64_t>{1, 5});
  if (!auto_pad.empty()) test::OnnxBuilder::attr(n, "auto_pad", auto_pad);
  return b;
}

TEST(ConvTransposeOutputShape, ExtraOutputsAfterTheFullOutputHoldTheBias) {
  test::OnnxBuilder b = model("");
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  compiler::Budgets budget;
  budget.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, budget);
  ASSERT_TRUE(c.ok()) << c.error;
  test::PlanRun r = test::run_plan(c.plan, {test::floats({1, 2})}, 1 << 16);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), (std::vector<float>{1.5f, 1.5f, 2.5f, 2.5f, 0.5f}));
}

TEST(ConvTransposeOutputShape, ExtraOutputsBeforeTheFullOutputAreRefused) {
  test::OnnxBuilder b = model("SAME_UPPER");  // total -1: start pad floor(-1/2) = -1
  std::string why;
  try {
    compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
    if (!m.summary().supported()) why = m.summary().unsupported_operators.at(0).reason;
    else why = compiler::compile(m, compiler::Budgets{}).error;
  } catch (const std::exception& e) {
    why = e.what();
  }
  EXPECT_NE(why.find("negative start pad"), std::string::npos) << why;
}

}  // namespace
