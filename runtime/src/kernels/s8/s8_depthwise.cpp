// Depthwise convolution of channel multiplier 1 (s8_depthwise.h): blocks of 4, 2 or 1 adjacent
// channels over every pixel of the call. With the DSP extension one word of input gives four
// channels as two int16 pairs (SXTAB16, the input offset added on the way), multiplied with the
// block's pre-widened weight pairs (SMLABB / SMLATT); without it the same lane operations run in
// plain C, so host tests exercise the same packing, edges and requantization.
#include "kernels/s8/s8_depthwise.h"

#include "kernels/s8/s8_dot.h"
#include "kernels/s8/s8_fixed_point.h"
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
namespace {

// ---- Lane operations on int16 pairs held in a word (low half: lane 0) ------------------------
#if defined(TIGRIS_S8_DSP)
TIGRIS_DW_INLINE uint32_t pair_add_s8(uint32_t off, uint32_t v) { return (uint32_t)__sxtab16((int16x2_t)off, (int8x4_t)v); }
TIGRIS_DW_INLINE int32_t mla_bottom(uint32_t a, uint32_t b, int32_t acc) { return __smlabb((int32_t)a, (int32_t)b, acc); }
TIGRIS_DW_INLINE int32_t mla_top(uint32_t a, uint32_t b, int32_t acc) { return __smlatt((int32_t)a, (int32_t)b, acc); }
#else
// Bytes 0 and 2 of v, sign-extended, plus the int16 halves of off (SXTAB16).
TIGRIS_DW_INLINE uint32_t pair_add_s8(uint32_t off, uint32_t v)
{
    const uint32_t lo = (uint32_t)(int32_t)(int16_t)(off & 0xFFFFu) + (uint32_t)(int32_t)(int8_t)(v & 0xFFu);
    const uint32_t hi = (uint32_t)(int32_t)(int16_t)(off >> 16) + (uint32_t)(int32_t)(int8_t)((v >> 16) & 0xFFu);
    return (lo & 0xFFFFu) | (hi << 16);
}
TIGRIS_DW_INLINE int32_t mla_bottom(uint32_t a, uint32_t b, int32_t acc)
{
    return wrap_add(acc, (int32_t)(int16_t)(a & 0xFFFFu) * (int32_t)(int16_t)(b & 0xFFFFu));
}
TIGRIS_DW_INLINE int32_t mla_top(uint32_t a, uint32_t b, int32_t acc)
{
    return wrap_add(acc, (int32_t)(int16_t)(a >> 16) * (int32_t)(int16_t)(b >> 16));
}
TIGRIS_DW_INLINE uint32_t ror8(uint32_t x) { return (x >> 8) | (x << 24); }
#endif

// Per lane count: the widened weights of one tap (two words) and one tap's products.
template <int N>
struct Lanes;

template <>
struct Lanes<4> {  // channels 0, 2 in word 0; 1, 3 in word 1
    static TIGRIS_DW_INLINE void widen(const int8_t *w, uint32_t *dst)
    {
        const uint32_t v = load4(w);
        dst[0] = pair_add_s8(0, v);
        dst[1] = pair_add_s8(0, ror8(v));
    }
    static TIGRIS_DW_INLINE void mac(const int8_t *px, const uint32_t *w, uint32_t off, int32_t *a)
    {
        const uint32_t v = load4(px);
        uint64_t ww;  // both words in one load
        memcpy(&ww, w, 8);
        const uint32_t we = (uint32_t)ww, wo = (uint32_t)(ww >> 32);
        const uint32_t e = pair_add_s8(off, v), o = pair_add_s8(off, ror8(v));
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
        dst[0] = pair_add_s8(0, (uint32_t)(uint8_t)w[0] | ((uint32_t)(uint8_t)w[1] << 16));
        dst[1] = 0;
    }
    static TIGRIS_DW_INLINE void mac(const int8_t *px, const uint32_t *w, uint32_t off, int32_t *a)
    {
        uint16_t h;
        memcpy(&h, px, 2);
        const uint32_t e = pair_add_s8(off, (uint32_t)h | ((uint32_t)h << 8));  // byte 2 = channel 1
        a[0] = mla_bottom(e, w[0], a[0]);
        a[1] = mla_top(e, w[0], a[1]);
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
};

// 0, kError without factors, kGeneric for factors outside what the loader admits (the generic
// loop then computes the call as it would).
int lane_q(const Layer &l, int32_t ch, ChannelQ *q)
{
    int shift = 0;
    int32_t m = 0;
    if (!output_requant(l.plan, *l.out, ch, &m, &shift)) return kError;
    return channel_q(m, shift, l.bias ? rd_i32(l.bias + 4 * ch) : 0, q) ? 0 : kGeneric;
}

// The output columns whose window lies inside the input: [*lo, *hi).
void inner_columns(const kern::SpatialGeom &g, int32_t *lo, int32_t *hi)
{
    const int32_t span = (g.k_w - 1) * g.d_w;
    const int32_t first = (g.pad_left + g.s_w - 1) / g.s_w;
    const int32_t last = g.in_w - 1 - span + g.pad_left;  // x0 + span <= in_w - 1
    *lo = first < g.out_w ? first : g.out_w;
    *hi = last < 0 ? 0 : (last / g.s_w + 1 < g.out_w ? last / g.s_w + 1 : g.out_w);
    if (*hi < *lo) *hi = *lo;
}

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

// Channels [oc, oc + N) of the call (buffer channels; global chan0 + oc) over every pixel.
// K3 (a 3x3 window, 4-channel blocks): every pixel with at least two window rows and columns
// inside the input runs the nine unrolled taps (edge windows through the shifted tables below);
// otherwise the window's taps at fixed offsets (inside) or clipped to the input (edges).
template <int N, bool K3>
int block(const Layer &l, int32_t oc, int32_t out_zp)
{
    const kern::SpatialGeom &g = *l.g;
    ChannelQ q[N];
    for (int k = 0; k < N; k++) {
        const int rc = lane_q(l, g.chan0 + oc + k, &q[k]);
        if (rc) return rc;
    }
    // The block's weights widened once, and each tap's input offset from the window's corner.
    uint32_t wt[2 * kMaxTaps];
    int32_t tap_at[kMaxTaps];
    const int32_t taps = g.k_h * g.k_w;
    const int32_t col = g.d_w * g.c_in, row = (int32_t)(g.d_h * g.in_row);
    for (int32_t t = 0; t < taps; t++) {
        Lanes<N>::widen(l.w + (int64_t)t * l.wc + g.chan0 + oc, wt + 2 * t);
        tap_at[t] = (t / g.k_w) * row + (t % g.k_w) * col;
    }
    const uint32_t off = ((uint32_t)l.in_offset & 0xFFFFu) * 0x10001u;
    int32_t in_lo, in_hi;
    inner_columns(g, &in_lo, &in_hi);
    const int32_t x_step = g.s_w * g.c_in;

    // A pixel whose window lies inside the input: every tap, at fixed offsets from p.
    auto inner = [&](const int8_t *p, const uint32_t *w, int8_t *dst) TIGRIS_DW_LAMBDA_INLINE {
        int32_t a[4];
        TIGRIS_DW_UNROLL(4)
        for (int k = 0; k < N; k++) a[k] = q[k].bias;
        if (K3) {
            TIGRIS_DW_UNROLL(3)
            for (int ky = 0; ky < 3; ky++, p += row) {
                Lanes<N>::mac(p, w + 6 * ky, off, a);
                Lanes<N>::mac(p + col, w + 6 * ky + 2, off, a);
                Lanes<N>::mac(p + 2 * col, w + 6 * ky + 4, off, a);
            }
        } else {
            for (int32_t t = 0; t < taps; t++) Lanes<N>::mac(p + tap_at[t], wt + 2 * t, off, a);
        }
        TIGRIS_DW_UNROLL(4)
        for (int k = 0; k < N; k++) dst[k] = requant_s8(a[k], q[k], out_zp, l.act_min, l.act_max);
    };
    // Any pixel: the taps clipped to the input (padding contributes nothing).
    auto clipped = [&](const int8_t *xn, int32_t y0, int32_t ky_lo, int32_t ky_hi, int32_t ox, int8_t *dst) {
        const int32_t x0 = ox * g.s_w - g.pad_left;
        int32_t kx_lo, kx_hi;
        clip_taps(x0, g.k_w, g.d_w, g.in_w, &kx_lo, &kx_hi);
        int32_t a[4];
        TIGRIS_DW_UNROLL(4)
        for (int k = 0; k < N; k++) a[k] = q[k].bias;
        for (int32_t ky = ky_lo; ky < ky_hi; ky++) {
            const int8_t *p = xn + (int64_t)(y0 + ky * g.d_h) * g.in_row + (int64_t)x0 * g.c_in;
            const uint32_t *w = wt + 2 * ky * g.k_w;
            if (K3) {  // the row's three taps, each if inside
                if (kx_lo <= 0 && kx_hi > 0) Lanes<N>::mac(p, w, off, a);
                if (kx_lo <= 1 && kx_hi > 1) Lanes<N>::mac(p + col, w + 2, off, a);
                if (kx_lo <= 2 && kx_hi > 2) Lanes<N>::mac(p + 2 * col, w + 4, off, a);
                continue;
            }
            for (int32_t kx = kx_lo; kx < kx_hi; kx++) Lanes<N>::mac(p + kx * col, w + 2 * kx, off, a);
        }
        TIGRIS_DW_UNROLL(4)
        for (int k = 0; k < N; k++) dst[k] = requant_s8(a[k], q[k], out_zp, l.act_min, l.act_max);
    };

    if constexpr (K3) {
        // 3x3: a window with one edge row and/or column outside the input reads the three rows
        // (columns) next to it instead, with that row's (column's) weights zero and the others
        // shifted by one tap, so every such pixel runs the unrolled loop with one of nine tables
        // (row case x column case: whole, first tap outside, last tap outside).
        uint32_t tab[9][18];
        for (int32_t rc = 0; rc < 3; rc++) {
            for (int32_t cc = 0; cc < 3; cc++) {
                for (int32_t t = 0; t < 9; t++) {
                    const int32_t ky = t / 3 + kShift3[rc], kx = t % 3 + kShift3[cc];
                    const bool in = ky >= 0 && ky < 3 && kx >= 0 && kx < 3;
                    tab[rc * 3 + cc][2 * t] = in ? wt[2 * (ky * 3 + kx)] : 0;
                    tab[rc * 3 + cc][2 * t + 1] = in ? wt[2 * (ky * 3 + kx) + 1] : 0;
                }
            }
        }
        for (int32_t n = 0; n < g.n; n++) {
            const int8_t *xn = l.x + n * g.in_batch + (int64_t)g.in_row_start * g.in_row + oc;
            int8_t *yn = l.y + n * g.out_batch + (int64_t)g.out_row_start * g.out_row + oc;
            for (int32_t oy = 0; oy < g.out_h; oy++) {
                const int32_t y0 = oy * g.s_h - g.pad_top;
                int32_t ky_lo, ky_hi;
                clip_taps(y0, 3, g.d_h, g.in_h, &ky_lo, &ky_hi);
                const int32_t rc = case3(ky_lo, ky_hi, g.in_h, g.d_h);
                int8_t *dst = yn + (int64_t)oy * g.out_row;
                const int8_t *rp = rc < 0 ? nullptr : xn + (int64_t)(y0 + kShift3[rc] * g.d_h) * g.in_row;
                for (int32_t ox = 0; ox < g.out_w; ox++, dst += g.c_out) {
                    const int32_t x0 = ox * g.s_w - g.pad_left;
                    int32_t cc = 0;
                    if (ox < in_lo || ox >= in_hi) {
                        int32_t kx_lo, kx_hi;
                        clip_taps(x0, 3, g.d_w, g.in_w, &kx_lo, &kx_hi);
                        cc = case3(kx_lo, kx_hi, g.in_w, g.d_w);
                    }
                    if (rc < 0 || cc < 0) {
                        clipped(xn, y0, ky_lo, ky_hi, ox, dst);
                        continue;
                    }
                    inner(rp + (int64_t)(x0 + kShift3[cc] * g.d_w) * g.c_in, tab[rc * 3 + cc], dst);
                }
            }
        }
        return 0;
    }
    for (int32_t n = 0; n < g.n; n++) {
        const int8_t *xn = l.x + n * g.in_batch + (int64_t)g.in_row_start * g.in_row + oc;
        int8_t *yn = l.y + n * g.out_batch + (int64_t)g.out_row_start * g.out_row + oc;
        for (int32_t oy = 0; oy < g.out_h; oy++) {
            const int32_t y0 = oy * g.s_h - g.pad_top;
            int32_t ky_lo, ky_hi;
            clip_taps(y0, g.k_h, g.d_h, g.in_h, &ky_lo, &ky_hi);
            int8_t *dst = yn + (int64_t)oy * g.out_row;
            if (ky_lo != 0 || ky_hi != g.k_h) {  // a row of the top or bottom edge
                for (int32_t ox = 0; ox < g.out_w; ox++) clipped(xn, y0, ky_lo, ky_hi, ox, dst + (int64_t)ox * g.c_out);
                continue;
            }
            for (int32_t ox = 0; ox < in_lo; ox++) clipped(xn, y0, ky_lo, ky_hi, ox, dst + (int64_t)ox * g.c_out);
            const int8_t *p = xn + (int64_t)y0 * g.in_row + (int64_t)(in_lo * g.s_w - g.pad_left) * g.c_in;
            int8_t *d = dst + (int64_t)in_lo * g.c_out;
            for (int32_t ox = in_lo; ox < in_hi; ox++, p += x_step, d += g.c_out) inner(p, wt, d);
            for (int32_t ox = in_hi; ox < g.out_w; ox++) clipped(xn, y0, ky_lo, ky_hi, ox, dst + (int64_t)ox * g.c_out);
        }
    }
    return 0;
}

template <bool K3>
int all_blocks(const Layer &l, int32_t out_zp)
{
    const int32_t c = l.g->c_out;
    int32_t oc = 0;
    int rc = 0;
    for (; rc == 0 && oc + 4 <= c; oc += 4) rc = block<4, K3>(l, oc, out_zp);
    // The last one to three channels (and narrow channel bands): no unrolled window, less code.
    if (rc == 0 && oc + 2 <= c) {
        rc = block<2, false>(l, oc, out_zp);
        oc += 2;
    }
    if (rc == 0 && oc < c) rc = block<1, false>(l, oc, out_zp);
    return rc;
}

}  // namespace

int run(const Layer &l)
{
    const int32_t out_zp = l.out->zero_point;
    return l.g->k_h == 3 && l.g->k_w == 3 ? all_blocks<true>(l, out_zp) : all_blocks<false>(l, out_zp);
}

}  // namespace dw_m1
}  // namespace tigris_s8
