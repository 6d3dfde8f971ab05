// Conv (OHWI weights, groups), Depthwise (channel multiplier) and Conv1D, NHWC/NLC, with
// dilation, asymmetric pads and banded calls (geometry from kern::spatial_geometry).
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

struct ConvArgs {
    kern::SpatialGeom g;
    const float *in, *w, *b;
    float *out;
    uint8_t act;
    int32_t wc;  // depthwise: weight channels per tap (a channel band reads its share at w + chan0)
    // Conv: input channels [k0, k1) of each group are summed (every one, or an input-channel
    // band's); the buffer's channel 0 is global channel in_c0 (0, or the band's k0); icg is the
    // weights' channels per tap. first: start from the bias (else from the output's partial
    // sum); last: apply the activation (else store the partial sum).
    int32_t k0, k1, in_c0, icg;
    bool first, last;
};

// Conv channels are summed in aligned blocks of this many, blocks outermost, taps inside,
// the block's channels innermost: an input-channel band whose bounds are multiples of it (or
// the last channel) sums whole blocks, so its partial sums add up to the whole op's floats.
constexpr int32_t kConvChannelBlock = TIGRIS_CONV_CHANNEL_BLOCK;

// The inner loops below are called per pixel and channel block: inlined even at -Os (the
// Cortex-M build), where a call per tap costs more than its 16 multiply-adds.
#if defined(__GNUC__)
#  define TIGRIS_CONV_INLINE inline __attribute__((always_inline))
#else
#  define TIGRIS_CONV_INLINE inline
#endif

// The window taps [lo, hi) of one axis that fall inside the input: origin + k * d in [0, extent).
inline void tap_range(int32_t origin, int32_t k, int32_t d, int32_t extent, int32_t *lo, int32_t *hi)
{
    int32_t a = 0, b = k;
    if (origin < 0) a = (-origin + d - 1) / d;
    if (origin + (k - 1) * d >= extent) b = origin >= extent ? 0 : (extent - 1 - origin) / d + 1;
    *lo = a;
    *hi = b > a ? b : a;
}

// `count` channels of one tap (input at ip, weights at wp) added to `lanes` (1 or 4) sums,
// each in channel order. Four output channels share each input value; the weights of
// output channel k are at wp + k * w_stride.
TIGRIS_CONV_INLINE void tap_channels(const float *ip, const float *wp, int64_t w_stride, int32_t count, int32_t lanes,
                                     float *acc)
{
    int32_t c = 0;
    const int32_t c_end = count;
    if (lanes == 4) {
        const float *w1 = wp + w_stride, *w2 = w1 + w_stride, *w3 = w2 + w_stride;
        float s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
        // Four channels a step: one pointer update per step, immediate offsets for the loads
        // (the build is -Os, which does not unroll). Same order per sum.
        for (; c + 4 <= c_end; c += 4) {
            const float v0 = ip[c], v1 = ip[c + 1], v2 = ip[c + 2], v3 = ip[c + 3];
            s0 += v0 * wp[c];
            s0 += v1 * wp[c + 1];
            s0 += v2 * wp[c + 2];
            s0 += v3 * wp[c + 3];
            s1 += v0 * w1[c];
            s1 += v1 * w1[c + 1];
            s1 += v2 * w1[c + 2];
            s1 += v3 * w1[c + 3];
            s2 += v0 * w2[c];
            s2 += v1 * w2[c + 1];
            s2 += v2 * w2[c + 2];
            s2 += v3 * w2[c + 3];
            s3 += v0 * w3[c];
            s3 += v1 * w3[c + 1];
            s3 += v2 * w3[c + 2];
            s3 += v3 * w3[c + 3];
        }
        for (; c < c_end; ++c) {
            const float v = ip[c];
            s0 += v * wp[c];
            s1 += v * w1[c];
            s2 += v * w2[c];
            s3 += v * w3[c];
        }
        acc[0] = s0, acc[1] = s1, acc[2] = s2, acc[3] = s3;
    } else {
        float s0 = acc[0];
        for (; c < c_end; ++c) s0 += ip[c] * wp[c];
        acc[0] = s0;
    }
}

