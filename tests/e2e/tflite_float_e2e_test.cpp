// Float TFLite end to end against TensorFlow Lite Micro (refs/vww_96_float.tflm/): the plan
// compiled from the .tflite file, run on the float kernels, gives TFLM's outputs within
// 1e-5 relative on every recorded input, untiled and at shrinking budgets (banded stages).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;

constexpr const char* kModel = "vww_96_float";

// Largest |got - ref| / |ref| over the output (ref elements of magnitude below 1e-6 are
// compared absolutely).
double max_relative_error(const std::vector<uint8_t>& got_bytes, const std::vector<uint8_t>& ref_bytes) {
  NpyArray got, ref;
  got.data = got_bytes;
  ref.data = ref_bytes;
  std::vector<float> g = got.floats(), r = ref.floats();
  EXPECT_EQ(g.size(), r.size());
  double worst = 0.0;
  for (size_t i = 0; i < std::min(g.size(), r.size()); ++i) {
    double d = std::fabs(static_cast<double>(g[i]) - r[i]);
    worst = std::max(worst, d / std::max(std::fabs(static_cast<double>(r[i])), 1e-6));
  }
  return worst;
}

PlanShape check_all_inputs(uint64_t fast) {
  compiler::Model m = compiler::load_model(tflite_path(kModel));
  PlanShape shape;
  for (int k = 0; k < tflm_cases(kModel); ++k) {
    NpyArray in = read_npy(tflm_dir(kModel) + "input_" + std::to_string(k) + ".npy");
    NpyArray ref = read_npy(tflm_dir(kModel) + "output_" + std::to_string(k) + ".npy");
    CompiledRun r = compile_and_run(m, fast, in.data);
    EXPECT_EQ(r.run.error, "") << "input " << k;
    if (!r.run.error.empty()) return {};
    EXPECT_LE(max_relative_error(r.run.outputs.at(0), ref.data), 1e-5) << "input " << k << " at " << fast;
    EXPECT_LE(r.run.fast_peak, r.run.fast_size);
    shape = shape_of(r.compile);
  }
  return shape;
}

class TflmFloat : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
    if (tflm_cases(kModel) == 0) GTEST_SKIP() << "no TFLite Micro references in " << tflm_dir(kModel);
  }
};

TEST_F(TflmFloat, AllInputsWithin1e5Untiled) { EXPECT_EQ(check_all_inputs(64u << 20).stages, 1u); }

TEST_F(TflmFloat, AllInputsWithin1e5AtTightBudgets) {
  std::vector<uint64_t> budgets = shrinking_budgets(compiler::load_model(tflite_path(kModel)));
  ASSERT_FALSE(budgets.empty());
  size_t tiled = 0;
  for (uint64_t b : budgets) {
    PlanShape s = check_all_inputs(b);
    EXPECT_GT(s.stages, 1u) << "budget " << b;
    tiled += s.tiled;
  }
  EXPECT_GT(tiled, 0u);
}

}  // namespace
