// The float models of zoo/ (torchvision exports as torch.onnx.export writes them) compile at
// 16M and partitioned, run, and match PyTorch's outputs within 1e-4 of the largest output at
// both budgets (audio1d has no plan below its one-stage peak yet). ShuffleNetV2 needs its chunk() shape arithmetic
// folded (static_shapes.cpp); its channel shuffles become Gathers that, with its channel Slices and Concats, band
// along rows, so it also runs and matches at 64K and at its floor in an arena of exactly the budget. lstm_h32_t20's
// LSTM node maps onto the plan's LSTM op (passes/recurrent.cpp); it also runs and matches at its floor, the smallest
// budget the scheduler finds. DenseNet-121's Concats band along their own axis, so it runs
// and matches at its floor too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;

void expect_close(const std::vector<uint8_t>& bytes, const std::vector<float>& ref, const std::string& what) {
  ASSERT_EQ(bytes.size(), ref.size() * 4) << what;
  float max_ref = 0, max_err = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    float v;
    std::memcpy(&v, &bytes[i * 4], 4);
    max_ref = std::max(max_ref, std::fabs(ref[i]));
    max_err = std::max(max_err, std::fabs(v - ref[i]));
  }
  EXPECT_LE(max_err, 1e-4f * max_ref) << what << ": max error " << max_err << ", max |ref| " << max_ref;
}

class ZooFloat : public ::testing::TestWithParam<const char*> {};

TEST_P(ZooFloat, MatchesPyTorchAt16MAndPartitioned) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
  std::string name = GetParam();
  compiler::Model m = compiler::load_model(zoo(name + ".onnx"));
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  NpyArray in = read_npy(zoo(name + ".input.npy"));
  std::vector<float> ref = read_npy(zoo(name + ".output.npy")).floats();
  CompiledRun whole = compile_and_run(m, 16u << 20, in.data);
  ASSERT_EQ(whole.run.error, "");
  EXPECT_EQ(whole.compile.schedule.stages.size(), 1u);
  expect_close(whole.run.outputs.at(0), ref, name + " at 16M");
  // Partitioned: a quarter of the way from the scheduler's floor to the one-stage peak.
  compiler::Budgets probe;
  probe.fast = 16u << 20;
  compiler::ScheduleResult s = compiler::schedule(m, probe);
  uint64_t lo = s.fast.minimum_for_partition_bytes, hi = s.fast.scheduled_peak_bytes;
  if (lo >= hi) {
    std::printf("%s: no plan below its one-stage peak of %llu bytes\n", name.c_str(), (unsigned long long)hi);
    return;
  }
  uint64_t budget = lo + (hi - lo) / 4;
  CompiledRun parts = compile_and_run(m, budget, in.data);
  ASSERT_EQ(parts.run.error, "") << "at " << budget;
  PlanShape shape = shape_of(parts.compile);
  EXPECT_TRUE(shape.stages > 1 || shape.tiled > 0) << "at " << budget;
  expect_close(parts.run.outputs.at(0), ref, name + " at " + std::to_string(budget));
  EXPECT_LE(parts.run.fast_peak, parts.run.fast_size);
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooFloat,
                         ::testing::Values("audio1d_m5_16000", "shufflenet_v2_x0_5_224", "efficientnet_b0_224",
                                           "densenet121_128", "lstm_h32_t20"),
                         [](const auto& info) { return std::string(info.param); });

// Compiled for `budget` and run in a fast arena of exactly that many bytes.
CompiledRun run_in_exactly(const compiler::Model& m, uint64_t budget, const std::vector<uint8_t>& input) {
  CompiledRun r;
  compiler::Budgets b;
  b.fast = budget;
  r.compile = compiler::compile(m, b);
  if (!r.compile.ok()) {
    r.run.error = "compile: " + r.compile.error;
    return r;
  }
  tigris_plan_t plan;
  if (tigris_plan_load(r.compile.plan.data(), static_cast<uint32_t>(r.compile.plan.size()), &plan) != TIGRIS_OK) {
    r.run.error = "plan load";
    return r;
  }
  const uint32_t required = tigris_fast_arena_required(&plan);
  if (required > budget) {
    r.run.error = "the plan requires " + std::to_string(required) + " bytes";
    return r;
  }
  const uint64_t slow = r.compile.schedule.slow.peak_bytes + input.size() + (1u << 20);
  r.run = run_plan(r.compile.plan, {input}, static_cast<uint32_t>(slow), static_cast<uint32_t>(budget - required));
  return r;
}

