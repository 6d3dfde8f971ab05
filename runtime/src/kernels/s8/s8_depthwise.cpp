// Depthwise convolution of channel multiplier 1 (s8_depthwise.h): blocks of 4, 2 or 1 adjacent
// channels over every pixel of the call. With the DSP extension one word of input gives four
// channels as two int16 pairs (SXTB16, or SXTAB16 with the input offset added on the way),
// multiplied with the block's pre-widened weight pairs (SMLABB / SMLATT); without it the same
// lane operations run in plain C, so host tests exercise the same packing, tables, copies, edges
// and requantization.
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
namespace {

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

// A run of inner pixels (window inside the input) of the generic blocks: the taps at fixed
// offsets with the block's weights as double words and the input offset in the biases. Out of
// line, so the tap loop has the registers to itself.
template <int N>
struct InnerRun {
    const uint64_t *w;
    const int32_t *tap_at, *bias;
    int32_t taps, x_step, c_out;
    const Outputs<N> *out;
};

// noipa: with only noinline, GCC 12 (arm-none-eabi, -Os) inferred from the call sites that n
// is at least 1 and turned inner_pairs3x3's "if (n == 1) inner_run(p, d, 1, r)" into an
// unconditional call with the leftover count, 0 for even runs, which a do-while then counted
// down through memory (a bus fault past the end of the Cortex-M55's SRAM). The loop also runs
// nothing for n <= 0.
template <int N>
#if defined(__GNUC__)
__attribute__((noipa))
#endif
void inner_run(const int8_t *p, int8_t *d, int32_t n, const InnerRun<N> &r)
{
    for (; n > 0; n--) {
        int32_t a[4];
        const uint64_t *wp = r.w;
        const int32_t *at = r.tap_at;
        if constexpr (N == 4) {  // scalars, so the accumulators stay in registers across the loop
            int32_t a0 = r.bias[0], a1 = r.bias[1], a2 = r.bias[2], a3 = r.bias[3];
            for (int32_t t = r.taps; t > 0; t--) {
                const uint32_t v = load4(p + *at++);
                const uint64_t ww = *wp++;
                const uint32_t e = lanes::s8(v), o = lanes::s8(ror8(v));
                a0 = mla_bottom(e, (uint32_t)ww, a0);
                a2 = mla_top(e, (uint32_t)ww, a2);
                a1 = mla_bottom(o, (uint32_t)(ww >> 32), a1);
                a3 = mla_top(o, (uint32_t)(ww >> 32), a3);
            }
            a[0] = a0, a[1] = a1, a[2] = a2, a[3] = a3;
        } else {
            for (int k = 0; k < N; k++) a[k] = r.bias[k];
            for (int32_t t = r.taps; t > 0; t--) Lanes<N>::mac0(p + *at++, *wp++, a);
        }
        r.out->store(a, d);
        p += r.x_step;
        d += r.c_out;
    }
}

// A run of inner pixels of one channel whose 3x3 windows read adjacent bytes (one channel in
// the buffer, no dilation across columns: vww's one-channel bands), two pixels at a time. Per
// window row one word holds the taps x0..x3, widened to (x0, x2) and (x1, x3): stride 1 pairs
// them as (x0, x1) and (x1, x2) for SMLAD against (w0, w1), x2 and x3 meeting w2 through SMLATT;
// stride 2 as (x0, x1) and (x2, x3), x2 and the fifth byte x4 meeting w2. 10 or 11 instructions
// per row of two pixels where the one-lane taps took about 6 per MAC. Both read only their two
// windows' bytes; a last odd pixel takes inner_run.
struct Pairs3x3 {
    uint32_t w01[3], w2[3];  // per window row: (w0, w1), (w2, w2) as int16 lanes
    int32_t row;             // bytes from one window row to the next
};

template <int S>
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void inner_pairs3x3(const int8_t *p, int8_t *d, int32_t n, const Pairs3x3 &pr, const InnerRun<1> &r)
{
    for (; n >= 2; n -= 2, p += 2 * S, d += 2 * r.c_out) {
        int32_t a0 = r.bias[0], a1 = r.bias[0];
        TIGRIS_DW_UNROLL(3)
        for (int ky = 0; ky < 3; ky++) {
            const int8_t *x = p + ky * pr.row;
            const uint32_t v = load4(x);
            const uint32_t e = lanes::s8(v), o = lanes::s8(ror8(v));  // (x0, x2), (x1, x3)
            const uint32_t x01 = (e & 0xFFFFu) | (o << 16);
            a0 = mla_top(e, pr.w2[ky], lanes::dual_mla(x01, pr.w01[ky], a0));
            if constexpr (S == 1) {
                const uint32_t x12 = (o & 0xFFFFu) | (e & 0xFFFF0000u);
                a1 = mla_top(o, pr.w2[ky], lanes::dual_mla(x12, pr.w01[ky], a1));
            } else {
                const uint32_t x23 = (e >> 16) | (o & 0xFFFF0000u);
                a1 = lanes::dual_mla(x23, pr.w01[ky], a1);
                a1 = wrap_add(a1, wrap_mul((int32_t)x[4], (int32_t)(int16_t)(pr.w2[ky] & 0xFFFFu)));
            }
        }
        const int32_t s0[4] = {a0, 0, 0, 0}, s1[4] = {a1, 0, 0, 0};
        r.out->store(s0, d);
        r.out->store(s1, d + r.c_out);
    }
    if (n == 1) inner_run<1>(p, d, 1, r);
}

// One output row of a one-channel 3x3 call (inner_pairs3x3's shape) through a copy of its three
// window rows whose padding holds the input zero point, so a padding tap adds w (zp + offset) =
// 0 as the folded biases assume: every pixel of the row in pairs, the edge pixels too (clipped
// one by one they cost several times an inner pixel). False when the copy does not fit
// kPaddedRowBytes or the zero point is not a byte (the caller clips instead).
constexpr int32_t kPaddedRowBytes = 200;

bool padded_row_pairs(const Layer &l, const int8_t *xn, int32_t y0, int8_t *dst, const Pairs3x3 &pr,
                      const InnerRun<1> &r)
{
    const kern::SpatialGeom &g = *l.g;
    const int32_t zp = -l.in_offset, x0 = -g.pad_left;
    const int32_t cols = (g.out_w - 1) * g.s_w + 3;
    if (cols > kPaddedRowBytes || zp < -128 || zp > 127) return false;
    const int32_t lo = x0 < 0 ? 0 : x0, hi = x0 + cols < g.in_w ? x0 + cols : g.in_w;
    int8_t buf[3 * kPaddedRowBytes];
    for (int32_t ky = 0; ky < 3; ky++) {
        int8_t *b = buf + ky * kPaddedRowBytes;
        const int32_t iy = y0 + ky * g.d_h;
        if (iy < 0 || iy >= g.in_h || hi <= lo) {
            memset(b, zp, (size_t)cols);
            continue;
        }
        if (lo > x0) memset(b, zp, (size_t)(lo - x0));
        memcpy(b + (lo - x0), xn + (int64_t)iy * g.in_row + lo, (size_t)(hi - lo));
        if (x0 + cols > hi) memset(b + (hi - x0), zp, (size_t)(x0 + cols - hi));
    }
    Pairs3x3 pb = pr;
    pb.row = kPaddedRowBytes;
    int32_t tap_at[9];
    for (int32_t t = 0; t < 9; t++) tap_at[t] = (t / 3) * kPaddedRowBytes + t % 3;
    InnerRun<1> rb = r;
    rb.tap_at = tap_at;
    if (g.s_w == 1) {
        inner_pairs3x3<1>(buf, dst, g.out_w, pb, rb);
    } else {
        inner_pairs3x3<2>(buf, dst, g.out_w, pb, rb);
    }
    return true;
}

// Whether inner_pairs3x3 takes a one-channel call: 3x3, adjacent columns (the tap step in
// bytes, d_w c_in, 1), stride 1 or 2.
inline bool pairs3x3_apply(const kern::SpatialGeom &g)
{
    return g.k_h == 3 && g.k_w == 3 && g.d_w * g.c_in == 1 && (g.s_w == 1 || g.s_w == 2);
}

// True, with the window rows' weight pairs in *pr, for a one-channel call inner_pairs3x3 takes
// (pairs3x3_apply; `row` the window's row step in bytes).
bool pairs3x3_for(const Layer &l, int32_t oc, int32_t row, Pairs3x3 *pr)
{
    const kern::SpatialGeom &g = *l.g;
    if (!pairs3x3_apply(g)) return false;
    pr->row = row;
    for (int ky = 0; ky < 3; ky++) {
        const int8_t *w = l.w + (int64_t)(3 * ky) * l.wc + g.chan0 + oc;
        pr->w01[ky] = ((uint32_t)(uint16_t)(int16_t)w[0]) | ((uint32_t)(uint16_t)(int16_t)w[l.wc] << 16);
        pr->w2[ky] = ((uint32_t)(uint16_t)(int16_t)w[2 * l.wc]) * 0x10001u;
    }
    return true;
}

// A run of inner pixels: in pairs where inner_pairs3x3 applies (pairs given), else inner_run.
template <int N>
TIGRIS_DW_INLINE void inner_pixels(const int8_t *p, int8_t *d, int32_t n, const InnerRun<N> &r, const Pairs3x3 *pairs)
{
    if constexpr (N == 1) {
        if (pairs != nullptr) {
            if (r.x_step == 1) {
                inner_pairs3x3<1>(p, d, n, *pairs, r);
            } else {
                inner_pairs3x3<2>(p, d, n, *pairs, r);
            }
            return;
        }
    }
    (void)pairs;
    inner_run<N>(p, d, n, r);
}

// Channels [oc, oc + N) of the call (buffer channels; global chan0 + oc) over every pixel, any
// window of at most kMaxTaps taps: pixels whose window lies inside the input with the taps at
// fixed offsets, the others clipped to the input.
template <int N>
int block(const Layer &l, int32_t oc, int32_t out_zp)
{
    const kern::SpatialGeom &g = *l.g;
    ChannelQ q[N];
    const int rc = block_q<N>(l, oc, q);
    if (rc) return rc;
    const Outputs<N> out(q, out_zp, l.act_min, l.act_max);
    // The block's weights widened once, and each tap's input offset from the window's corner.
    // Inner pixels read every tap, so the input offset is folded into their biases (as in Tab3)
    // and each tap's two weight words are one double-word load (w64). One pass over the taps,
    // without a division per tap: a call of a few pixels (a chain's band) pays this per block.
    uint32_t wt[2 * kMaxTaps];
    uint64_t w64[kMaxTaps];
    int32_t tap_at[kMaxTaps];
    int32_t inner_bias[4];
    for (int k = 0; k < N; k++) inner_bias[k] = q[k].bias;
    const int32_t taps = g.k_h * g.k_w;
    const int32_t col = g.d_w * g.c_in, row = (int32_t)(g.d_h * g.in_row);
    const int8_t *w = l.w + g.chan0 + oc;
    for (int32_t ky = 0, t = 0; ky < g.k_h; ky++) {
        for (int32_t kx = 0, at = ky * row; kx < g.k_w; kx++, t++, at += col, w += l.wc) {
            Lanes<N>::widen(w, wt + 2 * t);
            w64[t] = (uint64_t)wt[2 * t] | ((uint64_t)wt[2 * t + 1] << 32);
            tap_at[t] = at;
            TIGRIS_DW_UNROLL(4)
            for (int k = 0; k < N; k++) inner_bias[k] = wrap_add(inner_bias[k], wrap_mul(w[k], l.in_offset));
        }
    }
    const uint32_t off = ((uint32_t)l.in_offset & 0xFFFFu) * 0x10001u;
    int32_t in_lo, in_hi;
    inner_columns(g, &in_lo, &in_hi);
    const InnerRun<N> run{w64, tap_at, inner_bias, taps, g.s_w * g.c_in, g.c_out, &out};
    // A map one column wide (str_ww's Kx1 windows over time) whose column is inner: the inner
    // rows are one run, stepping a row at a time.
    const bool column = g.out_w == 1 && in_lo == 0 && in_hi == 1;
    const InnerRun<N> down{w64, tap_at, inner_bias, taps, (int32_t)(g.s_h * g.in_row), (int32_t)g.out_row, &out};
    Pairs3x3 pairs{};
    const bool paired = N == 1 && pairs3x3_for(l, oc, row, &pairs);
    for (int32_t n = 0; n < g.n; n++) {
        const int8_t *xn = l.x + n * g.in_batch + (int64_t)g.in_row_start * g.in_row + oc;
        int8_t *yn = l.y + n * g.out_batch + (int64_t)g.out_row_start * g.out_row + oc;
        for (int32_t oy = 0; oy < g.out_h; oy++) {
            const int32_t y0 = oy * g.s_h - g.pad_top;
            int32_t ky_lo, ky_hi;
            clip_taps(y0, g.k_h, g.d_h, g.in_h, &ky_lo, &ky_hi);
            int8_t *dst = yn + (int64_t)oy * g.out_row;
            if constexpr (N == 1) {  // a top or bottom row: all in pairs on a padded copy
                if (paired && (ky_lo != 0 || ky_hi != g.k_h) && padded_row_pairs(l, xn, y0, dst, pairs, run)) continue;
            }
            if (ky_lo != 0 || ky_hi != g.k_h) {  // a row of the top or bottom edge
                for (int32_t ox = 0; ox < g.out_w; ox++)
                    clipped_pixel<N>(l, wt, off, q, out, xn, y0, ky_lo, ky_hi, ox, dst + (int64_t)ox * g.c_out);
                continue;
            }
            for (int32_t ox = 0; ox < in_lo; ox++)
                clipped_pixel<N>(l, wt, off, q, out, xn, y0, ky_lo, ky_hi, ox, dst + (int64_t)ox * g.c_out);
            const int8_t *p = xn + (int64_t)y0 * g.in_row + (int64_t)(in_lo * g.s_w - g.pad_left) * g.c_in;
            int8_t *d = dst + (int64_t)in_lo * g.c_out;
            if (column && oy + 1 < g.out_h) {  // one inner pixel per row: a run down the rows
                int32_t rows = 1;
                while (oy + rows < g.out_h && (oy + rows) * g.s_h - g.pad_top + (g.k_h - 1) * g.d_h < g.in_h) rows++;
                inner_run<N>(p, d, rows, down);
                oy += rows - 1;
                continue;
            }
            if (in_hi > in_lo) inner_pixels<N>(p, d, in_hi - in_lo, run, paired ? &pairs : nullptr);
            for (int32_t ox = in_hi; ox < g.out_w; ox++)
                clipped_pixel<N>(l, wt, off, q, out, xn, y0, ky_lo, ky_hi, ox, dst + (int64_t)ox * g.c_out);
        }
    }
    return 0;
}

// ---- 3x3 windows -------------------------------------------------------------------------
// A window with one edge row and/or column outside the input reads the three rows (columns)
// next to it instead, with that row's (column's) weights zero and the others shifted by one tap,
// so every such pixel runs the same nine unrolled taps with one of nine tables (row case x
// column case: whole, first tap outside, last tap outside). The input offset is folded into each
// table's biases (sum of w * (x + offset) = sum of w * x + offset * sum of w, exact modulo 2^32),
// so the taps widen the input without adding it.
struct Tab3 {
    uint64_t w[9];  // tap t: the two words of Lanes<N>, one double-word load
    int32_t bias[4];
};

// The nine taps of one pixel: p the window's corner, col / row the tap steps in bytes.
template <int N>
TIGRIS_DW_INLINE void taps3x3(const int8_t *p, const Tab3 &t, int32_t col, int32_t row, int32_t *a)
{
    TIGRIS_DW_UNROLL(4)
    for (int k = 0; k < N; k++) a[k] = t.bias[k];
    TIGRIS_DW_UNROLL(3)
    for (int ky = 0; ky < 3; ky++, p += row) {
        Lanes<N>::mac0(p, t.w[3 * ky], a);
        Lanes<N>::mac0(p + col, t.w[3 * ky + 1], a);
        Lanes<N>::mac0(p + 2 * col, t.w[3 * ky + 2], a);
    }
}

// The column case of output column ox (case3), -1 for the clipped loop.
inline int32_t column_case3(const kern::SpatialGeom &g, int32_t ox)
{
    int32_t kx_lo, kx_hi;
    clip_taps(ox * g.s_w - g.pad_left, 3, g.d_w, g.in_w, &kx_lo, &kx_hi);
    return case3(kx_lo, kx_hi, g.in_w, g.d_w);
}

// The columns of every output row as runs of one column case: n columns, case cc (-1: the
// clipped loop, run by the caller). The columns whose window lies inside the input are one run;
// up to kEdgeRuns edge columns on either side are runs of one (further ones join the clipped).
constexpr int32_t kEdgeRuns = 4;
struct ColRun {
    int32_t n, cc;
};
struct Cols3 {
    ColRun run[2 * kEdgeRuns + 3];
    int32_t runs;
    bool any_clipped;
};

inline void column_runs(const kern::SpatialGeom &g, Cols3 *c)
{
    int32_t in_lo, in_hi;
    inner_columns(g, &in_lo, &in_hi);
    c->runs = 0;
    c->any_clipped = false;
    auto add = [&](int32_t n, int32_t cc) {
        if (n <= 0) return;
        c->run[c->runs++] = ColRun{n, cc};
        c->any_clipped = c->any_clipped || cc < 0;
    };
    for (int32_t ox = 0; ox < in_lo && ox < kEdgeRuns; ox++) add(1, column_case3(g, ox));
    add(in_lo - kEdgeRuns, -1);
    add(in_hi - in_lo, 0);
    for (int32_t ox = in_hi; ox < g.out_w && ox < in_hi + kEdgeRuns; ox++) add(1, column_case3(g, ox));
    add(g.out_w - in_hi - kEdgeRuns, -1);
}

// What a row of 3x3 pixels needs: the row case's three tables (column cases 0, 1, 2), the
// steps in bytes and the column runs.
template <int N>
struct Row3 {
    const Tab3 *tab;
    int32_t col, row, x_step, c_out;
    const Cols3 *cols;
    const Outputs<N> *out;
};

// One output row: p the input at the row case's first window row and column -pad_left.
template <int N>
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void row3x3(const int8_t *p, int8_t *dst, const Row3<N> &r)
{
    const ColRun *run = r.cols->run, *end = run + r.cols->runs;
    for (; run < end; run++) {
        int32_t n = run->n;
        const int32_t cc = run->cc;
        if (cc < 0) {  // left to the caller
            p += n * r.x_step;
            dst += n * r.c_out;
            continue;
        }
        const Tab3 *t = r.tab + cc;
        const int32_t shift = kShift3[cc] * r.col;
        p += shift;
        do {
            int32_t a[4];
            taps3x3<N>(p, *t, r.col, r.row, a);
            r.out->store(a, dst);
            p += r.x_step;
            dst += r.c_out;
        } while (--n);
        p -= shift;
    }
}

template <int N>
int block3x3(const Layer &l, int32_t oc, int32_t out_zp)
{
    const kern::SpatialGeom &g = *l.g;
    ChannelQ q[N];
    const int rc0 = block_q<N>(l, oc, q);
    if (rc0) return rc0;
    const Outputs<N> out(q, out_zp, l.act_min, l.act_max);
    // The widened weights (wt for the clipped loop) and each tap's offset * weight per channel.
    uint32_t wt[18];
    int32_t prod[9][4];
    for (int32_t t = 0; t < 9; t++) {
        const int8_t *w = l.w + (int64_t)t * l.wc + g.chan0 + oc;
        Lanes<N>::widen(w, wt + 2 * t);
        TIGRIS_DW_UNROLL(4)
        for (int k = 0; k < N; k++) prod[t][k] = wrap_mul(w[k], l.in_offset);
    }
    // The row and column cases the call has (a band of one row has one row case).
    Cols3 cols;
    column_runs(g, &cols);
    bool row_used[3] = {false, false, false}, col_used[3] = {false, false, false};
    for (int32_t oy = 0; oy < g.out_h; oy++) {
        const int32_t y0 = oy * g.s_h - g.pad_top;
        int32_t ky_lo = 0, ky_hi = 3, rc = 0;
        if (y0 < 0 || y0 + 2 * g.d_h >= g.in_h) {
            clip_taps(y0, 3, g.d_h, g.in_h, &ky_lo, &ky_hi);
            rc = case3(ky_lo, ky_hi, g.in_h, g.d_h);
        }
        if (rc >= 0) row_used[rc] = true;
    }
    for (int32_t i = 0; i < cols.runs; i++)
        if (cols.run[i].cc >= 0) col_used[cols.run[i].cc] = true;
    // Table (rc, cc) holds the taps of original rows R(rc) and columns C(cc): {0,1,2}, {1,2}
    // (the first outside: shifted by one) or {0,1} (the last outside); only the cases used.
    Tab3 tab[9];
    for (int32_t rc = 0; rc < 3; rc++) {
        for (int32_t cc = 0; cc < 3; cc++) {
            if (!row_used[rc] || !col_used[cc]) continue;
            Tab3 &tb = tab[rc * 3 + cc];
            for (int k = 0; k < 4; k++) tb.bias[k] = k < N ? q[k].bias : 0;
            for (int32_t ty = 0; ty < 3; ty++) {
                const int32_t ky = ty + kShift3[rc];
                for (int32_t tx = 0; tx < 3; tx++) {
                    const int32_t kx = tx + kShift3[cc], t = ky * 3 + kx;
                    if ((uint32_t)ky >= 3 || (uint32_t)kx >= 3) {
                        tb.w[ty * 3 + tx] = 0;
                        continue;
                    }
                    tb.w[ty * 3 + tx] = (uint64_t)wt[2 * t] | ((uint64_t)wt[2 * t + 1] << 32);
                    TIGRIS_DW_UNROLL(4)
                    for (int k = 0; k < N; k++) tb.bias[k] = wrap_add(tb.bias[k], prod[t][k]);
                }
            }
        }
    }
    const uint32_t off = ((uint32_t)l.in_offset & 0xFFFFu) * 0x10001u;
    Row3<N> r;
    r.col = g.d_w * g.c_in;
    r.row = (int32_t)(g.d_h * g.in_row);
    r.x_step = g.s_w * g.c_in;
    r.c_out = g.c_out;
    r.cols = &cols;
    r.out = &out;
    for (int32_t n = 0; n < g.n; n++) {
        const int8_t *xn = l.x + n * g.in_batch + (int64_t)g.in_row_start * g.in_row + oc;
        int8_t *yn = l.y + n * g.out_batch + (int64_t)g.out_row_start * g.out_row + oc;
        for (int32_t oy = 0; oy < g.out_h; oy++) {
            const int32_t y0 = oy * g.s_h - g.pad_top;
            int32_t ky_lo = 0, ky_hi = 3, rc = 0;
            if (y0 < 0 || y0 + 2 * g.d_h >= g.in_h) {
                clip_taps(y0, 3, g.d_h, g.in_h, &ky_lo, &ky_hi);
                rc = case3(ky_lo, ky_hi, g.in_h, g.d_h);
            }
            int8_t *dst = yn + (int64_t)oy * g.out_row;
            if (rc >= 0) {
                r.tab = tab + 3 * rc;
                row3x3<N>(xn + (int64_t)(y0 + kShift3[rc] * g.d_h) * g.in_row - (int64_t)g.pad_left * g.c_in, dst, r);
                if (!cols.any_clipped) continue;
            }
            // The pixels row3x3 left: every one of a row without a case, else the clipped runs.
            int32_t ox = 0;
            for (int32_t i = 0; i < cols.runs; i++) {
                const ColRun &c = cols.run[i];
                if (rc < 0 || c.cc < 0)
                    for (int32_t j = 0; j < c.n; j++)
                        clipped_pixel<N>(l, wt, off, q, out, xn, y0, ky_lo, ky_hi, ox + j,
                                         dst + (int64_t)(ox + j) * g.c_out);
                ox += c.n;
            }
        }
    }
    return 0;
}

// ---- Narrow 3x3 blocks and small calls -------------------------------------------------
// Calls of few pixels (a small band, mostly edge pixels): their blocks of four, and their last two
// or three channels, go through the 4-lane taps on a copy of their input (instead of nine tables
// per block, or the 2- and 1-lane blocks' clipped edge pixels): a stack buffer of 4 bytes per pixel with
// the padding filled with the input zero point (so padding taps add w * (zp + offset) = 0) and
// every window inside it, so all pixels run the nine taps with one table; lanes past the
// block's channels have zero weights. Chunks of output rows whose input fits the buffer, one
// after the other.
constexpr int32_t kNarrowBytes = 640;

// 0, kError, kGeneric (factors), or kNarrowTooWide when a single output row's input does not
// fit the buffer (the caller then runs the blocks of fewer lanes).
constexpr int kNarrowTooWide = 2;

// True when one output row's padded input fits narrow3x3's buffer.
inline bool narrow_fits(const kern::SpatialGeom &g)
{
    return kNarrowBytes / (4 * ((g.out_w - 1) * g.s_w + 2 * g.d_w + 1)) >= 2 * g.d_h + 1;
}

// The first n (1..3) of four lanes' bytes: stores in line (a memcpy of n bytes is a library
// call at -Os, as dear as the pixel's requantization).
TIGRIS_DW_INLINE void copy_lanes(void *dst, const void *src, int32_t n)
{
    uint8_t *d = (uint8_t *)dst;
    const uint8_t *s = (const uint8_t *)src;
    d[0] = s[0];
    if (n > 1) d[1] = s[1];
    if (n > 2) d[2] = s[2];
}

// One output row of narrow3x3 from its copy: out_w pixels x_step bytes apart from p (their
// windows' corners), four lanes each, nch of them stored. Out of line, so that the tap loop's
// registers are allocated apart from the table and copy code of the caller.
struct NarrowRows {
    const Tab3 &t;
    const ChannelQ *q;
    const Out4 &o4;
    int32_t out_w, x_step, col, row, c_out, nch;
};

#if defined(__GNUC__)
__attribute__((noinline))
#endif
void narrow_row(const NarrowRows &r, const int8_t *p, int8_t *dst)
{
    for (int32_t ox = 0; ox < r.out_w; ox++, p += r.x_step, dst += r.c_out) {
        int32_t a[4];
        taps3x3<4>(p, r.t, r.col, r.row, a);
        if (r.nch == 4) {
            requant4_s8(a, r.q, r.o4, dst);
            continue;
        }
        int8_t out[4];
        requant4_s8(a, r.q, r.o4, out);
        copy_lanes(dst, out, r.nch);
    }
}

int narrow3x3(const Layer &l, int32_t oc, int32_t nch, int32_t out_zp)
{
    const kern::SpatialGeom &g = *l.g;
    const int32_t zp = -l.in_offset;
    const int32_t cols = (g.out_w - 1) * g.s_w + 2 * g.d_w + 1, row_bytes = 4 * cols;
    if (zp < -128 || zp > 127 || !narrow_fits(g)) return kNarrowTooWide;
    const int32_t chunk = (kNarrowBytes / row_bytes - (2 * g.d_h + 1)) / g.s_h + 1;
    ChannelQ q[4];
    for (int32_t k = 0; k < nch; k++) {
        const int rc = lane_q(l, g.chan0 + oc + k, &q[k]);
        if (rc) return rc;
    }
    for (int32_t k = nch; k < 4; k++) q[k] = q[0];  // lanes past the block's channels: computed, not stored
    const Out4 o4 = out4(q, out_zp, l.act_min, l.act_max);
    // Four bytes a pixel copied at once where the pixel has them (lanes past nch meet zero weights).
    const bool whole_words = oc + 4 <= g.c_in;
    Tab3 t;
    for (int k = 0; k < 4; k++) t.bias[k] = k < nch ? q[k].bias : 0;
    const uint32_t off = ((uint32_t)l.in_offset & 0xFFFFu) * 0x10001u;  // |in_offset| <= 128 (zp a byte)
    for (int32_t tap = 0; tap < 9; tap++) {
        const int8_t *w = l.w + (int64_t)tap * l.wc + g.chan0 + oc;
        uint32_t pair[2];  // (w0, w2), (w1, w3)
        if (nch == 4) {    // the offset folded from the widened lanes
            Lanes<4>::widen(w, pair);
            t.bias[0] = mla_bottom(pair[0], off, t.bias[0]);
            t.bias[1] = mla_bottom(pair[1], off, t.bias[1]);
            t.bias[2] = mla_top(pair[0], off, t.bias[2]);
            t.bias[3] = mla_top(pair[1], off, t.bias[3]);
        } else {  // lanes past the block's channels: zero weights (not read past the layer's)
            int8_t w4[4] = {0, 0, 0, 0};
            for (int32_t k = 0; k < nch; k++) {
                w4[k] = w[k];
                t.bias[k] = wrap_add(t.bias[k], wrap_mul(w[k], l.in_offset));
            }
            Lanes<4>::widen(w4, pair);
        }
        t.w[tap] = (uint64_t)pair[0] | ((uint64_t)pair[1] << 32);
    }
    uint8_t buf[kNarrowBytes];
    const int32_t x0 = -g.pad_left;
    for (int32_t n = 0; n < g.n; n++) {
        const int8_t *xn = l.x + n * g.in_batch + (int64_t)g.in_row_start * g.in_row + oc;
        int8_t *yn = l.y + n * g.out_batch + (int64_t)g.out_row_start * g.out_row + oc;
        for (int32_t oy0 = 0; oy0 < g.out_h; oy0 += chunk) {
            const int32_t oh = g.out_h - oy0 < chunk ? g.out_h - oy0 : chunk;
            const int32_t rows = (oh - 1) * g.s_h + 2 * g.d_h + 1, y0 = oy0 * g.s_h - g.pad_top;
            memset(buf, (uint8_t)zp, (size_t)(rows * row_bytes));
            for (int32_t r = 0; r < rows; r++) {
                const int32_t iy = y0 + r;
                if (iy < 0 || iy >= g.in_h) continue;
                const int8_t *src = xn + (int64_t)iy * g.in_row;
                uint8_t *d = buf + r * row_bytes;
                const int32_t c_lo = x0 < 0 ? -x0 : 0, c_hi = g.in_w - x0 < cols ? g.in_w - x0 : cols;
                const int8_t *sp = src + (int64_t)(x0 + c_lo) * g.c_in;
                for (int32_t c = c_lo; c < c_hi; c++, sp += g.c_in) {
                    if (whole_words) memcpy(d + 4 * c, sp, 4);
                    else copy_lanes(d + 4 * c, sp, nch);
                }
            }
            const NarrowRows nr{t, q, o4, g.out_w, 4 * g.s_w, 4 * g.d_w, g.d_h * row_bytes, (int32_t)g.c_out, nch};
            for (int32_t oy = 0; oy < oh; oy++)
                narrow_row(nr, (const int8_t *)buf + oy * g.s_h * row_bytes, yn + (int64_t)(oy0 + oy) * g.out_row);
        }
    }
    return 0;
}

// A call of at most this many output pixels, whose padded input fits the buffer, runs every
// block on the copy: the nine tables of a block cost about 3,000 instructions on the Cortex-M4,
// the copy about 3 per byte, and its pixel loop about 40 more per pixel than row3x3's
// (measured: kws's 25x5 layers are faster on the tables, its 4x5 tiles on the copy).
constexpr int64_t kSmallPixels = 48;
constexpr int32_t kNarrowColumns = 8;

template <bool K3>
int all_blocks(const Layer &l, int32_t out_zp)
{
    const kern::SpatialGeom &g = *l.g;
    const int32_t c = g.c_out;
    const bool small = K3 && (int64_t)g.n * g.out_h * g.out_w <= kSmallPixels && narrow_fits(g);
    int32_t oc = 0;
    int rc = 0;
    for (; small && oc + 4 <= c; oc += 4) {
        rc = narrow3x3(l, oc, 4, out_zp);
        if (rc == kNarrowTooWide) break;  // (an input zero point outside int8)
        if (rc) return rc;
    }
    rc = 0;
    for (; rc == 0 && oc + 4 <= c; oc += 4) rc = K3 ? block3x3<4>(l, oc, out_zp) : block<4>(l, oc, out_zp);
    // The last one to three channels of narrow rows (mostly edge pixels, which the 2- and 1-lane
    // blocks clip one by one), and the last two or three of a small call, on the copy; otherwise
    // the 2- and 1-lane blocks, whose inner pixels cost less than four lanes for one or two
    // channels (vww's 1-channel bands of 48-pixel rows at 512 B). A one-channel call in pairs
    // (block<1>) whatever its width: on the copy its one lane of four took ~200 instructions a
    // pixel on the Cortex-M4 (kws's one-channel bands of 25x5 at 320 B: 15.54M -> 13.42M).
    const bool narrow_rows = K3 && g.out_w <= kNarrowColumns && narrow_fits(g) && !(c - oc == 1 && pairs3x3_apply(g));
    if (rc == 0 && oc < c && ((small && c - oc >= 2) || narrow_rows)) {
        rc = narrow3x3(l, oc, c - oc, out_zp);
        if (rc != kNarrowTooWide) return rc;
        rc = 0;
    }
    if (rc == 0 && oc + 2 <= c) {
        rc = block<2>(l, oc, out_zp);
        oc += 2;
    }
    if (rc == 0 && oc < c) rc = block<1>(l, oc, out_zp);
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
