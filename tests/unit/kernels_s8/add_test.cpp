// The int8 ADD fast path (kernels/s8/s8_add.h) and the reference ADD that uses it, against
// TFLite's reference integer Add written out plainly below (gemmlowp's scalar arithmetic):
//   x1 = a + input1_offset, x2 = b + input2_offset (offset = -zero point)
//   s1 = MBQM(x1 * 2^20, m1, shift1), s2 = MBQM(x2 * 2^20, m2, shift2)
//   y  = clamp(MBQM(s1 + s2, mo, shift_o) + output_offset, act_min, act_max)
// with MBQM = RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(x * 2^left, m), right).
// The fast path is checked on every (a, b) pair of int8 values for each factor set: TFLite's
// derived factors for random scales, and extreme factors (multipliers 0 .. 2^31 - 1, every
// right shift of the non-unit operand, output shifts -1 .. -23, offsets and zero points at
// their bounds, narrow activation ranges); runs of every length 0..13 at every byte offset and
// in place; the factor sets it must refuse. The kernel is checked over shapes with odd channel
// counts, BINARY_REQUANT with every shift -31..31 (positive ones take the generic loop),
// broadcast and constant operands, and row bands.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "banding.h"
#include "kernels/s8/s8_add.h"
#include "s8_fixture.h"

using namespace s8test;
using tigris_s8::AddSubParams;
namespace add_fast = tigris_s8::add_fast;

namespace {

// gemmlowp SaturatingRoundingDoublingHighMul.
int32_t tfl_srdhm(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  const int64_t ab = (int64_t)a * (int64_t)b;
  const int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return (int32_t)((ab + nudge) / ((int64_t)1 << 31));  // C++ division truncates toward zero
}

// gemmlowp RoundingDivideByPOT.
int32_t tfl_rdbpot(int32_t x, int exponent) {
  const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t tfl_mbqm(int32_t x, int32_t m, int shift) {
  const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  return tfl_rdbpot(tfl_srdhm((int32_t)((uint32_t)x << left), m), right);
}

int8_t tfl_add(const AddSubParams& f, int32_t lo, int32_t hi, int8_t a, int8_t b) {
  const int32_t x1 = (int32_t)((uint32_t)(a + f.input1_offset) << f.left_shift);
  const int32_t x2 = (int32_t)((uint32_t)(b + f.input2_offset) << f.left_shift);
  const int32_t s1 = tfl_mbqm(x1, f.input1_multiplier, f.input1_shift);
  const int32_t s2 = tfl_mbqm(x2, f.input2_multiplier, f.input2_shift);
  const int32_t sum = (int32_t)((uint32_t)s1 + (uint32_t)s2);
  const int32_t y = (int32_t)((uint32_t)tfl_mbqm(sum, f.output_multiplier, f.output_shift) + (uint32_t)f.output_offset);
  return (int8_t)(y < lo ? lo : (y > hi ? hi : y));
}

AddSubParams factors(int32_t off1, int32_t m1, int s1, int32_t off2, int32_t m2, int s2, int32_t mo, int so,
                     int32_t zy) {
  AddSubParams f;
  f.input1_offset = off1, f.input2_offset = off2, f.output_offset = zy, f.left_shift = 20;
  f.input1_multiplier = m1, f.input1_shift = s1, f.input2_multiplier = m2, f.input2_shift = s2;
  f.output_multiplier = mo, f.output_shift = so;
  return f;
}

// Every (a, b) pair through the fast path against the formula; false when prepare refuses.
bool check_all_pairs(const AddSubParams& f, int32_t lo, int32_t hi) {
  add_fast::Prepared p;
  if (!add_fast::prepare(f, lo, hi, &p)) return false;
  Bytes a(65536), b(65536), y(65536);
  for (int i = 0; i < 65536; i++) a[i] = (int8_t)(i & 255), b[i] = (int8_t)(i >> 8);
  add_fast::run(p, a.data(), b.data(), y.data(), 65536);
  int bad = 0;
  for (int i = 0; i < 65536 && bad < 3; i++) {
    const int8_t want = tfl_add(f, lo, hi, a[i], b[i]);
    if (y[i] != want) {
      ADD_FAILURE() << "a " << (int)a[i] << " b " << (int)b[i] << ": " << (int)y[i] << " want " << (int)want
                    << " (m1 " << f.input1_multiplier << " s1 " << f.input1_shift << " m2 " << f.input2_multiplier
                    << " s2 " << f.input2_shift << " mo " << f.output_multiplier << " so " << f.output_shift
                    << " offs " << f.input1_offset << "," << f.input2_offset << "," << f.output_offset << " act "
                    << lo << ".." << hi << ")";
      bad++;
    }
  }
  return true;
}

int32_t pick(std::mt19937& rng, std::initializer_list<int32_t> v) { return v.begin()[rng() % v.size()]; }

}  // namespace

// Factors TFLite derives (add_params) for random scales: the larger input's factor is
// (2^30, 0) (the unit operand, a or b), equal scales make both unit.
TEST(S8AddFast, DerivedFactorsEveryPair) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> lg(-9.0f, 0.0f);
  std::uniform_int_distribution<int> zp(-128, 127);
  int cases = 0;
  for (int k = 0; k < 60; k++) {
    const float sa = std::exp2(lg(rng)), sb = k % 5 == 0 ? sa : std::exp2(lg(rng));
    const float sy = (sa > sb ? sa : sb) * std::exp2(std::uniform_real_distribution<float>(-1.0f, 3.0f)(rng));
    AddSubParams f;
    tigris_s8::add_params(sa, zp(rng), sb, zp(rng), sy, zp(rng), &f);
    const int32_t lo = k % 3 == 0 ? f.output_offset : -128, hi = k % 4 == 1 ? 100 : 127;
    const int32_t lo_c = lo < -128 ? -128 : (lo > hi ? hi : lo);
    ASSERT_TRUE(check_all_pairs(f, lo_c, hi)) << "refused derived factors, case " << k;
    cases++;
  }
  EXPECT_EQ(cases, 60);
}

