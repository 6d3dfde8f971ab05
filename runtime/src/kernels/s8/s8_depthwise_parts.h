// The parts the depthwise kernel's two files share (s8_depthwise.cpp: blocks of any window,
// one-channel pairs and the call's plan of blocks; s8_depthwise_3x3.cpp: 3x3 tables and the
// narrow copy): lane operations, factors, edge clipping, requantization of a block's lanes.
// Internal to the kernel (namespace detail).
#pragma once

#include "kernels/s8/s8_depthwise.h"
#include "kernels/s8/s8_dot.h"
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_lanes.h"
#include "kernels/s8/s8_requant.h"

// The lane operations and the requantization run per tap and per output: inlined even at -Os
// (the Cortex-M build), where a call per tap costs more than its four multiply-adds.
// The loops over the lanes and over a 3x3 window are unrolled for the same reason, so the
// accumulators stay in registers.
#if defined(__GNUC__)
#  define TIGRIS_DW_INLINE inline __attribute__((always_inline))
#  define TIGRIS_DW_LAMBDA_INLINE __attribute__((always_inline))
#  define TIGRIS_DW_UNROLL(n) _Pragma(TIGRIS_DW_STR(GCC unroll n))
#  define TIGRIS_DW_STR(x) #x
#else
#  define TIGRIS_DW_INLINE inline
#  define TIGRIS_DW_LAMBDA_INLINE
#  define TIGRIS_DW_UNROLL(n)
#endif

