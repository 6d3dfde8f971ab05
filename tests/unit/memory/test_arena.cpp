// Memory manager: initialisation, bump allocation, reserve/reset, error codes.
#include <gtest/gtest.h>

#include "mem_fixture.h"
#include "memory/arena.h"

using namespace memtest;
using namespace tigris_rt;

namespace {

TEST(MemInit, NullArguments) {
  tigris_mem_t mem;
  void* ptrs[4];
  Buffer fast(256), slow(256);
  EXPECT_EQ(tigris_mem_init(nullptr, ptrs, 4, fast.p, 256, slow.p, 256), TIGRIS_MEM_ERR_NULL);
  EXPECT_EQ(tigris_mem_init(&mem, nullptr, 4, fast.p, 256, slow.p, 256), TIGRIS_MEM_ERR_NULL);
  EXPECT_EQ(tigris_mem_init(&mem, ptrs, 4, nullptr, 256, slow.p, 256), TIGRIS_MEM_ERR_NULL);
  EXPECT_EQ(tigris_mem_init(&mem, ptrs, 4, fast.p, 256, nullptr, 16), TIGRIS_MEM_ERR_NULL);
}

TEST(MemInit, SlowMayBeNullWithSizeZero) {
  tigris_mem_t mem;
  void* ptrs[2];
  Buffer fast(256);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, 256, nullptr, 0), TIGRIS_MEM_OK);
  EXPECT_EQ(mem.slow_base, nullptr);
  EXPECT_EQ(mem.slow_used, 0u);
  EXPECT_EQ(tigris_mem_alloc_slow(&mem, 0, 1), TIGRIS_MEM_ERR_OOM);
  EXPECT_EQ(ptrs[0], nullptr);
}

TEST(MemInit, ZeroesPointerTableAndTileContext) {
  tigris_mem_t mem;
  memset(&mem, 0xAB, sizeof(mem));
  void* ptrs[3] = {(void*)1, (void*)2, (void*)3};
  Buffer fast(256), slow(256);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 3, fast.p, 256, slow.p, 256), TIGRIS_MEM_OK);
  for (void* p : ptrs) EXPECT_EQ(p, nullptr);
  tigris_tile_ctx_t zero;
  memset(&zero, 0, sizeof(zero));
  EXPECT_EQ(memcmp(&mem.tile, &zero, sizeof(zero)), 0);
  EXPECT_EQ(mem.stats, nullptr);
  EXPECT_EQ(mem.fast_used, 0u);
  EXPECT_EQ(mem.fast_reserved, 0u);
  EXPECT_EQ(mem.fast_peak, 0u);
  EXPECT_EQ(mem.slow_used, 0u);
  EXPECT_EQ(mem.num_tensors, 3u);
}

TEST(MemInit, AlignsUnalignedBases) {
  tigris_mem_t mem;
  void* ptrs[2];
  Buffer fast(256, 3), slow(256, 5);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, 256, slow.p, 256), TIGRIS_MEM_OK);
  EXPECT_EQ(mem.fast_used, A - 3);
  EXPECT_EQ(mem.fast_reserved, A - 3);
  EXPECT_EQ(mem.fast_peak, A - 3);
  EXPECT_EQ(mem.slow_used, A - 5);
  ASSERT_EQ(mem_alloc_fast(&mem, 0, 7), TIGRIS_MEM_OK);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 1, 9), TIGRIS_MEM_OK);
  EXPECT_EQ((uintptr_t)ptrs[0] % A, 0u);
  EXPECT_EQ((uintptr_t)ptrs[1] % A, 0u);
  EXPECT_EQ(ptrs[0], fast.p + (A - 3));
  EXPECT_EQ(ptrs[1], slow.p + (A - 5));
}

TEST(MemInit, TooSmallToAlignIsOomAndLeavesMemUnchanged) {
  tigris_mem_t mem;
  memset(&mem, 0x5A, sizeof(mem));
  tigris_mem_t before = mem;
  void* ptrs[2] = {(void*)1, (void*)2};
  Buffer fast(256, 1), slow(256, 1);
  EXPECT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, A - 2, slow.p, 256), TIGRIS_MEM_ERR_OOM);
  EXPECT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, 256, slow.p, A - 2), TIGRIS_MEM_ERR_OOM);
  EXPECT_EQ(memcmp(&mem, &before, sizeof(mem)), 0);
  EXPECT_EQ(ptrs[0], (void*)1);
  // Exactly the gap is enough (an arena with no usable byte).
  EXPECT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, A - 1, slow.p, 256), TIGRIS_MEM_OK);
  EXPECT_EQ(mem_alloc_fast(&mem, 0, 1), TIGRIS_MEM_ERR_OOM);
}

