// TIGRIS_NO_BANDS and the kernels: a build without bands never sets a tile context, so the
// kernels' geometry (kernels/common/geometry.cpp) reads a constant empty one and every band is
// the whole tensor; a dispatcher handed an active context anyway refuses (tile_ctx_usable).
// The context is set by hand here: the whole runtime would cut the band it describes
// (tests/unit/kernels_* cover that).
#include <gtest/gtest.h>

#include <cstdint>

#include <vector>

#include "kernels/common/geometry.h"
#include "kernels/common/lanes.h"

namespace kern = tigris_rt::kern;

namespace {

static_assert(!tigris_rt::bands_built(), "this suite is built with TIGRIS_NO_BANDS");

// A 2-row band of rows 2-3, channels 4-5 in a channel band, as the band paths would set it.
tigris_mem_t banded_mem() {
  tigris_mem_t mem{};
  mem.tile.active = 1;
  mem.tile.row_tiled = 1;
  mem.tile.out_row0 = 2, mem.tile.out_h = 2, mem.tile.in_row_start = 1, mem.tile.out_row_start = 1;
  mem.tile.chan_tiled = 1, mem.tile.chan0 = 4, mem.tile.chans = 2;
  return mem;
}

TEST(NoBandsGeometry, TheTileContextIsNeverRead) {
  tigris_mem_t mem = banded_mem();
  const kern::Call c{nullptr, nullptr, 0, &mem};
  EXPECT_FALSE(c.tiled());
  EXPECT_EQ(c.tile().active, 0);
  EXPECT_EQ(c.tile().out_h, 0);
  EXPECT_EQ(c.tile().chan_tiled, 0);
  EXPECT_FALSE(kern::tile_ctx_usable(&mem));  // the dispatchers answer -1
  mem.tile.active = 0;
  EXPECT_TRUE(kern::tile_ctx_usable(&mem));
}

TEST(NoBandsGeometry, EveryBandIsTheWholeTensor) {
  tigris_mem_t mem = banded_mem();
  const kern::Band band = kern::pointwise_band(&mem);
  EXPECT_EQ(band.row_axis, -1);
  EXPECT_EQ(band.col_axis, -1);
  const kern::RowBand rows = kern::row_band(&mem, 8);
  EXPECT_FALSE(rows.active);
  EXPECT_EQ(rows.rows, 8);
  EXPECT_FALSE(kern::reduce_band(&mem).active);
  // A band cutting rows 2-3 of axis 1 (one row before it in the buffer): the whole tensor here.
  kern::Band cut{};
  cut.row_axis = 1, cut.col_axis = -1, cut.rows = 2, cut.row0 = 2, cut.in_row_start = 1, cut.out_row_start = 1;
  static int8_t data[1 * 8 * 8 * 4];
  const int32_t shape[4] = {1, 8, 8, 4};
  const kern::View in = kern::input_view(cut, data, shape, 4, 1, shape, 4);
  const kern::View out = kern::output_view(cut, data, shape, 4, 1);
  for (const kern::View* v : {&in, &out}) {
    EXPECT_EQ(v->data, reinterpret_cast<uint8_t*>(data));
    EXPECT_EQ(v->shape[1], 8);
    EXPECT_EQ(v->origin[1], 0);
    EXPECT_EQ(v->stride[1], 8 * 4);
  }
}

// Without bands, for_each_lane finds the lanes of whole (dense) views by index arithmetic, not
// the broadcasting walk: lanes over axis 1 of [2, 3, 4] int8 in and int16 out are the 2 x 4
// lanes of 3 elements at flat element x*12 + y, steps 4 elements; the order is row-major over
// the other axes (x, then y), as the walk visits them.
TEST(NoBandsGeometry, LanesOfWholeViews) {
  static int8_t in_data[2 * 3 * 4];
  static int16_t out_data[2 * 3 * 4];
  const int32_t shape[3] = {2, 3, 4};
  const kern::View in = kern::whole_view(in_data, shape, 3, 1);
  const kern::View out = kern::whole_view(out_data, shape, 3, 2);
  struct Lane {
    long in_at, out_at, len, out_step, in_step;
  };
  std::vector<Lane> lanes;
  ASSERT_EQ(kern::for_each_lane(out, in, 1, 1, [&](uint8_t* o, uint8_t* i, int64_t len, int64_t os, int64_t is) {
              lanes.push_back({static_cast<long>(i - reinterpret_cast<uint8_t*>(in_data)),
                               static_cast<long>(o - reinterpret_cast<uint8_t*>(out_data)), static_cast<long>(len),
                               static_cast<long>(os), static_cast<long>(is)});
            }),
            0);
  ASSERT_EQ(lanes.size(), 8u);
  for (long x = 0; x < 2; ++x)
    for (long y = 0; y < 4; ++y) {
      const Lane& l = lanes[static_cast<size_t>(x * 4 + y)];
      EXPECT_EQ(l.in_at, x * 12 + y);
      EXPECT_EQ(l.out_at, 2 * (x * 12 + y));
      EXPECT_EQ(l.len, 3);
      EXPECT_EQ(l.in_step, 4);
      EXPECT_EQ(l.out_step, 8);
    }
  // Trailing axes [1, 2]: one lane of 12 per batch, contiguous.
  lanes.clear();
  ASSERT_EQ(kern::for_each_lane(out, in, 1, 2, [&](uint8_t* o, uint8_t* i, int64_t len, int64_t os, int64_t is) {
              lanes.push_back({static_cast<long>(i - reinterpret_cast<uint8_t*>(in_data)),
                               static_cast<long>(o - reinterpret_cast<uint8_t*>(out_data)), static_cast<long>(len),
                               static_cast<long>(os), static_cast<long>(is)});
            }),
            0);
  ASSERT_EQ(lanes.size(), 2u);
  EXPECT_EQ(lanes[1].in_at, 12);
  EXPECT_EQ(lanes[1].out_at, 24);
  EXPECT_EQ(lanes[1].len, 12);
  EXPECT_EQ(lanes[1].in_step, 1);
  // Views of different shapes (a broadcast input) and axes outside the rank are refused.
  const int32_t other[3] = {2, 1, 4};
  const kern::View narrow = kern::whole_view(in_data, other, 3, 1);
  EXPECT_EQ(kern::for_each_lane(out, narrow, 1, 1, [](uint8_t*, uint8_t*, int64_t, int64_t, int64_t) {}), -1);
  EXPECT_EQ(kern::for_each_lane(out, in, 1, 3, [](uint8_t*, uint8_t*, int64_t, int64_t, int64_t) {}), -1);
}

}  // namespace
