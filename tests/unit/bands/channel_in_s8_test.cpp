// int8 input-channel bands (CHANNELS mode INPUT) of a FullyConnected and of a 1x1 Conv: an
// int32 accumulator block (the tile's rows x every output channel) is kept in fast memory
// besides the int8 output while the input-column bands add their products; the last band adds
// the bias and requantizes. Integer sums wrap, so every split gives the whole kernel's
// accumulators: banded equals whole byte for byte (the whole int8 kernels are checked against
// TensorFlow Lite Micro elsewhere). Peaks count the accumulator, hand-derived.
#include <algorithm>

#include "bands_fixture.h"

using namespace bandtest;

namespace chanins8 {

tigris_tile_plan_v11_t in_chans(uint32_t rows, uint16_t columns) {
  return record(TIGRIS_TILE_AXIS_HEIGHT, rows, TIGRIS_BAND_KIND_CHANNELS, columns, 0, TIGRIS_CHANNELS_MODE_INPUT);
}

// x [M, K] int8 -> FullyConnected (OC; int8 weights, int32 bias, per-channel factors) -> y.
PlanDesc fc_s8(int32_t M, int32_t K, int32_t OC, const tigris_tile_plan_v11_t& rec, int8_t act_min = -128) {
  PlanDesc p;
  const uint16_t x = add_tensor(p, "x", {M, K}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_INT8, add_quant(p, 0.05f, 1));
  std::vector<float> ws;
  for (int32_t c = 0; c < OC; ++c) ws.push_back(0.01f + 0.004f * (float)c);
  const uint16_t y = add_tensor(p, "y", {M, OC}, TIGRIS_TENSOR_MODEL_OUTPUT, TIGRIS_DTYPE_INT8,
                                add_conv_quant(p, 0.05f, ws, 0.2f, -3));
  const uint16_t fc = add_op(p, TIGRIS_OP_FULLY_CONN, {x}, {y});
  p.ops[fc].act_min = act_min;
  add_fc_weights(p, fc, OC, K, true);
  add_stage(p, {fc}, {x}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  tile_stage(p, 0, rec);
  return p;
}

// x NHWC int8 -> 1x1 Conv (OC) -> y.
PlanDesc conv1x1_s8(const std::vector<int32_t>& in, int32_t OC, const tigris_tile_plan_v11_t& rec,
                    int8_t act_min = -128) {
  PlanDesc p =
      spatial_plan(SpatialCase{in, TIGRIS_OP_CONV, window(1, 1, 1, 1, 0, 0, 0, 0), OC, false, false, true}, rec);
  p.ops[0].act_min = act_min;
  return p;
}

// Widths 1, 2, 3, 7, K - 1, K and wider; row bands of 1, 2 and every row; with a clamp at the
// output zero point (ReLU) and without. Each input byte loaded once, each output byte spilled once.
TEST(ChannelInS8, FullyConnectedBandsEqualWhole) {
  const int32_t M = 3, K = 24, OC = 5;
  for (int8_t act_min : {int8_t{-128}, int8_t{-3}})
    for (uint32_t rows : {1u, 2u, 3u})
      for (uint16_t cols : {1, 2, 3, 7, 23, 24, 40}) {
        const std::string what = "int8 fc " + std::to_string(rows) + " rows x " + std::to_string(cols) +
                                 " input columns, act_min " + std::to_string(act_min);
        const PlanDesc p = fc_s8(M, K, OC, in_chans(rows, cols), act_min);
        const tigris_tile_facts_t& f = p.tile_plans[0].facts;
        ASSERT_EQ(f.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT)) << what;
        const uint32_t w = std::min<uint32_t>(cols, K), tiles = ((M + rows - 1) / rows) * ((K + w - 1) / w);
        EXPECT_EQ(f.num_tiles, tiles) << what;
        const RunResult r = expect_banded_equals_whole(p, {pattern_s8((size_t)M * K, 3)}, what);
        EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHANNELS}) << what;
        EXPECT_EQ(r.stats.total_tiles, tiles) << what;
        EXPECT_EQ(r.stats.loads_bytes, (uint32_t)(M * K)) << what;
        EXPECT_EQ(r.stats.spills_bytes, (uint32_t)(M * OC)) << what;
      }
}