// One full block of 4 channels for 4 output channels over a window of rows x cols taps (the
// input of tap (kh, kw) at ip + kh * in_rs + kw * in_cs, its weights at wp + kh * w_rs + kw * icg,
// output channel k's at + k * w_stride): 16 multiply-adds a tap, each sum in tap order, the
// block's channels innermost (tap_channels' order for one tap).
TIGRIS_CONV_INLINE void block4_taps(const float *ip, int64_t in_rs, int64_t in_cs, const float *wp, int64_t w_rs,
                                    int64_t icg, int64_t w_stride, int32_t rows, int32_t cols, float *acc)
{
    float s0 = acc[0], s1 = acc[1], s2 = acc[2], s3 = acc[3];
    for (int32_t kh = 0; kh < rows; ++kh, ip += in_rs, wp += w_rs) {
        const float *xp = ip, *w0 = wp;
        for (int32_t kw = 0; kw < cols; ++kw, xp += in_cs, w0 += icg) {
            const float *w1 = w0 + w_stride, *w2 = w1 + w_stride, *w3 = w2 + w_stride;
            const float v0 = xp[0], v1 = xp[1], v2 = xp[2], v3 = xp[3];
            s0 += v0 * w0[0];
            s0 += v1 * w0[1];
            s0 += v2 * w0[2];
            s0 += v3 * w0[3];
            s1 += v0 * w1[0];
            s1 += v1 * w1[1];
            s1 += v2 * w1[2];
            s1 += v3 * w1[3];
            s2 += v0 * w2[0];
            s2 += v1 * w2[1];
            s2 += v2 * w2[2];
            s2 += v3 * w2[3];
            s3 += v0 * w3[0];
            s3 += v1 * w3[1];
            s3 += v2 * w3[2];
            s3 += v3 * w3[3];
        }
    }
    acc[0] = s0, acc[1] = s1, acc[2] = s2, acc[3] = s3;
}

// Conv / Conv1D: weight [OC, KH, KW, IC/group]. Up to four output channels of one group are
// summed together (each input value read once for all four). Each sum: the bias, then the
// input channels in aligned blocks of kConvChannelBlock, for each block the taps row by row
// and the block's channels innermost (docs/operators.md). A pixel whose window holds one tap
// inside the input sums its channels in order, which is the same order.
void conv_pixel(const ConvArgs &a, int32_t n, int32_t r, int32_t x, int32_t groups)
{
    const kern::SpatialGeom &g = a.g;
    const int32_t icg = a.icg, ocg = g.c_out / groups;
    const int32_t iy0 = r * g.s_h - g.pad_top, ix0 = x * g.s_w - g.pad_left;
    int32_t ky_lo, ky_hi, kx_lo, kx_hi;
    tap_range(iy0, g.k_h, g.d_h, g.in_h, &ky_lo, &ky_hi);
    tap_range(ix0, g.k_w, g.d_w, g.in_w, &kx_lo, &kx_hi);
    const bool one_tap = ky_hi - ky_lo == 1 && kx_hi - kx_lo == 1;
    const float *in_n = a.in + n * g.in_batch + (int64_t)g.in_row_start * g.in_row;
    float *o = a.out + n * g.out_batch + (int64_t)(g.out_row_start + r) * g.out_row + (int64_t)x * g.c_out;
    const int64_t w_stride = (int64_t)g.k_h * g.k_w * icg;
    for (int32_t oc = 0; oc < g.c_out;) {
        const int32_t group_end = (oc / ocg + 1) * ocg;
        const int32_t lanes = oc + 4 <= group_end ? 4 : 1;
        const int32_t c0 = (oc / ocg) * icg - a.in_c0;  // the buffer's index of the group's channel 0
        const float *w_oc = a.w + (int64_t)oc * w_stride;
        float acc[4];
        for (int32_t k = 0; k < lanes; ++k) acc[k] = a.first ? (a.b ? a.b[oc + k] : 0.0f) : o[oc + k];
        if (one_tap) {
            const int32_t iy = iy0 + ky_lo * g.d_h, ix = ix0 + kx_lo * g.d_w;
            tap_channels(in_n + iy * g.in_row + (int64_t)ix * g.c_in + c0 + a.k0,
                         w_oc + ((int64_t)ky_lo * g.k_w + kx_lo) * icg + a.k0, w_stride, a.k1 - a.k0, lanes, acc);
        } else {
            const int64_t in_rs = (int64_t)g.d_h * g.in_row, in_cs = (int64_t)g.d_w * g.c_in;
            for (int32_t cb = a.k0; cb < a.k1;) {
                int32_t ce = (cb / kConvChannelBlock + 1) * kConvChannelBlock;
                if (ce > a.k1) ce = a.k1;
                if (lanes == 4 && ce - cb == 4) {  // the common case, registers across the window
                    block4_taps(
                        in_n + (iy0 + ky_lo * g.d_h) * g.in_row + (int64_t)(ix0 + kx_lo * g.d_w) * g.c_in + c0 + cb,
                        in_rs, in_cs, w_oc + ((int64_t)ky_lo * g.k_w + kx_lo) * icg + cb, (int64_t)g.k_w * icg, icg,
                        w_stride, ky_hi - ky_lo, kx_hi - kx_lo, acc);
                    cb = ce;
                    continue;
                }
                for (int32_t kh = ky_lo; kh < ky_hi; ++kh) {
                    const float *in_row = in_n + (iy0 + kh * g.d_h) * g.in_row + c0 + cb;
                    const float *w_row = w_oc + (int64_t)kh * g.k_w * icg + cb;
                    for (int32_t kw = kx_lo; kw < kx_hi; ++kw)
                        tap_channels(in_row + (int64_t)(ix0 + kw * g.d_w) * g.c_in, w_row + (int64_t)kw * icg, w_stride,
                                     ce - cb, lanes, acc);
                }
                cb = ce;
            }
        }
        for (int32_t k = 0; k < lanes; ++k) o[oc + k] = a.last ? fused(acc[k], a.act) : acc[k];
        oc += lanes;
    }
}

