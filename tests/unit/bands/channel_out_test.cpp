// Output-channel bands (CHANNELS mode OUTPUT): a Conv of one group computes rows x output
// channels [c0, c1) from every input channel, reading only those channels' weights, biases and
// requantization factors. Banded outputs equal whole outputs bit for bit (float: each output
// element is summed in the same order; int8: exact), tile counts and bytes moved are
// hand-derived, the fast peak equals the cost model's, and inconsistent records are refused.
#include <algorithm>

#include "bands_fixture.h"

using namespace bandtest;

namespace chanout {

tigris_tile_plan_v11_t out_chans(uint32_t rows, uint16_t channels) {
  return record(TIGRIS_TILE_AXIS_HEIGHT, rows, TIGRIS_BAND_KIND_CHANNELS, channels, 0, TIGRIS_CHANNELS_MODE_OUTPUT);
}

SpatialCase conv_case(std::vector<int32_t> in, int32_t oc, tigris_spatial_t sp, bool int8 = false) {
  SpatialCase c;
  c.in = std::move(in);
  c.type = TIGRIS_OP_CONV;
  c.sp = sp;
  c.oc = oc;
  c.int8 = int8;
  return c;
}

// The conv's output (tensor y) requantizes each channel by its own factor (int8 only).
PlanDesc own_factors(PlanDesc p) {
  uint16_t y = 0;
  while (p.tensors[y].name != "y") ++y;
  if (p.tensors[y].dtype != TIGRIS_DTYPE_INT8) return p;
  const int32_t C = p.tensors[y].shape[3];
  std::vector<float> ws;
  for (int32_t c = 0; c < C; ++c) ws.push_back(0.004f + 0.003f * (float)c);
  const QuantDesc q = p.quant[add_conv_quant(p, 0.05f, ws, 0.1f, -2)];
  p.quant.pop_back();
  p.quant[p.tensors[y].quant] = q;
  return p;
}

void check_out_bands(const SpatialCase& c, std::initializer_list<std::pair<uint32_t, uint16_t>> sizes,
                     const std::string& what) {
  for (auto [h, ch] : sizes) {
    const PlanDesc p = own_factors(spatial_plan(c, out_chans(h, ch)));
    const std::string name = what + " " + std::to_string(h) + " rows x " + std::to_string(ch) + " ch";
    EXPECT_EQ(p.tile_plans[0].facts.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_OUTPUT))
        << name;
    const RunResult r = expect_banded_equals_whole(p, inputs_for(p), name);
    EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHANNELS}) << name;
    const int32_t H = p.tensors.back().shape[1], C = p.tensors.back().shape[3];
    const int32_t th = std::min<int32_t>((int32_t)h, H), tc = std::clamp<int32_t>(ch, 1, C);
    EXPECT_EQ(r.stats.total_tiles, (uint32_t)(((H + th - 1) / th) * ((C + tc - 1) / tc))) << name;
    EXPECT_EQ(r.stats.spills_bytes, (uint32_t)r.outputs[0].size()) << name;  // each output element once
  }
}

// Band widths 1, 2, 3, 7 and every channel (C), at several row bands.
TEST(ChannelOut, ConvBandsEqualWhole) {
  // 3x3 stride 1 pad 1, 4 -> 7 channels (7 = C: one band; 3: a short last band).
  check_out_bands(conv_case({1, 6, 5, 4}, 7, window(3, 3, 1, 1, 1, 1, 1, 1)),
                  {{1, 1}, {2, 2}, {3, 3}, {6, 7}, {2, 7}, {4, 0}, {1, 20}}, "conv 3x3");
  // 1x1 (pointwise), 9 -> 13 channels: bands of 4 output channels take the 4-lane loop.
  check_out_bands(conv_case({1, 5, 4, 9}, 13, window(1, 1, 1, 1, 0, 0, 0, 0)),
                  {{1, 1}, {2, 2}, {5, 3}, {1, 4}, {3, 7}, {5, 13}}, "conv 1x1");
  // Stride 2, dilation 2 on the rows, asymmetric pads, batch 2, a ReLU before the conv (its
  // band holds every input channel).
  SpatialCase s = conv_case({2, 9, 7, 5}, 6, window(3, 3, 2, 2, 2, 1, 0, 1, 2, 1));
  s.relu_before = true;
  check_out_bands(s, {{1, 1}, {2, 2}, {3, 3}, {5, 6}}, "conv s2 dil(2,1) batch 2");
}

