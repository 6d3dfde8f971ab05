// The model `tigris export` writes for vww_96_int8 (operators 2-3 computed in row bands,
// SLICE and CONCATENATION added) compiled and run through our pipeline gives exactly the
// bytes TensorFlow Lite Micro gives for the ORIGINAL model, on every recorded input,
// untiled and at shrinking budgets (banded stages).
#include <gtest/gtest.h>

#include "export/search.h"
#include "export/tflite/writer.h"
#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;

constexpr const char* kModel = "vww_96_int8";

class ExportedVww : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
    if (tflm_cases(kModel) == 0) GTEST_SKIP() << "no TFLite Micro references in " << tflm_dir(kModel);
  }

  static compiler::Model exported() {
    exporter::ExportOutcome o = exporter::plan_export_file(tflite_path(kModel));
    EXPECT_EQ(o.refusal, exporter::Refusal::None);
    std::vector<uint8_t> bytes = tflite::write_model(o.model);
    return compiler::load_model_bytes(bytes, "vww_96_int8_export.tflite");
  }

  static void check_all_inputs(const compiler::Model& m, uint64_t fast) {
    for (int k = 0; k < tflm_cases(kModel); ++k) {
      NpyArray in = read_npy(tflm_dir(kModel) + "input_" + std::to_string(k) + ".npy");
      NpyArray ref = read_npy(tflm_dir(kModel) + "output_" + std::to_string(k) + ".npy");
      CompiledRun r = compile_and_run(m, fast, in.data);
      ASSERT_EQ(r.run.error, "") << "input " << k;
      EXPECT_EQ(r.run.outputs.at(0), ref.data) << "input " << k << " at " << fast << " differs from TFLite Micro";
    }
  }
};

TEST_F(ExportedVww, HasTheBandedOperators) {
  compiler::Model m = exported();
  EXPECT_TRUE(m.summary().supported());
  EXPECT_GT(m.summary().operators, compiler::load_model(tflite_path(kModel)).summary().operators);
}

TEST_F(ExportedVww, BitExactWithTheOriginalUntiled) { check_all_inputs(exported(), 64u << 20); }

TEST_F(ExportedVww, BitExactWithTheOriginalAtTightBudgets) {
  compiler::Model m = exported();
  std::vector<uint64_t> budgets = shrinking_budgets(m);
  ASSERT_FALSE(budgets.empty());
  for (uint64_t b : budgets) check_all_inputs(m, b);
}

}  // namespace
