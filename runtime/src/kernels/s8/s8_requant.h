// The per-output requantization of the int8 convolution, depthwise and fully connected fast
// paths: TFLite's multiply_by_quantized_multiplier (double rounding, s8_fixed_point.h) with a
// channel's factors prepared once, so an output with a right shift (every real scale below
// 0.5) costs one 64-bit nudge, one multiply-long and one shift. Bit-exact with
// multiply_by_quantized_multiplier for every factor channel_q admits (m >= 0 and not INT32_MIN:
// what the loader admits, less the saturating m == INT32_MIN; shifts -31..31).
//
// Why one multiply-long is enough (shift = -e, e >= 1, so no left shift): TFLite computes
// h = floor((acc*m + 2^30) / 2^31), then (h + 2^(e-1) - [h < 0]) >> e (rounding_divide_by_pot
// is that: ties away from zero). Since floor(floor(X / A) / B) = floor(X / (A*B)), both
// roundings are one: floor((acc*m + 2^30 + 2^(30+e) - [h < 0] * 2^31) / 2^(31+e)), i.e. the
// high word of the 64-bit sum shifted right by e - 1. And [h < 0] may be read as [acc < 0]
// for m >= 0: h < 0 needs acc < 0, and acc < 0 with h >= 0 means h = 0, where both give 0.
// Shifts >= 0 (a scale of 0.5 or more, rare) are marked and recomputed on a cold branch.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/s8/s8_fixed_point.h"

#if defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
#  include <arm_acle.h>
#  define TIGRIS_REQUANT_DSP 1
#endif

// Inlined even at -Os (the Cortex-M build): a call per output costs more than the arithmetic.
#if defined(__GNUC__)
#  define TIGRIS_REQUANT_INLINE inline __attribute__((always_inline))
#  define TIGRIS_REQUANT_UNLIKELY(x) __builtin_expect(!!(x), 0)
#  define TIGRIS_REQUANT_UNROLL4 _Pragma("GCC unroll 4")
#else
#  define TIGRIS_REQUANT_UNROLL4
#  define TIGRIS_REQUANT_INLINE inline
#  define TIGRIS_REQUANT_UNLIKELY(x) (x)
#endif

