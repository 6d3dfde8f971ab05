// Height/length stripes: banded outputs equal whole-stage outputs (float and int8) across
// band sizes (1 .. past the extent), odd extents, paddings at both edges, strides 2,
// dilation, batches, every stripe spatial op and pointwise ops before and after it; the
// fast peak equals the cost model's; stats and trace sums agree.
#include <algorithm>

#include "bands_fixture.h"

using namespace bandtest;

namespace {

tigris_tile_plan_v11_t stripe(uint32_t band) { return record(TIGRIS_TILE_AXIS_HEIGHT, band, TIGRIS_BAND_KIND_STRIPE); }

void check_bands(const SpatialCase& c, std::initializer_list<uint32_t> bands, const char* what) {
  for (uint32_t b : bands) {
    const PlanDesc p = spatial_plan(c, stripe(b));
    const RunResult r = expect_banded_equals_whole(p, inputs_for(p), std::string(what) + " band " + std::to_string(b));
    EXPECT_EQ(r.stats.stages_tiled, 1u) << what;
    EXPECT_EQ(r.stats.stages_normal, 0u) << what;
    EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_TILED}) << what;
    const int32_t H = (int32_t)p.tensors.back().shape[1];
    EXPECT_EQ(r.stats.total_tiles, (H + (int32_t)std::min<uint32_t>(b, H) - 1) / (int32_t)std::min<uint32_t>(b, H))
        << what;
    // Every output row band is spilled once: the spills are the output's bytes.
    EXPECT_EQ(r.stats.spills_bytes, (uint32_t)r.outputs[0].size()) << what;
    bool nonzero = false;
    for (uint8_t v : r.outputs[0]) nonzero |= v != 0;
    EXPECT_TRUE(nonzero) << what;
  }
}

SpatialCase conv(std::vector<int32_t> in, tigris_spatial_t sp, int32_t oc, bool int8 = false) {
  SpatialCase c;
  c.in = std::move(in);
  c.sp = sp;
  c.oc = oc;
  c.int8 = int8;
  return c;
}

TEST(Stripe, Conv3x3Stride1PadBothEdges) {
  for (bool int8 : {false, true})
    check_bands(conv({1, 7, 5, 3}, window(3, 3, 1, 1, 1, 1, 1, 1), 4, int8), {1, 2, 3, 6, 7, 10},
                int8 ? "s8 conv s1" : "f32 conv s1");
}

TEST(Stripe, ConvStride2Dilation2AsymmetricPads) {
  for (bool int8 : {false, true}) {
    check_bands(conv({1, 9, 6, 2}, window(3, 3, 2, 2, 1, 1, 1, 1), 3, int8), {1, 2, 4, 5}, "conv s2");
    check_bands(conv({1, 9, 6, 2}, window(3, 3, 1, 1, 2, 2, 2, 2, 2, 2), 3, int8), {1, 3, 9}, "conv dil2");
    check_bands(conv({1, 8, 5, 2}, window(4, 3, 2, 1, 0, 2, 1, 1), 2, int8), {1, 2, 5}, "conv pads 0/2");
  }
}

TEST(Stripe, Batches) {
  for (bool int8 : {false, true})
    check_bands(conv({2, 7, 4, 3}, window(3, 3, 1, 1, 1, 1, 1, 1), 2, int8), {1, 3, 7}, "batch 2");
}

TEST(Stripe, DepthwiseAndPools) {
  for (bool int8 : {false, true}) {
    SpatialCase dw = conv({1, 9, 5, 4}, window(3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4), 4, int8);
    dw.type = TIGRIS_OP_DEPTHWISE;
    check_bands(dw, {1, 2, 5}, "depthwise s2");
    SpatialCase mp = conv({1, 9, 6, 3}, window(3, 3, 2, 2, 1, 1, 1, 1), 0, int8);
    mp.type = TIGRIS_OP_MAX_POOL;
    mp.sp.group = 0;
    check_bands(mp, {1, 3, 5}, "maxpool");
    SpatialCase ap = conv({1, 8, 6, 3}, window(2, 2, 2, 2, 0, 0, 0, 0), 0, int8);
    ap.type = TIGRIS_OP_AVG_POOL;
    ap.sp.group = 0;
    check_bands(ap, {1, 3, 4}, "avgpool");
  }
}

TEST(Stripe, ResizeNearest) {
  for (bool int8 : {false, true}) {
    SpatialCase r = conv({1, 5, 3, 2}, tigris_spatial_t{}, 0, int8);
    r.type = TIGRIS_OP_RESIZE;
    r.sp.stride_h = 2, r.sp.stride_w = 3;
    r.sp.kernel_h = r.sp.kernel_w = 1;
    check_bands(r, {1, 3, 4, 10}, "resize");
  }
}

TEST(Stripe, PointwiseBeforeTheSpatialOp) {
  SpatialCase c = conv({1, 7, 4, 2}, window(3, 3, 1, 1, 1, 1, 1, 1), 3);
  c.relu_before = true;
  check_bands(c, {1, 2, 7}, "relu before conv");
  c.int8 = true;
  check_bands(c, {2, 3}, "s8 relu before conv");
}

TEST(Stripe, Conv1dLength) {
  for (bool int8 : {false, true}) {
    SpatialCase c = conv({2, 11, 3}, window(3, 1, 2, 1, 1, 1, 0, 0), 4, int8);
    c.type = TIGRIS_OP_CONV1D;
    check_bands(c, {1, 2, 6}, "conv1d");
  }
}

TEST(Stripe, Pools1dLength) {
  // Rank-3 (NLC) pools band along the length like Conv1D: window 4 stride 4 (M5's MaxPool1d),
  // and window 3 stride 2 with pads, batch 2.
  for (bool int8 : {false, true}) {
    SpatialCase mp = conv({1, 19, 5}, window(4, 1, 4, 1, 0, 0, 0, 0), 0, int8);
    mp.type = TIGRIS_OP_MAX_POOL;
    mp.sp.group = 0;
    check_bands(mp, {1, 2, 4, 9}, "maxpool1d");
    SpatialCase ap = conv({2, 10, 3}, window(3, 1, 2, 1, 1, 1, 0, 0), 0, int8);
    ap.type = TIGRIS_OP_AVG_POOL;
    ap.sp.group = 0;
    check_bands(ap, {1, 3}, "avgpool1d");
  }
}

TEST(Stripe, CompressedWeights) {
  // The conv's weights and bias in an LZ4 block: decoded once, kept for every band.
  SpatialCase c = conv({1, 7, 5, 3}, window(3, 3, 1, 1, 1, 1, 1, 1), 4);
  for (uint32_t b : {1u, 3u}) {
    PlanDesc p = spatial_plan(c, stripe(b));
    p.compression = TIGRIS_COMPRESSION_LZ4;
    p.weight_blocks = {{0, 0, 2}};
    const RunResult r = expect_banded_equals_whole(p, inputs_for(p), "lz4 stripe");
    EXPECT_EQ(trace_count(r.events, TIGRIS_TRACE_WEIGHTS), 1u);
    EXPECT_EQ(r.stats.weight_bytes, 448u);
    PlanDesc q = p;
    set_scheduled_peak(q);
    EXPECT_EQ(r.fast_peak, q.scheduled_peak + al(448));
  }
}

}  // namespace
