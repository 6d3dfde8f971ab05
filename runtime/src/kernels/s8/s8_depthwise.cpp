// Depthwise convolution of channel multiplier 1 (s8_depthwise.h): blocks of 4, 2 or 1 adjacent
// channels over every pixel of the call. With the DSP extension one word of input gives four
// channels as two int16 pairs (SXTB16, or SXTAB16 with the input offset added on the way),
// multiplied with the block's pre-widened weight pairs (SMLABB / SMLATT); without it the same
// lane operations run in plain C, so host tests exercise the same packing, tables, copies, edges
// and requantization. This file: blocks of any window, one-channel pairs and each call's plan of
// blocks; the 3x3 tables and the narrow copy in s8_depthwise_3x3.cpp; shared parts in
// s8_depthwise_parts.h.
#include "kernels/s8/s8_depthwise_parts.h"

namespace tigris_s8 {
namespace dw_m1 {
namespace detail {

int lane_q(const Layer &l, int32_t ch, ChannelQ *q)
{
    int shift = 0;
    int32_t m = 0;
    if (!output_requant(l.plan, *l.out, ch, &m, &shift)) return kError;
    return channel_q(m, shift, l.bias ? rd_i32(l.bias + 4 * ch) : 0, q) ? 0 : kGeneric;
}

void inner_columns(const kern::SpatialGeom &g, int32_t *lo, int32_t *hi)
{
    const int32_t span = (g.k_w - 1) * g.d_w;
    const int32_t first = (g.pad_left + g.s_w - 1) / g.s_w;
    const int32_t last = g.in_w - 1 - span + g.pad_left;  // x0 + span <= in_w - 1
    *lo = first < g.out_w ? first : g.out_w;
    *hi = last < 0 ? 0 : (last / g.s_w + 1 < g.out_w ? last / g.s_w + 1 : g.out_w);
    if (*hi < *lo) *hi = *lo;
}

}  // namespace detail

namespace {

using namespace detail;

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
