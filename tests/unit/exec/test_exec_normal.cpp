// Executor, normal path: multi-stage plans that load, spill, compact and overflow to slow,
// with outputs, stats and trace sequences checked; argument, workspace and memory errors.
#include "exec_fixture.h"

using namespace exectest;

namespace {


// x -> a = relu(x) | b = a + a | y = b - x  (y = |x|), one op per stage.
PlanDesc three_stage_plan() {
  PlanDesc p;
  p.model_name = "three";
  uint16_t x = add_tensor(p, "x", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t a = add_tensor(p, "a", kShape);
  uint16_t b = add_tensor(p, "b", kShape);
  uint16_t y = add_tensor(p, "y", kShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(p, TIGRIS_OP_RELU, {x}, {a});
  add_op(p, TIGRIS_OP_ADD, {a, a}, {b});
  add_op(p, TIGRIS_OP_SUB, {b, x}, {y});
  add_stage(p, {0}, {x}, {a});
  add_stage(p, {1}, {a}, {b});
  add_stage(p, {2}, {b, x}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  p.budget = 3 * U;
  p.scheduled_peak = 3 * U;
  return p;
}

using NRun = PlanRun;

std::vector<float> abs_of(const std::vector<float>& x) {
  std::vector<float> y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = std::fabs(x[i]);
  return y;
}

TEST(ExecNormal, ThreeStagesLoadSpillCompactSlow) {
  NRun r(three_stage_plan(), 3 * U, 3 * U);
  const std::vector<float> x = iota(16, -7.5f, 1.0f);
  r.write(0, x);
  ASSERT_TRUE(r.in_slow(0));  // a multi-stage plan reads its inputs from slow
  r.rec.events.clear();
  ASSERT_EQ(r.run(), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.read(3, 16), abs_of(x));
  EXPECT_TRUE(r.in_slow(3));
  EXPECT_EQ(r.log.ops, (std::vector<uint16_t>{0, 1, 2}));
  EXPECT_EQ(r.stats.stages_normal, 3u);
  EXPECT_EQ(r.stats.loads_bytes, 4 * U);   // x, a, b, x
  EXPECT_EQ(r.stats.spills_bytes, 3 * U);  // a, b, y
  EXPECT_EQ(r.stats.compactions, 2u);      // slow, after stages 1 and 2
  EXPECT_EQ(r.stats.slow_peak, 3 * U);
  EXPECT_EQ(r.stats.slow_overflow_count, 0u);
  EXPECT_EQ(r.stats.weight_bytes, 0u);
  EXPECT_EQ(r.mem.fast_used, 0u);
  EXPECT_EQ(r.mem.fast_reserved, 0u);
  EXPECT_EQ(r.mem.fast_peak, 3 * U);
  EXPECT_EQ(r.mem.slow_used, U);  // only y is left
  EXPECT_EQ(r.ptrs[0], nullptr);  // the input was consumed (its last reader ran)
  EXPECT_EQ(r.ptrs[1], nullptr);
  EXPECT_EQ(r.ptrs[2], nullptr);
  EXPECT_EQ(r.mem.stats, nullptr);

  using K = std::vector<uint8_t>;
  const K expect = {TIGRIS_TRACE_STAGE_BEGIN, TIGRIS_TRACE_LOAD,      TIGRIS_TRACE_ALLOC,     TIGRIS_TRACE_OP,
                    TIGRIS_TRACE_SPILL,       TIGRIS_TRACE_RESET,     TIGRIS_TRACE_STAGE_END, TIGRIS_TRACE_STAGE_BEGIN,
                    TIGRIS_TRACE_LOAD,        TIGRIS_TRACE_ALLOC,     TIGRIS_TRACE_OP,        TIGRIS_TRACE_SPILL,
                    TIGRIS_TRACE_RESET,       TIGRIS_TRACE_STAGE_END, TIGRIS_TRACE_MOVE,      TIGRIS_TRACE_STAGE_BEGIN,
                    TIGRIS_TRACE_LOAD,        TIGRIS_TRACE_LOAD,      TIGRIS_TRACE_ALLOC,     TIGRIS_TRACE_OP,
                    TIGRIS_TRACE_SPILL,       TIGRIS_TRACE_RESET,     TIGRIS_TRACE_STAGE_END, TIGRIS_TRACE_MOVE};
  ASSERT_EQ(r.rec.kinds(), expect) << kind_names(r.rec.kinds());

  const auto& ev = r.rec.events;
  EXPECT_EQ(ev[0].path, TIGRIS_PATH_NORMAL);
  EXPECT_EQ(ev[0].stage, 0u);
  EXPECT_EQ(ev[0].pool, TIGRIS_TRACE_POOL_NONE);
  EXPECT_EQ(ev[1].tensor, 0u);  // LOAD x: slow 0 -> fast 0
  EXPECT_EQ(ev[1].pool, TIGRIS_TRACE_POOL_FAST);
  EXPECT_EQ(ev[1].src_offset, 0u);
  EXPECT_EQ(ev[1].offset, 0u);
  EXPECT_EQ(ev[1].bytes, U);
  EXPECT_EQ(ev[1].fast_used, U);
  EXPECT_EQ(ev[2].tensor, 1u);  // ALLOC a in fast at U
  EXPECT_EQ(ev[2].offset, U);
  EXPECT_EQ(ev[3].op, 0u);
  EXPECT_EQ(ev[3].tensor, 0xFFFFu);
  EXPECT_EQ(ev[4].tensor, 1u);  // SPILL a: fast U -> slow U
  EXPECT_EQ(ev[4].offset, U);
  EXPECT_EQ(ev[4].src_offset, U);
  EXPECT_EQ(ev[4].slow_used, 2 * U);
  EXPECT_EQ(ev[5].fast_used, 0u);
  EXPECT_EQ(ev[5].bytes, 2 * U);
  EXPECT_EQ(ev[6].path, 0xFFu);
  EXPECT_EQ(ev[7].stage, 1u);
  EXPECT_EQ(ev[14].pool, TIGRIS_TRACE_POOL_SLOW);  // b slides over the dead a
  EXPECT_EQ(ev[14].tensor, 2u);
  EXPECT_EQ(ev[14].src_offset, 2 * U);
  EXPECT_EQ(ev[14].offset, U);
  EXPECT_EQ(ev[14].stage, 0xFFFFu);  // between stages
  EXPECT_EQ(ev[16].tensor, 2u);      // stage 2 loads b, then x
  EXPECT_EQ(ev[17].tensor, 0u);
  EXPECT_EQ(ev[23].tensor, 3u);  // y slides to the start of slow
  EXPECT_EQ(ev[23].offset, 0u);
  for (const auto& e : ev) {
    EXPECT_EQ(e.row0, -1);
    EXPECT_EQ(e.col1, -1);
    EXPECT_EQ(e.pad1, 0xFFFFu);
  }
}

// One stage of three ReLUs in a 3-tensor fast arena: the third output fits only after
// the dead input and first intermediate are compacted away.
TEST(ExecNormal, RepeatedRunsUseTheSameSlowMemory) {
  NRun r(three_stage_plan(), 3 * U, 4 * U);
  for (int i = 0; i < 3; ++i) {
    const std::vector<float> x = iota(16, -8.0f + (float)i, 1.0f);
    r.write(0, x);
    EXPECT_EQ(r.ptrs[0], r.slow.p + (i == 0 ? 0 : U));  // after the previous run's output
    ASSERT_EQ(r.run(), TIGRIS_EXEC_OK);
    EXPECT_EQ(r.read(3, 16), abs_of(x));
    // The previous output is dropped when the run starts, so the peak does not grow.
    EXPECT_EQ(r.stats.slow_peak, 3 * U) << i;
    EXPECT_EQ(r.ptrs[3], r.slow.p);
  }
}

TEST(ExecNormal, CompactsFastWhenAnOutputDoesNotFit) {
  PlanDesc p;
  uint16_t x = add_tensor(p, "x", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t r1 = add_tensor(p, "r1", kShape);
  uint16_t r2 = add_tensor(p, "r2", kShape);
  uint16_t r3 = add_tensor(p, "r3", kShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(p, TIGRIS_OP_RELU, {x}, {r1});
  add_op(p, TIGRIS_OP_RELU, {r1}, {r2});
  add_op(p, TIGRIS_OP_RELU, {r2}, {r3});
  add_stage(p, {0, 1, 2}, {x}, {r3});
  p.model_inputs = {x};
  p.model_outputs = {r3};
  p.scheduled_peak = 3 * U;
  NRun r(p, 3 * U, 3 * U);
  const std::vector<float> xv = iota(16, -3.0f, 0.5f);
  r.write_slow(x, xv);  // placed in slow: not read in place
  r.rec.events.clear();
  ASSERT_EQ(r.run(), TIGRIS_EXEC_OK);
  std::vector<float> expect(16);
  for (size_t i = 0; i < 16; ++i) expect[i] = xv[i] > 0 ? xv[i] : 0.0f;
  EXPECT_EQ(r.read(r3, 16), expect);
  using K = std::vector<uint8_t>;
  const K kinds = {TIGRIS_TRACE_STAGE_BEGIN, TIGRIS_TRACE_LOAD,  TIGRIS_TRACE_ALLOC, TIGRIS_TRACE_OP,
                   TIGRIS_TRACE_ALLOC,       TIGRIS_TRACE_OP,    TIGRIS_TRACE_MOVE,  TIGRIS_TRACE_ALLOC,
                   TIGRIS_TRACE_OP,          TIGRIS_TRACE_SPILL, TIGRIS_TRACE_RESET, TIGRIS_TRACE_STAGE_END,
                   TIGRIS_TRACE_MOVE};
  ASSERT_EQ(r.rec.kinds(), kinds) << kind_names(r.rec.kinds());
  const auto& move = r.rec.events[6];
  EXPECT_EQ(move.pool, TIGRIS_TRACE_POOL_FAST);
  EXPECT_EQ(move.tensor, r2);
  EXPECT_EQ(move.src_offset, 2 * U);
  EXPECT_EQ(move.offset, 0u);
  EXPECT_EQ(r.rec.events[7].offset, U);  // r3 right after the moved r2
  EXPECT_EQ(r.stats.compactions, 2u);    // fast once, slow once (x released)
  EXPECT_EQ(r.stats.slow_overflow_count, 0u);
  EXPECT_EQ(r.mem.fast_peak, 3 * U);
  EXPECT_EQ(r.log.output_in_fast, (std::vector<bool>{true, true, true}));
}

// y = x1 + x2 with only room for the two inputs: y overflows to slow; z = relu(y) then fits.
PlanDesc overflow_plan() {
  PlanDesc p;
  uint16_t x1 = add_tensor(p, "x1", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t x2 = add_tensor(p, "x2", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(p, "y", kShape);
  uint16_t z = add_tensor(p, "z", kShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(p, TIGRIS_OP_ADD, {x1, x2}, {y});
  add_op(p, TIGRIS_OP_RELU, {y}, {z});
  add_stage(p, {0, 1}, {x1, x2}, {z});
  p.model_inputs = {x1, x2};
  p.model_outputs = {z};
  p.scheduled_peak = 2 * U;
  return p;
}

TEST(ExecNormal, OverflowsToSlowWhenCompactionCannotHelp) {
  NRun r(overflow_plan(), 2 * U, 4 * U);
  const std::vector<float> a = iota(16, -4.0f, 1.0f), b = iota(16, 1.0f, -0.25f);
  r.write_slow(0, a);
  r.write_slow(1, b);
  r.rec.events.clear();
  ASSERT_EQ(r.run(), TIGRIS_EXEC_OK);
  std::vector<float> expect(16);
  for (size_t i = 0; i < 16; ++i) expect[i] = std::max(a[i] + b[i], 0.0f);
  EXPECT_EQ(r.read(3, 16), expect);
  EXPECT_EQ(r.stats.slow_overflow_count, 1u);
  EXPECT_EQ(r.stats.slow_overflow_bytes, U);
  EXPECT_EQ(r.log.output_in_fast, (std::vector<bool>{false, true}));
  EXPECT_EQ(r.stats.spills_bytes, U);  // z only: y never was in fast
  EXPECT_EQ(r.stats.loads_bytes, 2 * U);
  EXPECT_EQ(r.stats.slow_peak, 4 * U);  // x1, x2, y, then z
  // ALLOC y in slow, then z in fast after the fast pool was compacted empty.
  std::vector<tigris_trace_event_t> allocs;
  for (const auto& e : r.rec.events)
    if (e.kind == TIGRIS_TRACE_ALLOC) allocs.push_back(e);
  ASSERT_EQ(allocs.size(), 2u);
  EXPECT_EQ(allocs[0].tensor, 2u);
  EXPECT_EQ(allocs[0].pool, TIGRIS_TRACE_POOL_SLOW);
  EXPECT_EQ(allocs[1].tensor, 3u);
  EXPECT_EQ(allocs[1].pool, TIGRIS_TRACE_POOL_FAST);
  EXPECT_EQ(allocs[1].offset, 0u);
  EXPECT_EQ(r.ptrs[2], nullptr);  // the overflowed intermediate is released
  EXPECT_EQ(r.mem.slow_used, U);  // only z remains after the slow compaction
}

TEST(ExecNormal, MemWhenNeitherPoolHasRoom) {
  NRun r(overflow_plan(), 2 * U, 2 * U);
  r.write_slow(0, iota(16, 0, 1));
  r.write_slow(1, iota(16, 0, 1));
  void *x1 = r.ptrs[0], *x2 = r.ptrs[1];
  ASSERT_EQ(r.run(), TIGRIS_EXEC_ERR_MEM);
  EXPECT_TRUE(r.log.ops.empty());
  EXPECT_EQ(r.stats.stages_normal, 0u);
  EXPECT_EQ(r.mem.fast_used, 0u);
  EXPECT_EQ(r.mem.fast_reserved, 0u);
  EXPECT_EQ(r.ptrs[0], x1);  // inputs keep their slow buffers
  EXPECT_EQ(r.ptrs[1], x2);
  EXPECT_EQ(r.ptrs[2], nullptr);
  EXPECT_EQ(r.mem.stats, nullptr);
}

TEST(ExecNormal, UpFrontCheckRefusesBeforeAnyStageAndLeavesMemUntouched) {
  PlanDesc d = three_stage_plan();
  d.scheduled_peak = 3 * U + 1;
  NRun r(d, 3 * U, 4 * U);
  r.write(0, iota(16, 1, 1));
  const tigris_mem_t before = r.mem;
  const std::vector<void*> ptrs_before = r.ptrs;
  const std::vector<uint8_t> fast_before(r.fast.p, r.fast.p + r.fast.size);
  const std::vector<uint8_t> slow_before(r.slow.p, r.slow.p + r.slow.size);
  r.rec.events.clear();
  memset(&r.stats, 0x77, sizeof(r.stats));
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_MEM);
  EXPECT_TRUE(r.log.ops.empty());
  EXPECT_TRUE(r.rec.events.empty());
  EXPECT_EQ(memcmp(&before, &r.mem, sizeof(before)), 0);
  EXPECT_EQ(ptrs_before, r.ptrs);
  EXPECT_EQ(fast_before, std::vector<uint8_t>(r.fast.p, r.fast.p + r.fast.size));
  EXPECT_EQ(slow_before, std::vector<uint8_t>(r.slow.p, r.slow.p + r.slow.size));
  tigris_exec_stats_t zero{};
  EXPECT_EQ(memcmp(&zero, &r.stats, sizeof(zero)), 0);  // stats zeroed on every path
}

TEST(ExecNormal, UpFrontCheckCountsFromTheCallersFillLevel) {
  NRun r(three_stage_plan(), 4 * U, 4 * U);
  r.write(0, iota(16, 1, 1));
  r.mem.fast_used = U + 1;  // caller data: the arena above it is one byte short
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_MEM);
  EXPECT_TRUE(r.log.ops.empty());
  r.mem.fast_used = U;
  r.mem.fast_reserved = U;
  EXPECT_EQ(r.run(), TIGRIS_EXEC_OK);
}

TEST(ExecNormal, SchemaBeforeElevenIsNotCheckedUpFront) {
  PlanDesc d = three_stage_plan();
  d.version = 9;
  d.budget = 100 * U;  // an earlier plan states no peak; its budget is not a check
  NRun r(d, 3 * U, 4 * U);
  r.write(0, iota(16, -2, 0.25f));
  EXPECT_EQ(r.run(), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.read(3, 16), abs_of(iota(16, -2, 0.25f)));
}

TEST(ExecNormal, CallerDataBelowTheFloorSurvivesAndFillLevelIsRestored) {
  NRun r(three_stage_plan(), 5 * U, 4 * U);
  r.write(0, iota(16, -1, 0.125f));
  memset(r.fast.p, 0x3C, 2 * U);
  r.mem.fast_used = 2 * U;
  r.mem.fast_reserved = U;
  ASSERT_EQ(r.run(), TIGRIS_EXEC_OK);
  for (uint32_t i = 0; i < 2 * U; ++i) ASSERT_EQ(r.fast.p[i], 0x3C) << i;
  EXPECT_EQ(r.mem.fast_used, 2 * U);
  EXPECT_EQ(r.mem.fast_reserved, U);
  EXPECT_EQ(r.mem.fast_peak, 5 * U);
  EXPECT_EQ(r.read(3, 16), abs_of(iota(16, -1, 0.125f)));
  for (const auto& e : r.rec.events)
    if (e.kind == TIGRIS_TRACE_RESET) {
      EXPECT_EQ(e.fast_used, 2 * U);
    }
}

TEST(ExecNormal, KernelErrorRestoresArenaAndAllowsAnotherRun) {
  NRun r(three_stage_plan(), 3 * U, 6 * U);
  const std::vector<float> x = iota(16, -5, 0.75f);
  r.write(0, x);
  r.log.fail_at = 1;
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_KERNEL);
  EXPECT_EQ(r.log.ops, (std::vector<uint16_t>{0, 1}));
  EXPECT_EQ(r.stats.stages_normal, 1u);
  EXPECT_EQ(r.mem.fast_used, 0u);
  EXPECT_EQ(r.mem.fast_reserved, 0u);
  for (void* p : r.ptrs) {
    const uint8_t* b = (const uint8_t*)p;
    EXPECT_FALSE(b >= r.fast.p && b < r.fast.p + r.fast.size);  // nothing points into the arena
  }
  EXPECT_TRUE(r.in_slow(0));  // the input is still there
  r.log.fail_at = -1;
  ASSERT_EQ(r.run(), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.read(3, 16), abs_of(x));
}

TEST(ExecNormal, ArgumentErrorsZeroStats) {
  NRun r(three_stage_plan(), 3 * U, 4 * U);
  r.write(0, iota(16, 1, 1));
  tigris_exec_stats_t stats;
  memset(&stats, 0x55, sizeof(stats));
  tigris_exec_stats_t zero{};
  EXPECT_EQ(tigris_run(nullptr, &r.mem, test_kernel, &r.log, &stats), TIGRIS_EXEC_ERR_NULL);
  EXPECT_EQ(memcmp(&zero, &stats, sizeof(zero)), 0);
  EXPECT_EQ(tigris_run(&r.plan.plan, nullptr, test_kernel, &r.log, &stats), TIGRIS_EXEC_ERR_NULL);
  EXPECT_EQ(tigris_run(&r.plan.plan, &r.mem, nullptr, &r.log, &stats), TIGRIS_EXEC_ERR_NULL);
  EXPECT_EQ(tigris_run_with_workspace(&r.plan.plan, &r.mem, test_kernel, &r.log, &stats, nullptr),
            TIGRIS_EXEC_ERR_WORKSPACE);
  EXPECT_EQ(tigris_run_with_workspace_buffer(&r.plan.plan, &r.mem, test_kernel, &r.log, &stats, nullptr, 4096),
            TIGRIS_EXEC_ERR_WORKSPACE);
  // No stages.
  tigris_plan_t empty = r.plan.plan;
  tigris_file_header_t header = *empty.header;
  header.num_stages = 0;
  empty.header = &header;
  memset(&stats, 0x55, sizeof(stats));
  EXPECT_EQ(tigris_run(&empty, &r.mem, test_kernel, &r.log, &stats), TIGRIS_EXEC_ERR_NO_STAGES);
  EXPECT_EQ(memcmp(&zero, &stats, sizeof(zero)), 0);
  // A memory manager with fewer tensor slots than the plan.
  tigris_mem_t small = r.mem;
  small.num_tensors = 3;
  EXPECT_EQ(tigris_run(&r.plan.plan, &small, test_kernel, &r.log, nullptr), TIGRIS_EXEC_ERR_MEM);
  // An inconsistent fill level.
  tigris_mem_t bad = r.mem;
  bad.fast_reserved = bad.fast_used + A;
  EXPECT_EQ(tigris_run(&r.plan.plan, &bad, test_kernel, &r.log, nullptr), TIGRIS_EXEC_ERR_MEM);
  EXPECT_TRUE(r.log.ops.empty());
  // Stats may be NULL.
  EXPECT_EQ(tigris_run(&r.plan.plan, &r.mem, test_kernel, &r.log, nullptr), TIGRIS_EXEC_OK);
}

TEST(ExecWorkspace, PlanSizedBufferAtAnyAlignment) {
  NRun r(three_stage_plan(), 3 * U, 4 * U);
  const size_t need = tigris_executor_workspace_required(&r.plan.plan);
  // 4 tensors, 2 inputs and 1 output at most per stage, no chains or control flow.
  EXPECT_EQ(need, sizeof(void*) * (2 + 1) + 4u * (2u * 4) + 2u * (2u * 4) + 64u);
  EXPECT_LE(need, tigris_executor_workspace_size());
  EXPECT_EQ(tigris_executor_workspace_size(), sizeof(tigris_executor_workspace_t));
  EXPECT_EQ(tigris_executor_workspace_required(nullptr), 0u);
  std::vector<uint8_t> buf(need + 16);
  const std::vector<float> x = iota(16, -3, 0.5f);
  for (size_t misalign : {0u, 1u, 3u, 7u}) {
    r.write(0, x);
    ASSERT_EQ(tigris_run_with_workspace_buffer(&r.plan.plan, &r.mem, test_kernel, &r.log, &r.stats,
                                               buf.data() + misalign, need),
              TIGRIS_EXEC_OK)
        << misalign;
    EXPECT_EQ(r.read(3, 16), abs_of(x));
  }
  r.write(0, x);
  EXPECT_EQ(
      tigris_run_with_workspace_buffer(&r.plan.plan, &r.mem, test_kernel, &r.log, &r.stats, buf.data() + 1, need - 1),
      TIGRIS_EXEC_ERR_WORKSPACE);
  tigris_executor_workspace_t ws;
  ASSERT_EQ(tigris_run_with_workspace(&r.plan.plan, &r.mem, test_kernel, &r.log, &r.stats, &ws), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.read(3, 16), abs_of(x));
  r.write(0, x);
  EXPECT_EQ(tigris_run_with_state(&r.plan.plan, &r.mem, test_kernel, &r.log, &r.stats, buf.data(), need, nullptr, 0),
            TIGRIS_EXEC_OK);  // a plan without state runs here too
}

TEST(ExecMisc, PlanDataDtype) {
  PlanDesc d = three_stage_plan();
  Loaded f;
  ASSERT_EQ(load(d, &f), TIGRIS_OK);
  EXPECT_EQ(tigris_plan_data_dtype(&f.plan), TIGRIS_DTYPE_FLOAT32);
  EXPECT_EQ(tigris_plan_data_dtype(nullptr), TIGRIS_DTYPE_FLOAT32);
  // A plan without state: nothing to write, but a NULL buffer is still refused.
  EXPECT_EQ(tigris_state_required(&f.plan), 0u);
  uint8_t byte = 0x11;
  EXPECT_EQ(tigris_state_init(&f.plan, &byte, 0), TIGRIS_EXEC_OK);
  EXPECT_EQ(byte, 0x11);
  EXPECT_EQ(tigris_state_init(&f.plan, nullptr, 0), TIGRIS_EXEC_ERR_STATE);
}

}  // namespace
