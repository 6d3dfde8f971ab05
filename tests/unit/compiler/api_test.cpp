// The report figures of compile(): flash sizes, the flash budget, the model summary.
#include <gtest/gtest.h>

#include "compiler/api.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;

compiler::Model gemm_model() {
  test::OnnxBuilder b;
  b.input("x", {1, 2, 2, 2});
  b.init("w", {3, 8}, std::vector<float>(24, 0.5f));  // 96 bytes
  b.init("bias", {3}, {1, 2, 3});                     // 12 bytes -> 16 in the blob
  b.node("Flatten", {"x"}, {"f"});
  auto& n = b.node("Gemm", {"f", "w", "bias"}, {"y"}, "fc");
  test::OnnxBuilder::attr(n, "transB", int64_t{1});
  b.output("y", {1, 3});
  return compiler::load_model_bytes(b.bytes(), "m.onnx");
}

TEST(Api, SummaryDescribesTheModelInCallerOrder) {
  compiler::Model m = gemm_model();
  const compiler::ModelSummary& s = m.summary();
  EXPECT_EQ(s.format, "onnx");
  EXPECT_EQ(s.dtype, "float32");
  EXPECT_EQ(s.opset, 13);
  EXPECT_EQ(s.weight_bytes, 108u);
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].shape, (std::vector<int64_t>{1, 2, 2, 2}));
  EXPECT_EQ(s.inputs[0].bytes, 32u);
  EXPECT_EQ(s.outputs[0].shape, (std::vector<int64_t>{1, 3}));
  EXPECT_TRUE(s.supported());
  // Flatten of a model-order tensor is a byte copy the FullyConnected reads through.
  ASSERT_EQ(s.ops.size(), 1u);
  EXPECT_EQ(s.ops[0].type, "Gemm");
  EXPECT_EQ(s.unscheduled_peak_bytes, 64u);  // x (32) + y (12 -> 32)
}

TEST(Api, FlashFiguresAndBudget) {
  compiler::Model m = gemm_model();
  compiler::Budgets b;
  b.fast = 4096;
  compiler::CompileResult r = compiler::compile(m, b);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.flash.weight_bytes, 96u + 16u);
  EXPECT_EQ(r.flash.plan_bytes, r.plan.size());
  EXPECT_EQ(r.flash.overhead_bytes, r.plan.size() - 112u);
  EXPECT_EQ(r.flash.int8_plan_bytes_estimate, 27u + r.flash.overhead_bytes);
  EXPECT_GT(r.flash.lz4_plan_bytes_estimate, r.flash.overhead_bytes);
  EXPECT_TRUE(r.flash.plan_fits);
  b.flash = r.plan.size() - 1;
  compiler::CompileResult small = compiler::compile(m, b);
  EXPECT_FALSE(small.ok());
  EXPECT_FALSE(small.flash.plan_fits);
  EXPECT_EQ(small.error, "no plan written: the plan is " + std::to_string(r.plan.size()) +
                             " bytes, the flash budget is " + std::to_string(r.plan.size() - 1) + " bytes");
}

TEST(Api, OverUint32BudgetIsRefused) {
  compiler::Budgets b;
  b.fast = 1ull << 33;
  EXPECT_EQ(compiler::compile(gemm_model(), b).error, "Fast-memory budget exceeds the uint32 plan-format limit");
  b.fast = 4096;
  b.slow = 0;
  EXPECT_EQ(compiler::compile(gemm_model(), b).error, "Slow-memory budget must be greater than zero");
}

}  // namespace
