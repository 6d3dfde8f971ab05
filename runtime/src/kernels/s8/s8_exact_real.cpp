// Exact reals of the factor derivations (s8_exact_real.h): integer arithmetic only.
#include "kernels/s8/s8_exact_real.h"

#include <string.h>

namespace tigris_s8 {

namespace {

// Bit length of v (0 for 0).
int exact_bits(uint64_t v) { return v == 0 ? 0 : 64 - __builtin_clzll(v); }

}  // namespace

ExactReal exact_of(float v)
{
    uint32_t bits = 0;
    memcpy(&bits, &v, sizeof bits);
    const uint32_t biased = (bits >> 23) & 0xFFu, fraction = bits & 0x7FFFFFu;
    ExactReal r{fraction, -149, (bits >> 31) != 0, true};
    if (biased == 0xFFu) {
        r.finite = false;
        r.m = fraction == 0 ? 1u : 0u;  // infinity : NaN
        return r;
    }
    if (biased != 0) {
        r.m = fraction | 0x800000u;
        r.e = (int32_t)biased - 150;
    }
    return r;
}

ExactReal exact_scale(ExactReal a, int p)
{
    if (a.finite && a.m != 0) a.e += p;
    return a;
}

ExactReal exact_mul(ExactReal a, ExactReal b)
{
    ExactReal r{a.m * b.m, a.e + b.e, a.negative != b.negative, a.finite && b.finite};
    if (!r.finite) r.m = (a.m != 0 && b.m != 0) ? 1u : 0u;  // inf times non-zero: inf; else NaN
    if (r.finite && r.m == 0) r.e = 0;
    return r;
}

ExactReal exact_div(ExactReal a, ExactReal b)
{
    ExactReal r{0, 0, a.negative != b.negative, true};
    // A non-finite operand or a zero divisor: NaN (QuantizeMultiplier has no result for the
    // double's inf or NaN; a finite over an infinite is zero either way).
    if (!a.finite || !b.finite || b.m == 0) {
        r.finite = a.finite && !b.finite && b.m != 0;
        return r;
    }
    if (a.m == 0) return r;
    if (b.m >= (1u << 24)) return ExactReal{0, 0, r.negative, false};  // not a float's mantissa
    // q = floor(a.m · 2^k / b.m) with 56 or 57 bits (53, a guard bit and more; the remainder is
    // the sticky bit): long division of a.m's bits then k zero bits, 8 at a time, so that every
    // step is one 32-bit division (the remainder stays below b.m < 2^24).
    const int k = 56 - exact_bits(a.m) + exact_bits(b.m);
    const uint32_t d = (uint32_t)b.m;
    uint64_t q = 0;
    uint32_t rem = 0;
    for (int pos = exact_bits(a.m) + k; pos > 0;) {
        const int c = pos < 8 ? pos : 8;
        pos -= c;
        // Bits [pos, pos + c) of a.m · 2^k: zero below bit k.
        const uint32_t chunk =
            pos + c <= k ? 0u : (uint32_t)((pos >= k ? a.m >> (pos - k) : a.m << (k - pos)) & ((1u << c) - 1u));
        rem = (rem << c) | chunk;
        q = (q << c) | (rem / d);
        rem %= d;
    }
    // Round to 53 bits, nearest, ties to even; the remainder is the sticky bit.
    const int drop = exact_bits(q) - 53;
    const uint64_t low = q & ((1ull << drop) - 1u), half = 1ull << (drop - 1);
    q >>= drop;
    if (low > half || (low == half && (rem != 0 || (q & 1u) != 0))) q++;
    r.e = a.e - b.e - k + drop;
    if (q == (1ull << 53)) {
        q >>= 1;
        r.e++;
    }
    r.m = q;
    return r;
}

namespace {

// -1, 0, 1: |a| against |b| (infinity above every finite value).
int exact_compare_magnitude(ExactReal a, ExactReal b)
{
    if (!a.finite || !b.finite) return (!a.finite ? 1 : 0) - (!b.finite ? 1 : 0);
    const int na = exact_bits(a.m), nb = exact_bits(b.m);
    if (na + a.e != nb + b.e) return na + a.e > nb + b.e ? 1 : -1;
    uint64_t ma = a.m, mb = b.m;  // same top bit: align the mantissas
    if (na < nb) ma <<= (nb - na);
    else mb <<= (na - nb);
    return ma == mb ? 0 : (ma > mb ? 1 : -1);
}

}  // namespace

bool exact_greater(ExactReal a, ExactReal b)
{
    if (a.m == 0 && !a.finite) return false;  // NaN
    if (b.m == 0 && !b.finite) return false;
    const int sa = a.m == 0 ? 0 : (a.negative ? -1 : 1), sb = b.m == 0 ? 0 : (b.negative ? -1 : 1);
    if (sa != sb) return sa > sb;
    if (sa == 0) return false;
    const int c = exact_compare_magnitude(a, b);
    return sa > 0 ? c > 0 : c < 0;
}

bool exact_frexp_q31(ExactReal r, int64_t *q_fixed, int *exponent)
{
    *q_fixed = 0;
    *exponent = 0;
    if (!r.finite || r.m == 0) return false;
    const int n = exact_bits(r.m);  // frexp: q = m / 2^n in [0.5, 1), exponent n + e
    *exponent = n + r.e;
    // q · 2^31 = m · 2^(31 - n), rounded half away from zero (the magnitude: half up).
    *q_fixed = n <= 31 ? (int64_t)(r.m << (31 - n)) : (int64_t)((r.m + (1ull << (n - 32))) >> (n - 31));
    return true;
}

void exact_quantize(ExactReal r, int32_t *multiplier, int *shift)
{
    *multiplier = 0;
    *shift = 0;
    int64_t q_fixed = 0;
    int e = 0;
    if (!exact_frexp_q31(r, &q_fixed, &e)) return;  // zero, and NaN, give (0, 0)
    if (q_fixed == ((int64_t)1 << 31) && !r.negative) {  // a negative -2^31 stays (INT32_MIN)
        q_fixed /= 2;
        ++e;
    }
    if (e < -31) {
        e = 0;
        q_fixed = 0;
    }
    *multiplier = (int32_t)(uint32_t)(r.negative ? (uint64_t)(-q_fixed) : (uint64_t)q_fixed);
    *shift = e;
}

}  // namespace tigris_s8
