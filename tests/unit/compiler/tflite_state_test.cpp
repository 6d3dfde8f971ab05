// TFLite variables as the plan's state: resource variables (VAR_HANDLE, READ_VARIABLE,
// ASSIGN_VARIABLE, CALL_ONCE's initial values) through the frontend, the scheduler and the
// STATE section, run in sequence on one state buffer at 16M and at the floor. Values are
// derived by hand (compiler_support/tflite_accumulator.h).
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "compiler_support/tflite_accumulator.h"
#include "tigris_loader.h"

namespace {

using namespace tigris;
using tigris::test::floats;

compiler::CompileResult compile_at(const std::vector<uint8_t>& model, uint64_t fast) {
  compiler::Model m = compiler::load_model_bytes(model, "acc.tflite");
  compiler::Budgets b;
  b.fast = fast;
  return compiler::compile(m, b);
}

// Two runs on one state buffer, then a fresh buffer (tigris_state_init) starts over.
void expect_accumulates(const compiler::CompileResult& c) {
  ASSERT_TRUE(c.ok()) << c.error;
  std::vector<uint8_t> state;
  test::PlanRun r = test::run_plan(c.plan, {floats({10, 20, 30, 40})}, 1 << 16, 0, &state);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), (std::vector<float>{11, 18, 33, 36}));
  ASSERT_EQ(state.size(), 16u);
  EXPECT_EQ(test::values_of<float>(state), (std::vector<float>{11, 18, 33, 36}));
  r = test::run_plan(c.plan, {floats({-100, 1, 1, 1})}, 1 << 16, 0, &state);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), (std::vector<float>{0, 19, 34, 37}));
  EXPECT_EQ(test::values_of<float>(state), (std::vector<float>{-89, 19, 34, 37}));
  std::vector<uint8_t> fresh;
  r = test::run_plan(c.plan, {floats({0, 0, 0, 0})}, 1 << 16, 0, &fresh);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), (std::vector<float>{1, 0, 3, 0}));
}

TEST(TfliteState, ResourceVariableAccumulatesAcrossRuns) {
  const compiler::CompileResult c = compile_at(test::tflite_accumulator_model(), 16u << 20);
  expect_accumulates(c);
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(c.plan.data(), static_cast<uint32_t>(c.plan.size()), &plan), TIGRIS_OK);
  EXPECT_EQ(tigris_state_required(&plan), 16u);
  ASSERT_EQ(plan.num_state, 1u);
  EXPECT_TRUE(plan.tensors[plan.state_entries[0].input].flags & TIGRIS_TENSOR_STATE);
  EXPECT_NE(plan.state_entries[0].output, TIGRIS_NONE);
}

// y = relu(s) + x at the floor: several stages, the variable loaded from and spilled to slow
// memory between them. Runs: {11, 18, 33, 36} + x1 = {21, 38, 63, 76}; then s = {-89, 19, 34,
// 37}, y = {0, 19, 34, 37} + x2 = {-100, 20, 35, 38}.
TEST(TfliteState, ResourceVariableAcrossStagesAtTheFloor) {
  const std::vector<uint8_t> model = test::tflite_accumulator_model(true, true);
  compiler::Model m = compiler::load_model_bytes(model, "acc.tflite");
  compiler::Budgets b;
  b.fast = 16u << 20;
  const uint64_t floor = compiler::schedule(m, b).fast.minimum_for_partition_bytes;
  ASSERT_GT(floor, 0u);
  const compiler::CompileResult c = compile_at(model, floor);
  ASSERT_TRUE(c.ok()) << c.error;
  EXPECT_GT(c.schedule.fast.stages, 1u);
  std::vector<uint8_t> state;
  test::PlanRun r = test::run_plan(c.plan, {floats({10, 20, 30, 40})}, 1 << 16, 0, &state);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), (std::vector<float>{21, 38, 63, 76}));
  r = test::run_plan(c.plan, {floats({-100, 1, 1, 1})}, 1 << 16, 0, &state);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), (std::vector<float>{-100, 20, 35, 38}));
  EXPECT_EQ(test::values_of<float>(state), (std::vector<float>{-89, 19, 34, 37}));
  EXPECT_GT(r.stats.copy_bytes, 0u);
}

// Without CALL_ONCE a variable starts at TensorFlow Lite Micro's reset value, zero.
TEST(TfliteState, VariableWithoutInitialValueStartsAtZero) {
  const compiler::CompileResult c = compile_at(test::tflite_accumulator_model(false), 16u << 20);
  ASSERT_TRUE(c.ok()) << c.error;
  std::vector<uint8_t> state;
  test::PlanRun r = test::run_plan(c.plan, {floats({10, -20, 30, 40})}, 1 << 16, 0, &state);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), (std::vector<float>{10, 0, 30, 40}));
  r = test::run_plan(c.plan, {floats({1, 1, 1, 1})}, 1 << 16, 0, &state);
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), (std::vector<float>{11, 0, 31, 41}));
}

}  // namespace
