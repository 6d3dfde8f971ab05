// Every ONNX model at fixed budgets and at its floor (the smallest budget the compiler
// accepts): the plan runs in a fast arena of exactly the budget, its measured fast peak
// equals its scheduled peak, its traffic equals the schedule's, and its outputs match
// PyTorch (1e-4 relative, where a reference exists) and the one-stage run (1e-5).
// bench-schedule prints the same runs as a table, against a greedy baseline.
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
  // QDQ models: PyTorch's quantized output differs by rounding steps (qdq_e2e_test checks
  // it); here their banded runs must equal the one-stage run.
  const std::string ref_path = test::models_dir() + "/refs/" + c.model + ".output.npy";
  const bool quantized = std::string(c.model).ends_with("_qdq");
  const bool has_ref = !quantized && std::ifstream(ref_path).good();
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
                                           Case{"unet_small_128", kAll}, Case{"mobilenet_v2_224", kAll}),
                         [](const auto& info) { return case_name(info.param); });

// MobileNetV2-224's classifier (Gemm 1280 -> 1000 on the pooled features) held its input and
// output together: 5120 + 4000 = 9120 bytes. Banded, the floor fell to the 1x1 convolution
// 320 -> 1280 on the 7x7 map, whose smallest form was a 2-D tile of one pixel: 320 and 1280
// floats, 6400 bytes. In input-channel bands (a 1x1 Conv is a FullyConnected over its 49
// pixels) it keeps one output pixel (1280 floats, 5120 B) and a band of 8 input channels
// (32 B): 5152 B, the new floor, in 49 x 40 = 1960 tiles, the input loaded once. At that
// floor the classifier keeps its whole output (4000 B) and bands of 288 input columns (1152 B:
// 5 tiles). The plan runs in exactly the budget, its measured peak is the scheduled one and it
// matches PyTorch (and Budget.RunsInExactlyItsBudget above: the one-stage run).
TEST(BudgetOutputChannels, MobileNetV2ClassifierBandsItsInputChannels) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << test::models_dir() << " is absent";
  compiler::Model m = compiler::load_model(test::models_dir() + "/onnx/mobilenet_v2_224.onnx");
  compiler::Budgets probe;
  probe.fast = 1;
  const uint64_t floor = compiler::schedule(m, probe).fast.minimum_for_partition_bytes;
  EXPECT_EQ(floor, 5152u);
  const std::vector<uint8_t> input = test::model_input(m, "mobilenet_v2_224");
  const test::BudgetResult r = test::run_at_budget(m, floor, input);
  ASSERT_TRUE(r.ok);
  const compiler::StageSummary& last = r.compiled.schedule.stages.back();
  EXPECT_EQ(last.kind, "input-channel bands") << last.decision;
  EXPECT_EQ(last.tile_rows, 1u);
  EXPECT_EQ(last.tile_cols, 288u);  // 5152 - 4000 bytes of output = 1152 bytes = 288 floats
  EXPECT_EQ(last.tiles, 5u);
  EXPECT_EQ(last.band_axis, 0u);  // rows of the [1, 1280] input
  // The 1x1 Conv 320 -> 1280 (the stage writing the 7x7x1280 map) at the floor.
  bool found = false;
  for (const compiler::StageSummary& st : r.compiled.schedule.stages) {
    if (st.decision.find("49 pixels x 320 input channels") == std::string::npos) continue;
    found = true;
    EXPECT_EQ(st.kind, "input-channel bands") << st.decision;
    EXPECT_EQ(st.tile_rows, 1u);  // one output pixel: 1280 floats
    EXPECT_EQ(st.tile_cols, 8u);  // 32 bytes
    EXPECT_EQ(st.tiles, 49u * 40u);
    EXPECT_EQ(st.peak_bytes, 5152u);
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(r.run.fast_peak, r.compiled.schedule.fast.scheduled_peak_bytes);
  const std::vector<float> ref =
      test::read_npy(test::models_dir() + "/refs/mobilenet_v2_224.output.npy").floats();
  test::expect_close(r.output, ref, 1e-4, "mobilenet_v2_224 at its floor");
}

// The TCN's classifier (Gemm 2048 -> 6 on the flattened 16x128 features) needed its input
// row whole: 8192 + 32 bytes in output-channel bands, the model's floor (8224 B). In
// input-channel bands it holds its 24-byte output and a band of input columns, and the floor
// falls to 1152 B, set by a dilated conv stripe of one row; there the classifier runs in 8
// tiles of 280 columns (1152 - 32 = 1120 bytes), in exactly the budget, matching the one-stage
// run (there is no PyTorch reference for the TCN).
TEST(BudgetOutputChannels, TcnClassifierBandsItsInputChannels) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << test::models_dir() << " is absent";
  compiler::Model m = compiler::load_model(test::models_dir() + "/onnx/tcn.onnx");
  compiler::Budgets probe;
  probe.fast = 1;
  const uint64_t floor = compiler::schedule(m, probe).fast.minimum_for_partition_bytes;
  EXPECT_EQ(floor, 1152u);
  const std::vector<uint8_t> input = test::model_input(m, "tcn");
  const test::BudgetResult whole = test::run_at_budget(m, 1ull << 30, input);
  ASSERT_TRUE(whole.ok);
  const test::BudgetResult r = test::run_at_budget(m, floor, input);
  ASSERT_TRUE(r.ok);
  const compiler::StageSummary& last = r.compiled.schedule.stages.back();
  EXPECT_EQ(last.kind, "input-channel bands") << last.decision;
  EXPECT_EQ(last.tile_cols, 280u);
  EXPECT_EQ(last.tiles, 8u);
  EXPECT_EQ(r.run.fast_peak, r.compiled.schedule.fast.scheduled_peak_bytes);
  test::expect_close(r.output, whole.output, 1e-5, "tcn at its floor vs one stage");
}

}  // namespace

