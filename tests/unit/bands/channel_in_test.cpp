// Input-channel bands (CHANNELS mode INPUT): a float32 FullyConnected reads rows x input
// columns [k0, k1) of its input (and those columns of its weights) per tile and adds their
// products to its whole output, kept in fast memory; the bias and activation come after the
// last column band. Each output element is summed in the whole op's order (column 0 up, then
// the bias), so banded equals whole bit for bit; peaks and tile counts are hand-derived;
// inconsistent records (a Conv band cutting a channel block, a second op, a wrong count) are refused.
#include <algorithm>
#include <cmath>

#include "bands_fixture.h"

using namespace bandtest;

namespace chanin {

tigris_tile_plan_v11_t in_chans(uint32_t rows, uint16_t columns) {
  return record(TIGRIS_TILE_AXIS_HEIGHT, rows, TIGRIS_BAND_KIND_CHANNELS, columns, 0, TIGRIS_CHANNELS_MODE_INPUT);
}

// x [M, K] (or [M, 2, K/2] flattened) -> FC (OC, fused activation) -> y.
PlanDesc fc_plan(int32_t M, int32_t K, int32_t OC, const tigris_tile_plan_v11_t& rec, bool int8 = false,
                 uint8_t act = TIGRIS_ACT_RELU, bool rank3 = false) {
  PlanDesc p;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  const std::vector<int32_t> xs = rank3 ? std::vector<int32_t>{M, 2, K / 2} : std::vector<int32_t>{M, K};
  const uint16_t x = add_tensor(p, "x", xs, TIGRIS_TENSOR_MODEL_INPUT, dt, int8 ? add_quant(p, 0.05f, 1) : TIGRIS_NONE);
  uint16_t yq = TIGRIS_NONE;
  if (int8) {
    std::vector<float> ws;
    for (int32_t c = 0; c < OC; ++c) ws.push_back(0.01f + 0.004f * (float)c);
    yq = add_conv_quant(p, 0.05f, ws, 0.2f, -3);
  }
  const uint16_t y = add_tensor(p, "y", {M, OC}, TIGRIS_TENSOR_MODEL_OUTPUT, dt, yq);
  const uint16_t fc = add_op(p, TIGRIS_OP_FULLY_CONN, {x}, {y});
  p.ops[fc].fused_act = act;
  add_fc_weights(p, fc, OC, K, int8);
  if (!int8) {  // weights whose products round (not small dyadic fractions)
    std::vector<float> w((size_t)OC * K);
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * (float)i + 0.1f) * 0.731f;
    p.ops[fc].weight = add_weight(p, w);
  }
  add_stage(p, {fc}, {x}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  tile_stage(p, 0, rec);
  return p;
}

std::vector<Bytes> float_inputs(int32_t M, int32_t K) {
  std::vector<float> v((size_t)M * K);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::cos(1.3f * (float)i) * 2.17f - 0.3f;
  return {float_bytes(v)};
}

// Band widths 1, 2, 3, an odd 7, K - 1 and K (one band), at row bands 1, 2 and every row.
TEST(ChannelIn, FullyConnectedBandsEqualWhole) {
  const int32_t M = 3, K = 24, OC = 5;
  for (uint8_t act : {TIGRIS_ACT_NONE, TIGRIS_ACT_RELU})
    for (uint32_t rows : {1u, 2u, 3u})
      for (uint16_t cols : {1, 2, 3, 7, 23, 24, 40}) {
        const std::string what =
            "fc " + std::to_string(rows) + " rows x " + std::to_string(cols) + " input columns" + (act ? " relu" : "");
        const PlanDesc p = fc_plan(M, K, OC, in_chans(rows, cols), false, act);
        const tigris_tile_facts_t& f = p.tile_plans[0].facts;
        EXPECT_EQ(f.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT)) << what;
        EXPECT_EQ(f.band_axis, 0u) << what;
        EXPECT_EQ(f.original_extent, (uint32_t)M) << what;
        const uint32_t w = std::min<uint32_t>(cols, K);
        const uint32_t tiles = ((M + rows - 1) / rows) * ((K + w - 1) / w);
        EXPECT_EQ(f.num_tiles, tiles) << what;
        const RunResult r = expect_banded_equals_whole(p, float_inputs(M, K), what);
        EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHANNELS}) << what;
        EXPECT_EQ(r.stats.total_tiles, tiles) << what;
        EXPECT_EQ(r.stats.loads_bytes, (uint32_t)(M * K * 4)) << what;  // each input element once
        EXPECT_EQ(r.stats.spills_bytes, (uint32_t)(M * OC * 4)) << what;
      }
  // A rank-3 input read as [M, K].
  for (uint16_t cols : {1, 5, 24}) {
    const PlanDesc p = fc_plan(M, K, OC, in_chans(2, cols), false, TIGRIS_ACT_RELU6, true);
    expect_banded_equals_whole(p, float_inputs(M, K), "rank-3 input, " + std::to_string(cols) + " columns");
  }
}

