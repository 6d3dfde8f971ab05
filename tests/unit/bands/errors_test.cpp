// Banded executor errors and memory decisions: a band that does not fit fails closed (TILE)
// before any kernel runs, on every path; outputs that slow memory cannot hold (MEM), or a
// stripe writing into its dying input's slow buffer when that is safe; plans before schema
// 11 search the largest band that fits; a kernel failure inside a band leaves the arena as
// it was.
#include <algorithm>

#include "bands_fixture.h"

using namespace bandtest;

namespace {

struct Counter {
  int calls = 0;
  int fail_at = -1;
  std::vector<int32_t> rows;  // out_h of every banded call
};

int failing_counting_kernel(const tigris_plan_t* plan, const tigris_op_t* op, uint16_t op_index, tigris_mem_t* mem,
                    void* user) {
  Counter* c = static_cast<Counter*>(user);
  if (c->calls++ == c->fail_at) return -9;
  if (mem->tile.active) c->rows.push_back(mem->tile.out_h);
  return plan_kernel(plan)(plan, op, op_index, mem, nullptr);
}

SpatialCase conv3(std::vector<int32_t> in, int32_t oc) {
  SpatialCase c;
  c.in = std::move(in);
  c.sp = window(3, 3, 1, 1, 1, 1, 1, 1);
  c.oc = oc;
  return c;
}

// A plan whose scheduled peak understates its band by 32 bytes: the up-front check passes
// with the arena it asks for, the band does not fit.
void expect_tile_when_understated(PlanDesc p, const char* what) {
  set_scheduled_peak(p);
  ASSERT_GT(p.scheduled_peak, 64u) << what;
  p.scheduled_peak -= (uint32_t)A;
  Counter c;
  RunOptions o;
  o.kernel = failing_counting_kernel;
  o.user = &c;
  const RunResult r = run_plan(p, inputs_for(p), o);
  EXPECT_EQ(r.rc, TIGRIS_EXEC_ERR_TILE) << what;
  EXPECT_EQ(c.calls, 0) << what;
  EXPECT_EQ(r.mem.fast_used, 0u) << what;
  EXPECT_EQ(r.mem.fast_reserved, 0u) << what;
}

TEST(BandErrors, BandThatDoesNotFitFailsClosedOnEveryPath) {
  expect_tile_when_understated(
      spatial_plan(conv3({1, 7, 5, 3}, 4), record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE)), "stripe");
  expect_tile_when_understated(
      spatial_plan(conv3({1, 7, 5, 3}, 4), record(TIGRIS_TILE_AXIS_HW, 2, TIGRIS_BAND_KIND_HW, 2)), "hw");
  PlanDesc gap;
  uint16_t x = add_tensor(gap, "x", {1, 8, 4, 8}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(gap, "y", {1, 1, 1, 8}, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(gap, TIGRIS_OP_GLOBAL_AVG, {x}, {y});
  add_stage(gap, {0}, {x}, {y});
  gap.model_inputs = {x};
  gap.model_outputs = {y};
  tile_stage(gap, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 3, TIGRIS_BAND_KIND_BY_INPUT));
  expect_tile_when_understated(gap, "by input");
  gap.tile_plans.clear();
  tile_stage(gap, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 5, TIGRIS_BAND_KIND_BY_INPUT, 0, 0, TIGRIS_BY_INPUT_MODE_FLAT));
  expect_tile_when_understated(gap, "by input elements");
  PlanDesc tr;
  x = add_tensor(tr, "x", {1, 8, 4, 8}, TIGRIS_TENSOR_MODEL_INPUT);
  y = add_tensor(tr, "y", {1, 8, 8, 4}, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(tr, TIGRIS_OP_TRANSPOSE, {x}, {y});
  tr.attributes = {AttrDesc{0, TIGRIS_ATTR_TRANSPOSE_PERM, {0, 3, 1, 2}}};
  add_stage(tr, {0}, {x}, {y});
  tr.model_inputs = {x};
  tr.model_outputs = {y};
  tile_stage(tr, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 8, TIGRIS_BAND_KIND_TRANSPOSE));
  expect_tile_when_understated(tr, "transpose");
  PlanDesc rs;
  x = add_tensor(rs, "x", {1, 8, 4, 8}, TIGRIS_TENSOR_MODEL_INPUT);
  y = add_tensor(rs, "y", {1, 8, 32}, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(rs, TIGRIS_OP_RESHAPE, {x}, {y});
  add_stage(rs, {0}, {x}, {y});
  rs.model_inputs = {x};
  rs.model_outputs = {y};
  tile_stage(rs, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 4, TIGRIS_BAND_KIND_RESHAPE));
  expect_tile_when_understated(rs, "reshape");
  PlanDesc ld;
  x = add_tensor(ld, "x", {4, 8, 6}, TIGRIS_TENSOR_MODEL_INPUT);
  y = add_tensor(ld, "y", {8, 4, 6}, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(ld, TIGRIS_OP_TRANSPOSE, {x}, {y});
  ld.attributes = {AttrDesc{0, TIGRIS_ATTR_TRANSPOSE_PERM, {1, 0, 2}}};
  add_stage(ld, {0}, {x}, {y});
  ld.model_inputs = {x};
  ld.model_outputs = {y};
  tile_stage(ld, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 4, TIGRIS_BAND_KIND_LEADING, 0, 0, TIGRIS_LEADING_MODE_ROWS));
  expect_tile_when_understated(ld, "leading");
  PlanDesc rw;
  x = add_tensor(rw, "x", {16, 8}, TIGRIS_TENSOR_MODEL_INPUT);
  y = add_tensor(rw, "y", {16, 8}, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(rw, TIGRIS_OP_RELU, {x}, {y});
  add_stage(rw, {0}, {x}, {y});
  rw.model_inputs = {x};
  rw.model_outputs = {y};
  tile_stage(rw, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 4, TIGRIS_BAND_KIND_ROWS));
  expect_tile_when_understated(rw, "rows");
  PlanDesc cb;  // a channel Concat by pixel blocks x channels (CONCAT mode BLOCKS)
  x = add_tensor(cb, "x", {1, 8, 4, 8}, TIGRIS_TENSOR_MODEL_INPUT);
  const uint16_t x2 = add_tensor(cb, "x2", {1, 8, 4, 4}, TIGRIS_TENSOR_MODEL_INPUT);
  y = add_tensor(cb, "y", {1, 8, 4, 12}, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(cb, TIGRIS_OP_CONCAT, {x, x2}, {y});
  cb.attributes = {AttrDesc{0, TIGRIS_ATTR_AXES, {3}}};
  add_stage(cb, {0}, {x, x2}, {y});
  cb.model_inputs = {x, x2};
  cb.model_outputs = {y};
  tile_stage(cb, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 6, TIGRIS_BAND_KIND_CONCAT, 5, 0, TIGRIS_CONCAT_MODE_BLOCKS));
  expect_tile_when_understated(cb, "concat blocks");
  // A chain: conv -> conv.
  PlanDesc ch = spatial_plan(conv3({1, 9, 5, 3}, 4), record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  ch.tile_plans.clear();
  ch.stages.clear();
  add_stage(ch, {0}, {0}, {1});
  add_stage(ch, {1}, {1}, {2});
  chain_stages(ch, 0, 2, 3, false);
  expect_tile_when_understated(ch, "chain");
}

TEST(BandErrors, EarlierChainThatNothingFitsIsMem) {
  PlanDesc ch = spatial_plan(conv3({1, 9, 5, 3}, 4), record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  ch.version = 9;
  ch.tile_plans.clear();
  ch.stages.clear();
  add_stage(ch, {0}, {0}, {1});
  add_stage(ch, {1}, {1}, {2});
  chain_stages(ch, 0, 2, 4, false);
  const std::vector<Bytes> in = inputs_for(ch);
  RunOptions o;
  o.fast = 1024;  // a one-row tile (3 input rows, 2 x 1 output row) fits
  RunResult r = run_plan(ch, in, o);
  EXPECT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_LE(r.fast_peak, 1024u);
  EXPECT_GE(r.stats.total_tiles, 2u);
  o.fast = 128;
  r = run_plan(ch, in, o);
  EXPECT_EQ(r.rc, TIGRIS_EXEC_ERR_MEM);
  EXPECT_EQ(r.mem.fast_used, 0u);
}

TEST(BandErrors, OutputsSlowCannotHold) {
  // x [1,8,4,4] floats: 512 bytes; y the same. Slow holds x only: a 3x3 conv reads rows a
  // later band needs, so it cannot write into x's buffer.
  PlanDesc p = spatial_plan(conv3({1, 8, 4, 4}, 4), record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  set_scheduled_peak(p);
  RunOptions o;
  o.slow = 512;
  const RunResult r = run_plan(p, inputs_for(p), o);
  EXPECT_EQ(r.rc, TIGRIS_EXEC_ERR_MEM);
  EXPECT_EQ(r.mem.fast_used, 0u);
}

// x -> relu -> y (one stripe, no spatial op), or a 2x2 stride-2 conv with 4x channels:
// equal sizes, and no band writes input rows a later band reads.
PlanDesc in_place_candidate(bool conv) {
  SpatialCase c;
  c.in = {1, 8, 4, 2};
  if (conv) {
    c.sp = window(2, 2, 2, 2, 0, 0, 0, 0);
    c.oc = 8;
    c.relu_after = false;
  } else {
    c.type = TIGRIS_OP_RELU;
  }
  if (!conv) {
    PlanDesc p;
    uint16_t x = add_tensor(p, "x", c.in, TIGRIS_TENSOR_MODEL_INPUT);
    uint16_t y = add_tensor(p, "y", c.in, TIGRIS_TENSOR_MODEL_OUTPUT);
    add_op(p, TIGRIS_OP_RELU, {x}, {y});
    add_stage(p, {0}, {x}, {y});
    p.model_inputs = {x};
    p.model_outputs = {y};
    tile_stage(p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 3, TIGRIS_BAND_KIND_STRIPE));
    return p;
  }
  return spatial_plan(c, record(TIGRIS_TILE_AXIS_HEIGHT, 1, TIGRIS_BAND_KIND_STRIPE));
}

TEST(BandErrors, StripeReusesItsDyingInputsSlowBuffer) {
  for (bool conv : {false, true}) {
    PlanDesc p = in_place_candidate(conv);
    set_scheduled_peak(p);
    const std::vector<Bytes> in = inputs_for(p);
    RunOptions big;
    big.fast = 1u << 16;
    const RunResult ref = run_plan(whole_plan(p), in, big);
    ASSERT_EQ(ref.rc, TIGRIS_EXEC_OK);
    RunOptions o;
    o.slow = 256;  // x (256 bytes) only
    const RunResult r = run_plan(p, in, o);
    ASSERT_EQ(r.rc, TIGRIS_EXEC_OK) << conv << " " << tigris_exec_error_str(r.rc);
    EXPECT_TRUE(r.outputs[0] == ref.outputs[0]) << conv;
    EXPECT_EQ(r.stats.slow_peak, 256u) << conv;
  }
}

TEST(BandErrors, EarlierSchemasSearchTheLargestBandThatFits) {
  // v9 stripe: conv 3x3 of [1,9,5,3] -> [1,9,5,4] -> relu. Arenas from generous to tight.
  PlanDesc p = spatial_plan(conv3({1, 9, 5, 3}, 4), record(TIGRIS_TILE_AXIS_HEIGHT, 1, TIGRIS_BAND_KIND_STRIPE));
  p.version = 9;
  const std::vector<Bytes> in = inputs_for(p);
  RunOptions big;
  big.fast = 1u << 16;
  const RunResult ref = run_plan(whole_plan(p), in, big);
  ASSERT_EQ(ref.rc, TIGRIS_EXEC_OK);
  uint32_t last_tiles = 0;
  for (uint32_t fast : {1100u, 900u, 700u, 500u, 400u}) {
    RunOptions o;
    o.fast = fast;
    const RunResult r = run_plan(p, in, o);
    ASSERT_EQ(r.rc, TIGRIS_EXEC_OK) << fast;
    EXPECT_TRUE(r.outputs[0] == ref.outputs[0]) << fast;
    EXPECT_LE(r.fast_peak, fast);
    EXPECT_EQ(r.stats.stages_tiled, 1u) << fast;
    EXPECT_GE(r.stats.total_tiles, last_tiles) << fast;  // smaller arenas, more bands
    last_tiles = r.stats.total_tiles;
    // The band chosen is the largest whose modelled peak fits the arena.
    Loaded f;
    load(p, &f);
    ASSERT_EQ(f.err, TIGRIS_OK);
    tigris_rt::PlanCostCtx ctx;
    tigris_rt::CostSource src;
    ASSERT_TRUE(tigris_rt::plan_cost_source(&f.plan, 0, TIGRIS_BAND_KIND_STRIPE, &ctx, &src));
    tigris_rt::CostSpace spaces[2];
    const uint16_t n = tigris_rt::cost_spaces(src, spaces, 2);
    uint32_t best = 0;
    for (uint32_t b = 1; b <= 9; ++b) {
      tigris_rt::CostPeak pk;
      ASSERT_TRUE(tigris_rt::cost_banded_peak(src, spaces, n, b, 0, false, A, &pk));
      if (pk.peak <= fast) best = b;
    }
    ASSERT_GT(best, 0u) << fast;
    EXPECT_EQ(r.stats.total_tiles, (9 + best - 1) / best) << fast;
  }
  RunOptions tiny;
  tiny.fast = 200;  // one output row needs 3 input rows (180 B) + 2 x 80 B
  EXPECT_EQ(run_plan(p, in, tiny).rc, TIGRIS_EXEC_ERR_TILE);
}

TEST(BandErrors, KernelFailureInsideABandRestoresTheArena) {
  PlanDesc p = spatial_plan(conv3({1, 7, 5, 3}, 4), record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  set_scheduled_peak(p);
  Counter c;
  c.fail_at = 3;  // the conv of the second band
  RunOptions o;
  o.kernel = failing_counting_kernel;
  o.user = &c;
  const RunResult r = run_plan(p, inputs_for(p), o);
  EXPECT_EQ(r.rc, TIGRIS_EXEC_ERR_KERNEL);
  EXPECT_EQ(r.mem.fast_used, 0u);
  EXPECT_EQ(r.mem.fast_reserved, 0u);
  EXPECT_EQ(r.mem.tile.active, 0u);
}

}  // namespace
