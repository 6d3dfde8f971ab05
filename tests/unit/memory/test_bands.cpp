// Row-band and 2-D rectangle load/spill.
#include <gtest/gtest.h>

#include "mem_fixture.h"
#include "memory/arena.h"

using namespace memtest;
using namespace tigris_rt;

namespace {

struct BandFixture : ::testing::Test {
  FakePlan fp;
  tigris_mem_t mem{};
  void* ptrs[4]{};
  Buffer fast{4096}, slow{4096};
  tigris_exec_stats_t stats{};
  Recorder rec;
  const tigris_plan_t* plan = nullptr;
  uint16_t nhwc = 0, nlc = 0, flat = 0;

  void SetUp() override {
    nhwc = fp.add({2, 4, 3, 2});  // N=2 H=4 W=3 C=2, int8: value = n*100 + h*10 + w*2 + c
    nlc = fp.add({2, 5, 3}, TIGRIS_DTYPE_FLOAT32);
    flat = fp.add({24});
    plan = fp.get();
    ASSERT_EQ(tigris_mem_init(&mem, ptrs, 4, fast.p, 4096, slow.p, 4096), TIGRIS_MEM_OK);
    mem.stats = &stats;
    tigris_mem_set_trace(&mem, Recorder::fn, &rec);
    ASSERT_EQ(tigris_mem_alloc_slow(&mem, nhwc, 48), TIGRIS_MEM_OK);
    int8_t* v = (int8_t*)ptrs[nhwc];
    for (int n = 0; n < 2; ++n)
      for (int h = 0; h < 4; ++h)
        for (int w = 0; w < 3; ++w)
          for (int c = 0; c < 2; ++c) v[((n * 4 + h) * 3 + w) * 2 + c] = (int8_t)(n * 60 + h * 10 + w * 2 + c);
  }
  static int8_t value(int n, int h, int w, int c) { return (int8_t)(n * 60 + h * 10 + w * 2 + c); }
};

TEST_F(BandFixture, LoadRowsPacksEveryBatch) {
  void* full = ptrs[nhwc];
  rec.events.clear();
  ASSERT_EQ(mem_load_rows(&mem, plan, nhwc, 1, 3), TIGRIS_MEM_OK);
  const int8_t* band = (const int8_t*)ptrs[nhwc];
  EXPECT_EQ((const void*)band, (const void*)fast.p);
  for (int n = 0; n < 2; ++n)
    for (int r = 0; r < 2; ++r)
      for (int w = 0; w < 3; ++w)
        for (int c = 0; c < 2; ++c) EXPECT_EQ(band[((n * 2 + r) * 3 + w) * 2 + c], value(n, r + 1, w, c));
  EXPECT_EQ(stats.loads_bytes, 24u);
  EXPECT_EQ(mem.fast_used, (24u + TIGRIS_TENSOR_ALIGN - 1u) / TIGRIS_TENSOR_ALIGN * TIGRIS_TENSOR_ALIGN);
  ASSERT_EQ(rec.events.size(), 1u);
  EXPECT_EQ(rec.events[0].kind, TIGRIS_TRACE_LOAD);
  EXPECT_EQ(rec.events[0].row0, 1);
  EXPECT_EQ(rec.events[0].row1, 3);
  EXPECT_EQ(rec.events[0].col0, -1);
  EXPECT_EQ(rec.events[0].bytes, 24u);

  // Modify the band and write it back into the full tensor.
  int8_t* b = (int8_t*)ptrs[nhwc];
  for (int i = 0; i < 24; ++i) b[i] = (int8_t)(b[i] + 1);
  ASSERT_EQ(mem_spill_rows(&mem, plan, nhwc, full, 1, 3), TIGRIS_MEM_OK);
  EXPECT_EQ(ptrs[nhwc], full);
  const int8_t* v = (const int8_t*)full;
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 3; ++w)
        for (int c = 0; c < 2; ++c) {
          int8_t expect = (int8_t)(value(n, h, w, c) + ((h == 1 || h == 2) ? 1 : 0));
          EXPECT_EQ(v[((n * 4 + h) * 3 + w) * 2 + c], expect);
        }
  EXPECT_EQ(stats.spills_bytes, 24u);
  EXPECT_EQ(rec.events.back().kind, TIGRIS_TRACE_SPILL);
  EXPECT_EQ(rec.events.back().pool, TIGRIS_TRACE_POOL_SLOW);
}

