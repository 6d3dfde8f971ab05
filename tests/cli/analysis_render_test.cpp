// The analyze/compile text and JSON from hand-made report data: every verdict form of
// the reference (toolchain §1.1) and the JSON fields the issue lists.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compiler/report/analysis_report.h"

using namespace tigris::report;

namespace {

AnalysisReport base_report() {
  AnalysisReport r;
  r.model.file = "net.onnx";
  r.model.name = "net";
  r.model.format = "onnx";
  r.model.dtype = "float32";
  r.model.operators = 4;
  r.model.source_operators = 6;
  r.model.unscheduled_peak_bytes = 98304;
  r.model.largest_tensor = {"c1", {1, 8, 32, 32}, "float32", 32768};
  r.model.inputs = {{"x", {1, 3, 32, 32}, "float32", 12288}};
  r.model.outputs = {{"y", {1, 10}, "float32", 40}};
  r.flash.weight_bytes = 4000;
  r.flash.plan_bytes = 5000;
  r.flash.overhead_bytes = 1000;
  r.flash.int8_plan_bytes = 2000;
  return r;
}

}  // namespace

TEST(AnalysisText, FitsWithHeadroomSweepAndFlash) {
  AnalysisReport r = base_report();
  r.fast.budget_bytes = 65536;
  r.fast.verdict = Verdict::kFits;
  r.fast.scheduled_peak_bytes = 49152;
  r.fast.stages = 3;
  r.slow.budget_bytes = 1048576;
  r.slow.peak_bytes = 40960;
  r.slow.spill_bytes = 40960;
  r.flash.budget_bytes = 4096;
  r.budgets_tried = {{32768, false, 4, 0}};
  EXPECT_EQ(render_text(r, false, true),
            "net.onnx   float32, 4 operators after normalization (6 in the file)\n"
            "  input    x   1x3x32x32 float32\n"
            "  output   y   1x10 float32\n"
            "fits 64.00 KiB fast memory, 3 stages\n"
            "memory\n"
            "  unscheduled       96.00 KiB\n"
            "  largest tensor    32.00 KiB   1x8x32x32\n"
            "  this plan         48.00 KiB   16.00 KiB headroom\n"
            "  slow memory       40.00 KiB   budget 1.00 MiB\n"
            "  does not fit at   32.00 KiB   4 stages\n"
            "flash\n"
            "  plan           4.88 KiB   weights 3.91 KiB, overhead 1000 B\n"
            "  as int8        1.95 KiB   estimate\n"
            "  flash budget   4.00 KiB   exceeds it by 904 B\n");
  // compile omits the sweep rows
  EXPECT_EQ(render_text(r, false, false).find("does not fit at"), std::string::npos);
}

TEST(AnalysisText, DoesNotFitListsFiveStagesLargestFirst) {
  AnalysisReport r = base_report();
  r.fast.budget_bytes = 8192;
  r.fast.verdict = Verdict::kDoesNotFit;
  for (uint32_t i = 0; i < 7; ++i) r.fast.blocking_stages.push_back({i, 20000u - i * 1000u, "untileable Gemm"});
  r.flash.plan_bytes.reset();
  const std::string text = render_text(r, false, true);
  EXPECT_NE(text.find("does not fit 8.00 KiB fast memory: 7 stages exceed it\n"
                      "  stage 0   19.53 KiB   untileable Gemm\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  stage 4   15.62 KiB   untileable Gemm\n  and 2 more; --json lists all\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("this plan"), std::string::npos);
  EXPECT_NE(text.find("  plan      none at this budget\n"), std::string::npos) << text;
  r.fast.blocking_stages.resize(1);
  EXPECT_NE(render_text(r, false, true).find(": 1 stage exceeds it\n"), std::string::npos);
}

TEST(AnalysisText, CannotCompileAndNoBudget) {
  AnalysisReport r = base_report();
  r.fast.verdict = Verdict::kCannotCompile;
  r.model.unsupported_operators = {{"NonMaxSuppression", "nms", "no kernel"}};
  EXPECT_NE(render_text(r, false, true)
                .find("cannot compile: 1 unsupported operator\n"
                      "  NonMaxSuppression   nms   no kernel\n"),
            std::string::npos);
  r.model.unsupported_operators.clear();
  r.model.dtype_errors = {"tensor x is float64; plans hold float32, int8, ..."};
  EXPECT_NE(render_text(r, false, true).find("cannot compile: tensor x is float64; plans hold float32, int8, ...\n"),
            std::string::npos);
  r.model.dtype_errors.clear();
  r.fast.verdict = Verdict::kNoBudget;
  EXPECT_NE(render_text(r, false, true).find("\nno budget given; memory figures only\nmemory\n"), std::string::npos);
}

TEST(AnalysisText, VerboseStageTable) {
  AnalysisReport r = base_report();
  r.fast.budget_bytes = 65536;
  r.fast.verdict = Verdict::kFits;
  r.fast.scheduled_peak_bytes = 49152;
  r.fast.stages = 1;
  r.stages = {{0, 0, 3, 4, 49152, {"x"}, {"y"}, 12288, 40, false, "untiled", std::nullopt, ""}};
  EXPECT_NE(render_text(r, true, true)
                .find("stages\n"
                      "  stage   ops   untiled peak          in    out   tiling\n"
                      "      0   0-3      48.00 KiB   12.00 KiB   40 B   untiled\n"),
            std::string::npos)
      << render_text(r, true, true);
}

TEST(AnalysisJson, HasTheFieldsTheIssueLists) {
  AnalysisReport r = base_report();
  r.fast.budget_bytes = 65536;
  r.fast.verdict = Verdict::kFits;
  r.fast.scheduled_peak_bytes = 49152;
  r.fast.stages = 2;
  r.slow.spill_bytes = 100;
  r.slow.reload_bytes = 200;
  r.slow.peak_bytes = 300;
  r.stages = {{0, 0, 1, 2, 49152, {"x"}, {"a"}, 0, 100, false, "untiled", std::nullopt, ""},
              {1, 2, 3, 2, 1000, {"a"}, {"y"}, 200, 0, false, "untiled", std::nullopt, ""}};
  const auto j = to_json(r);
  EXPECT_EQ(j["report"], "tigris-analysis");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["fast"]["budget_bytes"], 65536);
  EXPECT_EQ(j["fast"]["scheduled_peak_bytes"], 49152);
  EXPECT_EQ(j["fast"]["verdict"], "fits");
  EXPECT_EQ(j["fast"]["stages"], 2);
  EXPECT_EQ(j["slow"]["spill_bytes"], 100);
  EXPECT_EQ(j["slow"]["reload_bytes"], 200);
  EXPECT_EQ(j["slow"]["peak_bytes"], 300);
  EXPECT_EQ(j["flash"]["plan_bytes"], 5000);
  ASSERT_EQ(j["stages"].size(), 2u);
  EXPECT_EQ(j["stages"][1]["inputs"][0], "a");
  EXPECT_EQ(j["model"]["inputs"][0]["shape"], nlohmann::ordered_json({1, 3, 32, 32}));
  r.fast.budget_bytes.reset();
  r.fast.verdict = Verdict::kNoBudget;
  EXPECT_TRUE(to_json(r)["fast"]["budget_bytes"].is_null());
}
