// 2-D HW tiles: rectangles of rows x columns with clamped paddings on all four sides,
// ConvTranspose through its inverse mapping, pools and Resize; banded outputs equal whole
// outputs (float and int8) for tiles from 1x1 to the whole map; fast peak = cost model.
#include <algorithm>

#include "bands_fixture.h"

using namespace bandtest;

namespace {

tigris_tile_plan_v11_t tiles(uint32_t rows, uint16_t cols) {
  return record(TIGRIS_TILE_AXIS_HW, rows, TIGRIS_BAND_KIND_HW, cols);
}

void check_tiles(const SpatialCase& c, std::initializer_list<std::pair<uint32_t, uint16_t>> sizes, const char* what) {
  for (auto [h, w] : sizes) {
    const PlanDesc p = spatial_plan(c, tiles(h, w));
    const std::string name = std::string(what) + " " + std::to_string(h) + "x" + std::to_string(w);
    const RunResult r = expect_banded_equals_whole(p, inputs_for(p), name);
    EXPECT_EQ(r.stats.stages_tiled, 1u) << name;
    EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_TILED_2D}) << name;
    const int32_t H = p.tensors.back().shape[1], W = p.tensors.back().shape[2];
    const int32_t th = std::min<int32_t>((int32_t)h, H), tw = std::clamp<int32_t>(w, 1, W);
    EXPECT_EQ(r.stats.total_tiles, ((H + th - 1) / th) * ((W + tw - 1) / tw)) << name;
    EXPECT_EQ(r.stats.spills_bytes, (uint32_t)r.outputs[0].size()) << name;
    // TILE_BEGIN events carry the input rectangle each tile reads.
    size_t with_cols = 0;
    for (const auto& e : r.events) with_cols += e.kind == TIGRIS_TRACE_TILE_BEGIN && e.col0 >= 0 && e.col1 > e.col0;
    EXPECT_EQ(with_cols, r.stats.total_tiles) << name;
  }
}

SpatialCase make(std::vector<int32_t> in, uint8_t type, tigris_spatial_t sp, int32_t oc, bool int8) {
  SpatialCase c;
  c.in = std::move(in);
  c.type = type;
  c.sp = sp;
  c.oc = oc;
  c.int8 = int8;
  return c;
}

TEST(Hw, ConvTiles) {
  for (bool int8 : {false, true}) {
    check_tiles(make({1, 7, 9, 3}, TIGRIS_OP_CONV, window(3, 3, 1, 1, 1, 1, 1, 1), 4, int8),
                {{1, 1}, {2, 3}, {3, 4}, {7, 9}, {4, 0}, {9, 20}}, int8 ? "s8 conv" : "f32 conv");
    check_tiles(make({2, 9, 8, 2}, TIGRIS_OP_CONV, window(3, 3, 2, 2, 1, 1, 0, 2, 1, 2), 3, int8),
                {{1, 1}, {2, 2}, {5, 3}}, "conv s2 dil(1,2) batch 2");
  }
}

TEST(Hw, DepthwisePoolsResize) {
  for (bool int8 : {false, true}) {
    check_tiles(make({1, 8, 8, 4}, TIGRIS_OP_DEPTHWISE, window(3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4), 4, int8),
                {{1, 1}, {2, 3}}, "depthwise");
    tigris_spatial_t mp = window(3, 3, 2, 2, 1, 1, 1, 1);
    mp.group = 0;
    check_tiles(make({1, 9, 7, 3}, TIGRIS_OP_MAX_POOL, mp, 0, int8), {{1, 2}, {3, 3}}, "maxpool");
    tigris_spatial_t rs{};
    rs.kernel_h = rs.kernel_w = 1;
    rs.stride_h = 2, rs.stride_w = 2;
    check_tiles(make({1, 4, 5, 2}, TIGRIS_OP_RESIZE, rs, 0, int8), {{1, 1}, {3, 4}}, "resize");
  }
}

TEST(Hw, ConvTranspose) {
  // Stride 2, kernel 3, pads 1: every output reads one or two input rows/columns.
  tigris_spatial_t sp = window(3, 3, 2, 2, 1, 1, 1, 1);
  check_tiles(make({1, 5, 4, 3}, TIGRIS_OP_CONV_TRANSPOSE, sp, 2, false), {{1, 1}, {2, 3}, {4, 2}, {9, 7}}, "convT s2");
  // Kernel 4 stride 2 pads 1 (exact doubling), dilation 2.
  check_tiles(make({1, 4, 3, 2}, TIGRIS_OP_CONV_TRANSPOSE, window(4, 4, 2, 2, 1, 1, 1, 1), 2, false), {{1, 1}, {3, 2}},
              "convT k4");
  check_tiles(make({1, 4, 4, 2}, TIGRIS_OP_CONV_TRANSPOSE, window(3, 3, 1, 2, 0, 0, 1, 1, 2, 1), 3, false),
              {{1, 1}, {2, 3}}, "convT dil2");
}

}  // namespace