TEST(MemAlloc, SlowBumpAndErrors) {
  tigris_mem_t mem;
  void* ptrs[3];
  Buffer fast(64), slow(4 * A);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 3, fast.p, 64, slow.p, 4 * A), TIGRIS_MEM_OK);
  EXPECT_EQ(tigris_mem_alloc_slow(nullptr, 0, 1), TIGRIS_MEM_ERR_NULL);
  EXPECT_EQ(tigris_mem_alloc_slow(&mem, 3, 1), TIGRIS_MEM_ERR_BAD_INDEX);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 0, 1), TIGRIS_MEM_OK);
  EXPECT_EQ(mem.slow_used, A);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 1, 2 * A), TIGRIS_MEM_OK);
  EXPECT_EQ(ptrs[1], slow.p + A);
  EXPECT_EQ(mem.slow_used, 3 * A);
  EXPECT_EQ(mem.slow_peak, 3 * A);
  EXPECT_EQ(tigris_mem_alloc_slow(&mem, 2, A + 1), TIGRIS_MEM_ERR_OOM);
  EXPECT_EQ(tigris_mem_alloc_slow(&mem, 2, 0xFFFFFFFFu), TIGRIS_MEM_ERR_OOM);  // aligning overflows
  EXPECT_EQ(ptrs[2], nullptr);
  EXPECT_EQ(mem.slow_used, 3 * A);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 2, A), TIGRIS_MEM_OK);
  EXPECT_EQ(mem.slow_used, 4 * A);
}

TEST(MemAlloc, TensorPtrAccessor) {
  tigris_mem_t mem;
  void* ptrs[2];
  Buffer fast(64), slow(64);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, 64, slow.p, 64), TIGRIS_MEM_OK);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 1, 4), TIGRIS_MEM_OK);
  EXPECT_EQ(tigris_mem_tensor_ptr(&mem, 1), slow.p);
  EXPECT_EQ(tigris_mem_tensor_ptr(&mem, 0), nullptr);
  EXPECT_EQ(tigris_mem_tensor_ptr(&mem, 2), nullptr);
  EXPECT_EQ(tigris_mem_tensor_ptr(nullptr, 0), nullptr);
}

TEST(MemAlloc, FastBumpPeakReserveReset) {
  tigris_mem_t mem;
  void* ptrs[4];
  Buffer fast(8 * A), slow(64);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 4, fast.p, 8 * A, slow.p, 64), TIGRIS_MEM_OK);
  ASSERT_EQ(mem_alloc_fast(&mem, 0, A + 1), TIGRIS_MEM_OK);
  EXPECT_EQ(mem.fast_used, 2 * A);
  mem_reserve_fast(&mem);
  EXPECT_EQ(mem.fast_reserved, 2 * A);
  ASSERT_EQ(mem_alloc_fast(&mem, 1, 3 * A), TIGRIS_MEM_OK);
  EXPECT_EQ(ptrs[1], fast.p + 2 * A);
  EXPECT_EQ(mem.fast_peak, 5 * A);
  EXPECT_EQ(mem_alloc_fast(&mem, 2, 3 * A + 1), TIGRIS_MEM_ERR_OOM);
  EXPECT_EQ(mem_alloc_fast(&mem, 4, 1), TIGRIS_MEM_ERR_BAD_INDEX);
  mem_reset_fast(&mem);
  EXPECT_EQ(mem.fast_used, 2 * A);
  EXPECT_EQ(mem.fast_peak, 5 * A);     // the high-water mark survives resets
  EXPECT_EQ(ptrs[1], fast.p + 2 * A);  // resets do not touch pointers
  uint8_t* block = nullptr;
  ASSERT_EQ(mem_bump_fast(&mem, 6 * A, &block), TIGRIS_MEM_OK);
  EXPECT_EQ(block, fast.p + 2 * A);
  EXPECT_EQ(mem.fast_peak, 8 * A);
  EXPECT_EQ(mem_bump_fast(&mem, 1, &block), TIGRIS_MEM_ERR_OOM);
}