// Extreme factors: the unit operand on either side, the other operand's multiplier from 0 to
// 2^31 - 1 with every right shift 1..31 (and the unit factor: shift 0), output multipliers and shifts at the bounds the fast
// path takes, offsets +-256, zero points +-128, narrow and single-value activation ranges.
TEST(S8AddFast, ExtremeFactorsEveryPair) {
  std::mt19937 rng(99);
  const int32_t kUnit = 1 << 30;
  for (int eg = 0; eg <= 31; eg++) {
    for (int k = 0; k < 4; k++) {
      // A shift of 0 goes with the unit multiplier only (both operands unit: equal scales).
      const int32_t mg =
          eg == 0 ? kUnit : pick(rng, {0, 1, 2, kUnit, INT32_MAX, (int32_t)(rng() >> 1), (int32_t)(rng() >> 1)});
      const int32_t mo = pick(rng, {0, 1, kUnit, INT32_MAX, (int32_t)(rng() >> 1), (int32_t)(rng() >> 1)});
      const int so = -(int)pick(rng, {1, 2, 11, 19, 20, 22, 23, (int32_t)(1 + rng() % 23)});
      const int32_t ou = pick(rng, {-256, -255, -128, 0, 127, 128, 255, 256});
      const int32_t og = pick(rng, {-256, -255, -128, 0, 127, 128, 255, 256});
      const int32_t zy = pick(rng, {-128, -127, 0, 1, 127, 128});
      const int32_t lo = pick(rng, {-128, -127, -5, 0, 3}), hi = pick(rng, {127, 126, 5, 3});
      if (lo > hi) continue;
      const bool unit_b = (k & 1) != 0;
      const AddSubParams f = unit_b ? factors(og, mg, -eg, ou, kUnit, 0, mo, so, zy)
                                    : factors(ou, kUnit, 0, og, mg, -eg, mo, so, zy);
      ASSERT_TRUE(check_all_pairs(f, lo, hi)) << "refused eg " << eg << " k " << k;
    }
  }
}

