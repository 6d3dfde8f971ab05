// CONV / DEPTHWISE / FULLY_CONNECTED / pools / means on small cases whose expected bytes
// are worked out by hand from TFLite's formulas (the comments carry the arithmetic).
#include <gtest/gtest.h>

#include "s8_fixture.h"

using namespace s8test;

namespace {

void spatial(tigris_op_t& op, int k_h, int k_w, int s_h, int s_w, int pt, int pb, int pl, int pr) {
  op.spatial.kernel_h = (uint8_t)k_h;
  op.spatial.kernel_w = (uint8_t)k_w;
  op.spatial.stride_h = (uint8_t)s_h;
  op.spatial.stride_w = (uint8_t)s_w;
  op.spatial.pad_top = (uint16_t)pt;
  op.spatial.pad_bottom = (uint16_t)pb;
  op.spatial.pad_left = (uint16_t)pl;
  op.spatial.pad_right = (uint16_t)pr;
}

}  // namespace

// 3x3 conv, stride 2, pad 1 on x - zp = [[0,1,2],[3,4,5],[6,7,8]]; oc0 sums the window,
// oc1 doubles the centre. acc0 = 8,12,20,24 (+10), acc1 = 0,4,12,16 (-3).
// oc0 * 0.25 (2^30, -1): 18->SRDHM 9->4.5->5, 22->6, 30->8, 34->9; oc1 * 0.5 (2^30, 0):
// -3 -> -1.5 -> -1 (SRDHM rounds half up), 1 -> 1, 9 -> 5, 13 -> 7; + zp -2, clamp [-2, 6].
TEST(S8Conv, PerChannelRoundingZeroPointsAndClamp) {
  PlanFixture f;
  const uint16_t in = f.tensor({1, 3, 3, 1}, TIGRIS_DTYPE_INT8, f.quant(0.5f, 1));
  const uint16_t out =
      f.tensor({1, 2, 2, 2}, TIGRIS_DTYPE_INT8, f.quant_channels(0.25f, -2, {1 << 30, 1 << 30}, {-1, 0}));
  const uint16_t op = f.op(TIGRIS_OP_CONV, {in}, {out});
  tigris_op_t& o = f.op_record(op);
  spatial(o, 3, 3, 2, 2, 1, 1, 1, 1);
  o.spatial.group = 1;
  o.weight_idx = f.weight_i8({1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 0, 0, 0, 0});
  o.bias_idx = f.weight_i32({10, -3});
  o.act_min = -2;
  o.act_max = 6;
  f.finalize();
  Bytes x = {1, 2, 3, 4, 5, 6, 7, 8, 9}, y(8);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{3, -2, 4, -1, 6, 3, 6, 5}));
}

// Depthwise with channel multiplier 2 on x = [[1,2],[3,4]] (zp 0), 2x2 kernel:
// oc0 = 1+2+3+4 = 10 -> * 0.5 = 5; oc1 = 1 - 2 + 6 + 0 = 5, +100 = 105 -> * 0.0625 (2^30, -3):
// SRDHM 52.5 -> 53, 53 / 8 = 6.625 -> 7; + zp 3.
TEST(S8Conv, DepthwiseWithMultiplier) {
  PlanFixture f;
  const uint16_t in = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, f.quant(1.0f, 0));
  const uint16_t out =
      f.tensor({1, 1, 1, 2}, TIGRIS_DTYPE_INT8, f.quant_channels(1.0f, 3, {1 << 30, 1 << 30}, {0, -3}));
  const uint16_t op = f.op(TIGRIS_OP_DEPTHWISE, {in}, {out});
  tigris_op_t& o = f.op_record(op);
  spatial(o, 2, 2, 1, 1, 0, 0, 0, 0);
  o.spatial.group = 1;
  o.weight_idx = f.weight_i8({1, 1, 1, -1, 1, 2, 1, 0});  // [KH, KW, C*m]
  o.bias_idx = f.weight_i32({0, 100});
  f.finalize();
  Bytes x = {1, 2, 3, 4}, y(2);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{8, 10}));
}

