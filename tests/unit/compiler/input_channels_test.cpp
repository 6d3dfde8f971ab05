// The scheduler's input-channel bands (CHANNELS mode INPUT) on a wide-input classifier: a
// Gemm whose input row does not fit but whose output does keeps the whole output in fast
// memory and sums bands of input columns into it. Byte counts are hand-derived (sizes rounded
// up to 32); the plan runs in exactly its budget and equals the one-stage run bit for bit.
#include <gtest/gtest.h>

#include "compiler/api.h"
#include "compiler/report/analysis_build.h"
#include "tigris_loader.h"
#include "unit/compiler/onnx_builder.h"

namespace inchan {

using namespace tigris;

// x [1,2048] -> Gemm (B [16,2048] transposed, bias [16]) -> y [1,16].
compiler::Model wide_classifier() {
  return compiler::load_model_bytes(test::gemm_classifier(2048, 16, 17, 0.013f, 0.25f), "wide_classifier.onnx");
}

TEST(InputChannels, WideClassifierFloorIsItsOutputAndOneColumn) {
  compiler::Model m = wide_classifier();
  compiler::Budgets budget;
  budget.fast = 1u << 20;
  // Whole: 8192 + 64 bytes. Output-channel bands would hold x whole (8192 + 32); input-channel
  // bands hold y (64) and one input column (4, rounded to 32).
  compiler::ScheduleResult s = compiler::schedule(m, budget);
  EXPECT_EQ(s.fast.scheduled_peak_bytes, 8192u + 64u);
  EXPECT_EQ(s.fast.minimum_for_partition_bytes, 64u + 32u);
  budget.fast = 1024;  // y and 960 bytes of x: bands of 240 columns (8 of 240, one of 128)
  compiler::CompileResult r = compiler::compile(m, budget);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.schedule.stages.size(), 1u);
  const compiler::StageSummary& st = r.schedule.stages[0];
  EXPECT_EQ(st.kind, "input-channel bands");
  EXPECT_EQ(st.tile_rows, 1u);
  EXPECT_EQ(st.tile_cols, 240u);
  EXPECT_EQ(st.tiles, 9u);
  EXPECT_NE(st.decision.find("input-channel bands of 1 rows x 240 input columns"), std::string::npos) << st.decision;
  EXPECT_EQ(r.schedule.fast.scheduled_peak_bytes, 64u + 960u);
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(r.plan.data(), static_cast<uint32_t>(r.plan.size()), &plan), TIGRIS_OK);
  tigris_tile_facts_t facts;
  ASSERT_EQ(tigris_stage_tile_facts(&plan, &plan.stages[0], &facts), 1);
  EXPECT_EQ(facts.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT));
  EXPECT_EQ(facts.num_tiles, 9u);
  // analyze -v's tiling cell.
  compiler::ScheduleResult s1024 = compiler::schedule(m, budget);
  report::AnalysisReport a = report::build_analysis("wide_classifier.onnx", m.summary(), budget, &s1024, nullptr);
  ASSERT_EQ(a.stages.size(), 1u);
  EXPECT_EQ(a.stages[0].tiling, "input-channel bands, 9 tiles of 1 rows x 240 input columns, halo 0");
  budget.fast = 64 + 32 - 1;  // below the floor
  EXPECT_FALSE(compiler::compile(m, budget).ok());
}

// The output is larger than the input (the classifier of output_channels_test): input-channel
// bands hold the whole output and never fit where output-channel bands do; they are not chosen.
TEST(InputChannels, NotChosenWhenTheOutputIsTheLargerSide) {
  test::OnnxBuilder b;
  b.input("x", {1, 64});
  b.init("w", {512, 64}, std::vector<float>(512 * 64, 0.01f));
  b.init("bias", {512}, std::vector<float>(512, 0.5f));
  onnx::NodeProto& n = b.node("Gemm", {"x", "w", "bias"}, {"y"}, "fc");
  test::OnnxBuilder::attr(n, "transB", int64_t{1});
  b.output("y", {1, 512});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "classifier.onnx");
  compiler::Budgets budget;
  budget.fast = 1024;
  compiler::ScheduleResult s = compiler::schedule(m, budget);
  ASSERT_EQ(s.stages.size(), 1u);
  EXPECT_EQ(s.stages[0].kind, "output-channel bands");
}