// The other operand's term at the output's resolution: where the unit operand sits at its zero
// point the sum is that term alone, and with a fine output factor (shift -1 or -2, multiplier
// >= 2^30) every unit of it shows in the output, so each rounding of the term (its ties on
// both signs, for every shift 1..31) is visible in the bytes.
TEST(S8AddFast, NonUnitTermRoundingVisible) {
  std::mt19937 rng(7);
  for (int eg = 1; eg <= 31; eg++) {
    // A multiplier giving terms up to about +-300 (capped at 2^31 - 1 for large shifts).
    const double want = 300.0 * std::ldexp(1.0, 11 + eg) / 384.0;
    const int32_t mg = want > 2147483647.0 ? INT32_MAX : (int32_t)want + (int32_t)(rng() % 1000);
    for (int so : {-1, -2}) {
      const int32_t mo = (int32_t)((1u << 30) + (rng() >> 2));
      const int32_t zu = (int32_t)(rng() % 256) - 128, og = (int32_t)(rng() % 256) - 128;
      ASSERT_TRUE(check_all_pairs(factors(-zu, 1 << 30, 0, og, mg, -eg, mo, so, 3), -128, 127)) << eg;
      ASSERT_TRUE(check_all_pairs(factors(og, mg, -eg, -zu, 1 << 30, 0, mo, so, -3), -128, 127)) << eg;
    }
  }
}

// Lengths 0..13 at every byte offset, and in place on either operand.
TEST(S8AddFast, LengthsOffsetsAndInPlace) {
  const AddSubParams f = factors(7, 1 << 30, 0, -3, 1518500250, -1, 1395864371, -19, -5);
  add_fast::Prepared p;
  ASSERT_TRUE(add_fast::prepare(f, -100, 90, &p));
  const Bytes a = random_bytes(64, 1), b = random_bytes(64, 2);
  for (int32_t n = 0; n <= 13; n++)
    for (int off = 0; off < 4; off++) {
      Bytes y(64, 55);
      add_fast::run(p, a.data() + off, b.data() + off, y.data() + off, n);
      for (int32_t i = 0; i < 64; i++) {
        const bool inside = i >= off && i < off + n;
        const int8_t want = inside ? tfl_add(f, -100, 90, a[i], b[i]) : (int8_t)55;
        ASSERT_EQ(y[i], want) << "n " << n << " offset " << off << " i " << i;
      }
      Bytes ya = a, yb = b;
      add_fast::run(p, ya.data() + off, b.data() + off, ya.data() + off, n);
      add_fast::run(p, a.data() + off, yb.data() + off, yb.data() + off, n);
      for (int32_t i = off; i < off + n; i++) {
        ASSERT_EQ(ya[i], tfl_add(f, -100, 90, a[i], b[i])) << "in place on a, n " << n << " i " << i;
        ASSERT_EQ(yb[i], tfl_add(f, -100, 90, a[i], b[i])) << "in place on b, n " << n << " i " << i;
      }
    }
}

