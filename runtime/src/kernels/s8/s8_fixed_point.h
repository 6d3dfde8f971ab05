// Fixed-point primitives of the int8 kernels, bit-exact with TensorFlow Lite (Micro).
//
// TFLite's reference kernels build on gemmlowp's scalar fixed-point arithmetic and on
// the "double rounding" MultiplyByQuantizedMultiplier (TFLITE_SINGLE_ROUNDING unset,
// the default of TFLite Micro). Every int8 kernel uses these helpers and nothing else
// for requantization, so all kernels round the same way. Where TFLite's C++ relies on
// two's-complement wrap-around of int32 overflow, the wrap is made explicit here.
#pragma once

#include <stdint.h>

namespace tigris_s8 {

// ---- Wrapping int32 arithmetic (what TFLite's int32 expressions do on overflow) ----

inline int32_t wrap_add(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }
inline int32_t wrap_sub(int32_t a, int32_t b) { return (int32_t)((uint32_t)a - (uint32_t)b); }
inline int32_t wrap_mul(int32_t a, int32_t b) { return (int32_t)((uint32_t)a * (uint32_t)b); }
inline int32_t wrap_neg(int32_t a) { return (int32_t)(0u - (uint32_t)a); }
// x * 2^shift in int32 (TFLite writes `x * (1 << shift)`), 0 <= shift <= 31.
inline int32_t wrap_shl(int32_t x, int shift) { return (int32_t)((uint32_t)x << shift); }

inline int32_t clamp_i32(int32_t x, int32_t lo, int32_t hi) { return x < lo ? lo : (x > hi ? hi : x); }
inline int8_t clamp_s8(int32_t x) { return (int8_t)clamp_i32(x, -128, 127); }

// ---- gemmlowp scalar primitives -----------------------------------------------------

// High 32 bits of 2*a*b, rounded to nearest (ties away from zero); the single overflow
// case a == b == INT32_MIN saturates to INT32_MAX. (gemmlowp SaturatingRoundingDoublingHighMul)
inline int32_t sat_rounding_doubling_high_mul(int32_t a, int32_t b)
{
    if (a == b && a == INT32_MIN) return INT32_MAX;
    // gemmlowp: (ab + nudge) / 2^31 truncated, nudge 2^30 or 1 - 2^30 by the sign of ab. For
    // ab < 0 the truncation is floor((ab + 1 - 2^30 + 2^31 - 1) / 2^31) = floor((ab + 2^30) / 2^31),
    // so both signs are one add and one arithmetic shift (what a multiply-long and a shift do).
    const int64_t ab = (int64_t)a * (int64_t)b;
    return (int32_t)((ab + ((int64_t)1 << 30)) >> 31);
}

// The int16 flavour (used by HARD_SWISH).
inline int16_t sat_rounding_doubling_high_mul16(int16_t a, int16_t b)
{
    if (a == b && a == INT16_MIN) return INT16_MAX;
    const int32_t ab = (int32_t)a * (int32_t)b;
    const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
    return (int16_t)((ab + nudge) / (1 << 15));
}

// x / 2^exponent rounded to nearest, ties away from zero, 0 <= exponent <= 31.
// (gemmlowp RoundingDivideByPOT: (x >> e) + (rem > (mask >> 1) + (x < 0)))
inline int32_t rounding_divide_by_pot(int32_t x, int exponent)
{
    if (exponent <= 0) return x;
    const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// The int16 flavour, with gemmlowp's int16 truncation of the mask.
inline int16_t rounding_divide_by_pot16(int16_t x, int exponent)
{
    if (exponent <= 0) return x;
    const int16_t mask = (int16_t)(((int64_t)1 << exponent) - 1);
    const int16_t remainder = (int16_t)(x & mask);
    const int16_t threshold = (int16_t)((mask >> 1) + (x < 0 ? 1 : 0));
    return (int16_t)((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// ---- Multiply by a quantized multiplier (Q0.31 multiplier m, power-of-two shift) -----

// The factors these helpers take: a non-negative Q0.31 multiplier (positive scales give
// one) and a shift whose left part (wrap_shl) and right part (rounding_divide_by_pot) stay
// within 0..31. The loader refuses stored factors outside this range.
constexpr int kMinShift = -31;
constexpr int kMaxShift = 31;
inline bool factor_in_range(int32_t m, int32_t shift) { return m >= 0 && shift >= kMinShift && shift <= kMaxShift; }

// TFLite MultiplyByQuantizedMultiplier(int32 x, m, shift), double rounding:
// RDBPOT(SRDHM(x * 2^max(shift,0), m), max(-shift,0)). Positive shift = left shift.
inline int32_t multiply_by_quantized_multiplier(int32_t x, int32_t m, int shift)
{
    const int left = shift > 0 ? shift : 0;
    const int right = shift > 0 ? 0 : -shift;
    return rounding_divide_by_pot(sat_rounding_doubling_high_mul(wrap_shl(x, left), m), right);
}

// TFLite MultiplyByQuantizedMultiplierSmallerThanOneExp: shift <= 0 (Add/Sub).
inline int32_t multiply_by_quantized_multiplier_smaller_than_one(int32_t x, int32_t m, int shift)
{
    return rounding_divide_by_pot(sat_rounding_doubling_high_mul(x, m), -shift);
}

// TFLite MultiplyByQuantizedMultiplierGreaterThanOne: left_shift >= 0 (Softmax).
inline int32_t multiply_by_quantized_multiplier_greater_than_one(int32_t x, int32_t m, int left_shift)
{
    return sat_rounding_doubling_high_mul(wrap_shl(x, left_shift), m);
}

// Round half away from zero of a float, as TfLiteRound/std::round, returned as a float.
inline float round_half_away_f(float v)
{
    // Values of magnitude >= 2^23 are already integers.
    if (!(v < 8388608.0f && v > -8388608.0f)) return v;
    const float t = (float)(int32_t)v;  // truncation toward zero, exact here
    const float frac = v - t;           // exact
    if (frac >= 0.5f) return t + 1.0f;
    if (frac <= -0.5f) return t - 1.0f;
    return t;
}

// Same for a double.
inline double round_half_away_d(double v)
{
    if (!(v < 4503599627370496.0 && v > -4503599627370496.0)) return v;  // 2^52
    const double t = (double)(int64_t)v;
    const double frac = v - t;
    if (frac >= 0.5) return t + 1.0;
    if (frac <= -0.5) return t - 1.0;
    return t;
}

// A float converted to int32 with saturation (TFLite's static_cast after range checks).
inline int32_t float_to_i32_sat(float v)
{
    if (v != v) return 0;
    if (v >= 2147483648.0f) return INT32_MAX;
    if (v < -2147483648.0f) return INT32_MIN;
    return (int32_t)v;
}

}  // namespace tigris_s8
