// Helpers for the TFLite end-to-end tests: reading the TFLite Micro reference folders
// (<models>/refs/<model>.tflm/, see TFLM-REFERENCES.md there), compiling a model at a
// budget and running it on the host runtime (int8 plans on the int8 dispatcher).
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "compiler/api.h"
#include "compiler_support/npy.h"
#include "compiler_support/plan_runner.h"
#include "tests/unit/tflite/test_models.h"  // models_dir(), tflite_path()

namespace tigris::test {

inline std::string zoo(const std::string& file) { return models_dir() + "/zoo/" + file; }
inline std::string tflm_dir(const std::string& model) { return models_dir() + "/refs/" + model + ".tflm/"; }

// input_<k>.npy / output_<k>.npy pairs present in the model's reference folder.
inline int tflm_cases(const std::string& model) {
  int k = 0;
  while (std::filesystem::exists(tflm_dir(model) + "input_" + std::to_string(k) + ".npy") &&
         std::filesystem::exists(tflm_dir(model) + "output_" + std::to_string(k) + ".npy"))
    ++k;
  return k;
}

struct CompiledRun {
  compiler::CompileResult compile;
  PlanRun run;
};

// Compile at `fast` bytes and run once; the fast arena is exactly the plan's requirement.
inline CompiledRun compile_and_run(const compiler::Model& m, uint64_t fast, const std::vector<uint8_t>& input) {
  CompiledRun r;
  compiler::Budgets b;
  b.fast = fast;
  r.compile = compiler::compile(m, b);
  if (!r.compile.ok()) {
    r.run.error = "compile: " + r.compile.error;
    return r;
  }
  uint64_t slow = r.compile.schedule.slow.peak_bytes + input.size() + (1u << 20);
  r.run = run_plan(r.compile.plan, {input}, static_cast<uint32_t>(slow));
  return r;
}

// Budgets below the untiled peak, each 3/4 of the last, while a plan fits (at most `count`): stages are
// banded or chained there; then the scheduler's floor (minimum_for_partition_bytes) when it
// is lower still.
inline std::vector<uint64_t> shrinking_budgets(const compiler::Model& m, int count = 4) {
  compiler::Budgets b;
  b.fast = 64u << 20;
  uint64_t peak = compiler::schedule(m, b).fast.scheduled_peak_bytes;
  std::vector<uint64_t> out;
  for (uint64_t budget = peak * 3 / 4; budget >= 1024 && static_cast<int>(out.size()) < count;
       budget = budget * 3 / 4) {
    b.fast = budget;
    compiler::ScheduleResult s = compiler::schedule(m, b);
    if (!s.fast.fits) break;
    out.push_back(budget);
  }
  // And the scheduler's floor, the tightest budget it plans for, when below those.
  b.fast = 64u << 20;
  uint64_t floor = compiler::schedule(m, b).fast.minimum_for_partition_bytes;
  b.fast = floor;
  if (floor > 0 && floor < (out.empty() ? peak : out.back()) && compiler::schedule(m, b).fast.fits)
    out.push_back(floor);
  return out;
}

// Stages and how many of them are banded or chained, of a compiled plan.
struct PlanShape {
  size_t stages = 0, tiled = 0;
};
inline PlanShape shape_of(const compiler::CompileResult& c) {
  return {c.schedule.stages.size(), static_cast<size_t>(c.schedule.fast.stages_tileable)};
}

}  // namespace tigris::test