// A 1x1 Conv 32 -> 128 on a 7x7 map (NCHW in the model, NHWC in the plan) is a
// FullyConnected over its 49 pixels. Whole it holds 6272 + 25088 bytes; a 2-D tile of one
// pixel holds 128 + 512; input-channel bands hold one output pixel (512) and one input
// channel of it (4, rounded to 32): the floor, 544 bytes, in 49 x 32 tiles.
TEST(InputChannels, Conv1x1FloorIsOneOutputPixelAndOneChannel) {
  test::OnnxBuilder b;
  b.input("x", {1, 32, 7, 7});
  std::vector<float> w(128 * 32);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 13) - 6) * 0.021f;
  b.init("w", {128, 32, 1, 1}, w);
  b.init("bias", {128}, std::vector<float>(128, 0.125f));
  onnx::NodeProto& n = b.node("Conv", {"x", "w", "bias"}, {"y"}, "pw");
  test::OnnxBuilder::attr(n, "kernel_shape", std::vector<int64_t>{1, 1});
  b.output("y", {1, 128, 7, 7});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "pointwise.onnx");
  compiler::Budgets budget;
  budget.fast = 1;
  compiler::ScheduleResult s = compiler::schedule(m, budget);
  EXPECT_EQ(s.fast.minimum_for_partition_bytes, 512u + 32u);
  budget.fast = 512 + 32;
  compiler::CompileResult r = compiler::compile(m, budget);
  ASSERT_TRUE(r.ok()) << r.error;
  const compiler::StageSummary* conv = nullptr;
  for (const compiler::StageSummary& st : r.schedule.stages)
    if (st.kind == "input-channel bands") conv = &st;
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->tile_rows, 1u);
  EXPECT_EQ(conv->tile_cols, 8u);  // 8 floats: 32 bytes
  EXPECT_EQ(conv->tiles, 49u * 4u);
  EXPECT_NE(conv->decision.find("input-channel bands of 1 pixels x 8 input channels of a 1x1 Conv"), std::string::npos)
      << conv->decision;
  // analyze -v names the tiles pixel blocks, not rows.
  budget.fast = 512 + 32;
  compiler::ScheduleResult s544 = compiler::schedule(m, budget);
  report::AnalysisReport a = report::build_analysis("pointwise.onnx", m.summary(), budget, &s544, nullptr);
  bool named = false;
  for (const report::AnalysisStage& st : a.stages)
    named = named || st.tiling == "input-channel bands, 196 tiles of 1 pixels x 8 input channels, halo 0";
  EXPECT_TRUE(named);
  budget.fast = 512 + 32 - 1;  // below the floor
  EXPECT_FALSE(compiler::compile(m, budget).ok());
}

// A 3x3 Conv (pads 1) from 64 channels to 4 on a 4x4 map. Whole it holds x (4096) and y (256);
// a 2-D tile of one pixel 3 x 3 x 64 floats (2304) and 4; output-channel bands and stripes three
// input rows of every channel (3072). Input-channel bands hold one output row (4 x 4 floats,
// 64 B) and one block of 4 input channels of the 3 rows it reads (3 x 4 x 4 floats, 192 B): the
// floor, 256 B, in 4 rows x 16 bands; the plan runs in exactly that.
TEST(InputChannels, KxKConvFloorIsAnOutputRowAndOneChannelBlockOfItsInputRows) {
  test::OnnxBuilder b;
  b.input("x", {1, 64, 4, 4});
  std::vector<float> w(4 * 64 * 9);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 11) - 5) * 0.037f;
  b.init("w", {4, 64, 3, 3}, w);
  b.init("bias", {4}, std::vector<float>(4, 0.25f));
  onnx::NodeProto& n = b.node("Conv", {"x", "w", "bias"}, {"y"}, "conv3x3");
  test::OnnxBuilder::attr(n, "kernel_shape", std::vector<int64_t>{3, 3});
  test::OnnxBuilder::attr(n, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.output("y", {1, 4, 4, 4});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "conv3x3.onnx");
  compiler::Budgets budget;
  budget.fast = 1;
  EXPECT_EQ(compiler::schedule(m, budget).fast.minimum_for_partition_bytes, 64u + 192u);
  budget.fast = 64 + 192;
  compiler::CompileResult r = compiler::compile(m, budget);
  ASSERT_TRUE(r.ok()) << r.error;
  const compiler::StageSummary* conv = nullptr;
  for (const compiler::StageSummary& st : r.schedule.stages)
    if (st.kind == "input-channel bands") conv = &st;
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->tile_rows, 1u);
  EXPECT_EQ(conv->tile_cols, 4u);
  EXPECT_EQ(conv->tiles, 4u * 16u);
  EXPECT_EQ(conv->halo, 2u);
  EXPECT_NE(conv->decision.find("input-channel bands of 1 rows x 4 input channels of a Conv"), std::string::npos)
      << conv->decision;
  EXPECT_EQ(r.schedule.fast.scheduled_peak_bytes, 64u + 192u);
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(r.plan.data(), static_cast<uint32_t>(r.plan.size()), &plan), TIGRIS_OK);
  report::AnalysisReport a = report::build_analysis("conv3x3.onnx", m.summary(), budget, &r.schedule, nullptr);
  bool named = false;
  for (const report::AnalysisStage& st : a.stages)
    named = named || st.tiling == "input-channel bands, 64 tiles of 1 rows x 4 input channels, halo 2";
  EXPECT_TRUE(named);
  budget.fast = 64 + 192 - 1;  // below the floor
  EXPECT_FALSE(compiler::compile(m, budget).ok());
}

}  // namespace inchan