TEST(ZooShuffleNet, MatchesPyTorchAt64KAndItsFloor) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
  const std::string name = "shufflenet_v2_x0_5_224";
  compiler::Model m = compiler::load_model(zoo(name + ".onnx"));
  ASSERT_TRUE(m.summary().supported());
  for (const auto& op : m.summary().ops) EXPECT_NE(op.type, "Transpose") << "a channel shuffle was not recognised";
  NpyArray in = read_npy(zoo(name + ".input.npy"));
  std::vector<float> ref = read_npy(zoo(name + ".output.npy")).floats();
  compiler::Budgets probe;
  probe.fast = 16u << 20;
  const uint64_t floor = compiler::schedule(m, probe).fast.minimum_for_partition_bytes;
  ASSERT_LE(floor, 64u * 1024);
  // The shuffles' Gathers take pixel tiles (HW without a spatial op): one row of 112 pixels
  // of 24 channels in and out (10.5 KiB) no longer sets the floor.
  EXPECT_LT(floor, 10752u);
  for (uint64_t budget : {uint64_t{64} * 1024, floor}) {
    CompiledRun r = run_in_exactly(m, budget, in.data);
    ASSERT_EQ(r.run.error, "") << "at " << budget;
    EXPECT_EQ(r.run.fast_size, budget);
    EXPECT_LE(r.run.fast_peak, budget);
    expect_close(r.run.outputs.at(0), ref, name + " at " + std::to_string(budget));
  }
  std::printf("%s: floor %llu bytes\n", name.c_str(), (unsigned long long)floor);
  compiler::Budgets below;
  below.fast = floor - 1;
  EXPECT_FALSE(compiler::compile(m, below).ok());
}

TEST(ZooLstm, MatchesPyTorchAtItsFloor) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
  compiler::Model m = compiler::load_model(zoo("lstm_h32_t20.onnx"));
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  size_t lstm_ops = 0;
  for (const auto& op : m.summary().ops) {
    EXPECT_NE(op.type, "LSTM");
    lstm_ops += op.type == "Lstm";
  }
  EXPECT_EQ(lstm_ops, 1u) << "the LSTM node is not mapped onto the LSTM op";
  NpyArray in = read_npy(zoo("lstm_h32_t20.input.npy"));
  std::vector<float> ref = read_npy(zoo("lstm_h32_t20.output.npy")).floats();
  compiler::Budgets probe;
  probe.fast = 16u << 20;
  compiler::ScheduleResult s = compiler::schedule(m, probe);
  uint64_t floor = s.fast.minimum_for_partition_bytes;
  ASSERT_LE(floor, s.fast.scheduled_peak_bytes);
  CompiledRun tight = compile_and_run(m, floor, in.data);
  ASSERT_EQ(tight.run.error, "") << "at " << floor;
  expect_close(tight.run.outputs.at(0), ref, "lstm_h32_t20 at its floor of " + std::to_string(floor));
  float max_ref = 0, max_err = 0;
  for (size_t i = 0; i < ref.size() && tight.run.outputs.at(0).size() == ref.size() * 4; ++i) {
    float v;
    std::memcpy(&v, &tight.run.outputs[0][i * 4], 4);
    max_ref = std::max(max_ref, std::fabs(ref[i]));
    max_err = std::max(max_err, std::fabs(v - ref[i]));
  }
  std::printf("lstm_h32_t20: max |error| %g against PyTorch, %g of the largest output\n", max_err, max_err / max_ref);
  EXPECT_LE(tight.run.fast_peak, tight.run.fast_size);
  std::printf("lstm_h32_t20: floor %llu bytes (set by %s), one-stage peak %llu bytes, %u stages at the floor\n",
              (unsigned long long)floor, s.fast.floor_operator.c_str(), (unsigned long long)s.fast.scheduled_peak_bytes,
              (unsigned)tight.compile.schedule.stages.size());
  compiler::Budgets below;
  below.fast = floor - 1;
  EXPECT_FALSE(compiler::compile(m, below).ok());
}

}  // namespace

// DenseNet-121's dense blocks join many layers' outputs with Concats along the channels.
// Banded along their own axis (CONCAT), each band of channels reads only the inputs that
// cover it, so no Concat holds its inputs together: the floor falls from 64K (set by
// denseblock1's Concat) to 8K and, with pixel blocks (CONCAT mode BLOCKS), below; at the
// floor the plan matches PyTorch in an arena of exactly the budget.
TEST(ZooDenseNet, ConcatBandsAtItsFloorMatchPyTorch) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
  const std::string name = "densenet121_128";
  compiler::Model m = compiler::load_model(zoo(name + ".onnx"));
  NpyArray in = read_npy(zoo(name + ".input.npy"));
  std::vector<float> ref = read_npy(zoo(name + ".output.npy")).floats();
  compiler::Budgets probe;
  probe.fast = 16u << 20;
  const uint64_t floor = compiler::schedule(m, probe).fast.minimum_for_partition_bytes;
  EXPECT_LT(floor, 64u * 1024) << "Concats no longer band along their axis";
  CompiledRun r = run_in_exactly(m, floor, in.data);
  ASSERT_EQ(r.run.error, "") << "at " << floor;
  size_t concat_stages = 0;
  for (const compiler::StageSummary& s : r.compile.schedule.stages) {
    if (s.kind != "concat bands" && s.kind != "concat blocks") continue;
    ++concat_stages;
    // The report names the axis the bands run along: the channels (stored NHWC axis 3), not
    // the record's height axis.
    EXPECT_EQ(s.band_axis, 3u) << s.index;
    EXPECT_EQ(s.axis, static_cast<uint32_t>(TIGRIS_TILE_AXIS_HEIGHT)) << s.index;
  }
  EXPECT_GT(concat_stages, 0u);
  EXPECT_EQ(r.run.fast_size, floor);
  EXPECT_LE(r.run.fast_peak, floor);
  expect_close(r.run.outputs.at(0), ref, name + " at its floor " + std::to_string(floor));
}