TEST(ChannelOut, Int8ConvBandsEqualWhole) {
  // Per-channel factors: channel c's are not channel 0's.
  const PlanDesc p =
      own_factors(spatial_plan(conv_case({1, 6, 5, 4}, 7, window(3, 3, 1, 1, 1, 1, 1, 1), true), out_chans(2, 3)));
  uint16_t y = 0;
  while (p.tensors[y].name != "y") ++y;
  const QuantDesc& q = p.quant[p.tensors[y].quant];
  ASSERT_EQ(q.multipliers.size(), 7u);
  EXPECT_NE(q.multipliers[0], q.multipliers[5]);
  // Odd band widths end on a channel paired with itself (the kernel's two-channel loop).
  check_out_bands(conv_case({1, 6, 5, 4}, 7, window(3, 3, 1, 1, 1, 1, 1, 1), true),
                  {{1, 1}, {2, 2}, {3, 3}, {6, 7}, {1, 20}}, "int8 conv 3x3");
  check_out_bands(conv_case({1, 5, 4, 9}, 13, window(1, 1, 1, 1, 0, 0, 0, 0), true), {{1, 1}, {2, 4}, {5, 13}},
                  "int8 conv 1x1");
  SpatialCase s = conv_case({2, 9, 7, 5}, 6, window(3, 3, 2, 2, 2, 1, 0, 1, 2, 1), true);
  s.relu_before = true;
  check_out_bands(s, {{1, 1}, {3, 3}, {5, 6}}, "int8 conv s2 dil(2,1) batch 2");
}

TEST(ChannelOut, BandHoldsEveryInputChannelAndItsOutputChannels) {
  // x [1,4,3,8] -> 1x1 conv (8 -> 6) -> y -> relu -> z, bands of 1 row x 2 channels. A band
  // holds one row of x with all 8 channels (3 x 8 floats) and 2 channels of y and z (3 x 2
  // floats each): the cost model's peak and the executor's. x is read once per channel
  // band: 3 times.
  PlanDesc p = spatial_plan(conv_case({1, 4, 3, 8}, 6, window(1, 1, 1, 1, 0, 0, 0, 0)), out_chans(1, 2));
  set_scheduled_peak(p);
  EXPECT_EQ(p.scheduled_peak, al(3 * 8 * 4) + 2 * al(3 * 2 * 4));
  const RunResult r = run_plan(p, inputs_for(p));
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(r.fast_peak, p.scheduled_peak);
  EXPECT_EQ(r.stats.total_tiles, 12u);  // 4 rows x 3 channel bands
  EXPECT_EQ(r.stats.loads_bytes, 3u * 4 * 3 * 8 * 4);
  EXPECT_EQ(r.stats.spills_bytes, 4u * 3 * 6 * 4);
}

// x [1,6,5,4] -> conv 3x3 (4 -> 6) -> y -> add(y, b) -> z, with b a stage input of `b_shape`.
PlanDesc conv_add(std::vector<int32_t> b_shape, const tigris_tile_plan_v11_t& rec, bool int8 = false) {
  SpatialCase c = conv_case({1, 6, 5, 4}, 6, window(3, 3, 1, 1, 1, 1, 1, 1), int8);
  c.relu_after = false;
  PlanDesc p = spatial_plan(c, rec);
  append_add_operand(p, b_shape, {1, 6, 5, 6}, int8);
  return own_factors(p);
}

TEST(ChannelOut, ResidualAndBroadcastOperandsAfterTheConv) {
  for (bool int8 : {false, true}) {
    for (auto [h, ch] : std::initializer_list<std::pair<uint32_t, uint16_t>>{{1, 1}, {2, 4}, {3, 5}, {6, 6}}) {
      const std::string hc = std::string(int8 ? "int8 " : "") + std::to_string(h) + "x" + std::to_string(ch);
      for (std::vector<int32_t> shape : {std::vector<int32_t>{1, 1, 1, 6}, std::vector<int32_t>{1, 6, 5, 6}}) {
        const PlanDesc p = conv_add(shape, out_chans(h, ch), int8);
        expect_banded_equals_whole(p, inputs_for(p), "conv + add " + hc);
      }
    }
  }
}