// FC, two rows, per-channel factors: oc0 (0.25): 5 -> SRDHM 3 -> 1.5 -> 2 (TFLite's double
// rounding; 1.25 exactly would give 1), -5 -> -2 -> -1; oc1 (0.5): 1 -> 1, -1 -> 0;
// oc2 (0.75, shift 1): 2 -> SRDHM(4, .75) = 3, -2 -> -3.
TEST(S8Conv, FullyConnectedDoubleRoundingTies) {
  PlanFixture f;
  const uint16_t in = f.tensor({2, 2}, TIGRIS_DTYPE_INT8, f.quant(1.0f, 0));
  const uint16_t out =
      f.tensor({2, 3}, TIGRIS_DTYPE_INT8, f.quant_channels(1.0f, 0, {1 << 30, 1 << 30, 1610612736}, {-1, 0, 1}));
  const uint16_t op = f.op(TIGRIS_OP_FULLY_CONN, {in}, {out});
  f.op_record(op).weight_idx = f.weight_i8({1, 2, 1, 0, 0, 1});
  f.finalize();
  Bytes x = {1, 2, -1, -2}, y(6);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{2, 1, 3, -1, 0, -3}));
}

// Saturation: 4 * 127 * (127 + 128) * 0.5 = 64770 -> 127; -128 * 255 * 0.5 -> -128.
TEST(S8Conv, FullyConnectedSaturates) {
  PlanFixture f;
  const uint16_t in = f.tensor({1, 4}, TIGRIS_DTYPE_INT8, f.quant(1.0f, -128));
  const uint16_t out = f.tensor({1, 2}, TIGRIS_DTYPE_INT8, f.quant_channels(1.0f, 0, {1 << 30}, {0}));
  const uint16_t op = f.op(TIGRIS_OP_FULLY_CONN, {in}, {out});
  f.op_record(op).weight_idx = f.weight_i8({127, 127, 127, 127, -128, 0, 0, 0});
  f.finalize();
  Bytes x = {127, 127, 127, 127}, y(2);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{127, -128}));
}

TEST(S8Conv, MissingWeightOrRequantIsAnError) {
  PlanFixture f;
  const uint16_t in = f.tensor({1, 4}, TIGRIS_DTYPE_INT8, f.quant(1.0f, 0));
  const uint16_t out = f.tensor({1, 2}, TIGRIS_DTYPE_INT8, f.quant_channels(1.0f, 0, {1 << 30}, {0}));
  const uint16_t op = f.op(TIGRIS_OP_FULLY_CONN, {in}, {out});
  f.op_record(op).weight_idx = f.weight_i8({1, 2, 3});  // 3 bytes, 8 needed
  f.finalize();
  Bytes x(4), y = {9, 9};
  f.bind(in, x.data());
  f.bind(out, y.data());
  EXPECT_EQ(f.run(op), -1);
  EXPECT_EQ(y, (Bytes{9, 9}));
}

// AVERAGE_POOL 2x2 stride 2: (1+2+3+4)/4 = 2.5 -> 3 and -2.5 -> -3 (ties away from zero).
TEST(S8Pool, AveragePoolTiesAwayFromZero) {
  PlanFixture f;
  const uint16_t q = f.quant(0.5f, 0);
  const uint16_t in = f.tensor({1, 2, 4, 1}, TIGRIS_DTYPE_INT8, q);
  const uint16_t out = f.tensor({1, 1, 2, 1}, TIGRIS_DTYPE_INT8, q);
  const uint16_t op = f.op(TIGRIS_OP_AVG_POOL, {in}, {out});
  spatial(f.op_record(op), 2, 2, 2, 2, 0, 0, 0, 0);
  f.finalize();
  Bytes x = {1, 2, -1, -2, 3, 4, -3, -4}, y(2);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{3, -3}));
}