namespace tigris_s8 {

// One output channel's factors, prepared: nudge the constant 2^30 + 2^(30+e), m the
// multiplier, sh = e - 1 for a right shift e >= 1; for a shift >= 0 nudge is negative (the mark
// of that case, which the fast formula never uses) and left the shift. bias the channel's int32
// bias (or 0). The nudge and the pair (m, sh) are each one double-word load.
struct ChannelQ {
    int64_t nudge;
    int32_t m, sh, left, bias;
};

// False for factors outside what the fast path handles exactly (a negative multiplier, the
// saturating INT32_MIN, a shift outside kMinShift..kMaxShift): the caller computes those the
// generic way. The loader admits none of them but INT32_MIN.
inline bool channel_q(int32_t m, int shift, int32_t bias, ChannelQ *q)
{
    if (m < 0 || shift < kMinShift || shift > kMaxShift) return false;
    q->m = m;
    q->bias = bias;
    const int e = shift >= 0 ? 1 : -shift;
    const uint64_t nudge = ((uint64_t)1 << 30) + ((uint64_t)1 << (30 + e));
    q->sh = e - 1;
    q->left = shift >= 0 ? shift : 0;
    q->nudge = shift >= 0 ? -1 : (int64_t)nudge;
    return true;
}

// Shift >= 0: the doubling high multiply of acc << left, no rounding divide (kept out of the
// fast path's way).
TIGRIS_REQUANT_INLINE int32_t requant_left(int32_t acc, const ChannelQ &q)
{
    const int64_t x = (int64_t)wrap_shl(acc, q.left) * q.m + ((int64_t)1 << 30);
    return (int32_t)(uint32_t)((uint64_t)x >> 31);
}

// Shift < 0: both roundings in one 64-bit sum (above).
TIGRIS_REQUANT_INLINE int32_t requant_right(int32_t acc, const ChannelQ &q)
{
    uint64_t x = (uint64_t)q.nudge - ((uint32_t)acc & 0x80000000u);  // [acc < 0] * 2^31
    x += (uint64_t)((int64_t)acc * q.m);
    return (int32_t)(uint32_t)(x >> 32) >> q.sh;
}

// multiply_by_quantized_multiplier(acc, m, shift) for the factors of q.
TIGRIS_REQUANT_INLINE int32_t requant_scaled(int32_t acc, const ChannelQ &q)
{
    if (TIGRIS_REQUANT_UNLIKELY(q.nudge < 0)) return requant_left(acc, q);
    return requant_right(acc, q);
}

// The int8 output: requant_scaled(acc) + out_zp, clamped to [lo, hi].
TIGRIS_REQUANT_INLINE int8_t requant_s8(int32_t acc, const ChannelQ &q, int32_t out_zp, int32_t lo, int32_t hi)
{
    return (int8_t)clamp_i32(wrap_add(requant_scaled(acc, q), out_zp), lo, hi);
}

// requant_right for factors read as they are, for a call that requantizes each channel's outputs
// once or a few times (preparing a ChannelQ costs more than it saves there): m >= 0 and a shift
// of -2 or below (e = -shift >= 2; requant_raw_ok). With X = acc * m + 2^30 - [acc < 0] 2^31 and
// H its high word, the 64-bit sum above is X + 2^(30+e), and 2^(30+e) = 2^(e-2) 2^32 is whole in
// the high word, so the result is (H + 2^(e-2)) >> (e-1): X's low word cannot carry into the
// quotient (it adds less than one unit of 2^(31+e)). |H| < 2^30, so the sum does not wrap.
TIGRIS_REQUANT_INLINE int32_t requant_right_raw(int32_t acc, int32_t m, int32_t shift)
{
    // 2^30 - [acc < 0] 2^31 as its two words: high acc's sign, low 2^30 with acc's sign bit.
    const uint64_t c = ((uint64_t)(uint32_t)(acc >> 31) << 32) | (((uint32_t)acc & 0x80000000u) | 0x40000000u);
    const uint64_t x = c + (uint64_t)((int64_t)acc * m);
    const int32_t h = (int32_t)(uint32_t)(x >> 32), sh = -shift - 1;
    return (h + (1 << (sh - 1))) >> sh;
}

// Factors requant_right_raw takes (the others: ChannelQ and requant_scaled, or the generic way).
TIGRIS_REQUANT_INLINE bool requant_raw_ok(int32_t m, int32_t shift) { return m >= 0 && shift <= -2 && shift >= kMinShift; }

// x saturated to [-128, 127] (SSAT).
TIGRIS_REQUANT_INLINE int32_t ssat8(int32_t x)
{
#if defined(TIGRIS_REQUANT_DSP)
    return __ssat(x, 8);
#else
    return clamp_i32(x, -128, 127);
#endif
}

// The output side of requant4_s8 for four channels, prepared once per block of channels.
struct Out4 {
    int32_t zp;
    uint32_t lo4, hi4;  // act_min, act_max in each byte
    bool full;          // [act_min, act_max] = [-128, 127]: the int8 saturation is the clamp
    bool left_shifts;   // one of the channels has a shift >= 0 (the generic branch)
};

// The output side alone (no left shifts: requant4_raw_s8's).
inline Out4 out4(int32_t out_zp, int32_t act_min, int32_t act_max)
{
    Out4 o;
    o.zp = out_zp;
    o.lo4 = ((uint32_t)act_min & 0xFFu) * 0x01010101u;
    o.hi4 = ((uint32_t)act_max & 0xFFu) * 0x01010101u;
    o.full = act_min <= -128 && act_max >= 127;
    o.left_shifts = false;
    return o;
}

inline Out4 out4(const ChannelQ *q, int32_t out_zp, int32_t act_min, int32_t act_max)
{
    Out4 o = out4(out_zp, act_min, act_max);
    o.left_shifts = (q[0].nudge | q[1].nudge | q[2].nudge | q[3].nudge) < 0;
    return o;
}

// Four channels with a shift >= 0 among them: each output the generic way (kept out of line).
#if defined(__GNUC__)
__attribute__((noinline))
#endif
inline void requant4_generic(int32_t a0, int32_t a1, int32_t a2, int32_t a3, const ChannelQ *q, const Out4 &o,
                             int8_t *dst)
{
    const int32_t a[4] = {a0, a1, a2, a3};
    const int32_t lo = (int8_t)(o.lo4 & 0xFFu), hi = (int8_t)(o.hi4 & 0xFFu);
    for (int k = 0; k < 4; k++) dst[k] = requant_s8(a[k], q[k], o.zp, lo, hi);
}

// Four outputs requantized, zero point added (r), into dst: with the DSP extension each saturated
// to int8 (SSAT), which is the whole clamp for the full range; otherwise the four packed (PKHBT,
// UXTB16), clamped together (SSUB8 + SEL per bound) and stored with one write.
TIGRIS_REQUANT_INLINE void store4_s8(int32_t r[4], const Out4 &o, int8_t *dst)
{
    TIGRIS_REQUANT_UNROLL4
    for (int k = 0; k < 4; k++) r[k] = ssat8(r[k]);
    if (o.full) {
        TIGRIS_REQUANT_UNROLL4
        for (int k = 0; k < 4; k++) dst[k] = (int8_t)r[k];
        return;
    }
#if defined(TIGRIS_REQUANT_DSP)
    // Lanes 0, 2 and 1, 3 as int16 pairs, their low bytes interleaved (UXTB16).
    const uint32_t even = ((uint32_t)r[0] & 0xFFFFu) | ((uint32_t)r[2] << 16);
    const uint32_t odd = ((uint32_t)r[1] & 0xFFFFu) | ((uint32_t)r[3] << 16);
    uint32_t w = (uint32_t)__uxtb16((int8x4_t)even) | ((uint32_t)__uxtb16((int8x4_t)odd) << 8);
    __ssub8((int8x4_t)w, (int8x4_t)o.lo4);  // GE set where w >= lo
    w = (uint32_t)__sel((uint8x4_t)w, (uint8x4_t)o.lo4);
    __ssub8((int8x4_t)o.hi4, (int8x4_t)w);  // GE set where hi >= w
    w = (uint32_t)__sel((uint8x4_t)w, (uint8x4_t)o.hi4);
    memcpy(dst, &w, 4);
#else
    const int32_t lo = (int8_t)(o.lo4 & 0xFFu), hi = (int8_t)(o.hi4 & 0xFFu);
    for (int k = 0; k < 4; k++) dst[k] = (int8_t)clamp_i32(r[k], lo, hi);
#endif
}

// Four adjacent outputs (channels q[0..3]) at dst: each requant_s8(a[k], q[k], o.zp, act_min,
// act_max), the right-shift formula for all four.
TIGRIS_REQUANT_INLINE void requant4_s8(const int32_t a[4], const ChannelQ *q, const Out4 &o, int8_t *dst)
{
    if (TIGRIS_REQUANT_UNLIKELY(o.left_shifts)) {
        requant4_generic(a[0], a[1], a[2], a[3], q, o, dst);
        return;
    }
    int32_t r[4];
    TIGRIS_REQUANT_UNROLL4
    for (int k = 0; k < 4; k++) r[k] = wrap_add(requant_right(a[k], q[k]), o.zp);
    store4_s8(r, o, dst);
}

// requant4_s8 for four channels' factors m[0..3], shift[0..3] as they are (requant_raw_ok for
// each; o.left_shifts unused).
TIGRIS_REQUANT_INLINE void requant4_raw_s8(const int32_t a[4], const int32_t *m, const int32_t *shift, const Out4 &o,
                                           int8_t *dst)
{
    int32_t r[4];
    TIGRIS_REQUANT_UNROLL4
    for (int k = 0; k < 4; k++) r[k] = wrap_add(requant_right_raw(a[k], m[k], shift[k]), o.zp);
    store4_s8(r, o, dst);
}

}  // namespace tigris_s8
