// int8 convolution through an int16 im2col buffer of two pixels (s8_conv_im2col.h).
// Window value k of a pixel is (x + in_offset) at tap (ky, kx), input channel ci, with
// k = (ky * k_w + kx) * c_in + ci (the weights' order), K values in all, padded with zeros to
// whole blocks of four: block b of pixel slot s is words 4b + 2s ((k0, k2) as int16 pairs) and
// 4b + 2s + 1 ((k1, k3)), the lanes SXTB16 gives for one weight word and for it rotated by
// 8 bits. The last, partial block (K % 4 values) meets a weight word assembled from its bytes,
// so no weight past a row is read.
#include "kernels/s8/s8_conv_im2col.h"

#include <stddef.h>
#include <string.h>

#include "kernels/s8/s8_dot.h"
#include "kernels/s8/s8_lanes.h"
#include "kernels/s8/s8_requant.h"

// Run per tap and per four products: inlined even at -Os (the Cortex-M build), where a call
// would cost more than the work and would spill the accumulators.
#if defined(__GNUC__)
#  define TIGRIS_IM2COL_INLINE    inline __attribute__((always_inline))
#  define TIGRIS_IM2COL_UNROLL(n) _Pragma(TIGRIS_IM2COL_STR(GCC unroll n))
#  define TIGRIS_IM2COL_STR(x)    #  x
#else
#  define TIGRIS_IM2COL_INLINE inline
#  define TIGRIS_IM2COL_UNROLL(n)
#endif