TEST(ChannelIn, PeakIsTheWholeOutputAndOneBox) {
  // x [1, 64] -> FC (10): the output (10 floats = 40 bytes) stays in fast memory; a band of 16
  // input columns is 64 bytes: peak al(40) + al(64); 4 tiles, x loaded once.
  PlanDesc p = fc_plan(1, 64, 10, in_chans(1, 16));
  set_scheduled_peak(p);
  EXPECT_EQ(p.scheduled_peak, al(10 * 4) + al(16 * 4));
  const RunResult r = run_plan(p, float_inputs(1, 64));
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(r.fast_peak, p.scheduled_peak);
  EXPECT_EQ(r.stats.total_tiles, 4u);
  EXPECT_EQ(r.stats.loads_bytes, 64u * 4);
  EXPECT_EQ(r.stats.spills_bytes, 10u * 4);
  // Whole, the stage holds x and y (al(256) + al(40)); output-channel bands hold x whole.
  EXPECT_LT(p.scheduled_peak, al(64 * 4));
  // 2 rows x 5 columns of a [4, 30] input into 3 outputs: al(4*3*4) + al(2*5*4), 2 x 6 tiles.
  PlanDesc q = fc_plan(4, 30, 3, in_chans(2, 5));
  set_scheduled_peak(q);
  EXPECT_EQ(q.scheduled_peak, al(4 * 3 * 4) + al(2 * 5 * 4));
  const RunResult rq = run_plan(q, float_inputs(4, 30));
  ASSERT_EQ(rq.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(rq.fast_peak, q.scheduled_peak);
  EXPECT_EQ(rq.stats.total_tiles, 12u);
  // One byte less fast memory than the peak: the run refuses (TILE), never overruns.
  RunOptions tight;
  tight.fast = (uint32_t)q.scheduled_peak - 1;
  EXPECT_NE(run_plan(q, float_inputs(4, 30), tight).rc, TIGRIS_EXEC_OK);
}

TEST(ChannelIn, RecordsInconsistentWithThePlanAreRefused) {
  Loaded f;
  PlanDesc p = fc_plan(3, 10, 4, in_chans(2, 4));
  EXPECT_EQ(p.tile_plans[0].facts.num_tiles, 6u);  // 2 row bands x 3 column bands
  load(p, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  PlanDesc wrong = p;
  wrong.tile_plans[0].facts.num_tiles = 2;  // rows only
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  wrong = p;
  wrong.tile_plans[0].facts.band_axis = 1;
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  wrong = p;
  wrong.tile_plans[0].facts.original_extent = 10;  // the columns are the record's width, not its extent
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // Mode 3 does not exist.
  wrong = p;
  wrong.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, 3);
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // int8 states mode INPUT with the same facts (an int32 accumulator block: channel_in_s8_test.cpp).
  PlanDesc q = fc_plan(
      3, 10, 4, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_CHANNELS, 4, 0, TIGRIS_CHANNELS_MODE_OUTPUT), true);
  load(q, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  q.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT);
  q.tile_plans[0].facts.num_tiles = 6;  // what mode INPUT's facts are
  load(q, &f);
  EXPECT_EQ(f.err, TIGRIS_OK);
  // A 3x3 Conv stage stated as input-channel bands 2 channels wide (a block of 4 cut; 3 input channels).
  PlanDesc c =
      spatial_plan(SpatialCase{{1, 6, 4, 3}, TIGRIS_OP_CONV, window(3, 3, 1, 1, 1, 1, 1, 1), 5, false, false, false},
                   record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_CHANNELS, 2, 0, TIGRIS_CHANNELS_MODE_OUTPUT));
  load(c, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  c.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT);
  load(c, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // The record axis must be the height.
  wrong = p;
  wrong.tile_plans[0].choices.axis = TIGRIS_TILE_AXIS_HW;
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
}

