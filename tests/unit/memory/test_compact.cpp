// Compaction of the fast and slow pools: order, aliases, interior pointers, reserved prefix.
#include <gtest/gtest.h>

#include "mem_fixture.h"
#include "memory/arena.h"

using namespace memtest;
using namespace tigris_rt;

namespace {

void fill(void* p, uint8_t v, uint32_t n) { memset(p, v, n); }

bool all_equal(const void* p, uint8_t v, uint32_t n) {
  const uint8_t* b = (const uint8_t*)p;
  for (uint32_t i = 0; i < n; ++i)
    if (b[i] != v) return false;
  return true;
}

struct CompactFixture : ::testing::Test {
  FakePlan fp;
  tigris_mem_t mem{};
  void* ptrs[8]{};
  Buffer fast{16 * A}, slow{16 * A};
  tigris_exec_stats_t stats{};
  Recorder rec;
  const tigris_plan_t* plan = nullptr;

  void SetUp() override {
    fp.add({(int32_t)A});        // 0: one unit
    fp.add({(int32_t)(2 * A)});  // 1: two units
    fp.add({(int32_t)A + 1});    // 2: two units once aligned
    fp.add({(int32_t)A});        // 3
    fp.add({(int32_t)A});        // 4: alias of 2 (same address)
    fp.add({(int32_t)(3 * A)});  // 5
    plan = fp.get();
    ASSERT_EQ(tigris_mem_init(&mem, ptrs, 8, fast.p, 16 * A, slow.p, 16 * A), TIGRIS_MEM_OK);
    mem.stats = &stats;
    tigris_mem_set_trace(&mem, Recorder::fn, &rec);
  }
};

TEST_F(CompactFixture, FastSlidesLiveBlocksDownAndUpdatesAliases) {
  for (uint16_t t : {0, 1, 2, 3}) ASSERT_EQ(mem_alloc_fast(&mem, t, plan->tensors[t].size_bytes), TIGRIS_MEM_OK);
  ptrs[4] = ptrs[2];
  fill(ptrs[0], 0xA0, A);
  fill(ptrs[2], 0xC2, A + 1);
  fill(ptrs[3], 0xD3, A);
  EXPECT_EQ(mem.fast_used, 6 * A);
  ptrs[1] = nullptr;  // dead: leaves a 2-unit hole
  rec.events.clear();
  uint32_t released = mem_compact(&mem, plan, Pool::Fast);
  EXPECT_EQ(released, 2 * A);
  EXPECT_EQ(mem.fast_used, 4 * A);
  EXPECT_EQ(ptrs[0], fast.p);
  EXPECT_EQ(ptrs[2], fast.p + A);
  EXPECT_EQ(ptrs[4], ptrs[2]);  // the alias followed its block
  EXPECT_EQ(ptrs[3], fast.p + 3 * A);
  EXPECT_TRUE(all_equal(ptrs[0], 0xA0, A));
  EXPECT_TRUE(all_equal(ptrs[2], 0xC2, A + 1));
  EXPECT_TRUE(all_equal(ptrs[3], 0xD3, A));
  EXPECT_EQ(stats.compactions, 1u);
  // Two MOVE events: tensor 2's block (with its alias) and tensor 3.
  ASSERT_EQ(rec.events.size(), 2u);
  EXPECT_EQ(rec.events[0].kind, TIGRIS_TRACE_MOVE);
  EXPECT_EQ(rec.events[0].pool, TIGRIS_TRACE_POOL_FAST);
  EXPECT_EQ(rec.events[0].tensor, 2u);
  EXPECT_EQ(rec.events[0].offset, A);
  EXPECT_EQ(rec.events[0].src_offset, 3 * A);
  EXPECT_EQ(rec.events[0].bytes, 2 * A);
  EXPECT_EQ(rec.events[1].tensor, 3u);
  EXPECT_EQ(rec.events[1].offset, 3 * A);
  EXPECT_EQ(rec.events[1].src_offset, 5 * A);
  EXPECT_EQ(rec.events[1].fast_used, 6 * A);  // used drops after the last move
}

TEST_F(CompactFixture, NothingToDoIsNotCounted) {
  for (uint16_t t : {0, 1}) ASSERT_EQ(mem_alloc_fast(&mem, t, plan->tensors[t].size_bytes), TIGRIS_MEM_OK);
  EXPECT_EQ(mem_compact(&mem, plan, Pool::Fast), 0u);
  EXPECT_EQ(stats.compactions, 0u);
  EXPECT_EQ(mem.fast_used, 3 * A);
  // Releasing the top block moves nothing but still shrinks the pool: counted.
  ptrs[1] = nullptr;
  EXPECT_EQ(mem_compact(&mem, plan, Pool::Fast), 2 * A);
  EXPECT_EQ(stats.compactions, 1u);
  EXPECT_EQ(mem.fast_used, A);
}

TEST_F(CompactFixture, ReservedPrefixStaysPut) {
  ASSERT_EQ(mem_alloc_fast(&mem, 0, A), TIGRIS_MEM_OK);
  mem_reserve_fast(&mem);
  ASSERT_EQ(mem_alloc_fast(&mem, 1, 2 * A), TIGRIS_MEM_OK);
  ASSERT_EQ(mem_alloc_fast(&mem, 3, A), TIGRIS_MEM_OK);
  ptrs[0] = nullptr;  // even a dead tensor below the prefix is not compacted over
  ptrs[1] = nullptr;
  mem_compact(&mem, plan, Pool::Fast);
  EXPECT_EQ(ptrs[3], fast.p + A);
  EXPECT_EQ(mem.fast_used, 2 * A);
}

TEST_F(CompactFixture, InteriorPointersMoveWithTheirBlock) {
  for (uint16_t t : {0, 5}) ASSERT_EQ(mem_alloc_fast(&mem, t, plan->tensors[t].size_bytes), TIGRIS_MEM_OK);
  ptrs[3] = (uint8_t*)ptrs[5] + 2 * A;  // a tensor pointing inside tensor 5's block
  ptrs[0] = nullptr;
  mem_compact(&mem, plan, Pool::Fast);
  EXPECT_EQ(ptrs[5], fast.p);
  EXPECT_EQ(ptrs[3], fast.p + 2 * A);
  EXPECT_EQ(mem.fast_used, 3 * A);
}

TEST_F(CompactFixture, SlowPoolFromItsStart) {
  for (uint16_t t : {0, 1, 2}) ASSERT_EQ(tigris_mem_alloc_slow(&mem, t, plan->tensors[t].size_bytes), TIGRIS_MEM_OK);
  fill(ptrs[2], 0x22, A + 1);
  ptrs[0] = nullptr;
  ptrs[1] = nullptr;
  rec.events.clear();
  EXPECT_EQ(mem_compact(&mem, plan, Pool::Slow), 3 * A);
  EXPECT_EQ(ptrs[2], slow.p);
  EXPECT_TRUE(all_equal(ptrs[2], 0x22, A + 1));
  EXPECT_EQ(mem.slow_used, 2 * A);
  ASSERT_EQ(rec.events.size(), 1u);
  EXPECT_EQ(rec.events[0].pool, TIGRIS_TRACE_POOL_SLOW);
  EXPECT_EQ(stats.compactions, 1u);
}

TEST_F(CompactFixture, PointersOutsideThePoolAreIgnored) {
  uint8_t outside[64];
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 1, 2 * A), TIGRIS_MEM_OK);
  ptrs[0] = outside;
  ptrs[3] = fast.p;  // fast pointer, not in the slow pool
  mem_compact(&mem, plan, Pool::Slow);
  EXPECT_EQ(ptrs[0], outside);
  EXPECT_EQ(ptrs[3], fast.p);
  EXPECT_EQ(ptrs[1], slow.p);
}

TEST_F(CompactFixture, UnalignedSlowBaseCompactsFromFirstAlignedAddress) {
  Buffer odd(16 * A, 7);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 8, fast.p, 16 * A, odd.p, 16 * A), TIGRIS_MEM_OK);
  for (uint16_t t : {0, 3}) ASSERT_EQ(tigris_mem_alloc_slow(&mem, t, A), TIGRIS_MEM_OK);
  ptrs[0] = nullptr;
  mem_compact(&mem, plan, Pool::Slow);
  EXPECT_EQ(ptrs[3], odd.p + (A - 7));
  EXPECT_EQ((uintptr_t)ptrs[3] % A, 0u);
  EXPECT_EQ(mem.slow_used, (A - 7) + A);
}

}  // namespace