// Pixel blocks of 1, 2, 5 and all (N*H*W = 2*3*2 = 12) x input channels 1, 2, 3, 10, 11 of a
// 1x1 Conv 11 -> 6: the output block, its accumulator and the box; byte for byte the whole Conv.
TEST(ChannelInS8, Conv1x1BandsEqualWhole) {
  const std::vector<int32_t> in = {2, 3, 2, 11};
  const int32_t C = 11, OC = 6, P = 12;
  for (int8_t act_min : {int8_t{-128}, int8_t{-2}})
    for (uint32_t rows : {1u, 2u, 5u, 12u})
      for (uint16_t cols : {1, 2, 3, 10, 11}) {
        const std::string what = "int8 conv1x1 " + std::to_string(rows) + " pixels x " + std::to_string(cols) +
                                 " input channels, act_min " + std::to_string(act_min);
        const PlanDesc p = conv1x1_s8(in, OC, in_chans(rows, cols), act_min);
        ASSERT_EQ(p.tile_plans[0].facts.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT))
            << what;
        const RunResult r = expect_banded_equals_whole(p, {pattern_s8((size_t)P * C, 7)}, what);
        EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHANNELS}) << what;
        EXPECT_EQ(r.stats.total_tiles,
                  ((P + rows - 1) / rows) * ((C + std::min<uint32_t>(cols, C) - 1) / std::min<uint32_t>(cols, C)))
            << what;
        EXPECT_EQ(r.stats.loads_bytes, (uint32_t)(P * C)) << what;
        EXPECT_EQ(r.stats.spills_bytes, (uint32_t)(P * OC)) << what;
      }
}

// x [1, 640] -> FC (10), one row, bands of 64 columns: the whole int8 output (10 B), the
// accumulator of its row (10 x 4 = 40 B) and one box (64 B), each aligned: al(10) + al(40) +
// al(64); 10 tiles. A 1x1 Conv 32 -> 128 on 7x7, blocks of 2 pixels x 8 channels: the output
// block (2 x 128 B), its accumulator (2 x 128 x 4 B) and the box (2 x 8 B).
TEST(ChannelInS8, PeakCountsTheAccumulator) {
  PlanDesc p = fc_s8(1, 640, 10, in_chans(1, 64));
  set_scheduled_peak(p);
  EXPECT_EQ(p.scheduled_peak, al(10) + al(40) + al(64));
  const RunResult r = run_plan(p, {pattern_s8(640, 11)});
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(r.fast_peak, p.scheduled_peak);
  EXPECT_EQ(r.stats.total_tiles, 10u);
  // Whole, the stage holds x and y: al(640) + al(10); the input-channel form is smaller.
  EXPECT_LT(p.scheduled_peak, al(640) + al(10));
  RunOptions tight;
  tight.fast = (uint32_t)p.scheduled_peak - 1;
  EXPECT_NE(run_plan(p, {pattern_s8(640, 11)}, tight).rc, TIGRIS_EXEC_OK);

  const std::vector<int32_t> in = {1, 7, 7, 32};
  PlanDesc q = conv1x1_s8(in, 128, in_chans(2, 8));
  set_scheduled_peak(q);
  EXPECT_EQ(q.scheduled_peak, al(2 * 128) + al(2 * 128 * 4) + al(2 * 8));
  const RunResult rq = run_plan(q, {pattern_s8(49 * 32, 13)});
  ASSERT_EQ(rq.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(rq.fast_peak, q.scheduled_peak);
  EXPECT_EQ(rq.stats.total_tiles, 25u * 4u);
  expect_banded_equals_whole(q, {pattern_s8(49 * 32, 13)}, "int8 1x1 7x7x32 -> 128");
}

// An int8 KxK Conv stated with the facts of the float KxK form is refused (TILE_FACTS): the
// int8 partial sums are those of a FullyConnected or 1x1 Conv only.
TEST(ChannelInS8, RecordsThePlanDoesNotAllowAreRefused) {
  Loaded f;
  PlanDesc k =
      spatial_plan(SpatialCase{{1, 6, 5, 8}, TIGRIS_OP_CONV, window(3, 3, 1, 1, 1, 1, 1, 1), 4, false, false, true},
                   record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_CHANNELS, 4, 0, TIGRIS_CHANNELS_MODE_OUTPUT));
  load(k, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  k.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT);
  k.tile_plans[0].facts.num_tiles = 3 * 2;  // the float Conv's facts: 3 row blocks x 2 bands
  k.tile_plans[0].facts.original_extent = 6;
  k.tile_plans[0].facts.halo = 2;
  load(k, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
}

}  // namespace chanins8