// Depthwise: weight [KH, KW, C*mult]; output channel oc reads input channel oc / mult. Each
// output is the bias plus the taps row by row, as the plain loop adds them.
void depthwise_pixel(const ConvArgs &a, int32_t n, int32_t r, int32_t x)
{
    const kern::SpatialGeom &g = a.g;
    const int32_t mult = g.c_out / g.c_in;
    const int32_t iy0 = r * g.s_h - g.pad_top, ix0 = x * g.s_w - g.pad_left;
    int32_t ky_lo, ky_hi, kx_lo, kx_hi;
    tap_range(iy0, g.k_h, g.d_h, g.in_h, &ky_lo, &ky_hi);
    tap_range(ix0, g.k_w, g.d_w, g.in_w, &kx_lo, &kx_hi);
    const float *in_n = a.in + n * g.in_batch + (int64_t)g.in_row_start * g.in_row;
    float *o = a.out + n * g.out_batch + (int64_t)(g.out_row_start + r) * g.out_row + (int64_t)x * g.c_out;
    int32_t oc = 0;
    if (mult == 1) {
        // Four channels held in registers across the window.
        for (; oc + 4 <= g.c_out; oc += 4) {
            float s0 = a.b ? a.b[oc] : 0.0f, s1 = a.b ? a.b[oc + 1] : 0.0f;
            float s2 = a.b ? a.b[oc + 2] : 0.0f, s3 = a.b ? a.b[oc + 3] : 0.0f;
            for (int32_t kh = ky_lo; kh < ky_hi; ++kh) {
                const float *row = in_n + (iy0 + kh * g.d_h) * g.in_row + oc;
                const float *wrow = a.w + (int64_t)kh * g.k_w * a.wc + oc;
                for (int32_t kw = kx_lo; kw < kx_hi; ++kw) {
                    const float *ip = row + (int64_t)(ix0 + kw * g.d_w) * g.c_in;
                    const float *wp = wrow + (int64_t)kw * a.wc;
                    s0 += ip[0] * wp[0];
                    s1 += ip[1] * wp[1];
                    s2 += ip[2] * wp[2];
                    s3 += ip[3] * wp[3];
                }
            }
            o[oc] = fused(s0, a.act);
            o[oc + 1] = fused(s1, a.act);
            o[oc + 2] = fused(s2, a.act);
            o[oc + 3] = fused(s3, a.act);
        }
    }
    for (; oc < g.c_out; ++oc) {
        const int32_t ic = oc / mult;
        float s = a.b ? a.b[oc] : 0.0f;
        for (int32_t kh = ky_lo; kh < ky_hi; ++kh) {
            const int32_t iy = iy0 + kh * g.d_h;
            for (int32_t kw = kx_lo; kw < kx_hi; ++kw) {
                const int32_t ix = ix0 + kw * g.d_w;
                s += in_n[iy * g.in_row + (int64_t)ix * g.c_in + ic] * a.w[((int64_t)kh * g.k_w + kw) * a.wc + oc];
            }
        }
        o[oc] = fused(s, a.act);
    }
}

// An input-channel band of a 1x1 Conv (chan_partial): pixels [r0, r0 + rows) x input
// channels [k0, k0 + kc) packed in `in`, their products added to the output block `o` (those
// pixels x every output channel, packed). conv_pixel's order for one tap: the bias first,
// then channels 0 up; the partial sum is stored between bands as a float (a store and load
// round nothing), so the last band leaves conv_pixel's floats, then the activation.
int conv1x1_partial(const Call &c, const float *in, float *o, const float *w, const float *b)
{
    const tigris_tile_ctx_t &t = c.tile();
    const tigris_tensor_t &x = c.in(0), &y = c.out(0);
    if (x.ndim != 4 || y.ndim != 4 || t.chan_mix) return -1;
    const int32_t *xs = c.shape(x), *ys = c.shape(y);
    const int64_t pixels = (int64_t)xs[0] * xs[1] * xs[2];
    const int32_t ic = xs[3], oc = ys[3];
    const int32_t r0 = t.out_row_start, rows = t.out_h, k0 = t.chan0, kc = t.chans;
    if (r0 < 0 || rows < 1 || r0 + (int64_t)rows > pixels || k0 < 0 || kc < 1 || k0 + kc > ic) return -1;
    for (int32_t r = 0; r < rows; ++r) {
        const float *xp = in + (int64_t)r * kc;
        float *yp = o + (int64_t)r * oc;
        for (int32_t j = 0; j < oc; ++j) {
            float acc = t.reduce_first ? (b ? b[j] : 0.0f) : yp[j];
            const float *wr = w + (int64_t)j * ic + k0;
            for (int32_t k = 0; k < kc; ++k) acc += xp[k] * wr[k];
            yp[j] = t.reduce_last ? fused(acc, c.op->fused_act) : acc;
        }
    }
    return 0;
}

}  // namespace

