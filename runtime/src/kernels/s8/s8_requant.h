// The per-output requantization of the int8 convolution, depthwise and fully connected fast
// paths: TFLite's multiply_by_quantized_multiplier (double rounding, s8_fixed_point.h) with a
// channel's shift split and its rounding mask derived once, so each output costs a multiply-long,
// a few integer operations and the clamp. Bit-exact with multiply_by_quantized_multiplier for
// every factor the loader admits except m == INT32_MIN, whose saturating case channel_q refuses.
#pragma once

#include <stdint.h>

#include "kernels/s8/s8_fixed_point.h"

// Inlined even at -Os (the Cortex-M build): a call per output costs more than the arithmetic.
#if defined(__GNUC__)
#  define TIGRIS_REQUANT_INLINE inline __attribute__((always_inline))
#else
#  define TIGRIS_REQUANT_INLINE inline
#endif

namespace tigris_s8 {

// One output channel's factors, prepared: left/right the two parts of the shift, mask and half
// the rounding divide's remainder mask and threshold, bias the channel's int32 bias (or 0).
struct ChannelQ {
    int32_t m, left, right, mask, half, bias;
};

// False for factors outside what the fast path handles exactly (the saturating multiplier
// INT32_MIN, a shift outside kMinShift..kMaxShift): the caller computes those the generic way.
inline bool channel_q(int32_t m, int shift, int32_t bias, ChannelQ *q)
{
    if (m == INT32_MIN || shift < kMinShift || shift > kMaxShift) return false;
    q->m = m;
    q->left = shift > 0 ? shift : 0;
    q->right = shift > 0 ? 0 : -shift;
    q->mask = (int32_t)(((int64_t)1 << q->right) - 1);
    q->half = q->mask >> 1;
    q->bias = bias;
    return true;
}

// multiply_by_quantized_multiplier(acc, m, shift): for m != INT32_MIN the saturating case of the
// doubling high multiply cannot occur, and rounding_divide_by_pot is
// (h >> e) + ((h & mask) > mask / 2 + (h < 0)).
TIGRIS_REQUANT_INLINE int32_t requant_scaled(int32_t acc, const ChannelQ &q)
{
    const int32_t v = wrap_shl(acc, q.left);
    const int32_t h = (int32_t)(((int64_t)v * q.m + ((int64_t)1 << 30)) >> 31);
    return (h >> q.right) + ((h & q.mask) > q.half + (int32_t)((uint32_t)h >> 31) ? 1 : 0);
}

// The int8 output: requant_scaled(acc) + out_zp, clamped to [lo, hi].
TIGRIS_REQUANT_INLINE int8_t requant_s8(int32_t acc, const ChannelQ &q, int32_t out_zp, int32_t lo, int32_t hi)
{
    return (int8_t)clamp_i32(wrap_add(requant_scaled(acc, q), out_zp), lo, hi);
}

}  // namespace tigris_s8