// 3x3 window, pad 1, on a 2x2 map of 9s: 4 valid taps -> 9; with count_include_pad
// (POOL_ROUNDING bit1) the window covers 3x3 taps of the padded extent -> 36 / 9 = 4.
TEST(S8Pool, AveragePoolCountIncludePad) {
  for (int include : {0, 1}) {
    PlanFixture f;
    const uint16_t q = f.quant(1.0f, 0);
    const uint16_t in = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, q);
    const uint16_t out = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, q);
    const uint16_t op = f.op(TIGRIS_OP_AVG_POOL, {in}, {out});
    spatial(f.op_record(op), 3, 3, 1, 1, 1, 1, 1, 1);
    if (include) f.attr(op, TIGRIS_ATTR_POOL_ROUNDING, {2});
    f.finalize();
    Bytes x = {9, 9, 9, 9}, y(4);
    f.bind(in, x.data());
    f.bind(out, y.data());
    ASSERT_EQ(f.run(op), 0);
    EXPECT_EQ(y, Bytes(4, (int8_t)(include ? 4 : 9)));
  }
}

// Differing quantizations: average of x - zp (2.5 -> 3) then * 2 (0.5 / 0.25) + zp' = 6 - 5.
TEST(S8Pool, AveragePoolRequantizes) {
  PlanFixture f;
  const uint16_t in = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, f.quant(0.5f, 10));
  const uint16_t out = f.tensor({1, 1, 1, 1}, TIGRIS_DTYPE_INT8, f.quant(0.25f, -5));
  const uint16_t op = f.op(TIGRIS_OP_AVG_POOL, {in}, {out});
  spatial(f.op_record(op), 2, 2, 2, 2, 0, 0, 0, 0);
  f.finalize();
  Bytes x = {11, 12, 13, 14}, y(1);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y[0], 1);
}

// MAX_POOL ignores padding and clamps to the fused range.
TEST(S8Pool, MaxPoolPaddingAndClamp) {
  PlanFixture f;
  const uint16_t q = f.quant(1.0f, 0);
  const uint16_t in = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, q);
  const uint16_t out = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, q);
  const uint16_t op = f.op(TIGRIS_OP_MAX_POOL, {in}, {out});
  spatial(f.op_record(op), 2, 2, 1, 1, 1, 0, 1, 0);
  f.op_record(op).act_max = 5;
  f.finalize();
  Bytes x = {-5, 3, 7, -128}, y(4);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  // windows (top-left pad): {-5}, {-5,3}, {-5,7}, {-5,3,7,-128} -> -5, 3, 7->5, 7->5
  EXPECT_EQ(y, (Bytes{-5, 3, 5, 5}));
}

// GLOBAL_AVG as TFLite MEAN: (m, s) = (2^30, 1) for scale 1/1, 1/4 folded -> (2^30, -1):
// sum 5 -> SRDHM 3 -> 1.5 -> 2 (not 1.25 -> 1); POOL_ROUNDING bit0: (5 + 2) / 4 = 1.
TEST(S8Pool, GlobalAverageMeanVersusAveragePoolRounding) {
  for (int rounding : {0, 1}) {
    PlanFixture f;
    const uint16_t q = f.quant(1.0f, 0);
    const uint16_t in = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, q);
    const uint16_t out = f.tensor({1, 1, 1, 1}, TIGRIS_DTYPE_INT8, q);
    const uint16_t op = f.op(TIGRIS_OP_GLOBAL_AVG, {in}, {out});
    if (rounding) f.attr(op, TIGRIS_ATTR_POOL_ROUNDING, {1});
    f.finalize();
    Bytes x = {1, 1, 1, 2}, y(1);
    f.bind(in, x.data());
    f.bind(out, y.data());
    ASSERT_EQ(f.run(op), 0);
    EXPECT_EQ(y[0], rounding ? 1 : 2);
  }
}

