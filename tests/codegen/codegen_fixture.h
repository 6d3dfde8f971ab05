// Shared pieces of the codegen tests: plans written with the plan writer or compiled from
// the demo model, building generated C with the host compiler, inputs and byte files.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "cli/cli_harness.h"
#include "cli/float_bytes.h"
#include "cli/test_plans.h"

namespace tigris::codegentest {

using namespace tigris::clitest;

// Builds C sources with the host C compiler as a firmware author would: C99, pedantic,
// every warning an error, against the runtime archive and nothing from C++.
inline CliResult build_c(const std::vector<std::string>& sources, const std::string& out, const std::string& cwd,
                         const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args = {"-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-I", TIGRIS_RUNTIME_INCLUDE,
                                   "-I",       cwd};
  args.insert(args.end(), extra.begin(), extra.end());
  args.insert(args.end(), sources.begin(), sources.end());
  if (!out.empty()) {
    args.insert(args.end(), {TIGRIS_RUNTIME_ARCHIVE, "-lm", "-o", out});
  }
  return run_program(TIGRIS_C_COMPILER, args, cwd);
}

// relu_int8_plan (scale 0.5, zero point 1) on -3, -0.5, 1, 2.5: q -5, 0, 3, 6; ReLU clamps q
// at the zero point, so the declared float32 output is 0, 0, 1, 2.5.
inline std::vector<uint8_t> relu8_input() { return floats({-3.0f, -0.5f, 1.0f, 2.5f}); }
inline std::vector<uint8_t> relu8_expected() { return floats({0.0f, 0.0f, 1.0f, 2.5f}); }

inline size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1)) ++n;
  return n;
}

// x int8 [1,4] (declared float32) -> Cast -> f float32 [1,4] -> Exp -> y float32 [1,4]:
// an int8 plan with a float section whose Exp only the float reference runs.
inline plan::PlanDesc int8_exp_plan() {
  plan::PlanDesc p;
  p.model_name = "int8_exp";
  p.budget = 256;
  p.peak = 48;
  p.scheduled_peak = 48;
  plan::QuantDesc q;
  q.scale = 0.5f;
  q.zero_point = 0;
  q.multipliers = {1 << 30};
  q.shifts = {1};
  p.quant = {q};
  plan::TensorDesc x = tensor("x", {1, 4}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_INT8);
  x.quant = 0;
  p.tensors = {x, tensor("f", {1, 4}), tensor("y", {1, 4}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  p.ops = {op(TIGRIS_OP_CAST, "dequantize", {0}, {1}), op(TIGRIS_OP_EXP, "exp", {1}, {2})};
  p.stages = {stage({0, 1}, {0}, {2}, 48)};
  p.model_inputs = {0};
  p.model_outputs = {2};
  return p;
}

}  // namespace tigris::codegentest
