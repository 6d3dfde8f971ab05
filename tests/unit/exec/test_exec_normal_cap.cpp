// Executor, normal path of schema 11 plans: a stage stating its peak holds at most that
// many bytes above its floor and weights, compacting when an allocation would rise above it,
// so the run's fast peak is the live-set maximum the compiler scheduled, whatever the arena.
#include "exec_fixture.h"

using namespace exectest;

namespace {


// x -> a = relu(x) -> b = a + a -> c = relu(b) -> y = c - x, stages {0, 1} and {2, 3}.
// Live sets (inputs loaded at stage start, an op's output allocated before its dying inputs
// are released): stage 0: {x, a} then {a, b} -> 2U (x is also read by stage 1, but a stage
// input dies in the stage at its last read there); stage 1: {b, x, c} then {c, x, y} -> 3U.
PlanDesc two_stage_plan(uint32_t peak0, uint32_t peak1) {
  PlanDesc p;
  p.model_name = "cap";
  uint16_t x = add_tensor(p, "x", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t a = add_tensor(p, "a", kShape);
  uint16_t b = add_tensor(p, "b", kShape);
  uint16_t c = add_tensor(p, "c", kShape);
  uint16_t y = add_tensor(p, "y", kShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(p, TIGRIS_OP_RELU, {x}, {a});
  add_op(p, TIGRIS_OP_ADD, {a, a}, {b});
  add_op(p, TIGRIS_OP_RELU, {b}, {c});
  add_op(p, TIGRIS_OP_SUB, {c, x}, {y});
  add_stage(p, {0, 1}, {x}, {b});
  add_stage(p, {2, 3}, {b, x}, {y});
  p.stages[0].peak_bytes = peak0;
  p.stages[1].peak_bytes = peak1;
  p.model_inputs = {x};
  p.model_outputs = {y};
  p.budget = 3 * U;
  p.scheduled_peak = 3 * U;
  return p;
}

struct CapRun : PlanRun {
  CapRun(const PlanDesc& d, uint32_t fast_bytes) : PlanRun(d, fast_bytes, 8 * U) {}
  tigris_exec_error_t run(const std::vector<float>& x) {
    write(0, x);
    return PlanRun::run();
  }
  std::vector<float> y() { return read(4, 16); }
};

// y = relu(2 relu(x)) - x
std::vector<float> expected(const std::vector<float>& x) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = std::max(0.0f, 2.0f * std::max(0.0f, x[i])) - x[i];
  return y;
}

TEST(ExecNormalCap, StatedPeaksBoundTheStagesInALargeArena) {
  const std::vector<float> x = iota(16, -7.5f, 1.0f);
  CapRun r(two_stage_plan(2 * U, 3 * U), 64 * U);
  ASSERT_EQ(r.run(x), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.y(), expected(x));
  EXPECT_EQ(r.mem.fast_peak, 3 * U);  // not the 4U a bump-only stage 1 reaches
  EXPECT_EQ(r.stats.slow_overflow_count, 0u);
  // Fast compactions at the cap in both stages (a; x and c slide down), slow after stage 1.
  EXPECT_EQ(r.stats.compactions, 3u);
  EXPECT_EQ(r.rec.count(TIGRIS_TRACE_MOVE), 4u);  // a; x, c; y in slow
}

TEST(ExecNormalCap, NoStatedPeakBumpsAsBefore) {
  const std::vector<float> x = iota(16, -7.5f, 1.0f);
  CapRun r(two_stage_plan(0, 0), 64 * U);
  ASSERT_EQ(r.run(x), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.y(), expected(x));
  EXPECT_EQ(r.mem.fast_peak, 4 * U);  // stage 1: b, x, c, y all bump-allocated
}

TEST(ExecNormalCap, AnUnderstatedPeakOverflowsToSlowAndStaysCorrect) {
  const std::vector<float> x = iota(16, -7.5f, 1.0f);
  CapRun r(two_stage_plan(2 * U, 2 * U), 64 * U);
  ASSERT_EQ(r.run(x), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.y(), expected(x));
  EXPECT_EQ(r.mem.fast_peak, 2 * U);
  EXPECT_EQ(r.stats.slow_overflow_count, 1u);  // stage 1's c does not fit beside b and x
}

}  // namespace