TEST(MemAlloc, LoadSpillNotSetAndStats) {
  tigris_mem_t mem;
  void* ptrs[2];
  Buffer fast(4 * A), slow(4 * A);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, 4 * A, slow.p, 4 * A), TIGRIS_MEM_OK);
  tigris_exec_stats_t stats{};
  mem.stats = &stats;
  EXPECT_EQ(mem_load(&mem, 0, 4), TIGRIS_MEM_ERR_NOT_SET);
  EXPECT_EQ(mem_spill(&mem, 0, 4), TIGRIS_MEM_ERR_NOT_SET);
  EXPECT_EQ(mem_load(&mem, 2, 4), TIGRIS_MEM_ERR_BAD_INDEX);
  EXPECT_EQ(mem_load(nullptr, 0, 4), TIGRIS_MEM_ERR_NULL);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 0, 5), TIGRIS_MEM_OK);
  memcpy(ptrs[0], "hello", 5);
  ASSERT_EQ(mem_load(&mem, 0, 5), TIGRIS_MEM_OK);
  EXPECT_EQ(ptrs[0], fast.p);
  EXPECT_EQ(memcmp(ptrs[0], "hello", 5), 0);
  ((uint8_t*)ptrs[0])[0] = 'j';
  ASSERT_EQ(mem_spill(&mem, 0, 5), TIGRIS_MEM_OK);
  EXPECT_EQ(ptrs[0], slow.p + A);
  EXPECT_EQ(memcmp(ptrs[0], "jello", 5), 0);
  EXPECT_EQ(stats.loads_bytes, 5u);
  EXPECT_EQ(stats.spills_bytes, 5u);
  EXPECT_EQ(stats.slow_peak, 2 * A);
  // A load that does not fit leaves the pointer where it was.
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 1, 2 * A), TIGRIS_MEM_OK);
  void* before = ptrs[1];
  EXPECT_EQ(mem_load(&mem, 1, 4 * A), TIGRIS_MEM_ERR_OOM);
  EXPECT_EQ(ptrs[1], before);
  EXPECT_EQ(mem_spill(&mem, 1, 2 * A), TIGRIS_MEM_ERR_OOM);  // slow is full
  EXPECT_EQ(ptrs[1], before);
  EXPECT_EQ(stats.loads_bytes, 5u);
}

TEST(MemTrace, EventsCarryPoolsOffsetsAndUnusedMarkers) {
  tigris_mem_t mem;
  void* ptrs[2];
  Buffer fast(4 * A), slow(4 * A);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, 4 * A, slow.p, 4 * A), TIGRIS_MEM_OK);
  Recorder rec;
  tigris_mem_set_trace(&mem, Recorder::fn, &rec);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 1, 3), TIGRIS_MEM_OK);
  ASSERT_EQ(mem_load(&mem, 1, 3), TIGRIS_MEM_OK);
  ASSERT_EQ(mem_spill(&mem, 1, 3), TIGRIS_MEM_OK);
  mem_reset_fast(&mem);
  ASSERT_EQ(rec.events.size(), 4u);
  const auto& alloc = rec.events[0];
  EXPECT_EQ(alloc.kind, TIGRIS_TRACE_ALLOC);
  EXPECT_EQ(alloc.pool, TIGRIS_TRACE_POOL_SLOW);
  EXPECT_EQ(alloc.tensor, 1u);
  EXPECT_EQ(alloc.offset, 0u);
  EXPECT_EQ(alloc.bytes, 3u);
  EXPECT_EQ(alloc.stage, 0xFFFFu);
  EXPECT_EQ(alloc.op, 0xFFFFu);
  EXPECT_EQ(alloc.row0, -1);
  EXPECT_EQ(alloc.row1, -1);
  EXPECT_EQ(alloc.col0, -1);
  EXPECT_EQ(alloc.col1, -1);
  EXPECT_EQ(alloc.slow_used, A);
  EXPECT_EQ(alloc.fast_used, 0u);
  const auto& load = rec.events[1];
  EXPECT_EQ(load.kind, TIGRIS_TRACE_LOAD);
  EXPECT_EQ(load.pool, TIGRIS_TRACE_POOL_FAST);
  EXPECT_EQ(load.offset, 0u);
  EXPECT_EQ(load.src_offset, 0u);
  EXPECT_EQ(load.fast_used, A);
  const auto& spill = rec.events[2];
  EXPECT_EQ(spill.kind, TIGRIS_TRACE_SPILL);
  EXPECT_EQ(spill.pool, TIGRIS_TRACE_POOL_SLOW);
  EXPECT_EQ(spill.offset, A);
  EXPECT_EQ(spill.src_offset, 0u);
  EXPECT_EQ(spill.slow_used, 2 * A);
  const auto& reset = rec.events[3];
  EXPECT_EQ(reset.kind, TIGRIS_TRACE_RESET);
  EXPECT_EQ(reset.pool, TIGRIS_TRACE_POOL_FAST);
  EXPECT_EQ(reset.bytes, A);
  EXPECT_EQ(reset.fast_used, 0u);
  EXPECT_EQ(reset.tensor, 0xFFFFu);
  tigris_mem_set_trace(&mem, nullptr, nullptr);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 0, 3), TIGRIS_MEM_OK);
  EXPECT_EQ(rec.events.size(), 4u);  // NULL stops reporting
}

}  // namespace
