// ADD / SUB / MUL / MAXIMUM / MINIMUM and the unary activations on values worked out
// by hand from TFLite's integer formulas (comments carry the arithmetic).
#include <gtest/gtest.h>

#include <cstring>

#include "s8_fixture.h"

using namespace s8test;

namespace {

// out = op(a, b) over n elements with the given quantizations; returns the output bytes.
Bytes binary(uint8_t type, float sa, int32_t za, float sb, int32_t zb, float sy, int32_t zy, const Bytes& a,
             const Bytes& b, int8_t act_min = -128, int8_t act_max = 127, const std::vector<int32_t>& requant = {}) {
  PlanFixture f;
  const int32_t n = (int32_t)a.size();
  const uint16_t ta = f.tensor({1, n}, TIGRIS_DTYPE_INT8, f.quant(sa, za));
  const uint16_t tb = f.tensor({1, n}, TIGRIS_DTYPE_INT8, f.quant(sb, zb));
  const uint16_t ty = f.tensor({1, n}, TIGRIS_DTYPE_INT8, f.quant(sy, zy));
  const uint16_t op = f.op(type, {ta, tb}, {ty});
  f.op_record(op).act_min = act_min;
  f.op_record(op).act_max = act_max;
  if (!requant.empty()) f.attr_i32(op, TIGRIS_ATTR_BINARY_REQUANT, requant);
  f.finalize();
  Bytes x1 = a, x2 = b, y(a.size(), 99);
  f.bind(ta, x1.data());
  f.bind(tb, x2.data());
  f.bind(ty, y.data());
  EXPECT_EQ(f.run(op), 0);
  return y;
}

// A unary op on a [1, n] tensor; `attrs` adds attributes.
Bytes unary(uint8_t type, float sx, int32_t zx, float sy, int32_t zy, const Bytes& x,
            const std::vector<std::pair<uint8_t, std::vector<float>>>& attrs = {}) {
  PlanFixture f;
  const int32_t n = (int32_t)x.size();
  const uint16_t tx = f.tensor({1, n}, TIGRIS_DTYPE_INT8, f.quant(sx, zx));
  const uint16_t ty = f.tensor({1, n}, TIGRIS_DTYPE_INT8, f.quant(sy, zy));
  const uint16_t op = f.op(type, {tx}, {ty});
  for (const auto& a : attrs) f.attr_f32(op, a.first, a.second);
  f.finalize();
  Bytes in = x, y(x.size(), 99);
  f.bind(tx, in.data());
  f.bind(ty, y.data());
  EXPECT_EQ(f.run(op), 0);
  return y;
}

}  // namespace

// sa = 0.5, sb = 0.25, sy = 1: twice_max 1 -> a: (2^30, 0), b: (2^30, -1), out (2^30, -19).
// 3 and 2 -> 1.5 + 0.5 = 2; 1 and 0 -> 0.5 -> 1; -1 and 0 -> -0.5 -> -1 (RDBPOT away).
TEST(S8Binary, AddScalesAndTies) {
  EXPECT_EQ(binary(TIGRIS_OP_ADD, 0.5f, 0, 0.25f, 0, 1.0f, 0, {3, 1, -1}, {2, 0, 0}), (Bytes{2, 1, -1}));
}

// All scales 1: (a - 5) + (b + 3) + 10; saturation both ways; fused ReLU clamps at zy.
TEST(S8Binary, AddZeroPointsSaturationAndClamp) {
  EXPECT_EQ(binary(TIGRIS_OP_ADD, 1, 5, 1, -3, 1, 10, {8, 127, -128}, {-1, 127, -128}), (Bytes{15, 127, -128}));
  EXPECT_EQ(binary(TIGRIS_OP_ADD, 1, 5, 1, -3, 1, 10, {0, 8}, {-3, -1}, 10, 127), (Bytes{10, 15}));
}

// BINARY_REQUANT overrides the derived factors: output (2^30, -17) doubles the sum.
TEST(S8Binary, AddUsesBinaryRequantAttribute) {
  EXPECT_EQ(binary(TIGRIS_OP_ADD, 1, 0, 1, 0, 1, 0, {3}, {4}), (Bytes{7}));
  EXPECT_EQ(binary(TIGRIS_OP_ADD, 1, 0, 1, 0, 1, 0, {3}, {4}, -128, 127, {1 << 30, 0, 1 << 30, 0, 1 << 30, -17}),
            (Bytes{14}));
}

