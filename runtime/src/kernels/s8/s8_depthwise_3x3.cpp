// The depthwise kernel's 3x3 windows (s8_depthwise_parts.h): nine tables per block of four
// channels, so edge pixels run the same unrolled taps as inner ones (block3x3), and calls of few
// pixels or channels on a zero-point-padded copy of their input (narrow3x3).
#include "kernels/s8/s8_depthwise_parts.h"

namespace tigris_s8 {
namespace dw_m1 {
namespace detail {

namespace {

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

}  // namespace

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

namespace {

// ---- Narrow 3x3 blocks and small calls -------------------------------------------------
// Calls of few pixels (a small band, mostly edge pixels): their blocks of four, and their last two
// or three channels, go through the 4-lane taps on a copy of their input (instead of nine tables
// per block, or the 2- and 1-lane blocks' clipped edge pixels): a stack buffer of 4 bytes per pixel with
// the padding filled with the input zero point (so padding taps add w * (zp + offset) = 0) and
// every window inside it, so all pixels run the nine taps with one table; lanes past the
// block's channels have zero weights. Chunks of output rows whose input fits the buffer, one
// after the other.
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

}  // namespace

int narrow3x3(const Layer &l, int32_t oc, int32_t nch, int32_t out_zp)
{
    const kern::SpatialGeom &g = *l.g;
    const int32_t zp = -l.in_offset;
    const int32_t cols = (g.out_w - 1) * g.s_w + 2 * g.d_w + 1, row_bytes = 4 * cols;
    if (nch < 1 || nch > 4) return kError;
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

template int block3x3<4>(const Layer &l, int32_t oc, int32_t out_zp);

}  // namespace detail
}  // namespace dw_m1
}  // namespace tigris_s8