// ---- 1x1 Conv (float32, one group, stride 1, unpadded): the matrix [N*H*W, C_in] ----

// x [in] NHWC -> Conv (window sp, OC, fused activation) -> y, one stage stated by `rec`; weights
// and bias whose products round, so a sum in another order would differ.
PlanDesc conv_in_plan(std::vector<int32_t> in, int32_t OC, tigris_spatial_t sp, const tigris_tile_plan_v11_t& rec,
                      uint8_t act = TIGRIS_ACT_RELU, bool int8 = false) {
  PlanDesc p = spatial_plan(SpatialCase{in, TIGRIS_OP_CONV, sp, OC, false, false, int8}, rec);
  p.ops[0].fused_act = act;
  if (!int8) {
    const int32_t icg = in.back() / (sp.group ? sp.group : 1);
    std::vector<float> w((size_t)OC * sp.kernel_h * sp.kernel_w * icg), b((size_t)OC);
    for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * (float)i + 0.1f) * 0.731f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.9f * (float)i) * 0.413f;
    p.ops[0].weight = add_weight(p, w);
    p.ops[0].bias = add_weight(p, b);
  }
  return p;
}

std::vector<Bytes> conv_in_inputs(const std::vector<int32_t>& in) {
  size_t n = 1;
  for (int32_t v : in) n *= (size_t)v;
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::cos(1.3f * (float)i) * 2.17f - 0.3f;
  return {float_bytes(v)};
}

// Widths 1, 2, 3, an odd 5, C - 1 and C (one band) and wider, pixel blocks of 1, 2, 3 and all
// (N*H*W = 2*3*2 = 12 pixels), with and without an activation: byte for byte the whole Conv.
TEST(ChannelIn, Conv1x1BandsEqualWhole) {
  const std::vector<int32_t> in = {2, 3, 2, 11};
  const int32_t C = 11, OC = 6, P = 12;
  for (uint8_t act : {TIGRIS_ACT_NONE, TIGRIS_ACT_RELU6})
    for (uint32_t rows : {1u, 2u, 3u, 5u, 12u})
      for (uint16_t cols : {1, 2, 3, 5, 10, 11, 20}) {
        const std::string what = "conv1x1 " + std::to_string(rows) + " pixels x " + std::to_string(cols) +
                                 " input channels" + (act ? " relu6" : "");
        const PlanDesc p = conv_in_plan(in, OC, window(1, 1, 1, 1, 0, 0, 0, 0), in_chans(rows, cols), act);
        const tigris_tile_facts_t& f = p.tile_plans[0].facts;
        EXPECT_EQ(f.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT)) << what;
        EXPECT_EQ(f.original_extent, (uint32_t)P) << what;
        const uint32_t w = std::min<uint32_t>(cols, C);
        const uint32_t tiles = ((P + rows - 1) / rows) * ((C + w - 1) / w);
        EXPECT_EQ(f.num_tiles, tiles) << what;
        const RunResult r = expect_banded_equals_whole(p, conv_in_inputs(in), what);
        EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHANNELS}) << what;
        EXPECT_EQ(r.stats.total_tiles, tiles) << what;
        EXPECT_EQ(r.stats.loads_bytes, (uint32_t)(P * C * 4)) << what;    // each input element once
        EXPECT_EQ(r.stats.spills_bytes, (uint32_t)(P * OC * 4)) << what;  // each output element once
      }
  // Dilation reads nothing on a 1x1 window; a Conv without a bias starts from zero.
  PlanDesc d = conv_in_plan(in, OC, window(1, 1, 1, 1, 0, 0, 0, 0, 3, 2), in_chans(4, 3));
  expect_banded_equals_whole(d, conv_in_inputs(in), "dilated 1x1");
  PlanDesc nb = conv_in_plan(in, OC, window(1, 1, 1, 1, 0, 0, 0, 0), in_chans(4, 3));
  nb.ops[0].bias = TIGRIS_NONE;
  expect_banded_equals_whole(nb, conv_in_inputs(in), "1x1 without bias");
}

