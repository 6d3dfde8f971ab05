// Real models end to end: ONNX -> plan -> host runtime -> outputs, against PyTorch's
// reference outputs (max |out - ref| <= 1e-4 * max |ref|). Each model runs once with a
// generous budget (one stage) and once partitioned into stages (spills and reloads) at a
// budget between its floor and its one-stage peak; the fast arena given to
// the runtime is exactly the plan's stated requirement.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compiler/api.h"
#include "compiler_support/npy.h"
#include "compiler_support/plan_runner.h"

namespace {

using namespace tigris;

std::string models() { return std::string(TIGRIS_MODELS_DIR); }

std::vector<float> run(const compiler::Model& m, uint64_t fast, const std::vector<uint8_t>& input, size_t* stages) {
  compiler::Budgets b;
  b.fast = fast;
  compiler::CompileResult r = compiler::compile(m, b);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return {};
  *stages = r.schedule.stages.size();
  uint64_t slow = r.schedule.slow.peak_bytes + input.size() + (1u << 20);
  test::PlanRun pr = test::run_plan(r.plan, {input}, static_cast<uint32_t>(slow));
  EXPECT_EQ(pr.error, "");
  if (!pr.error.empty()) return {};
  // The runtime moved exactly what the schedule reports, and never fell back to slow memory.
  // (Banded stages and chains move halo rows and reload residuals: the traffic figures.)
  EXPECT_EQ(pr.stats.loads_bytes, r.schedule.fast.load_traffic_bytes);
  EXPECT_EQ(pr.stats.spills_bytes, r.schedule.fast.spill_traffic_bytes);
  EXPECT_EQ(pr.stats.slow_overflow_count, 0u);
  size_t untiled = 0;
  for (const compiler::StageSummary& st : r.schedule.stages) untiled += st.kind == "untiled";
  EXPECT_EQ(pr.stats.stages_normal, untiled);
  EXPECT_EQ(pr.stats.stages_normal + pr.stats.stages_tiled + pr.stats.stages_chain, r.schedule.stages.size());
  EXPECT_EQ(pr.stats.slow_peak, r.schedule.slow.peak_bytes);
  std::vector<float> out(pr.outputs.at(0).size() / 4);
  std::memcpy(out.data(), pr.outputs[0].data(), out.size() * 4);
  return out;
}

void expect_close(const std::vector<float>& out, const std::vector<float>& ref) {
  ASSERT_EQ(out.size(), ref.size());
  float max_ref = 0, max_err = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    max_ref = std::max(max_ref, std::fabs(ref[i]));
    max_err = std::max(max_err, std::fabs(out[i] - ref[i]));
  }
  EXPECT_LE(max_err, 1e-4f * max_ref) << "max error " << max_err << ", max |ref| " << max_ref;
}

class Reference : public ::testing::TestWithParam<const char*> {};

TEST_P(Reference, MatchesPyTorch) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models() << " is absent";
  std::string name = GetParam();
  compiler::Model m = compiler::load_model(models() + "/onnx/" + name + ".onnx");
  test::NpyArray in = test::read_npy(models() + "/refs/" + name + ".input.npy");
  test::NpyArray ref = test::read_npy(models() + "/refs/" + name + ".output.npy");
  size_t stages = 0;
  expect_close(run(m, 256u << 20, in.data, &stages), ref.floats());
  EXPECT_EQ(stages, 1u);
  // Partitioned: a budget a quarter of the way from the floor to the one-stage peak.
  compiler::Budgets probe;
  probe.fast = 256u << 20;
  const uint64_t hi = compiler::schedule(m, probe).fast.scheduled_peak_bytes;
  probe.fast = 1;  // below everything: the report states the floor
  const uint64_t lo = compiler::schedule(m, probe).fast.minimum_for_partition_bytes;
  expect_close(run(m, lo + (hi - lo) / 4, in.data, &stages), ref.floats());
  EXPECT_GT(stages, 1u);
}

INSTANTIATE_TEST_SUITE_P(Onnx, Reference,
                         ::testing::Values("mobilenet_v2_224", "mobilenet_v2_035_96_2cls", "unet_small_128"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