TEST_F(BandFixture, RowsOfRank3) {
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, nlc, 2 * 5 * 3 * 4), TIGRIS_MEM_OK);
  float* v = (float*)ptrs[nlc];
  for (int i = 0; i < 30; ++i) v[i] = (float)i;
  ASSERT_EQ(mem_load_rows(&mem, plan, nlc, 4, 5), TIGRIS_MEM_OK);
  const float* band = (const float*)ptrs[nlc];
  // batch 0 row 4 = elements 12..14, batch 1 row 4 = 27..29
  EXPECT_EQ(band[0], 12.0f);
  EXPECT_EQ(band[2], 14.0f);
  EXPECT_EQ(band[3], 27.0f);
  EXPECT_EQ(band[5], 29.0f);
  EXPECT_EQ(stats.loads_bytes, 24u);
}

TEST_F(BandFixture, RowErrors) {
  EXPECT_EQ(mem_load_rows(&mem, plan, nhwc, 2, 5), TIGRIS_MEM_ERR_BAD_INDEX);
  EXPECT_EQ(mem_load_rows(&mem, plan, nhwc, -1, 1), TIGRIS_MEM_ERR_BAD_INDEX);
  EXPECT_EQ(mem_load_rows(&mem, plan, nhwc, 2, 2), TIGRIS_MEM_ERR_BAD_INDEX);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, flat, 24), TIGRIS_MEM_OK);
  EXPECT_EQ(mem_load_rows(&mem, plan, flat, 0, 1), TIGRIS_MEM_ERR_BAD_INDEX);  // rank 1
  EXPECT_EQ(mem_load_rows(&mem, plan, nlc, 0, 1), TIGRIS_MEM_ERR_NOT_SET);
  EXPECT_EQ(mem_spill_rows(&mem, plan, nhwc, nullptr, 0, 1), TIGRIS_MEM_ERR_NULL);
  EXPECT_EQ(mem_load_rows(&mem, plan, 4, 0, 1), TIGRIS_MEM_ERR_BAD_INDEX);
  EXPECT_EQ(stats.loads_bytes, 0u);
  EXPECT_EQ(mem.fast_used, 0u);
}

TEST_F(BandFixture, RectangleLoadAndSpill) {
  void* full = ptrs[nhwc];
  ASSERT_EQ(mem_load_rect(&mem, plan, nhwc, 1, 4, 1, 3), TIGRIS_MEM_OK);  // 3 rows x 2 cols
  const int8_t* tile = (const int8_t*)ptrs[nhwc];
  for (int n = 0; n < 2; ++n)
    for (int r = 0; r < 3; ++r)
      for (int w = 0; w < 2; ++w)
        for (int c = 0; c < 2; ++c) EXPECT_EQ(tile[((n * 3 + r) * 2 + w) * 2 + c], value(n, r + 1, w + 1, c));
  EXPECT_EQ(stats.loads_bytes, 24u);
  EXPECT_EQ(rec.events.back().col0, 1);
  EXPECT_EQ(rec.events.back().col1, 3);
  int8_t* t = (int8_t*)ptrs[nhwc];
  for (int i = 0; i < 24; ++i) t[i] = -1;
  ASSERT_EQ(mem_spill_rect(&mem, plan, nhwc, full, 1, 4, 1, 3), TIGRIS_MEM_OK);
  EXPECT_EQ(ptrs[nhwc], full);
  const int8_t* v = (const int8_t*)full;
  for (int n = 0; n < 2; ++n)
    for (int h = 0; h < 4; ++h)
      for (int w = 0; w < 3; ++w)
        for (int c = 0; c < 2; ++c) {
          bool inside = h >= 1 && w >= 1;
          EXPECT_EQ(v[((n * 4 + h) * 3 + w) * 2 + c], inside ? -1 : value(n, h, w, c));
        }
  EXPECT_EQ(stats.spills_bytes, 24u);
}