// SUB, same factors: 0.5 - 0.25 = 0.25 -> 0; 0.5 - 0 -> 1; 0 - 0.5 -> -1; saturation.
TEST(S8Binary, SubTiesAndSaturation) {
  EXPECT_EQ(binary(TIGRIS_OP_SUB, 0.5f, 0, 0.25f, 0, 1.0f, 0, {1, 1, 0}, {1, 0, 2}), (Bytes{0, 1, -1}));
  EXPECT_EQ(binary(TIGRIS_OP_SUB, 1, 0, 1, 0, 1, 0, {5, -100, 100}, {7, 100, -100}), (Bytes{-2, -128, 127}));
}

// MUL: 0.5 * 0.5 / 0.5 = 0.5 -> (2^30, 0): 3 -> 1.5 -> 2; -3 -> -1 (half up); 100 -> 50;
// 127 * 127 -> 127; with za = 1: (4 - 1) * 1 -> 2.
TEST(S8Binary, MulRoundingSaturationZeroPoint) {
  EXPECT_EQ(binary(TIGRIS_OP_MUL, 0.5f, 0, 0.5f, 0, 0.5f, 0, {3, -3, 10, 127}, {1, 1, 10, 127}),
            (Bytes{2, -1, 50, 127}));
  EXPECT_EQ(binary(TIGRIS_OP_MUL, 0.5f, 1, 0.5f, 0, 0.5f, 0, {4}, {1}), (Bytes{2}));
}

TEST(S8Binary, MaximumMinimumRawAndRequantized) {
  EXPECT_EQ(binary(TIGRIS_OP_MAXIMUM, 1, 0, 1, 0, 1, 0, {1, -5, 7}, {2, -6, 7}), (Bytes{2, -5, 7}));
  EXPECT_EQ(binary(TIGRIS_OP_MINIMUM, 1, 0, 1, 0, 1, 0, {1, -5, 7}, {2, -6, 7}), (Bytes{1, -6, 7}));
  // b at scale 0.5: 4 -> 2, -10 -> -5, 20 -> 10 in the output's scale.
  EXPECT_EQ(binary(TIGRIS_OP_MAXIMUM, 1, 0, 0.5f, 0, 1, 0, {1, -6, 11}, {4, -10, 20}), (Bytes{2, -5, 11}));
  EXPECT_EQ(binary(TIGRIS_OP_MINIMUM, 1, 0, 0.5f, 0, 1, 0, {1, -6, 11}, {4, -10, 20}), (Bytes{1, -6, 10}));
}

// A per-channel constant operand [3] (CONSTANT_OPERAND, its own quant) broadcast over rows.
TEST(S8Binary, AddConstantOperandBroadcast) {
  PlanFixture f;
  const uint16_t q = f.quant(1.0f, 0);
  const uint16_t qc = f.quant(2.0f, 0);  // constant at scale 2: 5 -> 10
  const uint16_t ta = f.tensor({1, 1, 2, 3}, TIGRIS_DTYPE_INT8, q);
  const uint16_t ty = f.tensor({1, 1, 2, 3}, TIGRIS_DTYPE_INT8, q);
  const uint16_t op = f.op(TIGRIS_OP_ADD, {ta}, {ty});
  f.op_record(op).weight_idx = f.weight_i8({5, 10, 15});
  // operand 1, rank 1, quant qc, dims [3]
  f.attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, {1, 1, (uint8_t)qc, (uint8_t)(qc >> 8), 3, 0, 0, 0});
  f.finalize();
  Bytes a = {1, 2, 3, 4, 5, 6}, y(6);
  f.bind(ta, a.data());
  f.bind(ty, y.data());
  ASSERT_EQ(f.run(op), 0);
  EXPECT_EQ(y, (Bytes{11, 22, 33, 14, 25, 36}));
}