// What the fast path refuses (the kernel then runs the formula): no unit operand, a negative
// multiplier, a left shift, a shift of 0 without the unit multiplier, an output shift of 0 or below -23, offsets or zero points beyond
// its bounds, another left_shift, an activation range outside int8 or inverted.
TEST(S8AddFast, RefusesFactorsOutsideItsRange) {
  const int32_t u = 1 << 30;
  add_fast::Prepared p;
  const AddSubParams ok = factors(0, u, 0, 0, u / 2, -1, u, -20, 0);
  EXPECT_TRUE(add_fast::prepare(ok, -128, 127, &p));
  const AddSubParams bad[] = {
      factors(0, u + 1, 0, 0, u / 2, -1, u, -20, 0),   factors(0, u, -1, 0, u / 2, -1, u, -20, 0),
      factors(0, u, 0, 0, -5, -1, u, -20, 0),          factors(0, u, 0, 0, INT32_MIN, -1, u, -20, 0),
      factors(0, u, 0, 0, u / 2, 0, u, -20, 0),        factors(0, u - 1, 0, 0, u, 0, u, -20, 0),
      factors(0, u, 0, 0, u / 2, 1, u, -20, 0),        factors(0, u, 0, 0, u / 2, -32, u, -20, 0),
      factors(0, u, 0, 0, u / 2, -1, u, 0, 0),         factors(0, u, 0, 0, u / 2, -1, u, 3, 0),
      factors(0, u, 0, 0, u / 2, -1, u, -24, 0),       factors(0, u, 0, 0, u / 2, -1, -u, -20, 0),
      factors(257, u, 0, 0, u / 2, -1, u, -20, 0),     factors(0, u, 0, -257, u / 2, -1, u, -20, 0),
      factors(0, u, 0, 0, u / 2, -1, u, -20, 129),     factors(0, u, 0, 0, u / 2, -1, u, -20, -129),
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) EXPECT_FALSE(add_fast::prepare(bad[i], -128, 127, &p)) << i;
  AddSubParams shift19 = ok;
  shift19.left_shift = 19;
  EXPECT_FALSE(add_fast::prepare(shift19, -128, 127, &p));
  EXPECT_FALSE(add_fast::prepare(ok, 5, 4, &p));
  EXPECT_FALSE(add_fast::prepare(ok, -129, 127, &p));
  EXPECT_FALSE(add_fast::prepare(ok, -128, 128, &p));
}

namespace {

// ADD of a [shape] tensor and a b_shape operand (numpy broadcast) through the kernel, against
// the formula with the factors the kernel uses (derived, or `requant`).
void check_kernel_add(const std::vector<int32_t>& shape, const std::vector<int32_t>& b_shape, float sa, int32_t za,
                      float sb, int32_t zb, float sy, int32_t zy, int32_t lo, int32_t hi,
                      const std::vector<int32_t>& requant, uint32_t seed) {
  PlanFixture f;
  const uint16_t ta = f.tensor(shape, TIGRIS_DTYPE_INT8, f.quant(sa, za));
  const uint16_t tb = f.tensor(b_shape, TIGRIS_DTYPE_INT8, f.quant(sb, zb));
  const uint16_t ty = f.tensor(shape, TIGRIS_DTYPE_INT8, f.quant(sy, zy));
  const uint16_t op = f.op(TIGRIS_OP_ADD, {ta, tb}, {ty});
  f.op_record(op).act_min = (int8_t)lo;
  f.op_record(op).act_max = (int8_t)hi;
  if (!requant.empty()) f.attr_i32(op, TIGRIS_ATTR_BINARY_REQUANT, requant);
  f.finalize();
  AddSubParams fp;
  tigris_s8::add_params(sa, za, sb, zb, sy, zy, &fp);
  if (!requant.empty()) {
    fp.input1_multiplier = requant[0], fp.input1_shift = requant[1];
    fp.input2_multiplier = requant[2], fp.input2_shift = requant[3];
    fp.output_multiplier = requant[4], fp.output_shift = requant[5];
  }
  size_t n = 1, nb = 1;
  for (int32_t d : shape) n *= (size_t)d;
  for (int32_t d : b_shape) nb *= (size_t)d;
  Bytes a = random_bytes(n, seed), b = random_bytes(nb, seed + 1), y(n, 99);
  f.bind(ta, a.data());
  f.bind(tb, b.data());
  f.bind(ty, y.data());
  ASSERT_EQ(f.run(op), 0);
  // The formula at each output index, b read at its broadcast index.
  const size_t rank = shape.size(), off = rank - b_shape.size();
  for (size_t i = 0; i < n; i++) {
    size_t rem = i, bi = 0, bstride = 1;
    for (size_t d = rank; d-- > 0;) {
      const size_t coord = rem % (size_t)shape[d];
      rem /= (size_t)shape[d];
      if (d >= off) {
        const size_t bd = (size_t)b_shape[d - off];
        bi += (bd == 1 ? 0 : coord) * bstride;
        bstride *= bd;
      }
    }
    ASSERT_EQ(y[i], tfl_add(fp, lo, hi, a[i], b[bi])) << "element " << i;
  }
  // Row bands of the same op (operands of the output's rows banded) give the same bytes.
  if (b_shape == shape && rank == 4) {
    const Bytes whole = y;
    for (const BandOptions& o : {BandOptions{1, 0, 0, 0}, BandOptions{2, 0, 1, 3}, BandOptions{3, 0, 2, 1}}) {
      Bytes yb;
      ASSERT_TRUE(run_pointwise_banded(f, op, {ta, tb}, {a, b}, ty, o, &yb));
      EXPECT_EQ(yb, whole) << "band " << o.band_h;
    }
  }
}

}  // namespace

