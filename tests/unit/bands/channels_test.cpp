// Channel bands (CHANNELS): rows x channels of channel-separable stages — depthwise, max and
// average pools, global pools, elementwise ops with broadcast and residual operands. Banded
// outputs equal whole outputs bit for bit (the per-channel arithmetic is unchanged), every
// tile count and byte moved is hand-derived, and the fast peak equals the cost model's.
#include <algorithm>

#include "bands_fixture.h"

using namespace bandtest;

namespace {

tigris_tile_plan_v11_t chans(uint32_t rows, uint16_t channels) {
  return record(TIGRIS_TILE_AXIS_HEIGHT, rows, TIGRIS_BAND_KIND_CHANNELS, channels);
}

SpatialCase make(std::vector<int32_t> in, uint8_t type, tigris_spatial_t sp) {
  SpatialCase c;
  c.in = std::move(in);
  c.type = type;
  c.sp = sp;
  return c;
}

// `adjust` rewrites each plan before the run (int8 depthwise: per-channel factors).
void check_bands(const SpatialCase& c, std::initializer_list<std::pair<uint32_t, uint16_t>> sizes, const char* what,
                 PlanDesc (*adjust)(PlanDesc) = nullptr) {
  for (auto [h, ch] : sizes) {
    const PlanDesc p = adjust ? adjust(spatial_plan(c, chans(h, ch))) : spatial_plan(c, chans(h, ch));
    const std::string name = std::string(what) + " " + std::to_string(h) + " rows x " + std::to_string(ch) + " ch";
    const RunResult r = expect_banded_equals_whole(p, inputs_for(p), name);
    EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHANNELS}) << name;
    const int32_t H = p.tensors.back().shape[1], C = p.tensors.back().shape[3];
    const int32_t th = std::min<int32_t>((int32_t)h, H), tc = std::clamp<int32_t>(ch, 1, C);
    EXPECT_EQ(r.stats.total_tiles, (uint32_t)(((H + th - 1) / th) * ((C + tc - 1) / tc))) << name;
    // Every output element is spilled once; without a halo every input element is loaded once.
    EXPECT_EQ(r.stats.spills_bytes, (uint32_t)r.outputs[0].size()) << name;
  }
}

TEST(Channels, DepthwiseBandsEqualWhole) {
  // 3x3 stride 1 pad 1: 6 rows x 5 channels in bands from one row x one channel to the whole map.
  check_bands(make({1, 6, 4, 5}, TIGRIS_OP_DEPTHWISE, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5)),
              {{1, 1}, {2, 3}, {3, 4}, {6, 5}, {4, 0}, {9, 20}}, "depthwise");
  // Stride 2, dilation 2 on the rows, asymmetric pads, batch 2, 9 channels (a band of 4
  // channels takes the 4-wide inner loop, its last band the one-channel tail).
  check_bands(make({2, 9, 7, 9}, TIGRIS_OP_DEPTHWISE, window(3, 3, 2, 2, 2, 1, 0, 1, 2, 1, 9)),
              {{1, 1}, {2, 4}, {5, 8}}, "depthwise s2 dil(2,1) batch 2");
}

TEST(Channels, PoolsBandsEqualWhole) {
  tigris_spatial_t mp = window(3, 3, 2, 2, 1, 1, 1, 1);
  mp.group = 0;
  check_bands(make({1, 9, 7, 6}, TIGRIS_OP_MAX_POOL, mp), {{1, 1}, {2, 4}, {5, 6}}, "maxpool");
  tigris_spatial_t ap = window(2, 3, 1, 2, 0, 1, 1, 0);
  ap.group = 0;
  check_bands(make({1, 5, 6, 7}, TIGRIS_OP_AVG_POOL, ap), {{1, 2}, {3, 3}}, "avgpool");
  // A global average pool reads every row of its channels: 8 rows x 4 columns x 10 channels.
  tigris_spatial_t gp = window(8, 4, 1, 1, 0, 0, 0, 0);
  gp.group = 0;
  SpatialCase g = make({1, 8, 4, 10}, TIGRIS_OP_GLOBAL_AVG, gp);
  g.relu_before = true;
  check_bands(g, {{1, 1}, {1, 3}, {1, 10}}, "global average");
  g.type = TIGRIS_OP_GLOBAL_MAX;
  check_bands(g, {{1, 4}}, "global max");
}

