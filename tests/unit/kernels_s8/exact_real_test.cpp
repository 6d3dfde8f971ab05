// The int8 factor derivations computed with exact integer reals (kernels/s8/s8_exact_real.h)
// against TFLite Micro's double-precision formulas evaluated here with the host's doubles:
// QuantizeMultiplier as TFLite writes it (frexp, std::round of q * 2^31), on random and
// crafted scales, including subnormal, huge and equal ones.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>

#include "kernels/s8/s8_exact_real.h"
#include "kernels/s8/s8_params.h"

namespace {

using namespace tigris_s8;

// TFLite's QuantizeMultiplier (quantization_util.cc), default build.
void tflite_quantize(double real, int32_t* m, int* shift) {
  if (real == 0.0) {
    *m = 0;
    *shift = 0;
    return;
  }
  const double q = std::frexp(real, shift);
  int64_t q_fixed = static_cast<int64_t>(std::round(q * (1LL << 31)));
  if (q_fixed == (1LL << 31)) {
    q_fixed /= 2;
    ++*shift;
  }
  if (*shift < -31) {
    *shift = 0;
    q_fixed = 0;
  }
  *m = static_cast<int32_t>(q_fixed);
}

double value_of(const ExactReal& r) {
  EXPECT_TRUE(r.finite);
  const double v = std::ldexp(static_cast<double>(r.m), r.e);
  return r.negative ? -v : v;
}

// Floats with random bits over the whole finite range, and scales of the usual range.
struct Floats {
  std::mt19937 rng{20261202u};
  float any_finite() {
    for (;;) {
      uint32_t bits = rng();
      float f;
      std::memcpy(&f, &bits, sizeof f);
      if (std::isfinite(f)) return f;
    }
  }
  float scale() { return std::ldexp(std::uniform_real_distribution<float>(0.5f, 1.0f)(rng), static_cast<int>(rng() % 40) - 30); }
};

TEST(ExactReal, FloatsAreExact) {
  Floats g;
  for (int i = 0; i < 100000; ++i) {
    const float f = g.any_finite();
    EXPECT_EQ(value_of(exact_of(f)), static_cast<double>(f));
  }
  EXPECT_EQ(value_of(exact_of(1.4e-45f)), std::ldexp(1.0, -149));  // smallest subnormal
  EXPECT_FALSE(exact_of(INFINITY).finite);
  EXPECT_FALSE(exact_of(NAN).finite);
}

TEST(ExactReal, ProductsAndQuotientsAreTheDoubles) {
  Floats g;
  for (int i = 0; i < 200000; ++i) {
    const float a = g.any_finite(), b = g.any_finite(), c = g.any_finite();
    if (c == 0.0f) continue;
    const double ab = static_cast<double>(a) * static_cast<double>(b);
    EXPECT_EQ(value_of(exact_mul(exact_of(a), exact_of(b))), ab);
    EXPECT_EQ(value_of(exact_div(exact_of(a), exact_of(c))), static_cast<double>(a) / static_cast<double>(c))
        << a << " / " << c;
    EXPECT_EQ(value_of(exact_div(exact_mul(exact_of(a), exact_of(b)), exact_of(c))), ab / static_cast<double>(c))
        << a << " * " << b << " / " << c;
  }
  // Crafted: equal operands, powers of two, repeating binary fractions.
  for (float a : {1.0f, 3.0f, 0.1f, 1.0f / 3.0f, 16777215.0f, 1e-40f, 3e38f}) {
    for (float c : {1.0f, 3.0f, 7.0f, 0.1f, 16777215.0f, 1e-40f, 3e38f, a}) {
      EXPECT_EQ(value_of(exact_div(exact_of(a), exact_of(c))), static_cast<double>(a) / static_cast<double>(c));
    }
  }
  EXPECT_EQ(value_of(exact_div(exact_of(5.0f), exact_of(INFINITY))), 0.0);
  EXPECT_FALSE(exact_div(exact_of(5.0f), exact_of(0.0f)).finite);
}

TEST(ExactReal, ComparisonsAreTheDoubles) {
  Floats g;
  for (int i = 0; i < 100000; ++i) {
    const float a = g.any_finite(), b = (i % 4 == 0) ? a : g.any_finite();
    EXPECT_EQ(exact_greater(exact_of(a), exact_of(b)), static_cast<double>(a) > static_cast<double>(b)) << a << " " << b;
  }
  EXPECT_TRUE(exact_greater(exact_of(INFINITY), exact_of(3e38f)));
  EXPECT_FALSE(exact_greater(exact_of(NAN), exact_of(1.0f)));
  EXPECT_FALSE(exact_greater(exact_of(0.0f), exact_of(-0.0f)));
}

TEST(ExactReal, QuantizeIsTfLitesQuantizeMultiplier) {
  Floats g;
  for (int i = 0; i < 200000; ++i) {
    const float a = i % 2 ? g.any_finite() : g.scale(), c = i % 2 ? g.any_finite() : g.scale();
    if (c == 0.0f) continue;
    const double real = static_cast<double>(a) / static_cast<double>(c);
    int32_t m = 0, em = 0;
    int s = 0, es = 0;
    tflite_quantize(real, &m, &s);
    exact_quantize(exact_div(exact_of(a), exact_of(c)), &em, &es);
    ASSERT_EQ(em, m) << a << " / " << c;
    ASSERT_EQ(es, s) << a << " / " << c;
  }
}

TEST(ExactReal, FactorDerivationsMatchTheDoubleFormulas) {
  Floats g;
  for (int i = 0; i < 50000; ++i) {
    const float s1 = g.scale(), s2 = g.scale(), sy = g.scale(), w = g.scale();
    int32_t m = 0, rm = 0;
    int s = 0, rs = 0;
    rescale_multiplier(s1, sy, &m, &s);
    tflite_quantize(static_cast<double>(s1) / static_cast<double>(sy), &rm, &rs);
    ASSERT_EQ(m, rm);
    ASSERT_EQ(s, rs);
    mul_params(s1, s2, sy, &m, &s);
    tflite_quantize(static_cast<double>(s1) * static_cast<double>(s2) / static_cast<double>(sy), &rm, &rs);
    ASSERT_EQ(m, rm);
    ASSERT_EQ(s, rs);
    layer_multiplier(s1, w, sy, false, &m, &s);
    tflite_quantize(static_cast<double>(s1) * static_cast<double>(w) / static_cast<double>(sy), &rm, &rs);
    ASSERT_EQ(m, rm);
    ASSERT_EQ(s, rs);
    layer_multiplier(s1, w, sy, true, &m, &s);
    tflite_quantize(static_cast<double>(s1 * w) / static_cast<double>(sy), &rm, &rs);
    ASSERT_EQ(m, rm);
    ASSERT_EQ(s, rs);
    relu_multiplier(s1, sy, &m, &s);
    tflite_quantize(static_cast<double>(s1 / sy), &rm, &rs);
    ASSERT_EQ(m, rm);
    ASSERT_EQ(s, rs);

    AddSubParams p{};
    add_params(s1, 3, s2, -5, sy, 7, &p);
    const double twice_max = 2.0 * static_cast<double>(std::max(s1, s2));
    tflite_quantize(static_cast<double>(s1) / twice_max, &rm, &rs);
    EXPECT_EQ(p.input1_multiplier, rm);
    EXPECT_EQ(p.input1_shift, rs);
    tflite_quantize(static_cast<double>(s2) / twice_max, &rm, &rs);
    EXPECT_EQ(p.input2_multiplier, rm);
    EXPECT_EQ(p.input2_shift, rs);
    tflite_quantize(twice_max / (static_cast<double>(1 << 20) * static_cast<double>(sy)), &rm, &rs);
    EXPECT_EQ(p.output_multiplier, rm);
    EXPECT_EQ(p.output_shift, rs);

    // SOFTMAX (int8): beta * scale * 2^26 capped at 2^31 - 1, diff_min = -floor(31 * 2^(26 - shift)).
    const float beta = i % 3 == 0 ? 1.0f : g.scale();
    SoftmaxParams sp{};
    softmax_params(beta, s1, &sp);
    const double real = std::min(static_cast<double>(beta) * static_cast<double>(s1) * (1 << 26), 2147483647.0);
    tflite_quantize(real, &rm, &rs);
    EXPECT_EQ(sp.input_multiplier, rm);
    EXPECT_EQ(sp.input_left_shift, rs);
    const double radius = std::floor(31.0 * std::ldexp(1.0, 26 - rs));
    EXPECT_EQ(sp.diff_min, -(radius >= 2147483647.0 ? INT32_MAX : static_cast<int32_t>(radius)));

    // LOGISTIC / TANH: in * 2^27, rounded without the 2^31 check; radius with 4 integer bits.
    SigmoidTanhParams tp{};
    sigmoid_tanh_params(s1, &tp);
    int e = 0;
    const double q = std::frexp(static_cast<double>(s1) * (1 << 27), &e);
    const double qm = std::round(q * 2147483648.0);
    EXPECT_EQ(tp.input_multiplier, qm >= 2147483648.0 ? INT32_MIN : static_cast<int32_t>(qm));
    EXPECT_EQ(tp.input_left_shift, e);
    const double r4 = std::floor(15.0 * std::ldexp(1.0, 27 - e));
    EXPECT_EQ(tp.input_range_radius, r4 >= 2147483647.0 ? INT32_MAX : static_cast<int32_t>(r4));
  }
}

TEST(ExactReal, InputRadiusIsTheDoubleFormula) {
  for (int ib = 1; ib <= 6; ++ib) {
    for (int shift = -40; shift <= 70; ++shift) {
      const double r = std::floor(static_cast<double>((1 << ib) - 1) * std::ldexp(1.0, 31 - ib - shift));
      EXPECT_EQ(calculate_input_radius(ib, shift, 31), r >= 2147483647.0 ? INT32_MAX : static_cast<int32_t>(r))
          << ib << " " << shift;
    }
  }
}

}  // namespace