// Channel-range boxes of every width and offset (runs of 1 to 9 bytes per pixel, int8 and
// float32): each pixel's channels [c0, c1) are packed densely, and the spill writes exactly them.
// Nine columns a row: the copies of four runs a pass and their tail.
TEST(BoxCopy, ChannelRangesOfEveryWidth) {
  for (uint8_t dtype : {(uint8_t)TIGRIS_DTYPE_INT8, (uint8_t)TIGRIS_DTYPE_FLOAT32}) {
    const int N = 2, H = 3, W = 11, C = 9, BW = 9;  // box columns [1, 1 + BW)
    FakePlan fp;
    const uint16_t t = fp.add({N, H, W, C}, dtype);
    const tigris_plan_t* plan = fp.get();
    const uint32_t elem = tigris_dtype_size(dtype), bytes = N * H * W * C * elem;
    for (int c0 = 0; c0 < C; ++c0)
      for (int c1 = c0 + 1; c1 <= C; ++c1) {
        tigris_mem_t mem{};
        void* ptrs[1]{};
        Buffer fast{8192}, slow{8192};
        ASSERT_EQ(tigris_mem_init(&mem, ptrs, 1, fast.p, 8192, slow.p, 8192), TIGRIS_MEM_OK);
        ASSERT_EQ(tigris_mem_alloc_slow(&mem, t, bytes), TIGRIS_MEM_OK);
        uint8_t* full = (uint8_t*)ptrs[t];
        for (uint32_t i = 0; i < bytes; ++i) full[i] = (uint8_t)(i * 7 + 3);
        const MemBox box{1, 3, 1, 1 + BW, c0, c1, 0};  // rows 1-2, columns 1-9
        ASSERT_EQ(mem_load_box(&mem, plan, t, box), TIGRIS_MEM_OK);
        const uint8_t* packed = (const uint8_t*)ptrs[t];
        const uint32_t part = (uint32_t)(c1 - c0) * elem;
        size_t at = 0;
        for (int n = 0; n < N; ++n)
          for (int h = 1; h < 3; ++h)
            for (int w = 1; w < 1 + BW; ++w)
              for (uint32_t k = 0; k < part; ++k, ++at) {
                const uint32_t src = (((n * H + h) * W + w) * C + c0) * elem + k;
                ASSERT_EQ(packed[at], (uint8_t)(src * 7 + 3)) << "c0 " << c0 << " c1 " << c1 << " at " << at;
              }
        uint8_t* tile = (uint8_t*)ptrs[t];
        for (size_t i = 0; i < at; ++i) tile[i] = (uint8_t)(0xA0 ^ i);
        ASSERT_EQ(mem_spill_box(&mem, plan, t, full, box), TIGRIS_MEM_OK);
        at = 0;
        for (int n = 0; n < N; ++n)
          for (int h = 0; h < H; ++h)
            for (int w = 0; w < W; ++w)
              for (int c = 0; c < C; ++c)
                for (uint32_t k = 0; k < elem; ++k) {
                  const uint32_t i = (((n * H + h) * W + w) * C + c) * elem + k;
                  const bool inside = h >= 1 && w >= 1 && w < 1 + BW && c >= c0 && c < c1;
                  const size_t p = inside ? ((((n * 2 + h - 1) * BW + w - 1) * (c1 - c0) + c - c0) * elem + k) : 0;
                  ASSERT_EQ(full[i], inside ? (uint8_t)(0xA0 ^ p) : (uint8_t)(i * 7 + 3)) << "c0 " << c0 << " c1 " << c1;
                }
      }
  }
}

TEST_F(BandFixture, RectangleErrors) {
  EXPECT_EQ(mem_load_rect(&mem, plan, nhwc, 0, 1, 2, 4), TIGRIS_MEM_ERR_BAD_INDEX);
  EXPECT_EQ(mem_load_rect(&mem, plan, nhwc, 0, 1, 1, 1), TIGRIS_MEM_ERR_BAD_INDEX);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, nlc, 120), TIGRIS_MEM_OK);
  EXPECT_EQ(mem_load_rect(&mem, plan, nlc, 0, 1, 0, 1), TIGRIS_MEM_ERR_BAD_INDEX);  // rank 3 has no width
  EXPECT_EQ(mem_spill_rect(&mem, plan, nhwc, nullptr, 0, 1, 0, 1), TIGRIS_MEM_ERR_NULL);
  EXPECT_EQ(mem.fast_used, 0u);
}

TEST_F(BandFixture, BandLoadThatDoesNotFitKeepsPointer) {
  tigris_mem_t small{};
  void* p[4]{};
  Buffer f(64), s(64);
  ASSERT_EQ(tigris_mem_init(&small, p, 4, f.p, 16, s.p, 64), TIGRIS_MEM_OK);
  p[nhwc] = ptrs[nhwc];
  EXPECT_EQ(mem_load_rows(&small, plan, nhwc, 0, 4), TIGRIS_MEM_ERR_OOM);
  EXPECT_EQ(p[nhwc], ptrs[nhwc]);
}

}  // namespace
