// Movement (reshape, concat, pad, transpose, strided slice), resize and the quantizing
// casts, on hand-derived cases; plus routing of non-int8 work to the float dispatcher.
#include <gtest/gtest.h>

#include <cstring>

#include "s8_fixture.h"

using namespace s8test;

// Requantizing copy: 0.5 -> 1: 2 -> 1, -3 -> SRDHM(-3, 2^30) = -1 (TFLite's half-up), 5 -> 3.
TEST(S8Movement, ReshapeCopiesAndRequantizes) {
  PlanFixture f;
  const uint16_t in = f.tensor({1, 3}, TIGRIS_DTYPE_INT8, f.quant(0.5f, 0));
  const uint16_t same = f.tensor({3}, TIGRIS_DTYPE_INT8, f.quant(0.5f, 0));
  const uint16_t other = f.tensor({3, 1}, TIGRIS_DTYPE_INT8, f.quant(1.0f, 0));
  const uint16_t a = f.op(TIGRIS_OP_RESHAPE, {in}, {same});
  const uint16_t b = f.op(TIGRIS_OP_SQUEEZE, {in}, {other});
  f.finalize();
  Bytes x = {2, -3, 5}, y1(3), y2(3);
  f.bind(in, x.data());
  f.bind(same, y1.data());
  f.bind(other, y2.data());
  ASSERT_EQ(f.run(a), 0);
  ASSERT_EQ(f.run(b), 0);
  EXPECT_EQ(y1, x);
  EXPECT_EQ(y2, (Bytes{1, -1, 3}));
}

