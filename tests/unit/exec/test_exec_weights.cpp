// Compressed weight blocks on the normal path: decoded per stage at the fast top under the
// reserved prefix, stats and WEIGHTS events; stored (uncompressed) blocks; corrupt blocks
// give KERNEL, not a crash; a block that does not fit gives MEM.
#include "exec_fixture.h"

using namespace exectest;

namespace {

const std::vector<float> kW0 = iota(16, 1.0f, 0.5f);
const std::vector<float> kW1 = iota(16, -4.0f, 0.25f);

// a = x + w0 | y = a + w1, each weight in its stage's block.
PlanDesc two_stage_weights(uint16_t compression) {
  PlanDesc p;
  uint16_t x = add_tensor(p, "x", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t a = add_tensor(p, "a", kShape);
  uint16_t y = add_tensor(p, "y", kShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  uint16_t w0 = add_weight(p, kW0);
  uint16_t w1 = add_weight(p, kW1);
  add_op(p, TIGRIS_OP_ADD, {x}, {a}, w0);
  add_op(p, TIGRIS_OP_ADD, {a}, {y}, w1);
  add_stage(p, {0}, {x}, {a});
  add_stage(p, {1}, {a}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  p.compression = compression;
  p.weight_blocks = {{0, 0, 1}, {1, 1, 1}};
  p.scheduled_peak = 2 * U;
  return p;
}

struct WRun {
  Loaded plan;
  Arena fast{3 * U}, slow{4 * U};
  tigris_mem_t mem{};
  void* ptrs[3]{};
  Recorder rec;
  KernelLog log;
  tigris_exec_stats_t stats{};
  std::vector<float> x = iota(16, -2, 0.5f);
  explicit WRun(const PlanDesc& d, uint32_t fast_bytes = 3 * U) : fast(fast_bytes) {
    EXPECT_EQ(load(d, &plan), TIGRIS_OK);
    EXPECT_EQ(tigris_mem_init(&mem, ptrs, 3, fast.p, fast_bytes, slow.p, 4 * U), TIGRIS_MEM_OK);
    tigris_mem_set_trace(&mem, Recorder::fn, &rec);
    EXPECT_EQ(tigris_input_write(&plan.plan, &mem, 0, x.data(), 64), TIGRIS_OK);
    rec.events.clear();
  }
  tigris_exec_error_t run() { return tigris_run(&plan.plan, &mem, test_kernel, &log, &stats); }
  // The loaded buffer is ours: tests may damage a block after loading.
  uint8_t* block_data(int i) { return (uint8_t*)plan.plan.weight_blocks_data + plan.plan.weight_blocks[i].blob_offset; }
  tigris_weight_block_t* block(int i) { return (tigris_weight_block_t*)&plan.plan.weight_blocks[i]; }
};

void expect_sum(WRun& r) {
  std::vector<float> y(16);
  ASSERT_EQ(tigris_output_read(&r.plan.plan, &r.mem, 2, y.data(), 64), TIGRIS_OK);
  for (size_t i = 0; i < 16; ++i) EXPECT_EQ(y[i], r.x[i] + kW0[i] + kW1[i]) << i;
}

TEST(ExecWeights, Lz4BlocksAreDecodedPerStage) {
  WRun r(two_stage_weights(TIGRIS_COMPRESSION_LZ4));
  ASSERT_EQ(r.plan.plan.weight_compression, TIGRIS_COMPRESSION_LZ4);
  ASSERT_EQ(r.plan.plan.weight_blob, nullptr);
  ASSERT_EQ(r.run(), TIGRIS_EXEC_OK);
  expect_sum(r);
  EXPECT_EQ(r.stats.weight_bytes, 128u);
  EXPECT_EQ(r.plan.plan.weight_blob, nullptr);  // the caller's plan is not modified
  using K = std::vector<uint8_t>;
  const K stage = {TIGRIS_TRACE_STAGE_BEGIN, TIGRIS_TRACE_WEIGHTS, TIGRIS_TRACE_LOAD,  TIGRIS_TRACE_ALLOC,
                   TIGRIS_TRACE_OP,          TIGRIS_TRACE_SPILL,   TIGRIS_TRACE_RESET, TIGRIS_TRACE_STAGE_END};
  // After each stage the consumed input is released and the slow pool compacted (MOVE).
  K expect = stage;
  expect.push_back(TIGRIS_TRACE_MOVE);
  expect.insert(expect.end(), stage.begin(), stage.end());
  expect.push_back(TIGRIS_TRACE_MOVE);
  ASSERT_EQ(r.rec.kinds(), expect) << kind_names(r.rec.kinds());
  const auto& w = r.rec.events[1];
  EXPECT_EQ(w.offset, 0u);
  EXPECT_EQ(w.bytes, 64u);
  EXPECT_EQ(w.fast_used, U);
  EXPECT_EQ(w.stage, 0u);
  EXPECT_EQ(r.rec.events[2].offset, U);       // the input loads above the weights
  EXPECT_EQ(r.rec.events[6].bytes, 3 * U);    // the reset releases the weights too
  EXPECT_EQ(r.rec.events[8].stage, 0xFFFFu);  // the compaction between stages
  EXPECT_EQ(r.rec.events[8].tensor, 1u);      // a slides over the released x
  EXPECT_EQ(r.rec.events[9].stage, 1u);
  EXPECT_EQ(r.mem.fast_reserved, 0u);
  EXPECT_EQ(r.mem.fast_peak, 3 * U);
}

TEST(ExecWeights, StoredBlocksAreCopied) {
  WRun r(two_stage_weights(TIGRIS_COMPRESSION_NONE));
  ASSERT_EQ(r.run(), TIGRIS_EXEC_OK);
  expect_sum(r);
  EXPECT_EQ(r.stats.weight_bytes, 128u);
}

TEST(ExecWeights, CorruptBlockIsKernelError) {
  WRun r(two_stage_weights(TIGRIS_COMPRESSION_LZ4));
  memset(r.block_data(1), 0xFF, r.block(1)->compressed_size);  // lengths that run off the end
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_KERNEL);
  EXPECT_EQ(r.log.ops, std::vector<uint16_t>{0});  // stage 0 ran; stage 1's kernel never did
  EXPECT_EQ(r.stats.stages_normal, 1u);
  EXPECT_EQ(r.mem.fast_used, 0u);
  EXPECT_EQ(r.mem.fast_reserved, 0u);
}

TEST(ExecWeights, WrongDecodedLengthIsKernelError) {
  WRun r(two_stage_weights(TIGRIS_COMPRESSION_LZ4), 4 * U);
  r.block(0)->uncompressed_size += 16;  // the block decodes to 16 bytes fewer
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_KERNEL);
  EXPECT_TRUE(r.log.ops.empty());
}

TEST(ExecWeights, TruncatedBlockIsKernelError) {
  WRun r(two_stage_weights(TIGRIS_COMPRESSION_LZ4));
  r.block(0)->compressed_size -= 1;
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_KERNEL);
}

TEST(ExecWeights, BlockThatDoesNotFitIsMem) {
  PlanDesc d = two_stage_weights(TIGRIS_COMPRESSION_LZ4);
  d.version = 9;  // no up-front check: the stage itself finds the arena too small
  WRun r(d, U / 2);
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_MEM);
  EXPECT_TRUE(r.log.ops.empty());
  EXPECT_EQ(r.stats.weight_bytes, 0u);
}

}  // namespace
