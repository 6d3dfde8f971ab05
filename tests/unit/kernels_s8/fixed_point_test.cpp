// Fixed-point primitives and factor derivations against values worked out by hand from
// gemmlowp's / TFLite's definitions (comments show the arithmetic).
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_fixed_point_math.h"
#include "kernels/s8/s8_params.h"

using namespace tigris_s8;

TEST(S8FixedPoint, DoublingHighMulRoundsHalfUp) {
  // SRDHM(a, 2^30) = a * 2^30 * 2 / 2^32 = a / 2, nudged +2^30 (ab >= 0) or 1 - 2^30.
  EXPECT_EQ(sat_rounding_doubling_high_mul(3, 1 << 30), 2);    // 1.5 -> 2
  EXPECT_EQ(sat_rounding_doubling_high_mul(-3, 1 << 30), -1);  // (-3*2^30 + 1 - 2^30) / 2^31 = -1.99.. -> -1
  EXPECT_EQ(sat_rounding_doubling_high_mul(-1, 1 << 30), 0);   // -0.5 -> 0
  EXPECT_EQ(sat_rounding_doubling_high_mul(5, 1 << 30), 3);    // 2.5 -> 3
  EXPECT_EQ(sat_rounding_doubling_high_mul(INT32_MIN, INT32_MIN), INT32_MAX);   // the one overflow
  EXPECT_EQ(sat_rounding_doubling_high_mul(INT32_MIN, INT32_MAX), -INT32_MAX);  // -2^31*(2^31-1)/2^31
  EXPECT_EQ(sat_rounding_doubling_high_mul(1000, 1288490189), 600);             // 1000 * 0.6
}

TEST(S8FixedPoint, RoundingDivideByPotTiesAwayFromZero) {
  EXPECT_EQ(rounding_divide_by_pot(3, 1), 2);    // 1.5
  EXPECT_EQ(rounding_divide_by_pot(-3, 1), -2);  // -1.5: rem 1, threshold 0 + 1 -> no bump, -2
  EXPECT_EQ(rounding_divide_by_pot(-5, 2), -1);  // -1.25: -5 >> 2 = -2, rem 3 > 2 -> -1
  EXPECT_EQ(rounding_divide_by_pot(-6, 2), -2);  // -1.5
  EXPECT_EQ(rounding_divide_by_pot(6, 2), 2);    // 1.5
  EXPECT_EQ(rounding_divide_by_pot(5, 2), 1);    // 1.25
  EXPECT_EQ(rounding_divide_by_pot(7, 0), 7);
  EXPECT_EQ(rounding_divide_by_pot(INT32_MIN, 31), -1);
  EXPECT_EQ(rounding_divide_by_pot(1 << 30, 31), 1);  // 0.5 -> 1
  // int16 flavour (HARD_SWISH).
  EXPECT_EQ(rounding_divide_by_pot16(-3, 1), -2);
  EXPECT_EQ(rounding_divide_by_pot16(3, 1), 2);
}

TEST(S8FixedPoint, MultiplyByQuantizedMultiplierDoubleRounding) {
  // 1000 * 0.6 / 8 = 75.
  EXPECT_EQ(multiply_by_quantized_multiplier(1000, 1288490189, -3), 75);
  // x * 0.5 * 2^-1: SRDHM rounds 5/2 up to 3, then RDBPOT(3, 1) = 2 although 5/4 = 1.25.
  EXPECT_EQ(multiply_by_quantized_multiplier(5, 1 << 30, -1), 2);
  EXPECT_EQ(multiply_by_quantized_multiplier(-5, 1 << 30, -1), -1);  // -2.5 -> -2 -> -1
  // Left shift first: 3 * 2^2 * 0.75 = 9.
  EXPECT_EQ(multiply_by_quantized_multiplier(3, 1610612736, 2), 9);
  // Multiplier 1.0 as (2^30, 1) is exact.
  EXPECT_EQ(multiply_by_quantized_multiplier(-77, 1 << 30, 1), -77);
  EXPECT_EQ(multiply_by_quantized_multiplier_smaller_than_one(7, 1 << 30, -1), 2);  // SRDHM 3.5 -> 4; 4 / 2
  EXPECT_EQ(multiply_by_quantized_multiplier_greater_than_one(3, 1 << 30, 3), 12);
}