// Concat on the last axis; the second input (scale 0.5) is requantized to the output's 1.
TEST(S8Movement, ConcatRequantizesInputs) {
  PlanFixture f;
  const uint16_t q = f.quant(1.0f, 0);
  const uint16_t a = f.tensor({1, 1, 2, 1}, TIGRIS_DTYPE_INT8, q);
  const uint16_t b = f.tensor({1, 1, 2, 2}, TIGRIS_DTYPE_INT8, f.quant(0.5f, 0));
  const uint16_t y = f.tensor({1, 1, 2, 3}, TIGRIS_DTYPE_INT8, q);
  const uint16_t op = f.op(TIGRIS_OP_CONCAT, {a, b}, {y});
  f.finalize();
  Bytes xa = {3, 4}, xb = {2, 4, -6, 8}, out(6);
  f.bind(a, xa.data());
  f.bind(b, xb.data());
  f.bind(y, out.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(out, (Bytes{3, 1, 2, 4, -3, 4}));
}

TEST(S8Movement, ConcatOnAxisOne) {
  PlanFixture f;
  const uint16_t q = f.quant(1.0f, 0);
  const uint16_t a = f.tensor({1, 1, 2}, TIGRIS_DTYPE_INT8, q);
  const uint16_t b = f.tensor({1, 2, 2}, TIGRIS_DTYPE_INT8, q);
  const uint16_t y = f.tensor({1, 3, 2}, TIGRIS_DTYPE_INT8, q);
  const uint16_t op = f.op(TIGRIS_OP_CONCAT, {a, b}, {y});
  f.attr(op, TIGRIS_ATTR_AXES, {1});
  f.finalize();
  Bytes xa = {1, 2}, xb = {3, 4, 5, 6}, out(6);
  f.bind(a, xa.data());
  f.bind(b, xb.data());
  f.bind(y, out.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(out, (Bytes{1, 2, 3, 4, 5, 6}));
}

// PAD with the output zero point, with ALPHA (1.0 at scale 0.5, zp -7 -> -5), and a crop.
TEST(S8Movement, PadFillsAndCrops) {
  for (int variant = 0; variant < 3; variant++) {
    PlanFixture f;
    const uint16_t q = f.quant(0.5f, -7);
    const uint16_t in = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, q);
    const uint16_t out = f.tensor(variant == 2 ? std::vector<int32_t>{1, 1, 2, 1} : std::vector<int32_t>{1, 3, 3, 1},
                                  TIGRIS_DTYPE_INT8, q);
    const uint16_t op = f.op(TIGRIS_OP_PAD, {in}, {out});
    if (variant == 2)
      f.attr_i32(op, TIGRIS_ATTR_PADS, {0, -1, 0, 0, 0, 0, 0, 0});
    else
      f.attr_i32(op, TIGRIS_ATTR_PADS, {0, 1, 0, 0, 0, 0, 1, 0});
    if (variant == 1) f.attr_f32(op, TIGRIS_ATTR_ALPHA, {1.0f});
    f.finalize();
    Bytes x = {1, 2, 3, 4}, y(variant == 2 ? 2 : 9);
    f.bind(in, x.data());
    f.bind(out, y.data());
    ASSERT_EQ(f.run(op), 0);
    const int8_t p = variant == 1 ? -5 : -7;
    if (variant == 2)
      EXPECT_EQ(y, (Bytes{3, 4}));
    else
      EXPECT_EQ(y, (Bytes{p, p, p, 1, 2, p, 3, 4, p}));
  }
}

// NHWC [1,2,2,3] -> NCHW [1,3,2,2]: out[c][h][w] = in[h][w][c] = 6h + 3w + c.
TEST(S8Movement, Transpose) {
  PlanFixture f;
  const uint16_t q = f.quant(1.0f, 0);
  const uint16_t in = f.tensor({1, 2, 2, 3}, TIGRIS_DTYPE_INT8, q);
  const uint16_t out = f.tensor({1, 3, 2, 2}, TIGRIS_DTYPE_INT8, q);
  const uint16_t op = f.op(TIGRIS_OP_TRANSPOSE, {in}, {out});
  f.attr(op, TIGRIS_ATTR_TRANSPOSE_PERM, {0, 3, 1, 2});
  f.finalize();
  Bytes x(12), y(12);
  for (int i = 0; i < 12; i++) x[i] = (int8_t)i;
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
}

TEST(S8Movement, StridedSliceForwardBackwardAndShrink) {
  PlanFixture f;
  const uint16_t q = f.quant(1.0f, 0);
  const uint16_t in = f.tensor({1, 6}, TIGRIS_DTYPE_INT8, q);
  const uint16_t fwd = f.tensor({1, 3}, TIGRIS_DTYPE_INT8, q);
  const uint16_t back = f.tensor({1, 3}, TIGRIS_DTYPE_INT8, q);
  const uint16_t one = f.tensor({1}, TIGRIS_DTYPE_INT8, q);
  const uint16_t a = f.op(TIGRIS_OP_STRIDED_SLICE, {in}, {fwd});
  const uint16_t b = f.op(TIGRIS_OP_STRIDED_SLICE, {in}, {back});
  const uint16_t c = f.op(TIGRIS_OP_STRIDED_SLICE, {in}, {one});
  f.attr_i32(a, TIGRIS_ATTR_MOVEMENT, {0, 1, 1, 1, 6, 2});
  f.attr_i32(b, TIGRIS_ATTR_MOVEMENT, {0, 1, 1, 5, -1, -2});
  f.attr_i32(c, TIGRIS_ATTR_MOVEMENT, {0, 1, 1, 4, 5, 1, 2});  // shrink axis 1
  f.finalize();
  Bytes x = {10, 11, 12, 13, 14, 15}, y1(3), y2(3), y3(1);
  f.bind(in, x.data());
  f.bind(fwd, y1.data());
  f.bind(back, y2.data());
  f.bind(one, y3.data());
  ASSERT_EQ(f.run(a), 0);
  ASSERT_EQ(f.run(b), 0);
  ASSERT_EQ(f.run(c), 0);
  EXPECT_EQ(y1, (Bytes{11, 13, 15}));
  EXPECT_EQ(y2, (Bytes{15, 13, 11}));
  EXPECT_EQ(y3, (Bytes{14}));
}

// Nearest by integer factor 2: out[o] = in[o / 2].
TEST(S8Resize, NearestIntegerFactor) {
  PlanFixture f;
  const uint16_t q = f.quant(1.0f, 0);
  const uint16_t in = f.tensor({1, 2, 2, 1}, TIGRIS_DTYPE_INT8, q);
  const uint16_t out = f.tensor({1, 4, 4, 1}, TIGRIS_DTYPE_INT8, q);
  const uint16_t op = f.op(TIGRIS_OP_RESIZE, {in}, {out});
  f.op_record(op).spatial.stride_h = 2;
  f.op_record(op).spatial.stride_w = 2;
  f.finalize();
  Bytes x = {1, 2, 3, 4}, y(16);
  f.bind(in, x.data());
  f.bind(out, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

// TFLite integer bilinear, width 2 -> 4: Q10 scale (2048 + 2) / 4 = 512.
// Asymmetric: x = 0, 512, 1024, 1536 -> [v0, (v0+v1)/2, v1, v1]; ties away from zero.
// Half-pixel (coord mode 1): x = -256 -> 0, 256 -> 1/4, 768 -> 3/4, 1280 -> v1.
TEST(S8Resize, BilinearIntegerPath) {
  struct Case {
    uint8_t coord;
    Bytes in, expect;
  };
  const Case cases[] = {{0, {0, 100}, {0, 50, 100, 100}},
                        {0, {0, -100}, {0, -50, -100, -100}},
                        {0, {0, 1}, {0, 1, 1, 1}},
                        {0, {0, -1}, {0, -1, -1, -1}},
                        {1, {0, 100}, {0, 25, 75, 100}}};
  for (const Case& c : cases) {
    PlanFixture f;
    const uint16_t q = f.quant(1.0f, 0);
    const uint16_t in = f.tensor({1, 1, 2, 1}, TIGRIS_DTYPE_INT8, q);
    const uint16_t out = f.tensor({1, 1, 4, 1}, TIGRIS_DTYPE_INT8, q);
    const uint16_t op = f.op(TIGRIS_OP_RESIZE_LINEAR, {in}, {out});
    std::vector<uint8_t> a(12, 0);
    const float s[2] = {1.0f, 2.0f};
    std::memcpy(a.data(), s, 8);
    a[8] = c.coord;
    f.attr(op, TIGRIS_ATTR_RESIZE_SCALES, a);
    f.finalize();
    Bytes x = c.in, y(4);
    f.bind(in, x.data());
    f.bind(out, y.data());
    ASSERT_EQ(f.run(op), 0);
    EXPECT_EQ(y, c.expect) << "coord " << (int)c.coord << " in " << (int)c.in[1];
  }
}

// CAST float -> int8 (scale 0.5, zp 3): 1.25 -> 2.5 -> 3 + 3; -1.25 -> -3 + 3; 100 -> 127;
// -0.2 -> -0.4 -> 0 + 3. int8 -> float: (q - 3) * 0.5. int8 -> int8 (0.5, 3) -> (0.25, -1):
// 4 -> 1 * 2 - 1 = 1; 127 -> 247 -> 127.
TEST(S8Quantize, QuantizeDequantizeRequantize) {
  PlanFixture f;
  const uint16_t q = f.quant(0.5f, 3);
  const uint16_t xf = f.tensor({1, 4}, TIGRIS_DTYPE_FLOAT32);
  const uint16_t xq = f.tensor({1, 4}, TIGRIS_DTYPE_INT8, q);
  const uint16_t yf = f.tensor({1, 4}, TIGRIS_DTYPE_FLOAT32);
  const uint16_t yq = f.tensor({1, 4}, TIGRIS_DTYPE_INT8, f.quant(0.25f, -1));
  const uint16_t quantize = f.op(TIGRIS_OP_CAST, {xf}, {xq});
  const uint16_t dequantize = f.op(TIGRIS_OP_CAST, {xq}, {yf});
  const uint16_t requantize = f.op(TIGRIS_OP_CAST, {xq}, {yq});
  f.finalize();
  std::vector<float> in = {1.25f, -1.25f, 100.0f, -0.2f}, back(4);
  Bytes mid(4), re(4);
  f.bind(xf, in.data());
  f.bind(xq, mid.data());
  f.bind(yf, back.data());
  f.bind(yq, re.data());
  ASSERT_EQ(f.run(quantize), 0);
  EXPECT_EQ(mid, (Bytes{6, 0, 127, 3}));
  ASSERT_EQ(f.run(dequantize), 0);
  EXPECT_EQ(back, (std::vector<float>{1.5f, -1.5f, 62.0f, 0.0f}));
  mid = {4, 127, 3, -128};
  ASSERT_EQ(f.run(requantize), 0);
  EXPECT_EQ(re, (Bytes{1, 127, -1, -128}));
}

// Float sections and unlisted int8 byte movement go to the float reference dispatcher.
TEST(S8Dispatch, RoutesFloatOpsAndByteMovement) {
  PlanFixture f;
  const uint16_t a = f.tensor({1, 3}, TIGRIS_DTYPE_FLOAT32);
  const uint16_t b = f.tensor({1, 3}, TIGRIS_DTYPE_FLOAT32);
  const uint16_t y = f.tensor({1, 3}, TIGRIS_DTYPE_FLOAT32);
  const uint16_t q = f.quant(1.0f, 0);
  const uint16_t s = f.tensor({1, 4}, TIGRIS_DTYPE_INT8, q);
  const uint16_t s1 = f.tensor({1, 1}, TIGRIS_DTYPE_INT8, q);
  const uint16_t s2 = f.tensor({1, 3}, TIGRIS_DTYPE_INT8, q);
  const uint16_t add = f.op(TIGRIS_OP_ADD, {a, b}, {y});
  const uint16_t split = f.op(TIGRIS_OP_SPLIT, {s}, {s1, s2});
  f.finalize();
  std::vector<float> va = {1, 2, 3}, vb = {0.5f, 0.25f, -3}, vy(3);
  Bytes vs = {7, 8, 9, 10}, v1(1), v2(3);
  f.bind(a, va.data());
  f.bind(b, vb.data());
  f.bind(y, vy.data());
  f.bind(s, vs.data());
  f.bind(s1, v1.data());
  f.bind(s2, v2.data());
  ASSERT_EQ(f.run(add), 0);
  EXPECT_EQ(vy, (std::vector<float>{1.5f, 2.25f, 0.0f}));
  ASSERT_EQ(f.run(split), 0);
  EXPECT_EQ(v1, (Bytes{7}));
  EXPECT_EQ(v2, (Bytes{8, 9, 10}));
}
