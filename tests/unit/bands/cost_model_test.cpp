// The band cost model against hand-derived byte counts: row spaces, clamped ranges and
// paddings, band bytes, 2-D tiles, line buffers, the layout kinds and the broadcast rule.
#include "bands_fixture.h"
#include "exec/band_memo.h"

using namespace bandtest;
using namespace tigris_rt;

namespace {

// x [1,8,4,2] -> conv 3x3 s1 p1 -> y [1,8,4,3] -> relu -> z, one stage banded by `band` rows.
PlanDesc conv_relu_stripe(uint32_t band, uint8_t kind = TIGRIS_BAND_KIND_STRIPE, uint16_t tile_w = 0) {
  PlanDesc p;
  uint16_t x = add_tensor(p, "x", {1, 8, 4, 2}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(p, "y", {1, 8, 4, 3});
  uint16_t z = add_tensor(p, "z", {1, 8, 4, 3}, TIGRIS_TENSOR_MODEL_OUTPUT);
  uint16_t c = add_op(p, TIGRIS_OP_CONV, {x}, {y});
  p.ops[c].spatial = window(3, 3, 1, 1, 1, 1, 1, 1);
  p.ops[c].weight = add_weight(p, std::vector<float>(3 * 3 * 3 * 2, 0.5f));
  add_op(p, TIGRIS_OP_RELU, {y}, {z});
  add_stage(p, {0, 1}, {x}, {z});
  p.model_inputs = {x};
  p.model_outputs = {z};
  p.scheduled_peak = 1024;
  tile_stage(p, 0,
             record(kind == TIGRIS_BAND_KIND_HW ? TIGRIS_TILE_AXIS_HW : TIGRIS_TILE_AXIS_HEIGHT, band, kind, tile_w));
  return p;
}

struct Described {
  Loaded f;
  PlanCostCtx ctx{};
  CostSource src{};
  CostSpace spaces[8]{};
  uint16_t n = 0;
};

void describe(const PlanDesc& p, tigris_band_kind_t kind, Described* d) {
  load(p, &d->f);
  ASSERT_EQ(d->f.err, TIGRIS_OK);
  ASSERT_TRUE(plan_cost_source(&d->f.plan, 0, kind, &d->ctx, &d->src));
  d->n = cost_spaces(d->src, d->spaces, 8);
}

TEST(CostModel, StripeRangesPadsAndBytes) {
  Described d;
  describe(conv_relu_stripe(2), TIGRIS_BAND_KIND_STRIPE, &d);
  ASSERT_EQ(d.n, 2u);
  EXPECT_EQ(d.spaces[0].rows, 8);
  EXPECT_EQ(d.spaces[1].rows, 8);
  EXPECT_EQ(d.spaces[1].producer, 0u);
  // Band [0,2): input rows [-1,3) clamped to [0,3), one padding row on top.
  ASSERT_TRUE(cost_band_ranges(d.src, d.spaces, d.n, 0, 2, 0, 0));
  EXPECT_EQ(d.spaces[0].r0, 0);
  EXPECT_EQ(d.spaces[0].r1, 3);
  EXPECT_EQ(d.spaces[1].pad_top, 1);
  EXPECT_EQ(d.spaces[1].pad_bottom, 0);
  // x: 3 rows x 4 x 2 floats = 96 B; y, z: 2 rows x 4 x 3 floats = 96 B each (align 32: 96).
  EXPECT_EQ(cost_band_bytes(d.src, d.spaces, d.n, 32), 96u + 96u + 96u);
  EXPECT_EQ(cost_band_bytes(d.src, d.spaces, d.n, 64), 128u * 3);
  // Band [2,4): rows [1,5), no padding: 128 + 96 + 96.
  ASSERT_TRUE(cost_band_ranges(d.src, d.spaces, d.n, 2, 4, 0, 0));
  EXPECT_EQ(d.spaces[0].r0, 1);
  EXPECT_EQ(d.spaces[0].r1, 5);
  EXPECT_EQ(cost_band_bytes(d.src, d.spaces, d.n, 32), 320u);
  // Band [6,8): rows [5,9) clamped to [5,8), one padding row at the bottom.
  ASSERT_TRUE(cost_band_ranges(d.src, d.spaces, d.n, 6, 8, 0, 0));
  EXPECT_EQ(d.spaces[0].r1, 8);
  EXPECT_EQ(d.spaces[1].pad_bottom, 1);
  CostPeak pk;
  ASSERT_TRUE(cost_banded_peak(d.src, d.spaces, d.n, 2, 0, false, 32, &pk));
  EXPECT_EQ(pk.peak, 320u);
  EXPECT_EQ(pk.tiles, 4u);
  EXPECT_EQ(pk.whole, 0u);
  EXPECT_EQ(d.spaces[0].max_rows, 4);
  EXPECT_EQ(d.spaces[1].max_rows, 2);
  // Line buffers: x at 4 rows (128) + y, z at 2 rows (96 each).
  ASSERT_TRUE(cost_banded_peak(d.src, d.spaces, d.n, 2, 0, true, 32, &pk));
  EXPECT_EQ(pk.peak, 320u);
  // A band of the whole extent: x 256, y 384, z 384.
  ASSERT_TRUE(cost_banded_peak(d.src, d.spaces, d.n, 100, 0, false, 32, &pk));
  EXPECT_EQ(pk.peak, 256u + 384u + 384u);
  EXPECT_EQ(pk.tiles, 1u);
  // The plan helper gives the record's band (2 rows) at the host alignment.
  ASSERT_TRUE(cost_banded_peak(d.src, d.spaces, d.n, 2, 0, false, A, &pk));
  EXPECT_EQ(model_peak(d.f.plan, 0), pk.peak);
}

TEST(CostModel, HwTilesColumnsAndRows) {
  // 2 x 3 output tiles: rows [0,2) x cols [0,3) reads rows [0,3) x cols [0,4) (pad top/left 1).
  Described d;
  describe(conv_relu_stripe(2, TIGRIS_BAND_KIND_HW, 3), TIGRIS_BAND_KIND_HW, &d);
  ASSERT_EQ(d.n, 2u);
  EXPECT_EQ(d.spaces[0].cols, 4);
  ASSERT_TRUE(cost_band_ranges(d.src, d.spaces, d.n, 0, 2, 0, 3));
  EXPECT_EQ(d.spaces[0].c0, 0);
  EXPECT_EQ(d.spaces[0].c1, 4);
  EXPECT_EQ(d.spaces[1].pad_left, 1);
  EXPECT_EQ(d.spaces[1].pad_right, 0);
  // x 3x4x2 floats = 96; y, z 2x3x3 floats = 72 -> 96 at align 32.
  EXPECT_EQ(cost_band_bytes(d.src, d.spaces, d.n, 32), 96u * 3);
  ASSERT_TRUE(cost_band_ranges(d.src, d.spaces, d.n, 2, 4, 3, 4));
  EXPECT_EQ(d.spaces[0].c0, 2);
  EXPECT_EQ(d.spaces[0].c1, 4);
  EXPECT_EQ(d.spaces[1].pad_right, 1);
  // x 4x2x2 floats = 64; y, z 2x1x3 = 24 -> 32.
  EXPECT_EQ(cost_band_bytes(d.src, d.spaces, d.n, 32), 64u + 32u + 32u);
  CostPeak pk;
  ASSERT_TRUE(cost_banded_peak(d.src, d.spaces, d.n, 2, 3, false, 32, &pk));
  EXPECT_EQ(pk.tiles, 8u);
  // Worst: an interior row band with the first column tile: x 4x4x2 = 128, y, z 96 each.
  EXPECT_EQ(pk.peak, 128u + 96u + 96u);
}

TEST(CostModel, LayoutKinds) {
  // Transpose of 24 x 3 floats banded by 10 rows: 120 + 120 B, each aligned to 32 -> 128.
  EXPECT_EQ(cost_layout_peak(TIGRIS_BAND_KIND_TRANSPOSE, 24, 10, 288, 288, 72, 32), 256u);
  EXPECT_EQ(cost_layout_peak(TIGRIS_BAND_KIND_RESHAPE, 4, 9, 96, 96, 24, 32), 96u * 2);
  // By-input: 6 rows of [1,6,4,3] floats in bands of 4: acc 12 B -> 32, output 12 -> 32, input 192.
  EXPECT_EQ(cost_layout_peak(TIGRIS_BAND_KIND_BY_INPUT, 6, 4, 288, 12, 3, 32), 32u + 32u + 192u);
  EXPECT_EQ(cost_layout_peak(TIGRIS_BAND_KIND_STRIPE, 6, 4, 288, 12, 3, 32), UINT64_MAX);
}

TEST(CostModel, TensorsAndBroadcast) {
  const int32_t d4[] = {2, 5, 4, 3};
  CostTensor t = cost_tensor(d4, 4, 4, 1, false, COST_LOADED);
  EXPECT_EQ(t.outer, 2u);
  EXPECT_EQ(t.rows, 5u);
  EXPECT_EQ(t.cols, 1u);
  EXPECT_EQ(t.cell, 48u);
  EXPECT_EQ(t.bytes, 480u);
  t = cost_tensor(d4, 4, 4, 1, true, 0);
  EXPECT_EQ(t.cols, 4u);
  EXPECT_EQ(t.cell, 12u);
  const int32_t m[] = {6, 5};
  t = cost_tensor(m, 2, 1, 0, false, 0);
  EXPECT_EQ(t.outer, 1u);
  EXPECT_EQ(t.rows, 6u);
  EXPECT_EQ(t.cell, 5u);
  const int32_t c1[] = {3}, s4[] = {1, 1, 1, 3}, h4[] = {1, 5, 1, 3};
  EXPECT_TRUE(cost_broadcast_whole(d4, 4, c1, 1, 1, 1));
  EXPECT_TRUE(cost_broadcast_whole(d4, 4, s4, 4, 1, 2));
  EXPECT_FALSE(cost_broadcast_whole(d4, 4, h4, 4, 1, 1));
  EXPECT_FALSE(cost_broadcast_whole(d4, 4, d4, 4, 1, 1));
}

// x [1,8,4,2] -> conv 3x3 s1 p1 -> then NEG and RELU alternately, `unary` ops, one stage banded
// by 2 rows: more ops and tensors than the executor's BandMemo holds.
PlanDesc conv_then_unaries(uint16_t unary) {
  PlanDesc p;
  const uint16_t x = add_tensor(p, "x", {1, 8, 4, 2}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(p, "y0", {1, 8, 4, 3});
  const uint16_t c = add_op(p, TIGRIS_OP_CONV, {x}, {y});
  p.ops[c].spatial = window(3, 3, 1, 1, 1, 1, 1, 1);
  p.ops[c].weight = add_weight(p, std::vector<float>(3 * 3 * 3 * 2, 0.25f));
  std::vector<uint16_t> ops = {c};
  for (uint16_t i = 1; i <= unary; ++i) {
    const uint16_t z =
        add_tensor(p, "y" + std::to_string(i), {1, 8, 4, 3}, i == unary ? TIGRIS_TENSOR_MODEL_OUTPUT : (uint8_t)0);
    ops.push_back(add_op(p, i % 2 ? TIGRIS_OP_NEG : TIGRIS_OP_RELU, {y}, {z}));
    y = z;
  }
  add_stage(p, ops, {x}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  tile_stage(p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  set_scheduled_peak(p);
  return p;
}

// The memo answers every op and tensor as the plan's source does, those past its tables
// included, so band figures and the banded run are the same with it.
TEST(CostModel, MemoAnswersAsThePlanSource) {
  const uint16_t unary = kBandMemoOps + 3;
  const PlanDesc p = conv_then_unaries(unary);
  Described d;
  describe(p, TIGRIS_BAND_KIND_STRIPE, &d);
  ASSERT_EQ(d.n, 2u);
  BandMemo memo{};
  const CostSource m = band_memo_fill(memo, d.src);
  EXPECT_EQ(memo.num_ops, kBandMemoOps);
  EXPECT_EQ(memo.num_tensors, kBandMemoTensors);
  ASSERT_EQ(m.num_ops, d.src.num_ops);
  for (uint16_t j = 0; j < m.num_ops; ++j) {
    CostOp a, b;
    d.src.op(d.src.ctx, j, &a);
    m.op(m.ctx, j, &b);
    EXPECT_EQ(a.spatial, b.spatial) << j;
    EXPECT_EQ(a.inputs, b.inputs) << j;
    EXPECT_EQ(a.outputs, b.outputs) << j;
    EXPECT_EQ(a.num_inputs, b.num_inputs) << j;
    EXPECT_EQ(a.num_outputs, b.num_outputs) << j;
    EXPECT_EQ(0, std::memcmp(&a.row, &b.row, sizeof a.row)) << j;
  }
  for (uint16_t t = 0; t < d.f.plan.header->num_tensors; ++t) {
    CostTensor a, b;
    d.src.tensor(d.src.ctx, t, &a);
    m.tensor(m.ctx, t, &b);
    const CostTensor c = band_memo_tensor(memo, t);
    EXPECT_EQ(0, std::memcmp(&a, &b, sizeof a)) << t;
    EXPECT_EQ(0, std::memcmp(&a, &c, sizeof a)) << t;
  }
  CostSpace ms[8]{};
  ASSERT_EQ(cost_spaces(m, ms, 8), d.n);
  CostPeak pa, pb;
  ASSERT_TRUE(cost_banded_peak(d.src, d.spaces, d.n, 2, 0, false, 32, &pa));
  ASSERT_TRUE(cost_banded_peak(m, ms, d.n, 2, 0, false, 32, &pb));
  EXPECT_EQ(pa.peak, pb.peak);
  EXPECT_EQ(pa.tiles, pb.tiles);
  // The executor bands it through the memo: bytes equal the whole run's, peak the scheduled.
  std::vector<float> in(64);
  for (size_t i = 0; i < in.size(); ++i) in[i] = 0.125f * (float)((int)(i * 7 % 23) - 11);
  expect_banded_equals_whole(p, {float_bytes(in)}, "conv + 11 unary ops");
}

}  // namespace