TEST(S8FixedPoint, QuantizeMultiplierLikeTflite) {
  int32_t m = 0;
  int s = 0;
  quantize_multiplier(0.5, &m, &s);
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(s, 0);
  quantize_multiplier(1.0, &m, &s);  // frexp(1) = 0.5 * 2^1
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(s, 1);
  quantize_multiplier(0.75, &m, &s);
  EXPECT_EQ(m, 1610612736);
  EXPECT_EQ(s, 0);
  quantize_multiplier(0.3, &m, &s);  // 0.6 * 2^-1; 0.6 * 2^31 = 1288490188.8
  EXPECT_EQ(m, 1288490189);
  EXPECT_EQ(s, -1);
  // Exact tie: (2^30 + 0.5) / 2^31 rounds half away from zero to 2^30 + 1.
  quantize_multiplier(0.5 + std::ldexp(1.0, -32), &m, &s);
  EXPECT_EQ(m, (1 << 30) + 1);
  EXPECT_EQ(s, 0);
  // Rounds up to 2^31: halve and bump the exponent.
  quantize_multiplier(1.0 - std::ldexp(1.0, -40), &m, &s);
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(s, 1);
  quantize_multiplier(std::ldexp(1.0, -40), &m, &s);  // exponent -39 < -31 flushes
  EXPECT_EQ(m, 0);
  EXPECT_EQ(s, 0);
  quantize_multiplier(0.0, &m, &s);
  EXPECT_EQ(m, 0);
  EXPECT_EQ(s, 0);
  quantize_multiplier(-0.75, &m, &s);
  EXPECT_EQ(m, -1610612736);
  EXPECT_EQ(s, 0);
}

TEST(S8FixedPoint, InputRadiusAndMeanFolding) {
  // floor((2^4 - 1) * 2^27 / 2^24) = 120; softmax's 5 bits, shift 27: floor(31 * 2^26 / 2^27) = 15.
  EXPECT_EQ(calculate_input_radius(4, 24, 31), 120);
  EXPECT_EQ(calculate_input_radius(5, 27, 31), 15);
  // count 4: s = 2; m = (2^30 << 2) / 4 = 2^30; shift 1 - 2 = -1.
  int32_t m = 1 << 30;
  int s = 1;
  fold_mean_count(4, &m, &s);
  EXPECT_EQ(m, 1 << 30);
  EXPECT_EQ(s, -1);
  // count 3: s = 1; m = (2^30 * 2) / 3 = 715827882; shift 0.
  m = 1 << 30;
  s = 1;
  fold_mean_count(3, &m, &s);
  EXPECT_EQ(m, 715827882);
  EXPECT_EQ(s, 0);
  // The clamp s <= 31 + shift: shift -30 allows only s = 1 for count 1024.
  m = 1 << 30;
  s = -30;
  fold_mean_count(1024, &m, &s);
  EXPECT_EQ(m, (int32_t)(((int64_t)1 << 31) / 1024));
  EXPECT_EQ(s, -31);
  // Truncation toward zero on either sign (the quotient is taken on magnitudes): count 3,
  // s = 1: (2^31 - 1) * 2 / 3 = 1431655764 (remainder 2); -5 * 2 / 3 = -3 (not -4).
  m = 2147483647;
  s = 1;
  fold_mean_count(3, &m, &s);
  EXPECT_EQ(m, 1431655764);
  m = -5;
  s = 1;
  fold_mean_count(3, &m, &s);
  EXPECT_EQ(m, -3);
  EXPECT_EQ(s, 0);
  // The largest fold, s = 32 (count 2^40, shift 1): 2^30 * 2^32 / 2^40 = 2^22.
  m = 1 << 30;
  s = 1;
  fold_mean_count((int64_t)1 << 40, &m, &s);
  EXPECT_EQ(m, 1 << 22);
  EXPECT_EQ(s, -31);
}

TEST(S8FixedPoint, AddSubFactors) {
  AddSubParams p;
  // sa = 0.5, sb = 0.25, sy = 1: twice_max = 1; 0.5 -> (2^30, 0), 0.25 -> (2^30, -1),
  // 1 / 2^20 -> (2^30, -19).
  add_params(0.5f, 3, 0.25f, -2, 1.0f, 5, &p);
  EXPECT_EQ(p.input1_offset, -3);
  EXPECT_EQ(p.input2_offset, 2);
  EXPECT_EQ(p.output_offset, 5);
  EXPECT_EQ(p.left_shift, 20);
  EXPECT_EQ(p.input1_multiplier, 1 << 30);
  EXPECT_EQ(p.input1_shift, 0);
  EXPECT_EQ(p.input2_multiplier, 1 << 30);
  EXPECT_EQ(p.input2_shift, -1);
  EXPECT_EQ(p.output_multiplier, 1 << 30);
  EXPECT_EQ(p.output_shift, -19);
}