// x [1, 7, 7, 32] -> 1x1 Conv (128): a block of 2 pixels of the output (2 x 128 floats =
// 1024 B) stays in fast memory while bands of 8 input channels (2 x 8 floats = 64 B) are
// added to it: peak al(1024) + al(64), not the whole output (25088 B); 25 x 4 tiles.
TEST(ChannelIn, Conv1x1PeakIsARowBlockOfTheOutputAndOneBox) {
  const std::vector<int32_t> in = {1, 7, 7, 32};
  PlanDesc p = conv_in_plan(in, 128, window(1, 1, 1, 1, 0, 0, 0, 0), in_chans(2, 8));
  set_scheduled_peak(p);
  EXPECT_EQ(p.scheduled_peak, al(2 * 128 * 4) + al(2 * 8 * 4));
  const RunResult r = run_plan(p, conv_in_inputs(in));
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(r.fast_peak, p.scheduled_peak);
  EXPECT_EQ(r.stats.total_tiles, 25u * 4u);
  EXPECT_EQ(r.stats.loads_bytes, 49u * 32 * 4);
  EXPECT_EQ(r.stats.spills_bytes, 49u * 128 * 4);
  // One pixel and one channel: the smallest form, one output pixel and one float.
  PlanDesc q = conv_in_plan(in, 128, window(1, 1, 1, 1, 0, 0, 0, 0), in_chans(1, 1));
  set_scheduled_peak(q);
  EXPECT_EQ(q.scheduled_peak, al(128 * 4) + al(4));
  const RunResult rq = run_plan(q, conv_in_inputs(in));
  ASSERT_EQ(rq.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(rq.fast_peak, q.scheduled_peak);
  RunOptions tight;
  tight.fast = (uint32_t)p.scheduled_peak - 1;
  EXPECT_NE(run_plan(p, conv_in_inputs(in), tight).rc, TIGRIS_EXEC_OK);
}

// The pixel-matrix facts (extent N*H*W, axis 0) belong to a float32 1x1, one-group, stride-1,
// unpadded Conv only: a 3x3, strided or padded Conv has the rank-4 form of mode INPUT (rows x
// input channels; channel_in_conv_test.cpp) and a grouped one none, so each stated with the
// facts the 1x1 has is refused (TILE_FACTS).
TEST(ChannelIn, Conv1x1RefusalsOfOtherConvs) {
  Loaded f;
  const std::vector<int32_t> in = {1, 6, 6, 4};
  const PlanDesc ok = conv_in_plan(in, 4, window(1, 1, 1, 1, 0, 0, 0, 0), in_chans(2, 2));
  load(ok, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  // The 1x1's plan, record and facts with another window (its weights and output to match).
  struct Refused {
    const char* what;
    tigris_spatial_t sp;
    int32_t out_hw;  // the output's height and width
    size_t weights;  // OC x KH x KW x IC/group
  };
  for (const Refused& c : {Refused{"3x3", window(3, 3, 1, 1, 1, 1, 1, 1), 6, 4 * 9 * 4},
                           Refused{"stride 2", window(1, 1, 2, 2, 0, 0, 0, 0), 3, 4 * 4},
                           Refused{"padded", window(1, 1, 1, 1, 1, 1, 1, 1), 8, 4 * 4},
                           Refused{"grouped", window(1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 2), 6, 4 * 2}}) {
    PlanDesc p = ok;
    p.ops[0].spatial = c.sp;
    std::vector<float> w(c.weights);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.25f * (float)(i % 5) - 0.5f;
    p.ops[0].weight = add_weight(p, w);
    p.tensors[p.ops[0].outputs[0]].shape = {1, c.out_hw, c.out_hw, 4};
    load(p, &f);
    EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS) << c.what;
  }
  // int8 takes the 1x1's form too (channel_in_s8_test.cpp).
  PlanDesc q =
      conv_in_plan(in, 4, window(1, 1, 1, 1, 0, 0, 0, 0),
                   record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_CHANNELS, 2, 0, TIGRIS_CHANNELS_MODE_OUTPUT),
                   TIGRIS_ACT_NONE, true);
  load(q, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  q.tile_plans[0] = ok.tile_plans[0];
  load(q, &f);
  EXPECT_EQ(f.err, TIGRIS_OK);
  // A wrong tile count for the 1x1 itself.
  PlanDesc wrong = ok;
  wrong.tile_plans[0].facts.num_tiles += 1;
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
}

}  // namespace chanin
