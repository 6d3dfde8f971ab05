// int8 TFLite models end to end against TensorFlow Lite Micro (refs/<model>.tflm/): the
// compiler builds the plan from the .tflite file, the host runtime runs it on the int8
// kernels, and every output byte equals TFLM's (output_<k>.npy) for every recorded input,
// untiled (one stage) and at shrinking budgets below the untiled peak (banded, chained stages). Every
// intermediate tensor of input 0 equals TFLM's all-tensor dump (tensors_seed0/); a
// failure names the first operator whose output differs.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/e2e/tflite_support.h"
#include "unit/kernels_s8/tflm_dump.h"

namespace {

using namespace tigris;
using namespace tigris::test;

class TflmInt8 : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
    if (tflm_cases(GetParam()) == 0) GTEST_SKIP() << "no TFLite Micro references in " << tflm_dir(GetParam());
  }

  // Every reference input at budget `fast`; returns the plan's shape.
  PlanShape check_all_inputs(uint64_t fast) {
    compiler::Model m = compiler::load_model(tflite_path(GetParam()));
    PlanShape shape;
    for (int k = 0; k < tflm_cases(GetParam()); ++k) {
      NpyArray in = read_npy(tflm_dir(GetParam()) + "input_" + std::to_string(k) + ".npy");
      NpyArray ref = read_npy(tflm_dir(GetParam()) + "output_" + std::to_string(k) + ".npy");
      CompiledRun r = compile_and_run(m, fast, in.data);
      EXPECT_EQ(r.run.error, "") << "input " << k << " at " << fast;
      if (!r.run.error.empty()) return {};
      EXPECT_EQ(r.run.outputs.at(0), ref.data)
          << GetParam() << " input " << k << " at " << fast << " differs from TFLite Micro";
      EXPECT_LE(r.run.fast_peak, r.run.fast_size);
      shape = shape_of(r.compile);
    }
    return shape;
  }
};

TEST_P(TflmInt8, AllInputsBitExactUntiled) { EXPECT_EQ(check_all_inputs(64u << 20).stages, 1u); }

// Shrinking budgets below the untiled peak: banded and chained stages, the same bytes.
TEST_P(TflmInt8, AllInputsBitExactAtTightBudgets) {
  std::vector<uint64_t> budgets = shrinking_budgets(compiler::load_model(tflite_path(GetParam())));
  ASSERT_FALSE(budgets.empty());
  size_t tiled = 0;
  for (uint64_t b : budgets) {
    PlanShape s = check_all_inputs(b);
    EXPECT_GT(s.stages, 1u) << "budget " << b;
    tiled += s.tiled;
  }
  EXPECT_GT(tiled, 0u) << "no budget banded or chained a stage";
}

// Every tensor an operator of the dump writes, in execution order, exposed as extra outputs
// (in batches: a stage has at most TIGRIS_MAX_STAGE_OUTPUTS outputs) and compared byte for
// byte; the first difference names the operator.
TEST_P(TflmInt8, EveryTensorOfInput0MatchesTheDump) {
  s8test::Dump dump;
  std::string error;
  ASSERT_TRUE(s8test::load_dump(models_dir(), GetParam(), &dump, &error)) << error;
  std::vector<std::pair<const s8test::DumpOp*, int>> written;  // (operator, dump tensor)
  for (const s8test::DumpOp& op : dump.ops)
    for (int t : op.outputs) written.emplace_back(&op, t);
  ASSERT_FALSE(written.empty());
  NpyArray in = read_npy(tflm_dir(GetParam()) + "input_0.npy");
  const size_t kBatch = 8;
  size_t compared = 0;
  for (size_t from = 0; from < written.size(); from += kBatch) {
    compiler::LoadOptions lo;
    size_t to = std::min(written.size(), from + kBatch);
    for (size_t i = from; i < to; ++i) lo.extra_outputs.push_back(dump.tensor(written[i].second).name);
    compiler::Model m = compiler::load_model(tflite_path(GetParam()), lo);
    CompiledRun r = compile_and_run(m, 64u << 20, in.data);
    ASSERT_EQ(r.run.error, "") << "tensors " << from << ".." << to;
    // Output 0 is the model's; the extra outputs follow in the order asked (the model's own
    // output is not repeated).
    const std::string model_output = m.summary().outputs.at(0).name;
    size_t next = 1;
    for (size_t i = from; i < to; ++i) {
      const auto& [op, t] = written[i];
      const s8test::DumpTensor& dt = dump.tensor(t);
      const std::vector<uint8_t>& got = dt.name == model_output ? r.run.outputs.at(0) : r.run.outputs.at(next++);
      ASSERT_EQ(got, dump.data(t)) << "first differing tensor: '" << dt.name << "', written by operator " << op->index
                                   << " (" << op->op << ")";
      ++compared;
    }
    EXPECT_EQ(next, r.run.outputs.size());
  }
  EXPECT_EQ(compared, written.size());
}

INSTANTIATE_TEST_SUITE_P(Models, TflmInt8, ::testing::Values("vww_96_int8", "kws_ref_model"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