// RELU: in 1, out 0.5 zp -10 -> y = 2x - 10 clamped to [-10, 127].
TEST(S8Activation, ReluRequantizesAndClampsAtZeroPoint) {
  EXPECT_EQ(unary(TIGRIS_OP_RELU, 1.0f, 0, 0.5f, -10, {-3, 5, 100}), (Bytes{-10, 0, 127}));
}

// RELU6, equal quantization (0.1, -5): clamp to [-5, round(6 / 0.1) - 5 = 55];
// different (0.1, 0 -> 0.05, -100): y = 2x - 100 clamped to [-100, 20].
TEST(S8Activation, Relu6BothForms) {
  EXPECT_EQ(unary(TIGRIS_OP_RELU6, 0.1f, -5, 0.1f, -5, {-20, 30, 100}), (Bytes{-5, 30, 55}));
  EXPECT_EQ(unary(TIGRIS_OP_RELU6, 0.1f, 0, 0.05f, -100, {-3, 4, 100}), (Bytes{-100, -92, 20}));
}

TEST(S8Activation, ClipAtQuantizedBounds) {
  EXPECT_EQ(unary(TIGRIS_OP_CLIP, 0.5f, 0, 0.5f, 0, {-5, 3, 9}, {{TIGRIS_ATTR_CLIP_BOUNDS, {-1.0f, 2.0f}}}),
            (Bytes{-2, 3, 4}));
  // lo > hi gives hi everywhere (ONNX): hi = 1.0 -> 2.
  EXPECT_EQ(unary(TIGRIS_OP_CLIP, 0.5f, 0, 0.5f, 0, {-5, 3, 9}, {{TIGRIS_ATTR_CLIP_BOUNDS, {2.0f, 1.0f}}}),
            (Bytes{2, 2, 2}));
}

// LEAKY_RELU alpha 0.25 (2^30, -1): -10 -> SRDHM -5 -> -2.5 -> -3; -6 -> -3 -> -1.5 -> -2;
// alpha -0.5: m = -2^30 used as |m| then negated: -6 -> 3.
TEST(S8Activation, LeakyRelu) {
  EXPECT_EQ(unary(TIGRIS_OP_LEAKY_RELU, 1, 0, 1, 0, {10, -10, -6}, {{TIGRIS_ATTR_ALPHA, {0.25f}}}),
            (Bytes{10, -3, -2}));
  EXPECT_EQ(unary(TIGRIS_OP_LEAKY_RELU, 1, 0, 1, 0, {-6, 4}, {{TIGRIS_ATTR_ALPHA, {-0.5f}}}), (Bytes{3, 4}));
  // Default alpha 0.01: x = -100 at in 1 / out 0.01 -> -100 * 0.01 / 0.01 = -100.
  EXPECT_EQ(unary(TIGRIS_OP_LEAKY_RELU, 1, 0, 0.01f, 0, {-100, 1}), (Bytes{-100, 100}));
}

// HARD_SWISH at scales 0.1/0.1 (output (16384, -6), relu-ish (17476, 4) in Q0.15), worked
// through TFLite's 16-bit steps: x = 10 -> preshift 640, reluish 21845, 426 -> 7;
// x = -10 -> -640, 10923, -213 -> -3; x = 40 -> 40; x = -40 -> reluish 0 -> 0.
TEST(S8Activation, HardSwish) {
  EXPECT_EQ(unary(TIGRIS_OP_HARDSWISH, 0.1f, 0, 0.1f, 0, {10, -10, 40, -40}), (Bytes{7, -3, 40, 0}));
}

// LOGISTIC, TFLM form (out 1/256, -128), in scale 0.1: radius 120; sigmoid(1) * 256 =
// 187.15 -> 59, sigmoid(-1) -> 68.85 -> -59, sigmoid(0) -> 0; |x| >= 120 saturates.
TEST(S8Activation, LogisticFixedPoint) {
  EXPECT_EQ(unary(TIGRIS_OP_SIGMOID, 0.1f, 0, 1.0f / 256, -128, {0, 10, -10, 120, -120, 119}),
            (Bytes{0, 59, -59, 127, -128, 127}));
}