TEST(Channels, GlobalAverageBandHoldsOnlyItsChannels) {
  // x [1,8,4,10] -> relu -> gap -> y [1,1,1,10] -> relu. A band of 3 channels holds
  // 8x4x3 floats of x, of relu(x), and 3 floats of each output: the cost model's peak, and
  // what the executor measured.
  tigris_spatial_t gp = window(8, 4, 1, 1, 0, 0, 0, 0);
  gp.group = 0;
  SpatialCase g = make({1, 8, 4, 10}, TIGRIS_OP_GLOBAL_AVG, gp);
  g.relu_before = true;
  PlanDesc p = spatial_plan(g, chans(1, 3));
  set_scheduled_peak(p);
  EXPECT_EQ(p.scheduled_peak, 2 * al(8 * 4 * 3 * 4) + 2 * al(3 * 4));
  const RunResult r = run_plan(p, inputs_for(p));
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(r.fast_peak, p.scheduled_peak);
  EXPECT_EQ(r.stats.total_tiles, 4u);  // ceil(10 / 3)
  EXPECT_EQ(r.stats.loads_bytes, 8u * 4 * 10 * 4);
}

// x [1,H,W,C] -> depthwise -> y -> add(y, b) -> z, with b a stage input of shape `b_shape`
// (int8: b and z quantized, y with per-channel requantization of its own).
PlanDesc depthwise_add(std::vector<int32_t> b_shape, const tigris_tile_plan_v11_t& rec, bool int8 = false) {
  SpatialCase c = make({1, 6, 5, 6}, TIGRIS_OP_DEPTHWISE, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6));
  c.relu_after = false;
  c.int8 = int8;
  PlanDesc p = spatial_plan(c, rec);
  append_add_operand(p, b_shape, {1, 6, 5, 6}, int8);
  return p;
}

TEST(Channels, BroadcastAndResidualOperands) {
  // Per-channel operand [1,1,1,C] read whole, indexed by the global channel.
  for (auto [h, ch] : std::initializer_list<std::pair<uint32_t, uint16_t>>{{1, 1}, {2, 4}, {6, 6}}) {
    const PlanDesc p = depthwise_add({1, 1, 1, 6}, chans(h, ch));
    expect_banded_equals_whole(p, inputs_for(p), "per-channel add " + std::to_string(h) + "x" + std::to_string(ch));
  }
  // A full-size operand is loaded as the output's band; [1,H,1,C] as its rows and channels.
  for (std::vector<int32_t> shape : {std::vector<int32_t>{1, 6, 5, 6}, std::vector<int32_t>{1, 6, 1, 6}}) {
    const PlanDesc p = depthwise_add(shape, chans(2, 4));
    expect_banded_equals_whole(p, inputs_for(p), "banded operand");
  }
}

TEST(Channels, OnlyChannelSeparableStagesBand) {
  Loaded f;
  // A convolution mixes channels.
  SpatialCase conv = make({1, 6, 4, 3}, TIGRIS_OP_CONV, window(3, 3, 1, 1, 1, 1, 1, 1));
  conv.oc = 3;
  load(spatial_plan(conv, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE)), &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  PlanDesc p = spatial_plan(conv, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  p.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, 0);
  load(p, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  EXPECT_THROW(spatial_plan(conv, chans(2, 2)), tigris::plan::PlanWriteError);
  // A depthwise with two output channels per input channel.
  SpatialCase mult = make({1, 6, 4, 3}, TIGRIS_OP_DEPTHWISE, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3));
  mult.oc = 6;
  EXPECT_THROW(spatial_plan(mult, chans(2, 2)), tigris::plan::PlanWriteError);
  // The record axis must be the height (HW is the 2-D tiles' axis).
  PlanDesc hw = spatial_plan(make({1, 6, 4, 3}, TIGRIS_OP_DEPTHWISE, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3)),
                             chans(2, 2));
  hw.tile_plans[0].choices.axis = TIGRIS_TILE_AXIS_HW;
  load(hw, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
}

