// TIGRIS_NO_BANDS and the kernels: a build without bands never sets a tile context, so the
// kernels' geometry (kernels/common/geometry.cpp) reads a constant empty one and every band is
// the whole tensor; a dispatcher handed an active context anyway refuses (tile_ctx_usable).
// The context is set by hand here: the whole runtime would cut the band it describes
// (tests/unit/kernels_* cover that).
#include <gtest/gtest.h>

#include <cstdint>

#include "kernels/common/geometry.h"

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

}  // namespace
