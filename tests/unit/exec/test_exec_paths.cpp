// Path selection: before schema 11 a tiled record runs on the normal path when the stage
// fits; from schema 11 the record's band always runs. A band that does not fit fails closed
// (TILE) before any kernel runs; chains likewise. (The banded paths themselves are tested
// in tests/unit/bands.)
#include "exec_fixture.h"
#include "tigris_kernels.h"

using namespace exectest;

namespace {

const std::vector<int32_t> kPathShape = {1, 8, 2, 4};  // 256 bytes of float32

// y = relu(x) in stage 0, z = relu(y) in stage 1, with a height-stripe record on stage 0.
PlanDesc striped(uint32_t version) {
  PlanDesc p;
  p.version = version;
  uint16_t x = add_tensor(p, "x", kPathShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(p, "y", kPathShape);
  uint16_t z = add_tensor(p, "z", kPathShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(p, TIGRIS_OP_RELU, {x}, {y});
  add_op(p, TIGRIS_OP_RELU, {y}, {z});
  add_stage(p, {0}, {x}, {y});
  add_stage(p, {1}, {y}, {z});
  tigris_tile_plan_v11_t t{};
  t.choices.tileable = 1;
  t.choices.axis = TIGRIS_TILE_AXIS_HEIGHT;
  t.choices.tile_height = 2;
  t.choices.num_tiles = 4;
  t.choices.original_height = 8;
  t.choices.tile_extent_wide = 2;
  t.facts.tile_extent = 2;
  t.facts.num_tiles = 4;
  t.facts.original_extent = 8;
  t.facts.band_axis = 1;
  t.facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_STRIPE, 0);
  p.tile_plans = {t};
  p.stages[0].tile_plan = 0;
  p.model_inputs = {x};
  p.model_outputs = {z};
  p.budget = 256;
  p.scheduled_peak = 256;
  return p;
}

struct PRun {
  Loaded plan;
  Arena fast, slow{2048};
  tigris_mem_t mem{};
  void* ptrs[3]{};
  KernelLog log;
  tigris_exec_stats_t stats{};
  PRun(const PlanDesc& d, uint32_t fast_bytes) : fast(fast_bytes) {
    EXPECT_EQ(load(d, &plan), TIGRIS_OK);
    EXPECT_EQ(tigris_mem_init(&mem, ptrs, 3, fast.p, fast_bytes, slow.p, 2048), TIGRIS_MEM_OK);
    std::vector<float> x = iota(64, -8, 0.25f);
    EXPECT_EQ(tigris_input_write(&plan.plan, &mem, 0, x.data(), 256), TIGRIS_OK);
  }
  tigris_exec_error_t run() { return tigris_run(&plan.plan, &mem, test_kernel, &log, &stats); }
};

TEST(ExecPaths, TiledRecordThatFitsRunsNormallyBeforeSchema11) {
  PRun r(striped(9), 512);
  ASSERT_EQ(r.run(), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.stats.stages_normal, 2u);
  EXPECT_EQ(r.stats.stages_tiled, 0u);
}

TEST(ExecPaths, Schema11RunsTheRecordsBand) {
  PRun r(striped(11), 512);
  ASSERT_EQ(tigris_run(&r.plan.plan, &r.mem, tigris_dispatch_kernel, nullptr, &r.stats), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.stats.stages_normal, 1u);
  EXPECT_EQ(r.stats.stages_tiled, 1u);
  EXPECT_EQ(r.stats.total_tiles, 4u);  // 8 rows in bands of 2
  std::vector<float> z(64);
  ASSERT_EQ(tigris_output_read(&r.plan.plan, &r.mem, 2, z.data(), 256), TIGRIS_OK);
  const std::vector<float> x = iota(64, -8, 0.25f);
  for (size_t i = 0; i < z.size(); ++i) EXPECT_EQ(z[i], x[i] > 0 ? x[i] : 0.0f) << i;
}

TEST(ExecPaths, BandThatDoesNotFitFailsClosed) {
  PRun r(striped(9), 32);  // one row of x and of y (32 bytes each) already exceeds 32 bytes
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_TILE);
  EXPECT_TRUE(r.log.ops.empty());
  EXPECT_EQ(r.mem.fast_used, 0u);
}

TEST(ExecPaths, ChainWhoseBandDoesNotFitFailsClosed) {
  PlanDesc p = striped(11);
  p.tile_plans.clear();
  p.stages[0].tile_plan = TIGRIS_NONE;
  for (auto& s : p.stages) {
    s.chain_id = 0;
    s.chain_len = 2;
  }
  p.stages[0].chain_tile_h = 2;
  p.scheduled_peak = 64;  // passes the up-front check; the chain's band needs 3 x 64 bytes
  PRun r(p, 64);
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_TILE);
  EXPECT_TRUE(r.log.ops.empty());
  EXPECT_EQ(r.mem.fast_used, 0u);
}

TEST(ExecWorkspace, IncompleteMetadataNeedsZero) {
  PlanDesc p = striped(11);
  Loaded f;
  ASSERT_EQ(load(p, &f), TIGRIS_OK);
  EXPECT_GT(tigris_executor_workspace_required(&f.plan), 0u);
  tigris_plan_t broken = f.plan;
  broken.index_pool = nullptr;
  EXPECT_EQ(tigris_executor_workspace_required(&broken), 0u);
  broken = f.plan;
  broken.stages = nullptr;
  EXPECT_EQ(tigris_executor_workspace_required(&broken), 0u);
  broken = f.plan;
  broken.header = nullptr;
  EXPECT_EQ(tigris_executor_workspace_required(&broken), 0u);
}

}  // namespace
