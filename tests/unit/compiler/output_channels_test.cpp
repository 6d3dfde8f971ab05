// The scheduler's output-channel bands (CHANNELS mode OUTPUT) on a classifier: a Gemm whose
// input row and outputs do not fit together is banded over its output columns, each band
// holding the whole input row and its columns. Byte counts are hand-derived (sizes rounded up
// to 32).
#include <gtest/gtest.h>

#include "compiler/api.h"
#include "tigris_loader.h"
#include "unit/compiler/onnx_builder.h"

namespace outchan {

using namespace tigris;

// x [1,64] -> Gemm (B [512,64] transposed, bias [512]) -> y [1,512].
compiler::Model classifier() {
  test::OnnxBuilder b;
  b.input("x", {1, 64});
  std::vector<float> w(512 * 64);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i % 13) - 6) * 0.01f;
  b.init("w", {512, 64}, w);
  b.init("bias", {512}, std::vector<float>(512, 0.5f));
  onnx::NodeProto& n = b.node("Gemm", {"x", "w", "bias"}, {"y"}, "fc");
  test::OnnxBuilder::attr(n, "transB", int64_t{1});
  b.output("y", {1, 512});
  return compiler::load_model_bytes(b.bytes(), "classifier.onnx");
}

TEST(OutputChannels, ClassifierFloorIsItsInputRowAndOneColumn) {
  compiler::Model m = classifier();
  compiler::Budgets budget;
  budget.fast = 1u << 20;
  // Whole: 256 + 2048 bytes. One row band is the whole op (one row); output-channel bands
  // hold x (256) and one column of y (4, rounded to 32).
  compiler::ScheduleResult s = compiler::schedule(m, budget);
  EXPECT_EQ(s.fast.scheduled_peak_bytes, 256u + 2048u);
  EXPECT_EQ(s.fast.minimum_for_partition_bytes, 256u + 32u);
  budget.fast = 1024;  // x and 768 bytes of columns: bands of 192 columns (3 bands)
  compiler::CompileResult r = compiler::compile(m, budget);
  ASSERT_TRUE(r.ok()) << r.error;
  ASSERT_EQ(r.schedule.stages.size(), 1u);
  const compiler::StageSummary& st = r.schedule.stages[0];
  EXPECT_EQ(st.kind, "output-channel bands");
  EXPECT_EQ(st.tile_rows, 1u);
  EXPECT_EQ(st.tile_cols, 192u);
  EXPECT_EQ(st.tiles, 3u);
  EXPECT_NE(st.decision.find("output-channel bands of 1 rows x 192 channels"), std::string::npos) << st.decision;
  EXPECT_EQ(r.schedule.fast.scheduled_peak_bytes, 256u + 768u);
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(r.plan.data(), static_cast<uint32_t>(r.plan.size()), &plan), TIGRIS_OK);
  tigris_tile_facts_t facts;
  ASSERT_EQ(tigris_stage_tile_facts(&plan, &plan.stages[0], &facts), 1);
  EXPECT_EQ(facts.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_OUTPUT));
  EXPECT_EQ(facts.num_tiles, 3u);
  budget.fast = 256 + 32 - 1;  // below the floor
  EXPECT_FALSE(compiler::compile(m, budget).ok());
}

}  // namespace outchan