TEST(Channels, FactsCountRowBandsTimesChannelBands) {
  // 6 output rows in bands of 4 (2) times 5 channels in bands of 2 (3) = 6 tiles; halo 2.
  PlanDesc p = spatial_plan(make({1, 6, 4, 5}, TIGRIS_OP_DEPTHWISE, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5)),
                            chans(4, 2));
  const tigris_tile_facts_t& f = p.tile_plans[0].facts;
  EXPECT_EQ(f.tile_extent, 4u);
  EXPECT_EQ(f.num_tiles, 6u);
  EXPECT_EQ(f.original_extent, 6u);
  EXPECT_EQ(f.halo, 2u);
  EXPECT_EQ(f.band_axis, 1u);
  EXPECT_EQ(f.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, 0));
  Loaded l;
  load(p, &l);
  ASSERT_EQ(l.err, TIGRIS_OK);
  p.tile_plans[0].facts.num_tiles = 2;  // rows only: refused
  load(p, &l);
  EXPECT_EQ(l.err, TIGRIS_ERR_TILE_FACTS);
}

TEST(Channels, OperandWithoutTheChannelsIsRefused) {
  // [1,H,W,1] is broadcast along the channels but not the rows: it has no channel band.
  PlanDesc p = depthwise_add({1, 6, 5, 6}, chans(2, 4));
  p.tensors[p.stages[0].inputs[1]].shape = {1, 6, 5, 1};
  Loaded f;
  load(p, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_BAND);
}

// ---- int8 ----

// An int8 depthwise whose output channels requantize each by its own factor (weight scales
// differing per channel): a channel band must read factors, weights and biases at the
// global channel.
SpatialCase s8_depthwise(std::vector<int32_t> in, tigris_spatial_t sp) {
  SpatialCase c = make(std::move(in), TIGRIS_OP_DEPTHWISE, sp);
  c.int8 = true;
  return c;
}

PlanDesc per_channel_factors(PlanDesc p) {
  const uint16_t y = 1;  // the depthwise's output
  const int32_t C = p.tensors[y].shape[3];
  std::vector<float> ws;
  for (int32_t c = 0; c < C; ++c) ws.push_back(0.01f + 0.007f * (float)c);
  const QuantDesc q = p.quant[add_conv_quant(p, 0.05f, ws, 0.1f, -2)];
  p.quant.pop_back();
  p.quant[p.tensors[y].quant] = q;
  return p;
}

void check_s8_bands(const SpatialCase& c, std::initializer_list<std::pair<uint32_t, uint16_t>> sizes,
                    const char* what) {
  check_bands(c, sizes, what, c.type == TIGRIS_OP_DEPTHWISE ? per_channel_factors : nullptr);
}

TEST(Channels, Int8DepthwiseBandsEqualWhole) {
  // Per-channel requantization: the factors of channel c are not those of channel 0.
  const PlanDesc p = per_channel_factors(
      spatial_plan(s8_depthwise({1, 6, 4, 9}, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 9)), chans(2, 4)));
  const QuantDesc& q = p.quant[p.tensors[1].quant];
  ASSERT_EQ(q.multipliers.size(), 9u);
  EXPECT_NE(q.multipliers[0], q.multipliers[5]);
  // Bands of one channel (the one-lane tail), four (the four-lane block), five (both), all.
  check_s8_bands(s8_depthwise({1, 6, 4, 9}, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 9)),
                 {{1, 1}, {2, 4}, {3, 5}, {6, 9}, {4, 0}}, "int8 depthwise");
  check_s8_bands(s8_depthwise({2, 9, 7, 10}, window(3, 3, 2, 2, 2, 1, 0, 1, 2, 1, 10)), {{1, 1}, {2, 4}, {5, 8}},
                 "int8 depthwise s2 dil(2,1) batch 2");
}

