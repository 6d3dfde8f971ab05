// The scheduler's output-channel bands (CHANNELS mode OUTPUT) on a classifier: a Gemm whose
// input row and outputs do not fit together is banded over its output columns, each band
// holding the whole input row and its columns. Byte counts are hand-derived (sizes rounded up
// to 32).
#include <gtest/gtest.h>

#include "compiler/api.h"
#include "compiler/report/analysis_build.h"
#include "tigris_loader.h"
#include "unit/compiler/onnx_builder.h"

namespace outchan {

using namespace tigris;

// x [1,64] -> Gemm (B [512,64] transposed, bias [512]) -> y [1,512].
compiler::Model classifier() {
  return compiler::load_model_bytes(test::gemm_classifier(64, 512, 13, 0.01f, 0.5f), "classifier.onnx");
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

// `analyze -v`'s tiling cell names each form and the axis its bands run along.
TEST(OutputChannels, AnalyzeNamesTheFormAndTheBandAxis) {
  compiler::Model m = classifier();
  compiler::Budgets budget;
  budget.fast = 1024;
  compiler::ScheduleResult s = compiler::schedule(m, budget);
  report::AnalysisReport r = report::build_analysis("classifier.onnx", m.summary(), budget, &s, nullptr);
  ASSERT_EQ(r.stages.size(), 1u);
  EXPECT_EQ(r.stages[0].tiling, "output-channel bands, 3 tiles of 1 rows x 192 channels, halo 0");
  // A Concat of two [1,2,1,64] inputs along their last axis (no spatial op: stored as
  // declared): a row of axis 1 of both inputs and the output (2 x 256 + 512 bytes) does not
  // fit 512, bands along axis 3 do. The cell used to print the record's height axis (1).
  test::OnnxBuilder b;
  b.input("a", {1, 2, 1, 64});
  b.input("c", {1, 2, 1, 64});
  onnx::NodeProto& cat = b.node("Concat", {"a", "c"}, {"y"}, "cat");
  test::OnnxBuilder::attr(cat, "axis", int64_t{3});
  b.output("y", {1, 2, 1, 128});
  compiler::Model cm = compiler::load_model_bytes(b.bytes(), "cat.onnx");
  budget.fast = 512;
  compiler::ScheduleResult cs = compiler::schedule(cm, budget);
  ASSERT_EQ(cs.stages.size(), 1u);
  ASSERT_EQ(cs.stages[0].kind, "concat bands") << cs.stages[0].decision;
  EXPECT_EQ(cs.stages[0].band_axis, 3u) << cs.stages[0].decision << " / " << cs.stages[0].extent;
  report::AnalysisReport cr = report::build_analysis("cat.onnx", cm.summary(), budget, &cs, nullptr);
  EXPECT_NE(cr.stages[0].tiling.find(", axis 3, halo 0"), std::string::npos) << cr.stages[0].tiling;
}

}  // namespace outchan