TEST(ChannelOut, RecordsInconsistentWithThePlanAreRefused) {
  Loaded f;
  const SpatialCase conv = conv_case({1, 6, 4, 3}, 5, window(3, 3, 1, 1, 1, 1, 1, 1));
  // The facts: 6 rows in bands of 4 (2) x 5 output channels in bands of 2 (3) = 6; halo 2.
  PlanDesc p = spatial_plan(conv, out_chans(4, 2));
  const tigris_tile_facts_t& facts = p.tile_plans[0].facts;
  EXPECT_EQ(facts.num_tiles, 6u);
  EXPECT_EQ(facts.halo, 2u);
  EXPECT_EQ(facts.original_extent, 6u);
  load(p, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  PlanDesc wrong = p;
  wrong.tile_plans[0].facts.num_tiles = 2;  // rows only
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // A conv stage stated as channel-separable (mode 0): its channels mix.
  wrong = p;
  wrong.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_SEPARABLE);
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // A depthwise stage stated as output bands.
  PlanDesc dw = spatial_plan(
      SpatialCase{{1, 6, 4, 3}, TIGRIS_OP_DEPTHWISE, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3), 0, true, false, false},
      record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_CHANNELS, 2));
  load(dw, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  dw.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_OUTPUT);
  load(dw, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // A grouped conv (2 groups of 2 -> 3 channels): an output channel reads only its group's inputs.
  PlanDesc g = spatial_plan(conv_case({1, 6, 4, 4}, 6, window(3, 3, 1, 1, 1, 1, 1, 1)),
                            record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  OpDesc& gc = g.ops[g.stages[0].ops[0]];
  gc.spatial.group = 2;
  gc.weight = add_weight(g, pattern(6u * 9 * 2, 11, 0.0625f));
  tigris::plan::fill_tile_facts(g);
  load(g, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  g.tile_plans[0] = p.tile_plans[0];  // the same band and facts (6 rows, 6 = 3 x 2 tiles)
  load(g, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // The record axis must be the height.
  PlanDesc hw = p;
  hw.tile_plans[0].choices.axis = TIGRIS_TILE_AXIS_HW;
  load(hw, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // A residual operand without the conv's output channels ([1,H,W,1], broadcast along the
  // channels but not the rows) has no channel band.
  PlanDesc op = conv_add({1, 6, 5, 6}, out_chans(2, 4));
  op.tensors[op.stages[0].inputs[1]].shape = {1, 6, 5, 1};
  load(op, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_BAND);
}

}  // namespace chanout

// ---- FullyConnected: rows x output columns of rank-2 matrices ----

namespace chanout {

// x [M,K] -> FC (OC, per-column factors in int8) -> y -> relu -> z [-> add(z, b) -> s].
PlanDesc fc_plan(int32_t M, int32_t K, int32_t OC, bool int8, const tigris_tile_plan_v11_t& rec,
                 std::vector<int32_t> b_shape = {}) {
  PlanDesc p;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  const uint16_t x =
      add_tensor(p, "x", {M, K}, TIGRIS_TENSOR_MODEL_INPUT, dt, int8 ? add_quant(p, 0.05f, 1) : TIGRIS_NONE);
  uint16_t yq = TIGRIS_NONE;
  if (int8) {
    std::vector<float> ws;
    for (int32_t c = 0; c < OC; ++c) ws.push_back(0.01f + 0.004f * (float)c);
    yq = add_conv_quant(p, 0.05f, ws, 0.2f, -3);
  }
  const uint16_t y = add_tensor(p, "y", {M, OC}, 0, dt, yq);
  const uint16_t z = add_tensor(p, "z", {M, OC}, b_shape.empty() ? TIGRIS_TENSOR_MODEL_OUTPUT : 0, dt,
                                int8 ? add_quant(p, 0.2f, -3) : TIGRIS_NONE);
  const uint16_t fc = add_op(p, TIGRIS_OP_FULLY_CONN, {x}, {y});
  add_fc_weights(p, fc, OC, K, int8);
  add_op(p, TIGRIS_OP_RELU, {y}, {z});
  std::vector<uint16_t> ins = {x}, ops = {0, 1};
  uint16_t last = z;
  if (!b_shape.empty()) {
    const uint16_t b =
        add_tensor(p, "b", b_shape, TIGRIS_TENSOR_MODEL_INPUT, dt, int8 ? add_quant(p, 0.07f, -5) : TIGRIS_NONE);
    last = add_tensor(p, "s", {M, OC}, TIGRIS_TENSOR_MODEL_OUTPUT, dt, int8 ? add_quant(p, 0.15f, 4) : TIGRIS_NONE);
    ops.push_back(add_op(p, TIGRIS_OP_ADD, {z, b}, {last}));
    ins.push_back(b);
  }
  add_stage(p, ops, ins, {last});
  p.model_inputs = ins;
  p.model_outputs = {last};
  tile_stage(p, 0, rec);
  return p;
}

TEST(ChannelOut, FullyConnectedBandsEqualWhole) {
  for (bool int8 : {false, true})
    for (uint32_t rows : {1u, 2u, 3u})
      for (uint16_t cols : {1, 2, 3, 7, 11}) {
        const std::string what = std::string(int8 ? "int8 " : "") + "fc " + std::to_string(rows) + " rows x " +
                                 std::to_string(cols) + " columns";
        const PlanDesc p = fc_plan(3, 10, 11, int8, out_chans(rows, cols));
        EXPECT_EQ(p.tile_plans[0].facts.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_OUTPUT))
            << what;
        EXPECT_EQ(p.tile_plans[0].facts.band_axis, 0u) << what;
        const RunResult r = expect_banded_equals_whole(p, inputs_for(p), what);
        EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHANNELS}) << what;
        EXPECT_EQ(r.stats.total_tiles, ((3u + rows - 1) / rows) * ((11u + cols - 1) / cols)) << what;
        // A bias row [1, OC] read whole and a residual [M, OC] cut like the output.
        for (std::vector<int32_t> shape : {std::vector<int32_t>{1, 11}, std::vector<int32_t>{3, 11}}) {
          const PlanDesc q = fc_plan(3, 10, 11, int8, out_chans(rows, cols), shape);
          expect_banded_equals_whole(q, inputs_for(q), what + " + add");
        }
      }
}

TEST(ChannelOut, FullyConnectedBandHoldsTheWholeInputRow) {
  // x [1,16] -> FC (10) -> relu: a band of 3 columns holds x's row (16 floats) and 3 floats of
  // y and z; x is loaded once per column band (4 times). Row bands would hold 10 floats of each.
  PlanDesc p = fc_plan(1, 16, 10, false, out_chans(1, 3));
  set_scheduled_peak(p);
  EXPECT_EQ(p.scheduled_peak, al(16 * 4) + 2 * al(3 * 4));
  const RunResult r = run_plan(p, inputs_for(p));
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(r.fast_peak, p.scheduled_peak);
  EXPECT_EQ(r.stats.total_tiles, 4u);
  EXPECT_EQ(r.stats.loads_bytes, 4u * 16 * 4);
  EXPECT_EQ(r.stats.spills_bytes, 10u * 4);
}

TEST(ChannelOut, FullyConnectedRecordsInconsistentWithThePlanAreRefused) {
  Loaded f;
  PlanDesc p = fc_plan(3, 10, 11, false, out_chans(2, 4));
  EXPECT_EQ(p.tile_plans[0].facts.num_tiles, 6u);  // 2 row bands x 3 column bands
  EXPECT_EQ(p.tile_plans[0].facts.original_extent, 3u);
  load(p, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  PlanDesc wrong = p;
  wrong.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_SEPARABLE);
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  wrong = p;
  wrong.tile_plans[0].facts.band_axis = 1;  // the rows of a matrix are its axis 0
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // A residual without the FC's columns ([M, 1], broadcast along the columns only).
  PlanDesc op = fc_plan(3, 10, 11, false, out_chans(2, 4), {3, 11});
  op.tensors[op.stages[0].inputs[1]].shape = {3, 1};
  load(op, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_BAND);
}

}  // namespace chanout
