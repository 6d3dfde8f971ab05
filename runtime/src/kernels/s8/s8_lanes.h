// Lane operations on two int16 lanes held in one 32-bit word (low half: lane 0), the building
// blocks of the int8 fast paths (blocked depthwise, matrix product, im2col convolution). With the
// DSP extension each is one instruction through the compiler's ACLE intrinsics (SXTAB16, SXTB16,
// SMLAD, SMLABB, SMLATT); elsewhere plain C computes the same values, so the host tests exercise
// the packing the Cortex-M runs. Sums wrap modulo 2^32, as the instructions do.
#pragma once

#include <stdint.h>

#include "kernels/s8/s8_dot.h"  // TIGRIS_S8_DSP and arm_acle.h

// Inlined even at -Os (the Cortex-M build): each is one instruction in a hot loop.
#if defined(__GNUC__)
#  define TIGRIS_LANES_INLINE inline __attribute__((always_inline))
#else
#  define TIGRIS_LANES_INLINE inline
#endif

namespace tigris_s8 {
namespace lanes {

// x rotated right by 8 bits: bytes 1 and 3 into the places of bytes 0 and 2.
TIGRIS_LANES_INLINE uint32_t ror8(uint32_t x) { return (x >> 8) | (x << 24); }

#if defined(TIGRIS_S8_DSP)
// Bytes 0 and 2 of v, sign-extended, plus the int16 lanes of off (SXTAB16).
TIGRIS_LANES_INLINE uint32_t add_s8(uint32_t off, uint32_t v) { return (uint32_t)__sxtab16((int16x2_t)off, (int8x4_t)v); }
// Bytes 0 and 2 of v, sign-extended (SXTB16).
TIGRIS_LANES_INLINE uint32_t s8(uint32_t v) { return (uint32_t)__sxtb16((int8x4_t)v); }
// acc + lane0(a) lane0(b) + lane1(a) lane1(b) (SMLAD).
TIGRIS_LANES_INLINE int32_t dual_mla(uint32_t a, uint32_t b, int32_t acc) { return __smlad((int16x2_t)a, (int16x2_t)b, acc); }
// acc + lane0(a) lane0(b) (SMLABB), acc + lane1(a) lane1(b) (SMLATT).
TIGRIS_LANES_INLINE int32_t mla_bottom(uint32_t a, uint32_t b, int32_t acc) { return __smlabb((int32_t)a, (int32_t)b, acc); }
TIGRIS_LANES_INLINE int32_t mla_top(uint32_t a, uint32_t b, int32_t acc) { return __smlatt((int32_t)a, (int32_t)b, acc); }
#else
TIGRIS_LANES_INLINE int32_t lane0(uint32_t a) { return (int32_t)(int16_t)(a & 0xFFFFu); }
TIGRIS_LANES_INLINE int32_t lane1(uint32_t a) { return (int32_t)(int16_t)(a >> 16); }
TIGRIS_LANES_INLINE uint32_t add_s8(uint32_t off, uint32_t v)
{
    const uint32_t lo = (uint32_t)lane0(off) + (uint32_t)(int32_t)(int8_t)(v & 0xFFu);
    const uint32_t hi = (uint32_t)lane1(off) + (uint32_t)(int32_t)(int8_t)((v >> 16) & 0xFFu);
    return (lo & 0xFFFFu) | (hi << 16);
}
TIGRIS_LANES_INLINE uint32_t s8(uint32_t v) { return add_s8(0, v); }
TIGRIS_LANES_INLINE int32_t mla_bottom(uint32_t a, uint32_t b, int32_t acc)
{
    return (int32_t)((uint32_t)acc + (uint32_t)(lane0(a) * lane0(b)));
}
TIGRIS_LANES_INLINE int32_t mla_top(uint32_t a, uint32_t b, int32_t acc)
{
    return (int32_t)((uint32_t)acc + (uint32_t)(lane1(a) * lane1(b)));
}
TIGRIS_LANES_INLINE int32_t dual_mla(uint32_t a, uint32_t b, int32_t acc) { return mla_top(a, b, mla_bottom(a, b, acc)); }
#endif

}  // namespace lanes
}  // namespace tigris_s8
