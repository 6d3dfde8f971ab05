// Plans with state: state_required/init, binding into slow, copy-back after the run,
// COPY events and copy_bytes, and the STATE errors of every entry point.
#include "exec_fixture.h"

using namespace exectest;
using tigris::plan::StateDesc;

namespace {

const std::vector<int32_t> kStateShape = {1, 4};

// s_out = s_in + x ; y = relu(s_out). s_in/s_out are a variable kept across runs.
PlanDesc accumulator() {
  PlanDesc p;
  uint16_t x = add_tensor(p, "x", kStateShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t s_in = add_tensor(p, "s_in", kStateShape, TIGRIS_TENSOR_STATE);
  uint16_t s_out = add_tensor(p, "s_out", kStateShape, TIGRIS_TENSOR_STATE);
  uint16_t y = add_tensor(p, "y", kStateShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(p, TIGRIS_OP_ADD, {s_in, x}, {s_out});
  add_op(p, TIGRIS_OP_RELU, {s_out}, {y});
  add_stage(p, {0}, {s_in, x}, {s_out});
  add_stage(p, {1}, {s_out}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  StateDesc st;
  st.input = s_in;
  st.output = s_out;
  st.offset = 8;  // after 8 bytes the plan leaves alone
  const float init[4] = {1, -2, 3, -4};
  st.initial.resize(16);
  memcpy(st.initial.data(), init, 16);
  p.state = {st};
  p.state_bytes = 24;
  p.scheduled_peak = 48;
  return p;
}

struct SRun {
  Loaded plan;
  Arena fast{256}, slow{512};
  tigris_mem_t mem{};
  void* ptrs[4]{};
  Recorder rec;
  KernelLog log;
  tigris_exec_stats_t stats{};
  std::vector<uint8_t> ws;
  float state[6] = {};
  SRun() {
    EXPECT_EQ(load(accumulator(), &plan), TIGRIS_OK);
    EXPECT_EQ(tigris_mem_init(&mem, ptrs, 4, fast.p, 256, slow.p, 512), TIGRIS_MEM_OK);
    tigris_mem_set_trace(&mem, Recorder::fn, &rec);
    ws.resize(tigris_executor_workspace_required(&plan.plan));
  }
  void write(std::vector<float> x) { ASSERT_EQ(tigris_input_write(&plan.plan, &mem, 0, x.data(), 16), TIGRIS_OK); }
  tigris_exec_error_t run(void* s, size_t n) {
    return tigris_run_with_state(&plan.plan, &mem, test_kernel, &log, &stats, ws.data(), ws.size(), s, n);
  }
};

TEST(ExecState, RequiredAndInit) {
  SRun r;
  EXPECT_EQ(tigris_state_required(&r.plan.plan), 24u);
  EXPECT_EQ(tigris_state_required(nullptr), 0u);
  EXPECT_EQ(tigris_state_init(&r.plan.plan, nullptr, 24), TIGRIS_EXEC_ERR_STATE);
  EXPECT_EQ(tigris_state_init(&r.plan.plan, r.state, 23), TIGRIS_EXEC_ERR_STATE);
  EXPECT_EQ(tigris_state_init(nullptr, r.state, 24), TIGRIS_EXEC_ERR_NULL);
  for (float& f : r.state) f = 99.0f;
  ASSERT_EQ(tigris_state_init(&r.plan.plan, r.state, 24), TIGRIS_EXEC_OK);
  const float expect[6] = {0, 0, 1, -2, 3, -4};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(r.state[i], expect[i]) << i;
}

TEST(ExecState, RunsAccumulateIntoTheBufferAndInitResets) {
  SRun r;
  ASSERT_EQ(tigris_state_init(&r.plan.plan, r.state, sizeof(r.state)), TIGRIS_EXEC_OK);
  r.write({10, 20, 30, 40});
  r.rec.events.clear();
  ASSERT_EQ(r.run(r.state, sizeof(r.state)), TIGRIS_EXEC_OK);
  float y[4];
  ASSERT_EQ(tigris_output_read(&r.plan.plan, &r.mem, 3, y, 16), TIGRIS_OK);
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{11, 18, 33, 36}));
  EXPECT_EQ(std::vector<float>(r.state + 2, r.state + 6), (std::vector<float>{11, 18, 33, 36}));
  EXPECT_EQ(r.stats.copy_bytes, 32u);
  std::vector<tigris_trace_event_t> copies;
  for (const auto& e : r.rec.events)
    if (e.kind == TIGRIS_TRACE_COPY) copies.push_back(e);
  ASSERT_EQ(copies.size(), 2u);
  EXPECT_EQ(r.rec.events[0].kind, TIGRIS_TRACE_ALLOC);  // s_in bound in slow before the first stage
  EXPECT_EQ(r.rec.events[1].kind, TIGRIS_TRACE_COPY);
  const auto& in = copies.front();
  EXPECT_EQ(in.tensor, 1u);
  EXPECT_EQ(in.pool, TIGRIS_TRACE_POOL_SLOW);
  EXPECT_EQ(in.src_offset, 8u);
  EXPECT_EQ(in.bytes, 16u);
  const auto& out = copies.back();
  EXPECT_EQ(r.rec.events.back().kind, TIGRIS_TRACE_COPY);  // copied back after the last stage
  EXPECT_EQ(out.tensor, 2u);
  EXPECT_EQ(out.pool, TIGRIS_TRACE_POOL_NONE);
  EXPECT_EQ(out.offset, 8u);

  r.write({-100, 1, 1, 1});
  ASSERT_EQ(r.run(r.state, sizeof(r.state)), TIGRIS_EXEC_OK);
  EXPECT_EQ(std::vector<float>(r.state + 2, r.state + 6), (std::vector<float>{-89, 19, 34, 37}));
  ASSERT_EQ(tigris_output_read(&r.plan.plan, &r.mem, 3, y, 16), TIGRIS_OK);
  EXPECT_EQ(std::vector<float>(y, y + 4), (std::vector<float>{0, 19, 34, 37}));

  ASSERT_EQ(tigris_state_init(&r.plan.plan, r.state, sizeof(r.state)), TIGRIS_EXEC_OK);
  EXPECT_EQ(std::vector<float>(r.state + 2, r.state + 6), (std::vector<float>{1, -2, 3, -4}));
}

TEST(ExecState, FailedRunLeavesTheBufferUnchanged) {
  SRun r;
  ASSERT_EQ(tigris_state_init(&r.plan.plan, r.state, sizeof(r.state)), TIGRIS_EXEC_OK);
  r.write({10, 20, 30, 40});
  r.log.fail_at = 1;
  EXPECT_EQ(r.run(r.state, sizeof(r.state)), TIGRIS_EXEC_ERR_KERNEL);
  EXPECT_EQ(std::vector<float>(r.state + 2, r.state + 6), (std::vector<float>{1, -2, 3, -4}));
}

TEST(ExecState, StateErrorsOnEveryEntryPoint) {
  SRun r;
  r.write({1, 2, 3, 4});
  tigris_exec_stats_t stats;
  EXPECT_EQ(tigris_run(&r.plan.plan, &r.mem, test_kernel, &r.log, &stats), TIGRIS_EXEC_ERR_STATE);
  tigris_executor_workspace_t ws;
  EXPECT_EQ(tigris_run_with_workspace(&r.plan.plan, &r.mem, test_kernel, &r.log, &stats, &ws), TIGRIS_EXEC_ERR_STATE);
  EXPECT_EQ(
      tigris_run_with_workspace_buffer(&r.plan.plan, &r.mem, test_kernel, &r.log, &stats, r.ws.data(), r.ws.size()),
      TIGRIS_EXEC_ERR_STATE);
  EXPECT_EQ(r.run(nullptr, 24), TIGRIS_EXEC_ERR_STATE);
  EXPECT_EQ(r.run(r.state, 23), TIGRIS_EXEC_ERR_STATE);
  EXPECT_TRUE(r.log.ops.empty());
  EXPECT_EQ(r.mem.fast_used, 0u);
}

}  // namespace