TEST(Channels, Int8PoolsBandsEqualWhole) {
  tigris_spatial_t mp = window(3, 3, 2, 2, 1, 1, 1, 1);
  mp.group = 0;
  SpatialCase m = make({1, 9, 7, 6}, TIGRIS_OP_MAX_POOL, mp);
  m.int8 = true;
  check_s8_bands(m, {{1, 1}, {2, 4}, {5, 6}}, "int8 maxpool");
  tigris_spatial_t ap = window(2, 3, 1, 2, 0, 1, 1, 0);
  ap.group = 0;
  SpatialCase a = make({1, 5, 6, 7}, TIGRIS_OP_AVG_POOL, ap);
  a.int8 = true;
  check_s8_bands(a, {{1, 2}, {3, 3}, {2, 7}}, "int8 avgpool");
  tigris_spatial_t gp = window(8, 4, 1, 1, 0, 0, 0, 0);
  gp.group = 0;
  SpatialCase g = make({1, 8, 4, 10}, TIGRIS_OP_GLOBAL_AVG, gp);
  g.int8 = true;
  g.relu_before = true;
  check_s8_bands(g, {{1, 1}, {1, 3}, {1, 10}}, "int8 global average");
  g.type = TIGRIS_OP_GLOBAL_MAX;
  check_s8_bands(g, {{1, 4}, {1, 1}}, "int8 global max");
}

TEST(Channels, Int8BroadcastAndResidualOperands) {
  for (auto [h, ch] : std::initializer_list<std::pair<uint32_t, uint16_t>>{{1, 1}, {2, 4}, {3, 5}, {6, 6}}) {
    const std::string hc = std::to_string(h) + "x" + std::to_string(ch);
    for (std::vector<int32_t> shape :
         {std::vector<int32_t>{1, 1, 1, 6}, std::vector<int32_t>{1, 6, 5, 6}, std::vector<int32_t>{1, 6, 1, 6}}) {
      const PlanDesc p = per_channel_factors(depthwise_add(shape, chans(h, ch), true));
      const RunResult r = expect_banded_equals_whole(p, inputs_for(p), "int8 add " + hc);
      EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHANNELS}) << hc;
    }
  }
}

TEST(Channels, Int8ChannelRecordsInconsistentWithThePlanAreRefused) {
  Loaded f;
  // An int8 stage with a float32 tensor (a dequantizing Cast after the depthwise): one dtype
  // per channel stage. Stripes hold; a record stating CHANNELS does not.
  SpatialCase c = s8_depthwise({1, 6, 4, 5}, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5));
  c.relu_after = false;
  PlanDesc p = spatial_plan(c, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  const uint16_t y = 1;
  p.tensors[y].flags = 0;
  const uint16_t d = add_tensor(p, "d", {1, 6, 4, 5}, TIGRIS_TENSOR_MODEL_OUTPUT);
  p.stages[0].ops.push_back(add_op(p, TIGRIS_OP_CAST, {y}, {d}));
  p.stages[0].outputs = {d};
  p.model_outputs = {d};
  tigris::plan::fill_tile_facts(p);
  load(p, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  p.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, 0);
  load(p, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  p.tile_plans[0].choices.tile_width = 2;
  EXPECT_THROW(tigris::plan::fill_tile_facts(p), tigris::plan::PlanWriteError);
  // The facts of an int8 channel record: rows x channel bands, as for float.
  PlanDesc nq = spatial_plan(s8_depthwise({1, 6, 4, 5}, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5)), chans(2, 2));
  load(nq, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  EXPECT_EQ(nq.tile_plans[0].facts.num_tiles, 9u);  // 3 row bands x 3 channel bands
  nq.tile_plans[0].facts.num_tiles = 3;
  load(nq, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // Per-channel factors that are not one per channel are refused before any band is cut.
  PlanDesc few = per_channel_factors(
      spatial_plan(s8_depthwise({1, 6, 4, 5}, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 5)), chans(2, 2)));
  QuantDesc& q = few.quant[few.tensors[1].quant];
  q.multipliers.resize(3);
  q.shifts.resize(3);
  load(few, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_BAD_OPERATOR);
  // An int8 operand broadcast along the channels but not the rows has no channel band.
  PlanDesc op = depthwise_add({1, 6, 5, 6}, chans(2, 4), true);
  op.tensors[op.stages[0].inputs[1]].shape = {1, 6, 5, 1};
  load(op, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_BAND);
}

}  // namespace
