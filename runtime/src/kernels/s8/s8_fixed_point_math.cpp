// gemmlowp scalar fixed-point functions (exp, logistic, tanh, reciprocal) re-derived
// step by step from the algorithms TFLite Micro's int8 kernels call. A Qi value has
// i integer bits and 31 - i fractional bits; "raw" is its int32 representation.
#include "kernels/s8/s8_fixed_point_math.h"

#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s8 {
namespace {

// Saturating multiply of a raw value by 2^exponent (exponent > 0), or rounding divide
// (exponent < 0): gemmlowp SaturatingRoundingMultiplyByPOT / Rescale.
int32_t saturating_rounding_multiply_by_pot(int32_t x, int exponent)
{
    if (exponent == 0) return x;
    if (exponent < 0) return rounding_divide_by_pot(x, -exponent);
    const int32_t threshold = (int32_t)((1u << (31 - exponent)) - 1u);
    if (x > threshold) return INT32_MAX;
    if (x < -threshold) return INT32_MIN;
    return wrap_shl(x, exponent);
}

// Raw value of a Qi fixed-point "1" (saturated to INT32_MAX for Q0).
int32_t fp_one(int integer_bits) { return integer_bits == 0 ? INT32_MAX : (int32_t)(1u << (31 - integer_bits)); }

// Fixed-point product of a Qa and a Qb value is a Q(a+b) value with raw = SRDHM.
int32_t fp_mul(int32_t a, int32_t b) { return sat_rounding_doubling_high_mul(a, b); }

// gemmlowp RoundingHalfSum for int32: (a + b + sign) / 2, truncating division.
int32_t rounding_half_sum(int32_t a, int32_t b)
{
    const int64_t sum = (int64_t)a + (int64_t)b;
    const int64_t sign = sum >= 0 ? 1 : -1;
    return (int32_t)((sum + sign) / 2);
}

// exp(a) for a in [-1/4, 0) in Q0.31: Taylor series around -1/8 (constants are
// exp(-1/8) and 1/3 in Q0.31).
int32_t exp_on_interval_quarter(int32_t a)
{
    const int32_t constant_term = 1895147668;  // exp(-1/8)
    const int32_t constant_1_over_3 = 715827883;
    const int32_t x = wrap_add(a, 1 << 28);  // a + 1/8
    const int32_t x2 = fp_mul(x, x);
    const int32_t x3 = fp_mul(x2, x);
    const int32_t x4 = fp_mul(x2, x2);
    const int32_t x4_over_4 = rounding_divide_by_pot(x4, 2);
    const int32_t poly = rounding_divide_by_pot(wrap_add(fp_mul(wrap_add(x4_over_4, x3), constant_1_over_3), x2), 1);
    return wrap_add(constant_term, fp_mul(constant_term, wrap_add(x, poly)));
}

// Newton-Raphson for 1 / half_denominator in Q2.29 (3 iterations from 48/17 - 32/17 d).
int32_t reciprocal_newton_q2(int32_t half_denominator)
{
    const int32_t constant_48_over_17 = 1515870810;  // Q2.29
    const int32_t constant_neg_32_over_17 = -1010580540;
    int32_t x = wrap_add(constant_48_over_17, fp_mul(half_denominator, constant_neg_32_over_17));
    for (int i = 0; i < 3; i++) {
        const int32_t half_denominator_times_x = fp_mul(half_denominator, x);           // Q2
        const int32_t one_minus = wrap_sub(fp_one(2), half_denominator_times_x);        // Q2
        x = wrap_add(x, saturating_rounding_multiply_by_pot(fp_mul(x, one_minus), 2));  // Q4 -> Q2
    }
    return x;
}

}  // namespace