namespace tigris_s8 {
namespace im2col {
namespace {

using tigris_rt::kern::SpatialGeom;

// Lane operations on int16 pairs held in a word (s8_lanes.h).
using lanes::add_s8;
using lanes::dual_mla;
using lanes::ror8;

// The buffer of two pixel slots.
struct Layout {
    uint32_t *words;
    int32_t k;       // window values K
    int32_t blocks;  // ceil(K / 4)
    uint32_t off;    // (in_offset, in_offset) as int16 halves
};

// Window value k of slot s (already offset, or 0 for a padded tap).
TIGRIS_IM2COL_INLINE void put1(const Layout &l, int s, int32_t k, int32_t v)
{
    const int16_t h = (int16_t)v;
    const size_t at = (size_t)(4 * (k >> 2) + 2 * s + (k & 1)) * 2 + (size_t)((k >> 1) & 1);
    memcpy((uint8_t *)l.words + 2 * at, &h, 2);
}

// Both words of a block's slot (8-aligned: one STRD on the Cortex-M).
TIGRIS_IM2COL_INLINE void store_pair(uint32_t *d, uint32_t even, uint32_t odd)
{
#if defined(TIGRIS_S8_DSP)
    *(uint64_t *)__builtin_assume_aligned(d, 8) = (uint64_t)even | ((uint64_t)odd << 32);
#else
    d[0] = even;
    d[1] = odd;
#endif
}

// Window values [k, k + r) of slot s from r contiguous input values: whole blocks one word
// of input at a time.
void put_run(const Layout &l, int s, int32_t k, const int8_t *src, int32_t r)
{
    const uint32_t off = l.off;  // a local: the stores below could alias l
    const int32_t off1 = (int16_t)(off & 0xFFFFu);
    for (; r > 0 && (k & 3) != 0; k++, r--) put1(l, s, k, *src++ + off1);
    uint32_t *d = l.words + 4 * (k >> 2) + 2 * s;
    for (int32_t n = r >> 2; n > 0; n--, src += 4, d += 4) {
        const uint32_t v = load4(src);
        store_pair(d, add_s8(off, v), add_s8(off, ror8(v)));
    }
    k += r & ~3;
    for (r &= 3; r > 0; k++, r--) put1(l, s, k, *src++ + off1);
}

// Window values [k, k + r) of slot s are padding: 0.
void zero_run(const Layout &l, int s, int32_t k, int32_t r)
{
    for (; r > 0 && (k & 3) != 0; k++, r--) put1(l, s, k, 0);
    uint32_t *d = l.words + 4 * (k >> 2) + 2 * s;
    for (int32_t n = r >> 2; n > 0; n--, d += 4) store_pair(d, 0, 0);
    k += r & ~3;
    for (r &= 3; r > 0; k++, r--) put1(l, s, k, 0);
}

// The taps [lo, hi) of one window axis that fall inside the input: origin + t * d in [0, extent).
TIGRIS_IM2COL_INLINE void clip_taps(int32_t origin, int32_t k, int32_t d, int32_t extent, int32_t *lo, int32_t *hi)
{
    int32_t a = 0, b = k;
    if (origin < 0) a = (-origin + d - 1) / d;
    if (origin + (k - 1) * d >= extent) b = origin >= extent ? 0 : (extent - 1 - origin) / d + 1;
    if (a > k) a = k;
    *lo = a;
    *hi = b > a ? b : a;
}

// The window of output pixel (oy, ox) into slot s; xn is the image's first buffer row.
void gather(const SpatialGeom &g, const Layout &l, int s, const int8_t *xn, int32_t oy, int32_t ox)
{
    const int32_t y0 = oy * g.s_h - g.pad_top, x0 = ox * g.s_w - g.pad_left, ic = g.c_in, row = g.k_w * ic;
    int32_t lo, hi;
    clip_taps(x0, g.k_w, g.d_w, g.in_w, &lo, &hi);
    for (int32_t ky = 0, k = 0; ky < g.k_h; ky++, k += row) {
        const int32_t iy = y0 + ky * g.d_h;
        if (iy < 0 || iy >= g.in_h) {
            zero_run(l, s, k, row);
            continue;
        }
        const int8_t *src = xn + (ptrdiff_t)iy * g.in_row;
        if (g.d_w == 1) {  // the row's taps inside the input are one run
            if (lo > 0) zero_run(l, s, k, lo * ic);
            put_run(l, s, k + lo * ic, src + (ptrdiff_t)(x0 + lo) * ic, (hi - lo) * ic);
            if (hi < g.k_w) zero_run(l, s, k + hi * ic, (g.k_w - hi) * ic);
            continue;
        }
        for (int32_t kx = 0; kx < g.k_w; kx++) {
            if (kx < lo || kx >= hi) zero_run(l, s, k + kx * ic, ic);
            else put_run(l, s, k + kx * ic, src + (ptrdiff_t)(x0 + kx * g.d_w) * ic, ic);
        }
    }
}

// Windows of at most this many values (whole blocks) whose runs do not start on a block (c_in
// not a multiple of 4: the first convolutions of image and audio models, c_in 1 or 3) are
// first copied as bytes into a stack row, padding as the input zero point (x + in_offset = 0),
// then widened a word at a time; larger ones take put_run's value-at-a-time edges.
constexpr int32_t kStageBytes = 128;

// Short byte runs, a word at a time and the last 2 and 1 bytes as such (a byte loop here
// became a memcpy / memset call per run at -Os).
TIGRIS_IM2COL_INLINE void copy_bytes(int8_t *d, const int8_t *src, int32_t n)
{
    for (; n >= 4; n -= 4, d += 4, src += 4) memcpy(d, src, 4);
    if (n & 2) {
        memcpy(d, src, 2);
        d += 2;
        src += 2;
    }
    if (n & 1) *d = *src;
}

TIGRIS_IM2COL_INLINE void fill_bytes(int8_t *d, uint32_t pad4, int32_t n)
{
    for (; n >= 4; n -= 4, d += 4) memcpy(d, &pad4, 4);
    if (n & 2) {
        memcpy(d, &pad4, 2);
        d += 2;
    }
    if (n & 1) *d = (int8_t)pad4;
}

// gather() through the stack row; pad is the input zero point.
void gather_staged(const SpatialGeom &g, const Layout &l, int s, const int8_t *xn, int32_t oy, int32_t ox, int8_t pad)
{
    alignas(4) int8_t row_bytes[kStageBytes];
    const uint32_t pad4 = (uint32_t)(uint8_t)pad * 0x01010101u;
    memcpy(row_bytes + 4 * (l.blocks - 1), &pad4, 4);  // the last block's padding (0 once offset)
    const int32_t y0 = oy * g.s_h - g.pad_top, x0 = ox * g.s_w - g.pad_left, ic = g.c_in, row = g.k_w * ic;
    int32_t lo, hi;
    clip_taps(x0, g.k_w, g.d_w, g.in_w, &lo, &hi);
    int8_t *st = row_bytes;
    for (int32_t ky = 0; ky < g.k_h; ky++, st += row) {
        const int32_t iy = y0 + ky * g.d_h;
        if (iy < 0 || iy >= g.in_h) {
            fill_bytes(st, pad4, row);
            continue;
        }
        const int8_t *src = xn + (ptrdiff_t)iy * g.in_row;
        if (g.d_w == 1) {
            if (lo > 0) fill_bytes(st, pad4, lo * ic);
            copy_bytes(st + lo * ic, src + (ptrdiff_t)(x0 + lo) * ic, (hi - lo) * ic);
            if (hi < g.k_w) fill_bytes(st + hi * ic, pad4, (g.k_w - hi) * ic);
            continue;
        }
        for (int32_t kx = 0; kx < g.k_w; kx++) {
            if (kx < lo || kx >= hi) fill_bytes(st + kx * ic, pad4, ic);
            else copy_bytes(st + kx * ic, src + (ptrdiff_t)(x0 + kx * g.d_w) * ic, ic);
        }
    }
    const uint32_t off = l.off;
    uint32_t *d = l.words + 2 * s;
    for (int32_t b = 0; b < l.blocks; b++, d += 4) {
        const uint32_t v = load4(row_bytes + 4 * b);
        store_pair(d, add_s8(off, v), add_s8(off, ror8(v)));
    }
}

// Sums of two output channels (weight rows wa, wb) over the two slots: a0 += wa . slot 0,
// a1 += wa . slot 1, b0 += wb . slot 0, b1 += wb . slot 1.
struct Sums {
    int32_t a0, a1, b0, b1;
};

// Two words of the buffer (one LDRD on the Cortex-M: the buffer is 8-aligned).
TIGRIS_IM2COL_INLINE void load_pair(const uint32_t *p, uint32_t *lo, uint32_t *hi)
{
#if defined(TIGRIS_S8_DSP)
    const uint64_t v = *(const uint64_t *)__builtin_assume_aligned(p, 8);
    *lo = (uint32_t)v;  // little-endian: the word at p
    *hi = (uint32_t)(v >> 32);
#else
    *lo = p[0];
    *hi = p[1];
#endif
}

// One block of four window values of the P slots (2, or 1 for a lone pixel) against weight
// words va, vb of the two channels: 8 P products.
template <int P>
TIGRIS_IM2COL_INLINE void mac_block(const uint32_t *xw, uint32_t va, uint32_t vb, int32_t &a0, int32_t &a1, int32_t &b0,
                                    int32_t &b1)
{
    const uint32_t ae = lanes::s8(va), ao = lanes::s8(ror8(va)), be = lanes::s8(vb), bo = lanes::s8(ror8(vb));
    uint32_t lo, hi;
    load_pair(xw, &lo, &hi);
    a0 = dual_mla(lo, ae, a0);
    b0 = dual_mla(lo, be, b0);
    a0 = dual_mla(hi, ao, a0);
    b0 = dual_mla(hi, bo, b0);
    if (P == 1) return;
    load_pair(xw + 2, &lo, &hi);
    a1 = dual_mla(lo, ae, a1);
    b1 = dual_mla(lo, be, b1);
    a1 = dual_mla(hi, ao, a1);
    b1 = dual_mla(hi, bo, b1);
}

// A whole block, weights at wa and wa + k; xw and wa move past it.
template <int P>
TIGRIS_IM2COL_INLINE void block(const uint32_t *&xw, const int8_t *&wa, int32_t k, int32_t &a0, int32_t &a1,
                                int32_t &b0, int32_t &b1)
{
    mac_block<P>(xw, load4(wa), load4(wa + k), a0, a1, b0, b1);
    wa += 4;
    xw += 4;
}

// The first n (1..3) weights of a row as a word, zero above.
TIGRIS_IM2COL_INLINE uint32_t partial_word(const int8_t *w, int32_t n)
{
    uint32_t v = (uint8_t)w[0];
    if (n > 1) v |= (uint32_t)(uint8_t)w[1] << 8;
    if (n > 2) v |= (uint32_t)(uint8_t)w[2] << 16;
    return v;
}

// The hot loop, a function of its own so that its registers are allocated apart from the
// caller's (inlined into the pixel loop at -Os, the accumulators spilled): channel b's weights
// at wa + k, eight blocks a pass (the loop's own instructions then cost 5%), then the partial
// block of `tail` values. The four sums, three pointers, the pass counter and a block's six
// operands take all 14 registers: `acc` is kept on the stack (volatile) across the loop, else
// the compiler keeps it in a register and spills the counter on every pass.
template <int P>
#if defined(__GNUC__)
__attribute__((noinline))
#endif
void dot_blocks(const uint32_t *xw, const int8_t *wa, int32_t k, int32_t blocks, int32_t tail, Sums *acc)
{
    Sums *volatile out = acc;
    int32_t a0 = acc->a0, a1 = acc->a1, b0 = acc->b0, b1 = acc->b1;
    for (int32_t n = blocks >> 3; n > 0; n--) {
        TIGRIS_IM2COL_UNROLL(8)
        for (int i = 0; i < 8; i++) block<P>(xw, wa, k, a0, a1, b0, b1);
    }
    if (blocks & 4) {
        TIGRIS_IM2COL_UNROLL(4)
        for (int i = 0; i < 4; i++) block<P>(xw, wa, k, a0, a1, b0, b1);
    }
    for (int32_t n = blocks & 3; n > 0; n--) block<P>(xw, wa, k, a0, a1, b0, b1);
    if (tail) mac_block<P>(xw, partial_word(wa, tail), partial_word(wa + k, tail), a0, a1, b0, b1);
    Sums *const res = out;
    res->a0 = a0, res->a1 = a1, res->b0 = b0, res->b1 = b1;
}

// The outputs of channels oc and ob for the P slots from their sums: factors prepared
// (run() checked them) and applied. A function of its own, flattened (channel_q and the
// requantization inlined at -Os), so that the channel loop and this keep their values in
// registers; ob == oc for a lone last channel (the same byte stored twice).
template <int P>
#if defined(__GNUC__)
__attribute__((flatten, noinline))
#endif
void emit(const Conv &c, int32_t oc, int32_t ob, const Sums &acc, int8_t *ya, int8_t *yb)
{
    const int32_t step = c.factor_step, zp = c.out_offset, lo = c.act_min, hi = c.act_max;
    ChannelQ qa, qb;
    if (!channel_q(c.mult[oc * step], c.shift[oc * step], 0, &qa) ||
        !channel_q(c.mult[ob * step], c.shift[ob * step], 0, &qb))
        return;  // not reached: run() or its caller checked every channel's factors
    const int8_t a0 = requant_s8(acc.a0, qa, zp, lo, hi), b0 = requant_s8(acc.b0, qb, zp, lo, hi);
    ya[oc] = a0;
    ya[ob] = b0;
    if (P == 1) return;
    const int8_t a1 = requant_s8(acc.a1, qa, zp, lo, hi), b1 = requant_s8(acc.b1, qb, zp, lo, hi);
    yb[oc] = a1;
    yb[ob] = b1;
}

// Every output channel of the P gathered pixels, into ya (slot 0) and yb (slot 1, P == 2; a
// lone pixel, P == 1, takes half the products), two channels at a time.
template <int P>
void channel_pairs(const Conv &c, const Layout &l, int8_t *ya, int8_t *yb)
{
    const int32_t oc_n = c.g->c_out, K = l.k, whole = K >> 2, tail = K & 3;
    const int32_t *bias = c.bias;
    for (int32_t oc = 0; oc < oc_n; oc += 2) {
        const int32_t ob = oc + 1 < oc_n ? oc + 1 : oc;
        const int8_t *wa = c.w + (ptrdiff_t)oc * K;
        Sums acc;
        acc.a0 = acc.a1 = bias ? bias[oc] : 0;
        acc.b0 = acc.b1 = bias ? bias[ob] : 0;
        dot_blocks<P>(l.words, wa, (ob - oc) * K, whole, tail, &acc);
        emit<P>(c, oc, ob, acc, ya, yb);
    }
}

bool geometry_ok(const SpatialGeom &g)
{
    return g.n >= 1 && g.c_in >= 1 && g.c_out >= 1 && g.in_h >= 1 && g.in_w >= 1 && g.out_h >= 1 && g.out_w >= 1 &&
           g.k_h >= 1 && g.k_w >= 1 && g.s_h >= 1 && g.s_w >= 1 && g.d_h >= 1 && g.d_w >= 1 &&
           (int64_t)g.c_in * g.k_h * g.k_w <= 0x3FFFFFFF && (int64_t)g.out_h * g.out_w <= 0x7FFFFFFF;
}

}  // namespace

int64_t buffer_bytes(const SpatialGeom &g) { return 16 * (((int64_t)g.c_in * g.k_h * g.k_w + 3) / 4); }

int run(const Conv &c, void *buffer, int64_t buffer_size)
{
    const SpatialGeom &g = *c.g;
    if (!geometry_ok(g) || buffer == nullptr || ((uintptr_t)buffer & 7u) != 0 || buffer_size < buffer_bytes(g))
        return kRefused;
    for (int32_t oc = 0; !c.factors_checked && oc < g.c_out; oc++) {
        ChannelQ q;
        if (!channel_q(c.mult[oc * c.factor_step], c.shift[oc * c.factor_step], 0, &q)) return kRefused;
    }
    const int32_t K = g.c_in * g.k_h * g.k_w, pixels = g.out_h * g.out_w;
    const uint32_t o = (uint32_t)c.in_offset & 0xFFFFu;
    const Layout l{(uint32_t *)buffer, K, (K + 3) >> 2, o | (o << 16)};
    const bool staged = g.c_in % 4 != 0 && 4 * l.blocks <= kStageBytes;
    const int8_t pad = (int8_t)-c.in_offset;                                        // the input zero point
    for (int32_t k = K; k < 4 * l.blocks; k++) put1(l, 0, k, 0), put1(l, 1, k, 0);  // gather() leaves these
    for (int32_t n = 0; n < g.n; n++) {
        const int8_t *xn = c.x + n * g.in_batch + (ptrdiff_t)g.in_row_start * g.in_row;
        int8_t *yn = c.y + n * g.out_batch + (ptrdiff_t)g.out_row_start * g.out_row;
        for (int32_t p = 0; p < pixels; p += 2) {
            const int32_t ay = p / g.out_w, ax = p % g.out_w;
            int8_t *ya = yn + (ptrdiff_t)ay * g.out_row + (ptrdiff_t)ax * g.c_out;
            if (staged) gather_staged(g, l, 0, xn, ay, ax, pad);
            else gather(g, l, 0, xn, ay, ax);
            if (p + 1 == pixels) {  // a lone last pixel
                channel_pairs<1>(c, l, ya, ya);
                break;
            }
            const int32_t by = (p + 1) / g.out_w, bx = (p + 1) % g.out_w;
            if (staged) gather_staged(g, l, 1, xn, by, bx, pad);
            else gather(g, l, 1, xn, by, bx);
            channel_pairs<2>(c, l, ya, yn + (ptrdiff_t)by * g.out_row + (ptrdiff_t)bx * g.c_out);
        }
    }
    return 0;
}

}  // namespace im2col
}  // namespace tigris_s8
