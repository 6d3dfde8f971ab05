// Every ONNX model at fixed budgets and at its floor (the smallest budget the compiler
// accepts): the plan runs in a fast arena of exactly the budget, its measured fast peak
// equals its scheduled peak, its traffic equals the schedule's, and its outputs match
// PyTorch (1e-4 relative, where a reference exists) and the one-stage run (1e-5).
// MobileNetV2-224 and UNet run a subset of budgets here; bench/schedule runs them all.
#include "e2e/budget_support.h"

namespace {

using namespace tigris;

struct Case {
  const char* model;
  std::vector<uint64_t> budgets;  // 0 = the floor
};

constexpr uint64_t K = 1024;

std::string case_name(const Case& c) { return c.model; }

class Budget : public ::testing::TestWithParam<Case> {};

TEST_P(Budget, RunsInExactlyItsBudget) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << test::models_dir() << " is absent";
  const Case& c = GetParam();
  compiler::Model m = compiler::load_model(test::models_dir() + "/onnx/" + c.model + ".onnx");
  if (!m.summary().supported()) GTEST_SKIP() << c.model << " is not supported by this build";
  const std::vector<uint8_t> input = test::model_input(m, c.model);
  const std::string ref_path = test::models_dir() + "/refs/" + c.model + ".output.npy";
  const bool has_ref = std::ifstream(ref_path).good();
  const std::vector<float> ref = has_ref ? test::read_npy(ref_path).floats() : std::vector<float>{};

  const test::BudgetResult whole = test::run_at_budget(m, 1ull << 30, input);
  ASSERT_TRUE(whole.ok);
  EXPECT_EQ(whole.compiled.schedule.stages.size(), 1u);
  if (has_ref) test::expect_close(whole.output, ref, 1e-4, std::string(c.model) + " whole vs PyTorch");

  compiler::Budgets probe;
  probe.fast = 1;
  const uint64_t floor = compiler::schedule(m, probe).fast.minimum_for_partition_bytes;
  for (uint64_t b : c.budgets) {
    const uint64_t budget = b == 0 ? floor : b;
    const std::string what = std::string(c.model) + " at " + std::to_string(budget);
    EXPECT_LE(floor, budget) << what;
    const test::BudgetResult r = test::run_at_budget(m, budget, input);
    if (!r.ok) continue;
    test::expect_close(r.output, whole.output, 1e-5, what + " vs one stage");
    if (has_ref) test::expect_close(r.output, ref, 1e-4, what + " vs PyTorch");
  }
  if (floor > 1) {  // the floor is exact: one byte less is refused at once
    compiler::Budgets below;
    below.fast = floor - 1;
    const compiler::CompileResult r = compiler::compile(m, below);
    EXPECT_FALSE(r.ok()) << c.model;
  }
}

const std::vector<uint64_t> kAll = {512 * K, 256 * K, 128 * K, 64 * K, 0};

INSTANTIATE_TEST_SUITE_P(Onnx, Budget,
                         ::testing::Values(Case{"linear_3op", kAll}, Case{"conv_relu_chain", kAll},
                                           Case{"ds_cnn", kAll}, Case{"fc_autoencoder", kAll}, Case{"tcn", kAll},
                                           Case{"mobilenet_v2_035_96_2cls", kAll},
                                           Case{"mobilenet_v2_035_96_2cls_qdq", {256 * K, 64 * K, 0}},
                                           Case{"unet_small_128", {256 * K, 64 * K}},
                                           Case{"mobilenet_v2_224", {256 * K, 64 * K}}),
                         [](const auto& info) { return case_name(info.param); });

}  // namespace