int conv(const Call &c)
{
    const bool partial = c.tiled() && c.tile().chan_tiled && c.tile().chan_partial;
    if (partial && (c.op->op_type != TIGRIS_OP_CONV || c.op->spatial.group > 1 || c.tile().chan_mix)) return -1;
    if (partial && c.tile().row_tiled) {  // a 1x1 Conv over the pixel matrix
        const float *in = reinterpret_cast<const float *>(c.in_ptr(0));
        float *o = reinterpret_cast<float *>(c.out_ptr(0));
        const float *w = static_cast<const float *>(c.weight());
        if (in == nullptr || o == nullptr || w == nullptr) return -1;
        return conv1x1_partial(c, in, o, w, static_cast<const float *>(c.bias()));
    }
    ConvArgs a;
    if (kern::spatial_geometry(c, &a.g) != 0) return -1;
    a.in = reinterpret_cast<const float *>(c.in_ptr(0));
    a.out = reinterpret_cast<float *>(c.out_ptr(0));
    a.w = static_cast<const float *>(c.weight());
    a.b = static_cast<const float *>(c.bias());
    a.act = c.op->fused_act;
    a.first = a.last = true;
    if (a.in == nullptr || a.out == nullptr || a.w == nullptr) return -1;
    bool dw = c.op->op_type == TIGRIS_OP_DEPTHWISE;
    int32_t groups = c.op->spatial.group == 0 ? 1 : c.op->spatial.group;
    if (partial) {
        // Input channels [chan0, chan0 + chans) of rows of the output (CHANNELS mode INPUT, a
        // KxK window): the band's bounds must cut the sums between channel blocks.
        const tigris_tensor_t &x = c.in(0);
        const int32_t ic = c.shape(x)[x.ndim - 1], k1 = a.g.chan0 + a.g.c_in;
        if (a.g.c_out != c.shape(c.out(0))[c.out(0).ndim - 1]) return -1;
        if ((a.g.k_h > 1 || a.g.k_w > 1) &&
            (a.g.chan0 % kConvChannelBlock != 0 || (k1 % kConvChannelBlock != 0 && k1 != ic)))
            return -1;
        a.k0 = a.in_c0 = a.g.chan0;
        a.k1 = k1;
        a.icg = ic;
        a.first = c.tile().reduce_first != 0;
        a.last = c.tile().reduce_last != 0;
        for (int32_t n = 0; n < a.g.n; ++n)
            for (int32_t r = 0; r < a.g.out_h; ++r)
                for (int32_t x = 0; x < a.g.out_w; ++x) conv_pixel(a, n, r, x, 1);
        return 0;
    }
    if (dw ? (a.g.c_out % a.g.c_in != 0) : (a.g.c_in % groups != 0 || a.g.c_out % groups != 0)) return -1;
    a.wc = a.g.c_out;
    a.k0 = a.in_c0 = 0;
    a.k1 = a.icg = a.g.c_in / groups;
    if (a.g.chan0 != 0 || a.g.c_out != c.shape(c.out(0))[c.out(0).ndim - 1]) {  // a channel band
        if (!dw && (groups != 1 || !c.tiled() || !c.tile().chan_mix)) return -1;
        a.wc = c.shape(c.out(0))[c.out(0).ndim - 1];
        // Depthwise: weights [KH, KW, C] read at w + chan0; Conv: rows [chan0, ...) of [OC, KH, KW, IC].
        a.w += dw ? (int64_t)a.g.chan0 : (int64_t)a.g.chan0 * a.g.k_h * a.g.k_w * a.g.c_in;
        if (a.b) a.b += a.g.chan0;
    }
    for (int32_t n = 0; n < a.g.n; ++n)
        for (int32_t r = 0; r < a.g.out_h; ++r)
            for (int32_t x = 0; x < a.g.out_w; ++x) {
                if (dw) depthwise_pixel(a, n, r, x);
                else conv_pixel(a, n, r, x, groups);
            }
    return 0;
}

}  // namespace f32
}  // namespace tigris_rt
