// Inner loops of the int8 convolution, depthwise and fully connected kernels: sums of
// w * (x + offset) over int8 runs. Integer sums are exact modulo 2^32 in any order, so these
// give the bytes of the straightforward loops (the TFLite reference) whatever the grouping.
// On cores with the DSP extension (__ARM_FEATURE_DSP: Cortex-M4/M7/M33/M55) four int8 values
// are widened to two pairs of int16 in one instruction each (SXTB16 / SXTAB16, the offset
// added on the way) and multiplied-accumulated two at a time (SMLAD, SMLABB/SMLATT), through
// the compiler's ACLE intrinsics; elsewhere the same loops run in plain C.
#pragma once

#include <stdint.h>
#include <string.h>

#if defined(__ARM_FEATURE_DSP) && defined(__ARM_FEATURE_SIMD32)
#  include <arm_acle.h>
#  define TIGRIS_S8_DSP 1
#endif

namespace tigris_s8 {

// Four int8 values as one word (unaligned reads are fine on every core this runs on).
inline uint32_t load4(const int8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

#if defined(TIGRIS_S8_DSP)
// x rotated right by 8 bits (the compiler folds it into SXTB16's rotation).
inline uint32_t ror8(uint32_t x) { return (x >> 8) | (x << 24); }

// (offset, offset) as the int16x2 operand of SXTAB16; |offset| <= 255 fits int16.
inline int16x2_t offset_pair(int32_t offset)
{
    const uint32_t o = (uint32_t)offset & 0xFFFFu;
    return (int16x2_t)(o | (o << 16));
}
// Bytes 0, 2 and 1, 3 of x, sign-extended, plus the offset: two int16 pairs.
inline void widen_offset(uint32_t x, int16x2_t off, int16x2_t *even, int16x2_t *odd)
{
    *even = __sxtab16(off, (int8x4_t)x);
    *odd = __sxtab16(off, (int8x4_t)ror8(x));
}
inline void widen(uint32_t w, int16x2_t *even, int16x2_t *odd)
{
    *even = __sxtb16((int8x4_t)w);
    *odd = __sxtb16((int8x4_t)ror8(w));
}
#endif

// acc0 += Σ w0[i] (x[i] + offset), acc1 += Σ w1[i] (x[i] + offset), i < n: one input run
// against two weight rows (two output channels).
inline void dot2(const int8_t *x, const int8_t *w0, const int8_t *w1, int32_t n, int32_t offset, int32_t *acc0,
                 int32_t *acc1)
{
    uint32_t a0 = (uint32_t)*acc0, a1 = (uint32_t)*acc1;
    int32_t i = 0;
#if defined(TIGRIS_S8_DSP)
    const int16x2_t off = offset_pair(offset);
    for (; i + 4 <= n; i += 4) {
        int16x2_t xe, xo, we, wo;
        widen_offset(load4(x + i), off, &xe, &xo);
        widen(load4(w0 + i), &we, &wo);
        a0 = (uint32_t)__smlad(xe, we, (int32_t)a0);
        a0 = (uint32_t)__smlad(xo, wo, (int32_t)a0);
        widen(load4(w1 + i), &we, &wo);
        a1 = (uint32_t)__smlad(xe, we, (int32_t)a1);
        a1 = (uint32_t)__smlad(xo, wo, (int32_t)a1);
    }
#endif
    for (; i < n; i++) {
        const int32_t xv = x[i] + offset;
        a0 += (uint32_t)(w0[i] * xv);
        a1 += (uint32_t)(w1[i] * xv);
    }
    *acc0 = (int32_t)a0;
    *acc1 = (int32_t)a1;
}

// acc += Σ w[i] (x[i] + offset), i < n.
inline int32_t dot1(const int8_t *x, const int8_t *w, int32_t n, int32_t offset, int32_t acc)
{
    uint32_t a = (uint32_t)acc;
    int32_t i = 0;
#if defined(TIGRIS_S8_DSP)
    const int16x2_t off = offset_pair(offset);
    for (; i + 4 <= n; i += 4) {
        int16x2_t xe, xo, we, wo;
        widen_offset(load4(x + i), off, &xe, &xo);
        widen(load4(w + i), &we, &wo);
        a = (uint32_t)__smlad(xe, we, (int32_t)a);
        a = (uint32_t)__smlad(xo, wo, (int32_t)a);
    }
#endif
    for (; i < n; i++) a += (uint32_t)(w[i] * (x[i] + offset));
    return (int32_t)a;
}

// Four adjacent channels of one depthwise tap: acc[k] += w[k] (x[k] + offset), k < 4.
inline void mac4_channels(const int8_t *x, const int8_t *w, int32_t offset, int32_t acc[4])
{
#if defined(TIGRIS_S8_DSP)
    int16x2_t xe, xo, we, wo;
    widen_offset(load4(x), offset_pair(offset), &xe, &xo);
    widen(load4(w), &we, &wo);
    acc[0] = __smlabb((int32_t)xe, (int32_t)we, acc[0]);
    acc[2] = __smlatt((int32_t)xe, (int32_t)we, acc[2]);
    acc[1] = __smlabb((int32_t)xo, (int32_t)wo, acc[1]);
    acc[3] = __smlatt((int32_t)xo, (int32_t)wo, acc[3]);
#else
    for (int k = 0; k < 4; k++) acc[k] = (int32_t)((uint32_t)acc[k] + (uint32_t)(w[k] * (x[k] + offset)));
#endif
}

}  // namespace tigris_s8