// Any other output quantization: TFLite's float LUT (out 1/512, -128): 0 -> 256 - 128 -> 127;
// -1.0 -> 137.70 -> 10; -3.0 -> 24.28 -> -104.
TEST(S8Activation, LogisticFloatTable) {
  EXPECT_EQ(unary(TIGRIS_OP_SIGMOID, 0.1f, 0, 1.0f / 512, -128, {0, -10, -30}), (Bytes{127, 10, -104}));
}

// TANH, TFLM form (out 1/128, 0): tanh(1) * 128 = 97.48 -> 97, tanh(0.5) -> 59.15 -> 59.
// Float table (out 0.01): 76.16 -> 76, 46.21 -> 46, tanh(-3) -> -99.51 -> -100.
TEST(S8Activation, TanhBothForms) {
  EXPECT_EQ(unary(TIGRIS_OP_TANH, 0.1f, 0, 1.0f / 128, 0, {10, -10, 5, 0, 120, -120}),
            (Bytes{97, -97, 59, 0, 127, -128}));
  EXPECT_EQ(unary(TIGRIS_OP_TANH, 0.1f, 0, 0.01f, 0, {10, 5, -30}), (Bytes{76, 46, -100}));
}

// SOFTMAX (out 1/256, -128), scale 1: [5, 5] -> 1/2 each -> 128 - 128 = 0;
// [0, -20]: -20 < diff_min -15 -> -128, the max -> 256 -> 127; [7, 7, 7] -> 85.33 -> -43.
TEST(S8Softmax, HandDerivedRows) {
  EXPECT_EQ(unary(TIGRIS_OP_SOFTMAX, 1.0f, 3, 1.0f / 256, -128, {5, 5}), (Bytes{0, 0}));
  EXPECT_EQ(unary(TIGRIS_OP_SOFTMAX, 1.0f, 3, 1.0f / 256, -128, {0, -20}), (Bytes{127, -128}));
  EXPECT_EQ(unary(TIGRIS_OP_SOFTMAX, 1.0f, 0, 1.0f / 256, -128, {7, 7, 7}), (Bytes{-43, -43, -43}));
}

// beta (ALPHA): scale 0.5, [0, -1]: beta 1 -> e^-0.5: 159.4 -> 31, 96.6 -> -31;
// beta 2 -> e^-1: 187.2 -> 59, 68.8 -> -59.
TEST(S8Softmax, BetaFromAlpha) {
  EXPECT_EQ(unary(TIGRIS_OP_SOFTMAX, 0.5f, 0, 1.0f / 256, -128, {0, -1}), (Bytes{31, -31}));
  EXPECT_EQ(unary(TIGRIS_OP_SOFTMAX, 0.5f, 0, 1.0f / 256, -128, {0, -1}, {{TIGRIS_ATTR_ALPHA, {2.0f}}}),
            (Bytes{59, -59}));
}

TEST(S8Softmax, RefusesOtherOutputQuantization) {
  PlanFixture f;
  const uint16_t tx = f.tensor({1, 2}, TIGRIS_DTYPE_INT8, f.quant(1.0f, 0));
  const uint16_t ty = f.tensor({1, 2}, TIGRIS_DTYPE_INT8, f.quant(1.0f / 255, -128));
  const uint16_t op = f.op(TIGRIS_OP_SOFTMAX, {tx}, {ty});
  f.finalize();
  Bytes x = {1, 2}, y = {9, 9};
  f.bind(tx, x.data());
  f.bind(ty, y.data());
  EXPECT_EQ(f.run(op), -1);
  EXPECT_EQ(y, (Bytes{9, 9}));
}

// MUL takes BINARY_REQUANT's result pair: (2^30, 1) = 1.0 instead of the derived 0.5.
TEST(S8Binary, MulUsesBinaryRequantResultPair) {
  EXPECT_EQ(binary(TIGRIS_OP_MUL, 0.5f, 0, 0.5f, 0, 0.5f, 0, {3}, {5}), (Bytes{8}));  // 7.5 -> 8
  EXPECT_EQ(binary(TIGRIS_OP_MUL, 0.5f, 0, 0.5f, 0, 0.5f, 0, {3}, {5}, -128, 127, {0, 0, 0, 0, 1 << 30, 1}),
            (Bytes{15}));
}