// Band forms that lower floors, each at the floor it gives, in an arena of exactly the
// budget, against PyTorch; one byte below is refused:
// * reductions by blocks of input elements (BY_INPUT mode FLAT): audio1d's ReduceMean over
//   the time axis (axis 1 kept, so no row band; 16 KiB before) and EfficientNet's
//   squeeze-and-excitation GlobalAveragePools (one input row of 112x32 floats; 14.25 KiB);
// * Concats by pixel blocks x channels (CONCAT mode BLOCKS): DenseNet-121's dense blocks
//   (one channel of every pixel; 8 KiB before) and the small U-Net's skip Concats (16 KiB).
//   Alone, a Concat no longer sets the floor; at the new floor the scheduler runs these
//   Concats inside 2-D tiles with their neighbours or as bands of channels, so no stage kind
//   is asserted for them (concat_split_test.cpp checks the scheduler's choice of blocks).
struct FloorCase {
  const char* name;
  const char* model;      // under the models folder
  const char* reference;  // the .input.npy / .output.npy stem under the models folder
  uint64_t before;        // the floor before the form
  const char* kind;       // the stage kind the form is reported as
};

class FloorForm : public ::testing::TestWithParam<FloorCase> {};

TEST_P(FloorForm, AtTheNewFloorMatchesPyTorch) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
  const FloorCase& fc = GetParam();
  const std::string dir = models_dir() + "/";
  compiler::Model m = compiler::load_model(dir + fc.model);
  NpyArray in = read_npy(dir + fc.reference + ".input.npy");
  std::vector<float> ref = read_npy(dir + fc.reference + ".output.npy").floats();
  compiler::Budgets probe;
  probe.fast = 16u << 20;
  const compiler::ScheduleResult s = compiler::schedule(m, probe);
  const uint64_t floor = s.fast.minimum_for_partition_bytes;
  EXPECT_LT(floor, fc.before) << "the form did not lower the floor (" << s.fast.floor_operator << ")";
  CompiledRun r = run_in_exactly(m, floor, in.data);
  ASSERT_EQ(r.run.error, "") << "at " << floor;
  size_t formed = 0;
  for (const compiler::StageSummary& st : r.compile.schedule.stages) formed += st.kind == fc.kind;
  if (fc.kind[0] != 0) {
    EXPECT_GT(formed, 0u) << "no stage is banded as " << fc.kind << " at " << floor;
  }
  EXPECT_EQ(r.run.fast_size, floor);
  EXPECT_LE(r.run.fast_peak, floor);
  expect_close(r.run.outputs.at(0), ref, std::string(fc.name) + " at its floor " + std::to_string(floor));
  std::printf("%s: floor %llu bytes (set by %s), %zu stages %s\n", fc.name, (unsigned long long)floor,
              s.fast.floor_operator.c_str(), formed, fc.kind);
  compiler::Budgets below;
  below.fast = floor - 1;
  EXPECT_FALSE(compiler::compile(m, below).ok());
}

INSTANTIATE_TEST_SUITE_P(
    Models, FloorForm,
    ::testing::Values(FloorCase{"audio1d_m5_16000", "zoo/audio1d_m5_16000.onnx", "zoo/audio1d_m5_16000", 16u * 1024,
                                "reduce by element blocks"},
                      FloorCase{"efficientnet_b0_224", "zoo/efficientnet_b0_224.onnx", "zoo/efficientnet_b0_224",
                                14u * 1024, "reduce by element blocks"},
                      FloorCase{"densenet121_128", "zoo/densenet121_128.onnx", "zoo/densenet121_128", 8u * 1024, ""},
                      FloorCase{"unet_small_128", "onnx/unet_small_128.onnx", "refs/unet_small_128", 16u * 1024, ""}),
    [](const auto& info) { return std::string(info.param.name); });