TEST(S8FixedPoint, SoftmaxAndSigmoidFactors) {
  SoftmaxParams sp;
  softmax_params(1.0, 1.0f, &sp);  // 2^26 = 0.5 * 2^27
  EXPECT_EQ(sp.input_multiplier, 1 << 30);
  EXPECT_EQ(sp.input_left_shift, 27);
  EXPECT_EQ(sp.diff_min, -15);
  SigmoidTanhParams lp;
  sigmoid_tanh_params(0.1f, &lp);  // 0.1f * 2^27 = 0.80000001 * 2^24
  EXPECT_EQ(lp.input_left_shift, 24);
  // 0.1f = 13421773 * 2^-27, so q = 13421773 * 2^-24 and q * 2^31 = 13421773 * 128 exactly.
  EXPECT_EQ(lp.input_multiplier, 13421773 * 128);
  EXPECT_EQ(lp.input_range_radius, 120);
}

TEST(S8FixedPoint, ExpAndReciprocal) {
  // exp(0) = 1 (saturated Q0.31); gemmlowp's polynomial is good to ~1e-7.
  EXPECT_EQ(fp_exp_on_negative_values(0, 5), INT32_MAX);
  const double e1 = fp_exp_on_negative_values(-(1 << 26), 5) / 2147483648.0;
  EXPECT_NEAR(e1, std::exp(-1.0), 2e-7);
  const double e = fp_exp_on_negative_values(-(3 << 25), 5) / 2147483648.0;  // -1.5
  EXPECT_NEAR(e, std::exp(-1.5), 2e-7);
  // 1 / (1 + 0) saturates to 1 in Q0.31; 1 / (1 + 0.5) = 2/3.
  EXPECT_NEAR((double)fp_one_over_one_plus_x(0), 2147483648.0, 4.0);
  EXPECT_NEAR(fp_one_over_one_plus_x(1 << 30) / 2147483648.0, 2.0 / 3.0, 2e-7);
  // logistic(0) = 1/2 exactly; tanh(0) = 0.
  EXPECT_EQ(fp_logistic(0, 4), 1 << 30);
  EXPECT_EQ(fp_tanh(0, 4), 0);
  EXPECT_NEAR(fp_logistic(1 << 27, 4) / 2147483648.0, 1.0 / (1.0 + std::exp(-1.0)), 2e-7);
  EXPECT_NEAR(fp_tanh(-(1 << 27), 4) / 2147483648.0, std::tanh(-1.0), 2e-7);
  // Reciprocal of 2.0 in Q12.19 (2^20): one bit over unity, scale ~1.0.
  int bits = 0;
  const int32_t r = fp_reciprocal(1 << 20, 12, &bits);
  EXPECT_EQ(bits, 1);
  EXPECT_NEAR((double)r, 2147483648.0, 4.0);
}

TEST(S8FixedPoint, RoundHalfAwayMatchesStdRound) {
  const float cases[] = {0.5f,         -0.5f,      1.5f,  -1.5f,  2.5f,     -2.5f, 0.49999997f,
                         -0.49999997f, 8388607.5f, 1e10f, -1e10f, 123.456f, -0.0f};
  for (float v : cases) EXPECT_EQ(round_half_away_f(v), std::round(v)) << v;
  EXPECT_EQ(round_half_away_d(2.5), 3.0);
  EXPECT_EQ(round_half_away_d(-2.5), -3.0);
}

// Per-tensor FULLY_CONNECTED forms in_scale * w_scale in float32 (TFLM's
// GetQuantizedConvolutionMultipler); convolutions in double. vww_96_int8's dense layer
// (0.0156569127, 0.00472028926 -> 0.0146362185), emulated in Python with IEEE float32:
// float product -> 1387987883, double product -> 1387987940, both shift -7.
TEST(S8FixedPoint, LayerMultiplierPrecision) {
  int32_t m = 0;
  int s = 0;
  layer_multiplier(0.0156569127f, 0.00472028926f, 0.0146362185f, true, &m, &s);
  EXPECT_EQ(m, 1387987883);
  EXPECT_EQ(s, -7);
  layer_multiplier(0.0156569127f, 0.00472028926f, 0.0146362185f, false, &m, &s);
  EXPECT_EQ(m, 1387987940);
  EXPECT_EQ(s, -7);
}