// MEAN with zero points: 0.5/0.25 = 2 -> (2^30, 2), count 4 folded -> (2^30, 0);
// sum 19 - 2*4 = 11 -> SRDHM 5.5 -> 6, + zp -3 = 3.
TEST(S8Pool, MeanWithZeroPointsAndScales) {
  PlanFixture f;
  const uint16_t in = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, f.quant(0.5f, 2));
  const uint16_t out = f.tensor({1, 1, 1, 1}, TIGRIS_DTYPE_INT8, f.quant(0.25f, -3));
  const uint16_t op = f.op(TIGRIS_OP_GLOBAL_AVG, {in}, {out});
  f.finalize();
  Bytes x = {3, 4, 5, 7}, y(1);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y[0], 3);
}

// REDUCE_MEAN over axis 2 (keep_dims off): count 3 -> m = 2^31 / 3 = 715827882, shift 0;
// 7 -> 2.33 -> 2, 1 -> 0.33 -> 0.
TEST(S8Pool, ReduceMeanOverOneAxis) {
  PlanFixture f;
  const uint16_t q = f.quant(1.0f, 0);
  const uint16_t in = f.tensor({1, 2, 3}, TIGRIS_DTYPE_INT8, q);
  const uint16_t out = f.tensor({1, 2}, TIGRIS_DTYPE_INT8, q);
  const uint16_t op = f.op(TIGRIS_OP_REDUCE_MEAN, {in}, {out});
  f.attr(op, TIGRIS_ATTR_AXES, {2});
  f.finalize();
  Bytes x = {1, 2, 4, 0, 0, 1}, y(2);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{2, 0}));
}

TEST(S8Pool, GlobalMaxRequantizes) {
  PlanFixture f;
  const uint16_t in = f.tensor({1, 2, 2, 2}, TIGRIS_DTYPE_INT8, f.quant(0.5f, 0));
  const uint16_t out = f.tensor({1, 1, 1, 2}, TIGRIS_DTYPE_INT8, f.quant(1.0f, 0));
  const uint16_t op = f.op(TIGRIS_OP_GLOBAL_MAX, {in}, {out});
  f.finalize();
  Bytes x = {1, -9, 7, -3, 5, -8, 2, -4}, y(2);  // channel maxima 7 and -3
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{4, -1}));  // 3.5 -> 4, -1.5 -> SRDHM half up -> -1
}

// REDUCE_SUM (TFLite SUM): (x - 1) summed = 0+1+2+3 = 6, * (1 / 2) -> (2^30, 0) -> 3.
// REDUCE_MAX / REDUCE_MIN: raw extremes of each row.
TEST(S8Pool, ReduceSumMaxMin) {
  struct Case {
    uint8_t type;
    float sy;
    int32_t zx;
    Bytes x, expect;
  };
  const Case cases[] = {{TIGRIS_OP_REDUCE_SUM, 2.0f, 1, {1, 2, 3, 4, 1, 1, 1, 1}, {3, 0}},
                        {TIGRIS_OP_REDUCE_MAX, 1.0f, 0, {-3, 5, 2, 0, -7, -2, -9, -4}, {5, -2}},
                        {TIGRIS_OP_REDUCE_MIN, 1.0f, 0, {-3, 5, 2, 0, -7, -2, -9, -4}, {-3, -9}}};
  for (const Case& k : cases) {
    PlanFixture f;
    const uint16_t in = f.tensor({2, 4}, TIGRIS_DTYPE_INT8, f.quant(1.0f, k.zx));
    const uint16_t out = f.tensor({2}, TIGRIS_DTYPE_INT8, f.quant(k.sy, 0));
    const uint16_t op = f.op(k.type, {in}, {out});
    f.attr(op, TIGRIS_ATTR_AXES, {1});
    f.finalize();
    Bytes x = k.x, y(2);
    f.bind(in, x.data());
    f.bind(out, y.data());
    ASSERT_EQ(f.run(op), 0);
    EXPECT_EQ(y, k.expect) << "op " << (int)k.type;
  }
}
