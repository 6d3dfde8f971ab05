// The prepared requantization of the int8 fast paths (kernels/s8/s8_requant.h: one 64-bit sum
// for both roundings) against TFLite's MultiplyByQuantizedMultiplier written out below as
// gemmlowp states it (SaturatingRoundingDoublingHighMul with its sign-dependent nudge and a
// truncating division, then RoundingDivideByPOT with mask and threshold), and against the
// runtime's own multiply_by_quantized_multiplier: every shift -31..31, extreme and random
// multipliers and accumulators, and ties of both roundings at every right shift.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_requant.h"

namespace {

// gemmlowp::SaturatingRoundingDoublingHighMul(int32, int32).
int32_t tflite_srdhm(int32_t a, int32_t b)
{
    const bool overflow = a == b && a == INT32_MIN;
    const int64_t ab = (int64_t)a * (int64_t)b;
    const int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    const int32_t ab_x2_high32 = (int32_t)((ab + nudge) / (1ll << 31));
    return overflow ? INT32_MAX : ab_x2_high32;
}

// gemmlowp::RoundingDivideByPOT(int32, exponent).
int32_t tflite_rdbpot(int32_t x, int exponent)
{
    const int32_t mask = (int32_t)((1ll << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// tflite::MultiplyByQuantizedMultiplier(int32 x, m, shift), TFLITE_SINGLE_ROUNDING unset.
int32_t tflite_mbqm(int32_t x, int32_t m, int shift)
{
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return tflite_rdbpot(tflite_srdhm((int32_t)((uint32_t)x << left), m), right);
}

int8_t tflite_out(int32_t acc, int32_t m, int shift, int32_t zp, int32_t lo, int32_t hi)
{
    int32_t v = (int32_t)((uint32_t)tflite_mbqm(acc, m, shift) + (uint32_t)zp);
    v = v < lo ? lo : (v > hi ? hi : v);
    return (int8_t)v;
}

std::vector<int32_t> multipliers(std::mt19937 &rng)
{
    std::vector<int32_t> ms = {0, 1, 2, 3, (1 << 30) - 1, 1 << 30, (1 << 30) + 1, 1518500250, INT32_MAX - 1, INT32_MAX};
    std::uniform_int_distribution<int32_t> any(0, INT32_MAX), norm(1 << 30, INT32_MAX);
    for (int i = 0; i < 12; i++) ms.push_back(any(rng));
    for (int i = 0; i < 12; i++) ms.push_back(norm(rng));
    return ms;
}

std::vector<int32_t> accumulators(std::mt19937 &rng)
{
    std::vector<int32_t> as = {0, 1, -1, 2, -2, 3, -3, 127, -128, INT32_MAX, INT32_MIN, INT32_MAX - 1, INT32_MIN + 1,
                               1 << 30, -(1 << 30), (1 << 30) - 1, -(1 << 30) + 1};
    std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX), small(-70000, 70000);
    for (int i = 0; i < 40; i++) as.push_back(any(rng));
    for (int i = 0; i < 40; i++) as.push_back(small(rng));
    return as;
}

}  // namespace

TEST(S8Requant, ChannelQRefusesWhatItCannotComputeExactly) {
  tigris_s8::ChannelQ q;
  EXPECT_FALSE(tigris_s8::channel_q(INT32_MIN, -3, 0, &q));  // the saturating multiplier
  EXPECT_FALSE(tigris_s8::channel_q(-5, -3, 0, &q));         // negative: the loader refuses it too
  EXPECT_FALSE(tigris_s8::channel_q(1 << 30, -32, 0, &q));
  EXPECT_FALSE(tigris_s8::channel_q(1 << 30, 32, 0, &q));
  EXPECT_TRUE(tigris_s8::channel_q(0, -31, 7, &q));
  EXPECT_EQ(q.bias, 7);
  EXPECT_TRUE(tigris_s8::channel_q(INT32_MAX, 31, 0, &q));
}

// Every shift, extreme and random factors and accumulators: requant_scaled equals TFLite's
// formula (and multiply_by_quantized_multiplier), requant_s8 its clamped int8.
TEST(S8Requant, EqualsMultiplyByQuantizedMultiplierForEveryShift) {
  std::mt19937 rng(2026);
  const std::vector<int32_t> ms = multipliers(rng), as = accumulators(rng);
  std::uniform_int_distribution<int32_t> zp(-128, 127), bound(-128, 127);
  for (int shift = tigris_s8::kMinShift; shift <= tigris_s8::kMaxShift; shift++) {
    for (int32_t m : ms) {
      tigris_s8::ChannelQ q;
      ASSERT_TRUE(tigris_s8::channel_q(m, shift, 0, &q));
      for (int32_t acc : as) {
        const int32_t want = tflite_mbqm(acc, m, shift);
        ASSERT_EQ(want, tigris_s8::multiply_by_quantized_multiplier(acc, m, shift));
        ASSERT_EQ(tigris_s8::requant_scaled(acc, q), want) << "acc " << acc << " m " << m << " shift " << shift;
        int32_t lo = bound(rng), hi = bound(rng);
        if (lo > hi) std::swap(lo, hi);
        const int32_t z = zp(rng);
        ASSERT_EQ(tigris_s8::requant_s8(acc, q, z, lo, hi), tflite_out(acc, m, shift, z, lo, hi))
            << "acc " << acc << " m " << m << " shift " << shift;
      }
    }
  }
}

// Ties of both roundings at every right shift e: with m = 2^30 the doubling high multiply is
// acc / 2 (a tie for every odd acc), and acc = 2 (k 2^e + 2^(e-1)) + d puts its result on or
// next to a tie of the rounding divide, for positive and negative k.
TEST(S8Requant, TiesAtEveryRoundingPosition) {
  for (int e = 1; e <= 31; e++) {
    for (int32_t m : {1 << 30, (1 << 30) + 1, (1 << 30) - 1, INT32_MAX}) {
      tigris_s8::ChannelQ q;
      ASSERT_TRUE(tigris_s8::channel_q(m, -e, 0, &q));
      for (int64_t k : {-3ll, -2ll, -1ll, 0ll, 1ll, 2ll, 5ll}) {
        for (int64_t d = -3; d <= 3; d++) {
          const int64_t acc64 = 2 * (k * (1ll << e) + (1ll << (e - 1))) + d;
          if (acc64 < INT32_MIN || acc64 > INT32_MAX) continue;
          const int32_t acc = (int32_t)acc64;
          ASSERT_EQ(tigris_s8::requant_scaled(acc, q), tflite_mbqm(acc, m, -e)) << "acc " << acc << " e " << e;
        }
      }
    }
  }
}

// requant4_s8 (four channels at once, the clamp in one word on DSP builds): the bytes of four
// requant_s8 calls, with the full int8 range and narrower bounds, and with a channel whose shift
// is >= 0 among the four (the generic branch).
TEST(S8Requant, FourChannelsEqualFourSingleOutputs) {
  std::mt19937 rng(7);
  const std::vector<int32_t> ms = multipliers(rng), as = accumulators(rng);
  std::uniform_int_distribution<int> pick_m(0, (int)ms.size() - 1), pick_a(0, (int)as.size() - 1),
      shift(-31, 31), right(-31, -1), zp(-128, 127), bound(-128, 127);
  for (int rep = 0; rep < 4000; rep++) {
    tigris_s8::ChannelQ q[4];
    int32_t m[4], s[4], a[4];
    for (int k = 0; k < 4; k++) {
      m[k] = ms[(size_t)pick_m(rng)];
      s[k] = rep % 2 ? shift(rng) : right(rng);
      a[k] = as[(size_t)pick_a(rng)];
      ASSERT_TRUE(tigris_s8::channel_q(m[k], s[k], 0, &q[k]));
    }
    int32_t lo = bound(rng), hi = bound(rng);
    if (lo > hi) std::swap(lo, hi);
    if (rep % 3 == 0) lo = -128, hi = 127;
    const int32_t z = zp(rng);
    const tigris_s8::Out4 o = tigris_s8::out4(q, z, lo, hi);
    EXPECT_EQ(o.full, lo == -128 && hi == 127);
    int8_t got[6] = {9, 9, 9, 9, 9, 9};
    tigris_s8::requant4_s8(a, q, o, got + 1);
    EXPECT_EQ(got[0], 9);
    EXPECT_EQ(got[5], 9);
    for (int k = 0; k < 4; k++)
      ASSERT_EQ(got[1 + k], tflite_out(a[k], m[k], s[k], z, lo, hi)) << "rep " << rep << " lane " << k;
  }
}

// The unprepared form (requant_right_raw, requant4_raw_s8): every factor requant_raw_ok admits
// (every shift -31..-2, extreme and random multipliers and accumulators, the ties at every
// rounding position) equals TFLite's formula; requant_raw_ok refuses what it does not cover.
TEST(S8Requant, UnpreparedFactorsEqualTheFormula) {
  EXPECT_FALSE(tigris_s8::requant_raw_ok(INT32_MIN, -3));
  EXPECT_FALSE(tigris_s8::requant_raw_ok(-5, -3));
  EXPECT_FALSE(tigris_s8::requant_raw_ok(1 << 30, -1));
  EXPECT_FALSE(tigris_s8::requant_raw_ok(1 << 30, 0));
  EXPECT_FALSE(tigris_s8::requant_raw_ok(1 << 30, -32));
  EXPECT_TRUE(tigris_s8::requant_raw_ok(0, -2));
  EXPECT_TRUE(tigris_s8::requant_raw_ok(INT32_MAX, -31));
  std::mt19937 rng(2027);
  const std::vector<int32_t> ms = multipliers(rng), as = accumulators(rng);
  for (int shift = tigris_s8::kMinShift; shift <= -2; shift++) {
    for (int32_t m : ms)
      for (int32_t acc : as)
        ASSERT_EQ(tigris_s8::requant_right_raw(acc, m, shift), tflite_mbqm(acc, m, shift))
            << "acc " << acc << " m " << m << " shift " << shift;
    const int e = -shift;
    for (int32_t m : {1 << 30, (1 << 30) + 1, (1 << 30) - 1, INT32_MAX})
      for (int64_t k : {-3ll, -2ll, -1ll, 0ll, 1ll, 2ll, 5ll})
        for (int64_t d = -3; d <= 3; d++) {
          const int64_t acc64 = 2 * (k * (1ll << e) + (1ll << (e - 1))) + d;
          if (acc64 < INT32_MIN || acc64 > INT32_MAX) continue;
          ASSERT_EQ(tigris_s8::requant_right_raw((int32_t)acc64, m, shift), tflite_mbqm((int32_t)acc64, m, shift))
              << "acc " << acc64 << " e " << e;
        }
  }
  std::uniform_int_distribution<int> pick_m(0, (int)ms.size() - 1), pick_a(0, (int)as.size() - 1), right(-31, -2),
      zp(-128, 127), bound(-128, 127);
  for (int rep = 0; rep < 4000; rep++) {
    int32_t m[4], s[4], a[4];
    for (int k = 0; k < 4; k++) {
      m[k] = ms[(size_t)pick_m(rng)];
      s[k] = right(rng);
      a[k] = as[(size_t)pick_a(rng)];
    }
    int32_t lo = bound(rng), hi = bound(rng);
    if (lo > hi) std::swap(lo, hi);
    if (rep % 3 == 0) lo = -128, hi = 127;
    const int32_t z = zp(rng);
    int8_t got[6] = {9, 9, 9, 9, 9, 9};
    tigris_s8::requant4_raw_s8(a, m, s, tigris_s8::out4(z, lo, hi), got + 1);
    EXPECT_EQ(got[0], 9);
    EXPECT_EQ(got[5], 9);
    for (int k = 0; k < 4; k++)
      ASSERT_EQ(got[1 + k], tflite_out(a[k], m[k], s[k], z, lo, hi)) << "rep " << rep << " lane " << k;
  }
}
