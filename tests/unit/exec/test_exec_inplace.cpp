// Single-stage plans that read their inputs in place: placement at the top of the fast
// arena with the decompression room below, weights decoded into that room, outputs left in
// fast, the floor and the up-front check.
#include "exec_fixture.h"

using namespace exectest;

namespace {

const std::vector<float> kW = iota(16, 0.5f, -0.125f);

// z = relu(x + w), w in an LZ4 block of stage 0 (or no weight at all).
PlanDesc one_stage(bool with_weight) {
  PlanDesc p;
  uint16_t x = add_tensor(p, "x", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(p, "y", kShape);
  uint16_t z = add_tensor(p, "z", kShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  if (with_weight) {
    uint16_t w = add_weight(p, kW);
    add_op(p, TIGRIS_OP_ADD, {x}, {y}, w);
    p.compression = TIGRIS_COMPRESSION_LZ4;
    p.weight_blocks = {{0, 0, 1}};
  } else {
    add_op(p, TIGRIS_OP_RELU, {x}, {y});
  }
  add_op(p, TIGRIS_OP_RELU, {y}, {z});
  add_stage(p, {0, 1}, {x}, {z});
  p.model_inputs = {x};
  p.model_outputs = {z};
  p.scheduled_peak = 3 * U;
  return p;
}

std::vector<float> expected(const std::vector<float>& x, bool with_weight) {
  std::vector<float> z(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    float y = with_weight ? x[i] + kW[i] : std::max(x[i], 0.0f);
    z[i] = std::max(y, 0.0f);
  }
  return z;
}

struct InPlace {
  Loaded plan;
  Arena fast, slow;
  tigris_mem_t mem{};
  void* ptrs[3]{};
  Recorder rec;
  KernelLog log;
  tigris_exec_stats_t stats{};
  InPlace(const PlanDesc& d, uint32_t fast_bytes) : fast(fast_bytes), slow(4 * U) {
    EXPECT_EQ(load(d, &plan), TIGRIS_OK);
    EXPECT_EQ(tigris_mem_init(&mem, ptrs, 3, fast.p, fast_bytes, slow.p, 4 * U), TIGRIS_MEM_OK);
    tigris_mem_set_trace(&mem, Recorder::fn, &rec);
  }
  tigris_error_t write(const std::vector<float>& x) {
    return tigris_input_write(&plan.plan, &mem, 0, x.data(), (uint32_t)(x.size() * 4));
  }
  tigris_exec_error_t run() { return tigris_run(&plan.plan, &mem, test_kernel, &log, &stats); }
  std::vector<float> read() {
    std::vector<float> v(16);
    EXPECT_EQ(tigris_output_read(&plan.plan, &mem, 2, v.data(), 64), TIGRIS_OK);
    return v;
  }
};

TEST(ExecInPlace, PlacementLeavesTheRoomBelowTheInput) {
  InPlace t(one_stage(true), 4 * U);
  EXPECT_EQ(tigris_weight_decompression_overhead(&t.plan.plan), 64u);  // one 64-byte block
  ASSERT_EQ(t.write(iota(16, -1, 0.25f)), TIGRIS_OK);
  EXPECT_EQ(t.ptrs[0], t.fast.p + aligned(64));
  EXPECT_EQ(t.mem.fast_used, aligned(64) + U);
  ASSERT_EQ(t.rec.events.size(), 1u);
  EXPECT_EQ(t.rec.events[0].kind, TIGRIS_TRACE_ALLOC);
  EXPECT_EQ(t.rec.events[0].pool, TIGRIS_TRACE_POOL_FAST);
  EXPECT_EQ(t.rec.events[0].offset, aligned(64));
}

TEST(ExecInPlace, RunsOnInputsWhereTheyAreAndLeavesOutputsInFast) {
  InPlace t(one_stage(true), 4 * U);
  const std::vector<float> x = iota(16, -2, 0.25f);
  ASSERT_EQ(t.write(x), TIGRIS_OK);
  t.rec.events.clear();
  ASSERT_EQ(t.run(), TIGRIS_EXEC_OK);
  using K = std::vector<uint8_t>;
  const K kinds = {TIGRIS_TRACE_STAGE_BEGIN, TIGRIS_TRACE_WEIGHTS, TIGRIS_TRACE_ALLOC, TIGRIS_TRACE_OP,
                   TIGRIS_TRACE_ALLOC,       TIGRIS_TRACE_OP,      TIGRIS_TRACE_RESET, TIGRIS_TRACE_STAGE_END};
  ASSERT_EQ(t.rec.kinds(), kinds) << kind_names(t.rec.kinds());
  EXPECT_EQ(t.rec.events[1].offset, 0u);  // weights decoded into the room at the floor
  EXPECT_EQ(t.rec.events[1].bytes, 64u);
  EXPECT_EQ(t.rec.events[2].offset, 2 * U);  // y after the input
  EXPECT_EQ(t.rec.events[4].offset, 3 * U);  // z after y
  EXPECT_EQ(t.read(), expected(x, true));
  const uint8_t* z = (const uint8_t*)t.ptrs[2];
  EXPECT_EQ(z, t.fast.p + 3 * U);  // left in the fast arena
  EXPECT_EQ(t.ptrs[0], nullptr);   // the input was consumed
  EXPECT_EQ(t.mem.fast_used, 0u);  // back to the floor: the start of the room
  EXPECT_EQ(t.mem.fast_reserved, 0u);
  EXPECT_EQ(t.mem.fast_peak, 4 * U);
  EXPECT_EQ(t.stats.loads_bytes, 0u);
  EXPECT_EQ(t.stats.spills_bytes, 0u);
  EXPECT_EQ(t.stats.weight_bytes, 64u);
  EXPECT_EQ(t.stats.stages_normal, 1u);
  EXPECT_EQ(t.mem.slow_used, 0u);

  // The next inputs go to the same place; read the outputs before writing them.
  const std::vector<float> x2 = iota(16, 3, -0.5f);
  ASSERT_EQ(t.write(x2), TIGRIS_OK);
  EXPECT_EQ(t.ptrs[0], t.fast.p + U);
  ASSERT_EQ(t.run(), TIGRIS_EXEC_OK);
  EXPECT_EQ(t.read(), expected(x2, true));
}

TEST(ExecInPlace, WithoutWeightsTheInputSitsAtTheFillLevel) {
  InPlace t(one_stage(false), 3 * U);
  const std::vector<float> x = iota(16, -2, 0.25f);
  ASSERT_EQ(t.write(x), TIGRIS_OK);
  EXPECT_EQ(t.ptrs[0], t.fast.p);
  ASSERT_EQ(t.run(), TIGRIS_EXEC_OK);
  EXPECT_EQ(t.read(), expected(x, false));
  EXPECT_EQ(t.stats.loads_bytes, 0u);
}

TEST(ExecInPlace, UpFrontCheckUsesTheRoomAsFloor) {
  InPlace t(one_stage(true), 4 * U - 1);
  ASSERT_EQ(t.write(iota(16, 0, 1)), TIGRIS_OK);
  const tigris_mem_t before = t.mem;
  void* x = t.ptrs[0];
  EXPECT_EQ(t.run(), TIGRIS_EXEC_ERR_MEM);
  EXPECT_EQ(memcmp(&before, &t.mem, sizeof(before)), 0);
  EXPECT_EQ(t.ptrs[0], x);
  EXPECT_TRUE(t.log.ops.empty());
}

TEST(ExecInPlace, CallerDataBelowMovesTheFloorUp) {
  InPlace t(one_stage(true), 5 * U);
  memset(t.fast.p, 0x5E, U);
  t.mem.fast_used = U;
  t.mem.fast_reserved = U;
  const std::vector<float> x = iota(16, -1, 0.5f);
  ASSERT_EQ(t.write(x), TIGRIS_OK);
  EXPECT_EQ(t.ptrs[0], t.fast.p + 2 * U);
  ASSERT_EQ(t.run(), TIGRIS_EXEC_OK);
  EXPECT_EQ(t.read(), expected(x, true));
  for (uint32_t i = 0; i < U; ++i) ASSERT_EQ(t.fast.p[i], 0x5E);
  EXPECT_EQ(t.mem.fast_used, U);
  EXPECT_EQ(t.mem.fast_reserved, U);
}

TEST(ExecInPlace, InputWithoutFreeRoomIsCopiedAndOutputsGoToSlow) {
  InPlace t(one_stage(true), 7 * U);
  const std::vector<float> x = iota(16, -1, 0.5f);
  ASSERT_EQ(t.write(x), TIGRIS_OK);
  t.mem.fast_reserved = t.mem.fast_used;  // the room is now under the reserved prefix
  t.rec.events.clear();
  ASSERT_EQ(t.run(), TIGRIS_EXEC_OK);
  EXPECT_EQ(t.read(), expected(x, true));
  EXPECT_EQ(t.stats.loads_bytes, U);
  EXPECT_EQ(t.stats.spills_bytes, U);
  const uint8_t* z = (const uint8_t*)t.ptrs[2];
  EXPECT_TRUE(z >= t.slow.p && z < t.slow.p + 4 * U);
  EXPECT_EQ(t.rec.events[1].kind, TIGRIS_TRACE_WEIGHTS);
  EXPECT_EQ(t.rec.events[1].offset, 2 * U);  // at the fast top, above the caller's level
  EXPECT_EQ(t.mem.fast_used, 2 * U);         // the caller's fill level, input included
}

TEST(ExecInPlace, SeveralInputsSitTogetherAboveOneRoom) {
  PlanDesc p;
  uint16_t x1 = add_tensor(p, "x1", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t x2 = add_tensor(p, "x2", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t s = add_tensor(p, "s", kShape);
  uint16_t z = add_tensor(p, "z", kShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  uint16_t w = add_weight(p, kW);
  add_op(p, TIGRIS_OP_SUB, {x1, x2}, {s});
  add_op(p, TIGRIS_OP_ADD, {s}, {z}, w);
  add_stage(p, {0, 1}, {x1, x2}, {z});
  p.model_inputs = {x1, x2};
  p.model_outputs = {z};
  p.compression = TIGRIS_COMPRESSION_LZ4;
  p.weight_blocks = {{0, 0, 1}};
  p.scheduled_peak = 4 * U;
  Loaded f;
  ASSERT_EQ(load(p, &f), TIGRIS_OK);
  Arena fast(5 * U), slow(U);
  tigris_mem_t mem;
  void* ptrs[4];
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 4, fast.p, 5 * U, slow.p, U), TIGRIS_MEM_OK);
  const std::vector<float> a = iota(16, 1, 1), b = iota(16, 0.5f, 0.5f);
  // The first one placed gets the room, whichever it is.
  ASSERT_EQ(tigris_input_write(&f.plan, &mem, x2, b.data(), 64), TIGRIS_OK);
  ASSERT_EQ(tigris_input_write(&f.plan, &mem, x1, a.data(), 64), TIGRIS_OK);
  EXPECT_EQ(ptrs[x2], fast.p + U);
  EXPECT_EQ(ptrs[x1], fast.p + 2 * U);
  KernelLog log;
  tigris_exec_stats_t stats;
  ASSERT_EQ(tigris_run(&f.plan, &mem, test_kernel, &log, &stats), TIGRIS_EXEC_OK);
  std::vector<float> out(16);
  ASSERT_EQ(tigris_output_read(&f.plan, &mem, z, out.data(), 64), TIGRIS_OK);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(out[i], a[i] - b[i] + kW[i]);
  EXPECT_EQ(stats.loads_bytes, 0u);
  EXPECT_EQ(ptrs[x1], nullptr);
  EXPECT_EQ(ptrs[x2], nullptr);
}

}  // namespace