int32_t fp_exp_on_negative_values(int32_t a, int integer_bits)
{
    const int fractional_bits = 31 - integer_bits;
    const int32_t one_quarter = (int32_t)(1u << (fractional_bits - 2));
    const int32_t mask = one_quarter - 1;
    const int32_t a_mod_quarter_minus_one_quarter = wrap_sub(a & mask, one_quarter);
    int32_t result =
        exp_on_interval_quarter(saturating_rounding_multiply_by_pot(a_mod_quarter_minus_one_quarter, integer_bits));
    const int32_t remainder = wrap_sub(a_mod_quarter_minus_one_quarter, a);

    // Barrel shifter: multiply by exp(-2^k) for every bit k of the remainder.
    static const int32_t kMultipliers[7] = {
        1672461947,  // exp(-1/4)
        1302514674,  // exp(-1/2)
        790015084,   // exp(-1)
        290630308,   // exp(-2)
        39332535,    // exp(-4)
        720401,      // exp(-8)
        242,         // exp(-16)
    };
    for (int k = -2; k <= 4; k++) {
        if (integer_bits > k) {
            const int shift_amount = fractional_bits + k;
            if (remainder & (int32_t)(1u << shift_amount)) {
                result = fp_mul(result, kMultipliers[k + 2]);
            }
        }
    }
    if (integer_bits > 5) {
        const int32_t clamp = -(int32_t)(1u << (36 - integer_bits));  // -32 in Qi
        if (a < clamp) result = 0;
    }
    if (a == 0) result = fp_one(0);
    return result;
}

int32_t fp_one_over_one_plus_x(int32_t a)
{
    const int32_t half_denominator = rounding_half_sum(a, fp_one(0));
    const int32_t x = reciprocal_newton_q2(half_denominator);
    // x / 2 is exact as a Q1 value with the same raw; rescale Q1 -> Q0.
    return saturating_rounding_multiply_by_pot(x, 1);
}

int32_t fp_one_minus_x_over_one_plus_x(int32_t a)
{
    const int32_t half_denominator = rounding_half_sum(a, fp_one(0));
    const int32_t x = reciprocal_newton_q2(half_denominator);
    return saturating_rounding_multiply_by_pot(wrap_sub(x, fp_one(2)), 2);
}

int32_t fp_logistic(int32_t a, int integer_bits)
{
    const bool positive = a > 0;
    const int32_t abs_input = positive ? a : wrap_neg(a);
    const int32_t result_if_positive =
        fp_one_over_one_plus_x(fp_exp_on_negative_values(wrap_neg(abs_input), integer_bits));
    const int32_t result_if_negative = wrap_sub(fp_one(0), result_if_positive);
    if (a == 0) return 1 << 30;  // one half
    return positive ? result_if_positive : result_if_negative;
}

int32_t fp_tanh(int32_t a, int integer_bits)
{
    const bool negative = a < 0;
    const int32_t n = negative ? a : wrap_neg(a);  // -|a|
    // -tanh(n) = (1 - exp(2n)) / (1 + exp(2n)); 2n has the same raw in Q(i+1).
    const int32_t t = fp_one_minus_x_over_one_plus_x(fp_exp_on_negative_values(n, integer_bits + 1));
    if (a == 0) return 0;
    return negative ? wrap_neg(t) : t;
}

int32_t fp_reciprocal(int32_t x, int x_integer_digits, int *num_bits_over_unit)
{
    int headroom_plus_one = 0;
    uint32_t ux = (uint32_t)x;
    if (ux == 0) {
        headroom_plus_one = 32;
    } else {
        while ((ux & 0x80000000u) == 0) {
            ux <<= 1;
            headroom_plus_one++;
        }
    }
    *num_bits_over_unit = x_integer_digits - headroom_plus_one;
    const uint32_t shifted = headroom_plus_one >= 32 ? 0u : ((uint32_t)x << headroom_plus_one);
    const int32_t shifted_sum_minus_one = (int32_t)(shifted - (1u << 31));
    return fp_one_over_one_plus_x(shifted_sum_minus_one);
}

}  // namespace tigris_s8