namespace tigris_s8 {
namespace dw_m1 {
namespace detail {

// Lane operations on int16 pairs held in a word (s8_lanes.h).
using lanes::add_s8;
using lanes::mla_bottom;
using lanes::mla_top;
using lanes::ror8;

// Per lane count: the widened weights of one tap (two words) and one tap's products.
template <int N>
struct Lanes;

template <>
struct Lanes<4> {  // channels 0, 2 in word 0; 1, 3 in word 1
    static TIGRIS_DW_INLINE void widen(const int8_t *w, uint32_t *dst)
    {
        const uint32_t v = load4(w);
        dst[0] = add_s8(0, v);
        dst[1] = add_s8(0, ror8(v));
    }
    static TIGRIS_DW_INLINE void mac(const int8_t *px, const uint32_t *w, uint32_t off, int32_t *a)
    {
        const uint32_t v = load4(px);
        uint64_t ww;  // both words in one load
        memcpy(&ww, w, 8);
        const uint32_t we = (uint32_t)ww, wo = (uint32_t)(ww >> 32);
        const uint32_t e = add_s8(off, v), o = add_s8(off, ror8(v));
        a[0] = mla_bottom(e, we, a[0]);
        a[2] = mla_top(e, we, a[2]);
        a[1] = mla_bottom(o, wo, a[1]);
        a[3] = mla_top(o, wo, a[3]);
    }
    // The same without the input offset (folded into the biases by the caller).
    static TIGRIS_DW_INLINE void mac0(const int8_t *px, uint64_t ww, int32_t *a)
    {
        const uint32_t v = load4(px);
        const uint32_t we = (uint32_t)ww, wo = (uint32_t)(ww >> 32);
        const uint32_t e = lanes::s8(v), o = lanes::s8(ror8(v));
        a[0] = mla_bottom(e, we, a[0]);
        a[2] = mla_top(e, we, a[2]);
        a[1] = mla_bottom(o, wo, a[1]);
        a[3] = mla_top(o, wo, a[3]);
    }
};

template <>
struct Lanes<2> {  // channels 0, 1 in word 0
    static TIGRIS_DW_INLINE void widen(const int8_t *w, uint32_t *dst)
    {
        dst[0] = add_s8(0, (uint32_t)(uint8_t)w[0] | ((uint32_t)(uint8_t)w[1] << 16));
        dst[1] = 0;
    }
    static TIGRIS_DW_INLINE void mac(const int8_t *px, const uint32_t *w, uint32_t off, int32_t *a)
    {
        uint16_t h;
        memcpy(&h, px, 2);
        const uint32_t e = add_s8(off, (uint32_t)h | ((uint32_t)h << 8));  // byte 2 = channel 1
        a[0] = mla_bottom(e, w[0], a[0]);
        a[1] = mla_top(e, w[0], a[1]);
    }
    static TIGRIS_DW_INLINE void mac0(const int8_t *px, uint64_t ww, int32_t *a)
    {
        uint16_t h;
        memcpy(&h, px, 2);
        const uint32_t e = lanes::s8((uint32_t)h | ((uint32_t)h << 8));
        a[0] = mla_bottom(e, (uint32_t)ww, a[0]);
        a[1] = mla_top(e, (uint32_t)ww, a[1]);
    }
};

template <>
struct Lanes<1> {
    static TIGRIS_DW_INLINE void widen(const int8_t *w, uint32_t *dst)
    {
        dst[0] = (uint32_t)(int32_t)w[0];
        dst[1] = 0;
    }
    static TIGRIS_DW_INLINE void mac(const int8_t *px, const uint32_t *w, uint32_t off, int32_t *a)
    {
        a[0] = wrap_add(a[0], wrap_mul((int32_t)w[0], (int32_t)px[0] + (int32_t)(int16_t)(off & 0xFFFFu)));
    }
    static TIGRIS_DW_INLINE void mac0(const int8_t *px, uint64_t ww, int32_t *a)
    {
        a[0] = wrap_add(a[0], wrap_mul((int32_t)(uint32_t)ww, (int32_t)px[0]));
    }
};

// 0, kError without factors, kGeneric for factors outside what the loader admits (the generic
// loop then computes the call as it would).
int lane_q(const Layer &l, int32_t ch, ChannelQ *q);

// The output columns whose window lies inside the input: [*lo, *hi).
void inner_columns(const kern::SpatialGeom &g, int32_t *lo, int32_t *hi);

// The window taps [lo, hi) of one axis inside the input: origin + k * d in [0, extent).
TIGRIS_DW_INLINE void clip_taps(int32_t origin, int32_t k, int32_t d, int32_t extent, int32_t *lo, int32_t *hi)
{
    int32_t a = 0, b = k;
    if (origin < 0) a = (-origin + d - 1) / d;
    if (origin + (k - 1) * d >= extent) b = origin >= extent ? 0 : (extent - 1 - origin) / d + 1;
    *lo = a;
    *hi = b > a ? b : a;
}

// The 3x3 window's cases on one axis: 0 every tap inside, 1 the first tap outside (read from
// one tap further), 2 the last tap outside (read from one tap back); -1 any other (fewer than two
// taps inside, or an extent too short for the shifted read: with tap 0 at origin in [-d, 0) the
// shifted taps end at origin + 3d <= 3d - 1, and with tap 2 at origin + 2d >= extent they start
// at origin - d >= extent - 3d, both inside when extent >= 3d).
constexpr int32_t kShift3[3] = {0, 1, -1};

inline int32_t case3(int32_t lo, int32_t hi, int32_t extent, int32_t d)
{
    if (lo == 0 && hi == 3) return 0;
    if (extent < 3 * d) return -1;
    return lo == 1 && hi == 3 ? 1 : (lo == 0 && hi == 2 ? 2 : -1);
}

// The requantization of N lanes: four through requant4_s8 (prepared once), fewer one by one.
template <int N>
struct Outputs {
    const ChannelQ *q;
    Out4 o4;
    int32_t zp, lo, hi;
    Outputs(const ChannelQ *qs, int32_t out_zp, int32_t act_min, int32_t act_max)
        : q(qs), o4{}, zp(out_zp), lo(act_min), hi(act_max)
    {
        if constexpr (N == 4) o4 = out4(qs, out_zp, act_min, act_max);
    }
    TIGRIS_DW_INLINE void store(const int32_t *a, int8_t *dst) const
    {
        if constexpr (N == 4) {
            requant4_s8(a, q, o4, dst);
        } else {
            TIGRIS_DW_UNROLL(2)
            for (int k = 0; k < N; k++) dst[k] = requant_s8(a[k], q[k], zp, lo, hi);
        }
    }
};

// The block's factors: 0, or lane_q's answer.
template <int N>
int block_q(const Layer &l, int32_t oc, ChannelQ *q)
{
    for (int k = 0; k < N; k++) {
        const int rc = lane_q(l, l.g->chan0 + oc + k, &q[k]);
        if (rc) return rc;
    }
    return 0;
}

// Any pixel of channels [oc, oc + N): the taps clipped to the input (padding contributes
// nothing), wt the block's widened weights (2 words per tap), off the input offset pair.
template <int N>
void clipped_pixel(const Layer &l, const uint32_t *wt, uint32_t off, const ChannelQ *q, const Outputs<N> &out,
                   const int8_t *xn, int32_t y0, int32_t ky_lo, int32_t ky_hi, int32_t ox, int8_t *dst)
{
    const kern::SpatialGeom &g = *l.g;
    const int32_t x0 = ox * g.s_w - g.pad_left, col = g.d_w * g.c_in;
    int32_t kx_lo, kx_hi;
    clip_taps(x0, g.k_w, g.d_w, g.in_w, &kx_lo, &kx_hi);
    int32_t a[4];
    for (int k = 0; k < N; k++) a[k] = q[k].bias;
    for (int32_t ky = ky_lo; ky < ky_hi; ky++) {
        const int8_t *p = xn + (int64_t)(y0 + ky * g.d_h) * g.in_row + (int64_t)x0 * g.c_in;
        const uint32_t *w = wt + 2 * ky * g.k_w;
        for (int32_t kx = kx_lo; kx < kx_hi; kx++) Lanes<N>::mac(p + kx * col, w + 2 * kx, off, a);
    }
    out.store(a, dst);
}

// ---- Entry points of s8_depthwise_3x3.cpp ----------------------------------------------------

// Channels [oc, oc + N) of a 3x3 call through nine tables (N = 4).
template <int N>
int block3x3(const Layer &l, int32_t oc, int32_t out_zp);

// narrow3x3's copy of a call's input: kNarrowBytes of stack.
constexpr int32_t kNarrowBytes = 640;

// 0, kError, kGeneric (factors), or kNarrowTooWide when a single output row's input does not
// fit the buffer (the caller then runs the blocks of fewer lanes).
constexpr int kNarrowTooWide = 2;

// True when one output row's padded input fits narrow3x3's buffer.
inline bool narrow_fits(const kern::SpatialGeom &g)
{
    return kNarrowBytes / (4 * ((g.out_w - 1) * g.s_w + 2 * g.d_w + 1)) >= 2 * g.d_h + 1;
}

// Channels [oc, oc + nch) (nch 1..4) of a 3x3 call on a zero-point-padded copy of its input:
// 0, kError, kGeneric or kNarrowTooWide.
int narrow3x3(const Layer &l, int32_t oc, int32_t nch, int32_t out_zp);

}  // namespace detail
}  // namespace dw_m1
}  // namespace tigris_s8
