// Exact reals for the factor derivations (s8_params.cpp): TFLite Micro derives requantization
// factors in double precision from float scales; these compute the same bits with integers, so
// a core without a double-precision FPU (Cortex-M4F) links no soft-double routine for them.
// A value is sign · m · 2^e. A product of two floats and a scaling by a power of two are exact
// (as they are in double); a quotient is rounded to 53 bits, nearest-even, as the double
// division rounds it; exact_quantize is then QuantizeMultiplier (frexp, round half away of
// q · 2^31) of that double. tests/unit/kernels_s8/exact_real_test.cpp checks every function
// against the host's double arithmetic.
#pragma once

#include <stdint.h>

namespace tigris_s8 {

struct ExactReal {
    uint64_t m;     // magnitude's integer mantissa (0: zero)
    int32_t e;      // exponent of two
    bool negative;
    bool finite;    // false: infinity (m != 0) or NaN (m == 0)
};

// A float exactly (subnormals included).
ExactReal exact_of(float v);
// a · 2^p exactly.
ExactReal exact_scale(ExactReal a, int p);
// a · b exactly: the mantissas' product must stay below 2^64 (two floats: below 2^48).
ExactReal exact_mul(ExactReal a, ExactReal b);
// (double)a / (double)b: the quotient rounded to 53 bits, ties to even. b's mantissa below 2^32.
ExactReal exact_div(ExactReal a, ExactReal b);
// a > b (infinities ordered; false when either is NaN).
bool exact_greater(ExactReal a, ExactReal b);

// QuantizeMultiplier of a real that a double holds exactly (m below 2^53), as
// quantize_multiplier (s8_params.h) computes it from that double.
void exact_quantize(ExactReal r, int32_t *multiplier, int *shift);
// frexp of such a real and round_half_away(q · 2^31), without the 2^31 check (LOGISTIC/TANH):
// *q_fixed in [2^30, 2^31], *exponent the frexp exponent. False for zero or a non-finite real.
bool exact_frexp_q31(ExactReal r, int64_t *q_fixed, int *exponent);

}  // namespace tigris_s8
