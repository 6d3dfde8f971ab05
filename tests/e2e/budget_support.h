// Budget tests: compile a model at a fast budget, run the plan on the host runtime with a
// fast arena of exactly that budget, and check what the schedule promised: the measured
// fast peak equals the plan's scheduled peak (plus the stage's decompressed weights with
// -c lz4), every byte loaded and spilled, the slow peak and the tiles equal the schedule's
// figures, nothing overflows to slow memory.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "compiler/api.h"
#include "compiler_support/npy.h"
#include "compiler_support/plan_runner.h"
#include "tests/e2e/tflite_support.h"  // models_dir()
#include "tigris_config.h"

namespace tigris::test {

// The reference input of a model (refs/<name>.input.npy), or a seeded uniform[-1, 1] one.
inline std::vector<uint8_t> model_input(const compiler::Model& m, const std::string& name) {
  const std::string path = models_dir() + "/refs/" + name + ".input.npy";
  if (std::ifstream(path).good()) return read_npy(path).data;
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(m.summary().inputs.at(0).bytes / 4));
  for (float& x : v) x = dist(rng);
  std::vector<uint8_t> bytes(v.size() * 4);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

// The fast bytes a run of `plan` reaches: per stage (a chain: per chain) its stated peak plus
// the aligned decompressed weights it holds meanwhile.
inline uint64_t expected_fast_peak(const tigris_plan_t& plan) {
  auto block = [&](uint16_t s) -> uint64_t {
    for (uint16_t i = 0; i < plan.num_weight_blocks; ++i)
      if (plan.weight_blocks[i].stage_idx == s)
        return (plan.weight_blocks[i].uncompressed_size + TIGRIS_TENSOR_ALIGN - 1) / TIGRIS_TENSOR_ALIGN *
               TIGRIS_TENSOR_ALIGN;
    return 0;
  };
  uint64_t peak = 0;
  for (uint16_t s = 0; s < plan.header->num_stages; ++s) {
    const tigris_stage_t& st = plan.stages[s];
    if (st.chain_len >= 2 && st.chain_id != s) continue;
    uint64_t w = 0;
    const uint16_t len = st.chain_len >= 2 ? st.chain_len : 1;
    for (uint16_t k = 0; k < len; ++k) w += block(static_cast<uint16_t>(s + k));
    peak = std::max<uint64_t>(peak, st.peak_bytes + w);
  }
  return peak;
}

struct BudgetResult {
  bool ok = false;
  std::vector<float> output;
  compiler::CompileResult compiled;
  PlanRun run;
};

// Compile `m` at `budget` and run it in exactly `budget` bytes of fast memory.
inline BudgetResult run_at_budget(const compiler::Model& m, uint64_t budget, const std::vector<uint8_t>& input,
                                  const compiler::CompileOptions& options = {}) {
  BudgetResult r;
  compiler::Budgets b;
  b.fast = budget;
  r.compiled = compiler::compile(m, b, options);
  const std::string at = "at " + std::to_string(budget);
  EXPECT_TRUE(r.compiled.ok()) << at << ": " << r.compiled.error;
  if (!r.compiled.ok()) return r;
  const compiler::FastReport& f = r.compiled.schedule.fast;
  tigris_plan_t plan;
  EXPECT_EQ(tigris_plan_load(r.compiled.plan.data(), static_cast<uint32_t>(r.compiled.plan.size()), &plan), TIGRIS_OK);
  const uint32_t required = tigris_fast_arena_required(&plan);
  EXPECT_LE(required, budget) << at;
  if (required > budget) return r;
  EXPECT_EQ(plan.scheduled_peak, f.scheduled_peak_bytes) << at;
  const uint64_t slow = r.compiled.schedule.slow.peak_bytes + 4096;
  r.run = run_plan(r.compiled.plan, {input}, static_cast<uint32_t>(slow), static_cast<uint32_t>(budget - required));
  EXPECT_EQ(r.run.error, "") << at;
  if (!r.run.error.empty()) return r;
  EXPECT_EQ(r.run.fast_size, budget);
  EXPECT_LE(r.run.fast_peak, budget) << at;
  EXPECT_EQ(r.run.fast_peak, expected_fast_peak(plan)) << at;
  if (options.compression == compiler::Compression::None) {
    EXPECT_EQ(r.run.fast_peak, f.scheduled_peak_bytes) << at;
  }
  EXPECT_EQ(r.run.stats.loads_bytes, f.load_traffic_bytes) << at;
  EXPECT_EQ(r.run.stats.spills_bytes, f.spill_traffic_bytes) << at;
  EXPECT_EQ(r.run.stats.total_tiles, static_cast<uint16_t>(f.tiles)) << at;  // a u16 counter: it wraps
  EXPECT_EQ(r.run.stats.slow_overflow_count, 0u) << at;
  EXPECT_EQ(r.run.stats.slow_peak, r.compiled.schedule.slow.peak_bytes) << at;
  r.output.resize(r.run.outputs.at(0).size() / 4);
  std::memcpy(r.output.data(), r.run.outputs[0].data(), r.output.size() * 4);
  r.ok = true;
  return r;
}

// max |out - ref| <= tol * max |ref|
inline void expect_close(const std::vector<float>& out, const std::vector<float>& ref, double tol,
                         const std::string& what) {
  ASSERT_EQ(out.size(), ref.size()) << what;
  double max_ref = 0, max_err = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    max_ref = std::max(max_ref, static_cast<double>(std::fabs(ref[i])));
    max_err = std::max(max_err, static_cast<double>(std::fabs(out[i] - ref[i])));
  }
  EXPECT_LE(max_err, tol * std::max(max_ref, 1e-6)) << what << ": max error " << max_err << ", max |ref| " << max_ref;
}

}  // namespace tigris::test