namespace {

using namespace tigris;

// -c lz4 (decompressed weight blocks held in the fast budget) and --xip: the plan runs in
// exactly the budget the plain plan runs in, its fast peak is the stated peak plus the blocks
// it holds and stays within the plan's stated requirement, and its outputs equal the plain
// plan's (1e-5) and PyTorch's (1e-4). MobileNetV2's wide 1x1 convolution and classifier
// (565 KiB and 4.9 MiB of float weights) only fit once split over output channels.
struct PackedCase {
  const char* model;
  uint64_t budget;
};

class Packed : public ::testing::TestWithParam<PackedCase> {};

TEST_P(Packed, Lz4AndXipRunAtTheSameBudgetAsPlainPlans) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << test::models_dir() << " is absent";
  const std::string name = GetParam().model;
  compiler::Model m = compiler::load_model(test::models_dir() + "/onnx/" + name + ".onnx");
  const std::vector<uint8_t> input = test::model_input(m, name);
  const std::vector<float> ref = test::read_npy(test::models_dir() + "/refs/" + name + ".output.npy").floats();
  const uint64_t kBudget = GetParam().budget;
  const test::BudgetResult plain = test::run_at_budget(m, kBudget, input);
  ASSERT_TRUE(plain.ok);
  compiler::CompileOptions lz4;
  lz4.compression = compiler::Compression::Lz4;
  const test::BudgetResult packed = test::run_at_budget(m, kBudget, input, lz4);
  ASSERT_TRUE(packed.ok);
  EXPECT_GT(packed.compiled.schedule.fast.weight_reserve_bytes, 0u);
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(packed.compiled.plan.data(), static_cast<uint32_t>(packed.compiled.plan.size()), &plan),
            TIGRIS_OK);
  EXPECT_GT(plan.num_weight_blocks, 0u);
  EXPECT_EQ(tigris_weight_decompression_overhead(&plan), packed.compiled.schedule.fast.weight_reserve_bytes);
  EXPECT_EQ(packed.run.fast_size, kBudget);
  EXPECT_LE(packed.run.fast_peak, tigris_fast_arena_required(&plan));
  EXPECT_LE(tigris_fast_arena_required(&plan), kBudget);
  test::expect_close(packed.output, plain.output, 1e-5, name + " lz4 vs plain");
  test::expect_close(packed.output, ref, 1e-4, name + " lz4 vs PyTorch");
  compiler::CompileOptions xip;
  xip.xip = true;
  const test::BudgetResult in_place = test::run_at_budget(m, kBudget, input, xip);
  ASSERT_TRUE(in_place.ok);
  test::expect_close(in_place.output, plain.output, 1e-5, name + " xip vs plain");
}

// Below the floor no reserve leaves room for the activations: -c lz4 is refused with the
// stage that does not fit and the bytes the weights hold, or with the weights' own size.
TEST(Packed, Lz4RefusesABudgetBelowTheFloor) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << test::models_dir() << " is absent";
  compiler::Model m = compiler::load_model(test::models_dir() + "/onnx/mobilenet_v2_035_96_2cls.onnx");
  compiler::Budgets probe;
  probe.fast = 1;
  compiler::Budgets b;
  b.fast = compiler::schedule(m, probe).fast.minimum_for_partition_bytes - 1;
  compiler::CompileOptions lz4;
  lz4.compression = compiler::Compression::Lz4;
  const compiler::CompileResult r = compiler::compile(m, b, lz4);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.error.starts_with("no plan written: ")) << r.error;
  // Either the reserve for the weights leaves the activations too little, or (a floor below the
  // largest weight block, as channel bands give this model) the weights alone exceed the budget.
  EXPECT_TRUE(r.error.find(" of the budget holds decompressed weights)") != std::string::npos ||
              r.error.find("decompressed weights need ") != std::string::npos)
      << r.error;
}

INSTANTIATE_TEST_SUITE_P(Onnx, Packed,
                         ::testing::Values(PackedCase{"unet_small_128", 256 * 1024},
                                           PackedCase{"mobilenet_v2_035_96_2cls", 256 * 1024},
                                           PackedCase{"mobilenet_v2_035_96_2cls", 64 * 1024},
                                           PackedCase{"mobilenet_v2_224", 256 * 1024},
                                           PackedCase{"mobilenet_v2_224", 128 * 1024}),
                         [](const auto& info) {
                           return std::string(info.param.model) + "_" + std::to_string(info.param.budget / 1024) + "k";
                         });

}  // namespace