TEST(S8AddFast, KernelShapesBroadcastAndBands) {
  // Same shapes (residual adds), odd channel counts, either operand's scale the larger.
  check_kernel_add({1, 5, 3, 7}, {1, 5, 3, 7}, 0.05f, -3, 0.031f, 11, 0.07f, -20, -128, 127, {}, 1);
  check_kernel_add({2, 4, 3, 5}, {2, 4, 3, 5}, 0.02f, 100, 0.09f, -128, 0.1f, -128, -128, 127, {}, 2);
  check_kernel_add({1, 6, 6, 16}, {1, 6, 6, 16}, 0.04f, -128, 0.04f, -128, 0.06f, -128, -128, 127, {}, 3);
  check_kernel_add({1, 3, 3, 1}, {1, 3, 3, 1}, 0.1f, 7, 0.2f, -7, 0.3f, 5, 5, 90, {}, 4);
  // Broadcast: per-channel [C], a row [1, 1, W, C], a scalar.
  check_kernel_add({1, 4, 5, 6}, {6}, 0.05f, 1, 0.02f, 2, 0.06f, 3, -128, 127, {}, 5);
  check_kernel_add({1, 4, 5, 6}, {1, 1, 5, 6}, 0.05f, 1, 0.08f, 2, 0.06f, 3, -50, 127, {}, 6);
  check_kernel_add({2, 3, 5}, {1}, 0.05f, 1, 0.08f, 2, 0.06f, 3, -128, 127, {}, 7);
}

// BINARY_REQUANT with every shift -31..31 on each pair (the loader takes the attribute's
// values as stored): non-positive input shifts with one (2^30, 0) operand take the fast path,
// the rest the generic loop; both give TFLite's bytes.
TEST(S8AddFast, KernelBinaryRequantEveryShift) {
  const int32_t u = 1 << 30;
  for (int s = -31; s <= 31; s++) {
    const uint32_t seed = 100 + (uint32_t)(s + 31) * 3;
    check_kernel_add({1, 3, 4, 5}, {1, 3, 4, 5}, 1, 3, 1, -4, 1, 2, -128, 127, {u, 0, 1518500250, s, 1395864371, -19},
                     seed);
    check_kernel_add({1, 3, 4, 5}, {1, 3, 4, 5}, 1, 3, 1, -4, 1, 2, -128, 127, {1518500250, s, u, 0, 1395864371, -19},
                     seed + 1);
    check_kernel_add({1, 3, 4, 5}, {1, 3, 4, 5}, 1, 3, 1, -4, 1, 2, -100, 100, {u, 0, 1518500250, -2, 1395864371, s},
                     seed + 2);
  }
}
