// int8 CONV_2D (and CONV1D), DEPTHWISE_CONV_2D and FULLY_CONNECTED, as TFLite's
// reference integer kernels compute them:
//   acc = sum w * (x - in_zp) [+ bias]         (int32, wrapping)
//   y   = clamp(MBQM(acc, m[c], s[c]) + out_zp, act_min, act_max)
// Taps outside the input (padding) are skipped. (m[c], s[c]) are the per-channel (or
// per-tensor) factors the compiler stored on the output tensor's quant param. A depthwise
// in a channel band (chan_tiled) computes channels [chan0, chan0 + chans) and reads the
// weights, biases and factors of those global channels; so does a convolution of one group
// in an output-channel band (chan_mix), from every input channel.
//
// The loops are arranged for a microcontroller: output channels outermost (two at a time for
// convolutions and fully connected layers, four adjacent ones for depthwise), their factors
// read once; the window clipped to the input once per output position, so that each window
// row is one contiguous run of int8 values in both input and weights (s8_dot.h sums it).
// A 1x1 convolution (stride 1, unpadded, one group) and a fully connected layer are one matrix
// product (s8_matmul.h: four channels per block, the block's weights widened once for its rows).
#include <stddef.h>

#include "kernels/s8/s8_depthwise.h"
#include "kernels/s8/s8_dot.h"
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_matmul.h"
#include "kernels/s8/s8_op.h"

namespace tigris_s8 {

// TIGRIS_NO_FAST_MATMUL, a firmware's choice of flash over speed (docs/firmware.md): 1x1
// convolutions and fully connected layers keep only the loops below, the matrix product
// (s8_matmul.h) is not referenced and the linker leaves it out.
#if defined(TIGRIS_NO_FAST_MATMUL)
constexpr bool kFastMatmul = false;
#else
constexpr bool kFastMatmul = true;
#endif

namespace {

// Requantization of one output channel.
struct ChannelRequant {
    int32_t m = 0, out_zp = 0, act_min = -128, act_max = 127;
    int shift = 0;
    int8_t apply(int32_t acc) const
    {
        return (int8_t)clamp_i32(wrap_add(multiply_by_quantized_multiplier(acc, m, shift), out_zp), act_min, act_max);
    }
};

// The window taps [lo, hi) of one axis that fall inside the input: origin + k * d in [0, extent).
inline void tap_range(int32_t origin, int32_t k, int32_t d, int32_t extent, int32_t *lo, int32_t *hi)
{
    int32_t a = 0, b = k;
    if (origin < 0) a = (-origin + d - 1) / d;
    if (origin + (k - 1) * d >= extent) b = origin >= extent ? 0 : (extent - 1 - origin) / d + 1;
    *lo = a;
    *hi = b > a ? b : a;
}

bool channel_requant(const Call &c, const Operand &out, int32_t ch, ChannelRequant *r)
{
    r->out_zp = out.zero_point;
    r->act_min = c.op->act_min;
    r->act_max = c.op->act_max;
    return output_requant(c.plan, out, ch, &r->m, &r->shift);
}

bool io_int8(const Operand &in, const Operand &out)
{
    return in.dtype == TIGRIS_DTYPE_INT8 && out.dtype == TIGRIS_DTYPE_INT8 && out.quantized;
}

// The weight and optional int32 bias of a layer with out_c channels and w_bytes weights.
bool layer_weights(const Call &c, uint32_t w_bytes, int32_t out_c, const int8_t **w, const uint8_t **bias)
{
    *w = (const int8_t *)op_weight_bytes(c, w_bytes);
    *bias = op_bias_bytes(c, (uint32_t)out_c * 4u);
    return *w != nullptr && (c.op->bias_idx == TIGRIS_NONE || *bias != nullptr);
}

// The factors of output channels [ch0, ch0 + channels) of a 1x1 Conv / FullyConnected for the
// matrix product (s8_matmul.h), with the layer's bias; false when the quant record lacks them.
bool matmul_factors(const Call &c, const Operand &out, const uint8_t *bias, int32_t ch0, int32_t channels,
                    mm::Product *p)
{
    const tigris_quant_param_t *qp = out.quant;
    if (qp == nullptr || c.plan->quant_data == nullptr || qp->num_channels == 0) return false;
    p->per_tensor = qp->num_channels == 1;
    if (!p->per_tensor && ch0 + channels > (int32_t)qp->num_channels) return false;
    const int32_t first = p->per_tensor ? 0 : ch0;
    p->mult = tigris_quant_multipliers(c.plan, qp) + first;
    p->shift = tigris_quant_shifts(c.plan, qp) + first;
    p->bias = bias ? bias + 4 * ch0 : nullptr;
    return true;
}

// A 1x1 convolution of one group, stride 1, unpadded (w: the call's first channel's weights):
// each image's pixels are the rows of a matrix product. mm::kGeneric when the call has another
// form or factors the product cannot take (the caller's loops compute it).
int pointwise_product(const Call &c, const kern::SpatialGeom &g, const Operand &out, const int8_t *x, int8_t *y,
                      const int8_t *w, const uint8_t *bias, int32_t ch0, int32_t in_offset)
{
    if (!kFastMatmul || g.k_h != 1 || g.k_w != 1 || g.s_h != 1 || g.s_w != 1 || g.pad_top != 0 || g.pad_left != 0 ||
        g.out_h != g.in_h || g.out_w != g.in_w || g.in_row != (int64_t)g.in_w * g.c_in ||
        g.out_row != (int64_t)g.out_w * g.c_out)
        return mm::kGeneric;
    mm::Product p{nullptr, g.c_in, g.out_h * g.out_w, g.c_in, w, g.c_out, nullptr, g.c_out,
                  in_offset, out.zero_point, c.op->act_min, c.op->act_max};
    if (!matmul_factors(c, out, bias, ch0, g.c_out, &p)) return kError;
    int rc = 0;
    for (int32_t n = 0; n < g.n && rc == 0; n++) {
        p.x = x + n * g.in_batch + (ptrdiff_t)g.in_row_start * g.in_row;
        p.y = y + n * g.out_batch + (ptrdiff_t)g.out_row_start * g.out_row;
        rc = mm::run(p);
    }
    return rc;
}

// An input-channel band (chan_partial, CHANNELS mode INPUT) of a FullyConnected or of a 1x1
// Conv over its pixel matrix: rows [out_row_start, + out_h) x input columns [chan0, + chans)
// packed in x; their products (weight columns chan0 + k of [OC, K]) are added to the int32
// accumulator block `reduce_acc` (out_h x OC; reduce_first: from zero). On reduce_last each
// element gets its bias and is requantized into y_rows (out_h x OC int8). Integer sums wrap,
// so any split of the columns gives the whole kernel's accumulator: bit-exact.
int partial_rows(const Call &c, const Operand &in, const Operand &out, int32_t rows_total, int32_t in_c, int8_t *y_rows)
{
    const tigris_tile_ctx_t &t = c.tile();
    const int32_t out_c = out.shape[out.rank - 1], rows = t.out_h, k0 = t.chan0, kc = t.chans;
    int32_t *acc = (int32_t *)t.reduce_acc;
    if (t.chan_mix || acc == nullptr || t.out_row_start < 0 || rows < 1 || t.out_row_start + rows > rows_total ||
        k0 < 0 || kc < 1 || k0 + kc > in_c)
        return kError;
    const int8_t *w;
    const uint8_t *bias;
    if (!layer_weights(c, (uint32_t)(out_c * in_c), out_c, &w, &bias)) return kError;
    const int8_t *x = (const int8_t *)in.data;
    const int32_t in_offset = -in.zero_point;
    for (int32_t oc = 0; oc < out_c; oc += 2) {
        const int32_t oc1 = oc + 1 < out_c ? oc + 1 : oc;
        ChannelRequant r0, r1;
        if (t.reduce_last && (!channel_requant(c, out, oc, &r0) || !channel_requant(c, out, oc1, &r1))) return kError;
        const int8_t *w0 = w + (ptrdiff_t)oc * in_c + k0, *w1 = w + (ptrdiff_t)oc1 * in_c + k0;
        const int32_t b0 = bias ? rd_i32(bias + 4 * oc) : 0, b1 = bias ? rd_i32(bias + 4 * oc1) : 0;
        for (int32_t row = 0; row < rows; row++) {
            int32_t *a = acc + (ptrdiff_t)row * out_c;
            int32_t acc0 = t.reduce_first ? 0 : a[oc], acc1 = t.reduce_first ? 0 : a[oc1];
            dot2(x + (ptrdiff_t)row * kc, w0, w1, kc, in_offset, &acc0, &acc1);
            if (t.reduce_last) {
                y_rows[(ptrdiff_t)row * out_c + oc] = r0.apply(wrap_add(acc0, b0));
                y_rows[(ptrdiff_t)row * out_c + oc1] = r1.apply(wrap_add(acc1, b1));
            } else {
                a[oc] = acc0;
                a[oc1] = acc1;
            }
        }
    }
    return 0;
}

}  // namespace

int conv(const Call &c)
{
    Operand in, out;
    kern::SpatialGeom g;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out) || !io_int8(in, out)) return kError;
    if (c.tiled() && c.tile().chan_tiled && c.tile().chan_partial) {
        // A 1x1 Conv (one group, stride 1, unpadded) over its [N*H*W, C_in] pixel matrix; the
        // output buffer holds the band's pixels only.
        const tigris_spatial_t &sp = c.op->spatial;
        if (!c.tile().row_tiled || in.rank != 4 || out.rank != 4 || sp.kernel_h != 1 || sp.kernel_w != 1 ||
            sp.group > 1)
            return kError;
        const int32_t pixels = (int32_t)(in.elements / (uint32_t)in.shape[3]);
        return partial_rows(c, in, out, pixels, in.shape[3], (int8_t *)out.data);
    }
    if (kern::spatial_geometry(c, &g)) return kError;
    // An output-channel band (chan_mix, one group) computes the layer's channels [ch0, ch0 +
    // g.c_out) of wc from every input channel: weights, biases and factors at ch0 + oc.
    const bool mix = c.tiled() && c.tile().chan_tiled;
    if (mix && (!c.tile().chan_mix || c.op->spatial.group > 1)) return kError;  // a separable band: channels mix
    const int32_t groups = c.op->spatial.group > 1 ? c.op->spatial.group : 1;
    if (g.c_in % groups != 0 || g.c_out % groups != 0) return kError;
    const int32_t group_in_c = g.c_in / groups, group_out_c = g.c_out / groups;
    const int32_t wc = out.shape[out.rank - 1], ch0 = mix ? g.chan0 : 0;
    if (ch0 < 0 || ch0 + g.c_out > wc) return kError;
    const int8_t *w;
    const uint8_t *bias;
    if (!layer_weights(c, (uint32_t)(wc * g.k_h * g.k_w * group_in_c), wc, &w, &bias)) return kError;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    const int32_t in_offset = -in.zero_point;
    const ptrdiff_t w_stride = (ptrdiff_t)g.k_h * g.k_w * group_in_c;  // weights of one output channel
    // With one group and no dilation a clipped window row is one run of (taps x channels).
    const bool row_runs = groups == 1 && g.d_w == 1;
    if (groups == 1) {
        const int rc = pointwise_product(c, g, out, x, y, w + (ptrdiff_t)ch0 * g.c_in, bias, ch0, in_offset);
        if (rc != mm::kGeneric) return rc;
    }

    for (int32_t oc = 0, oc1 = 0; oc < g.c_out; oc = oc1 + 1) {
        // Two channels of one group share their input runs; an odd last one pairs with itself.
        oc1 = oc + 1 < g.c_out && (oc + 1) / group_out_c == oc / group_out_c ? oc + 1 : oc;
        ChannelRequant r0, r1;
        if (!channel_requant(c, out, ch0 + oc, &r0) || !channel_requant(c, out, ch0 + oc1, &r1)) return kError;
        const int32_t ic0 = (oc / group_out_c) * group_in_c;
        const int32_t b0 = bias ? rd_i32(bias + 4 * (ch0 + oc)) : 0, b1 = bias ? rd_i32(bias + 4 * (ch0 + oc1)) : 0;
        const int8_t *w0 = w + (ch0 + oc) * w_stride, *w1 = w + (ch0 + oc1) * w_stride;
        for (int32_t n = 0; n < g.n; n++) {
            const int8_t *xn = x + n * g.in_batch + (ptrdiff_t)g.in_row_start * g.in_row + ic0;
            int8_t *yn = y + n * g.out_batch + (ptrdiff_t)g.out_row_start * g.out_row;
            for (int32_t oy = 0; oy < g.out_h; oy++) {
                const int32_t y0 = oy * g.s_h - g.pad_top;
                int32_t ky_lo, ky_hi;
                tap_range(y0, g.k_h, g.d_h, g.in_h, &ky_lo, &ky_hi);
                for (int32_t ox = 0; ox < g.out_w; ox++) {
                    const int32_t x0 = ox * g.s_w - g.pad_left;
                    int32_t kx_lo, kx_hi;
                    tap_range(x0, g.k_w, g.d_w, g.in_w, &kx_lo, &kx_hi);
                    int32_t acc0 = 0, acc1 = 0;
                    for (int32_t ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *src = xn + (ptrdiff_t)(y0 + ky * g.d_h) * g.in_row;
                        const ptrdiff_t wk = ((ptrdiff_t)ky * g.k_w) * group_in_c;
                        if (row_runs) {
                            const int32_t run = (kx_hi - kx_lo) * g.c_in;
                            const ptrdiff_t at = (ptrdiff_t)(x0 + kx_lo) * g.c_in, wat = wk + (ptrdiff_t)kx_lo * group_in_c;
                            dot2(src + at, w0 + wat, w1 + wat, run, in_offset, &acc0, &acc1);
                            continue;
                        }
                        for (int32_t kx = kx_lo; kx < kx_hi; kx++) {
                            const ptrdiff_t at = (ptrdiff_t)(x0 + kx * g.d_w) * g.c_in, wat = wk + (ptrdiff_t)kx * group_in_c;
                            dot2(src + at, w0 + wat, w1 + wat, group_in_c, in_offset, &acc0, &acc1);
                        }
                    }
                    int8_t *dst = yn + (ptrdiff_t)oy * g.out_row + (ptrdiff_t)ox * g.c_out;
                    dst[oc] = r0.apply(wrap_add(acc0, b0));
                    dst[oc1] = r1.apply(wrap_add(acc1, b1));
                }
            }
        }
    }
    return 0;
}

int depthwise(const Call &c)
{
    Operand in, out;
    kern::SpatialGeom g;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out) || !io_int8(in, out)) return kError;
    if (kern::spatial_geometry(c, &g) || g.c_in <= 0 || g.c_out % g.c_in != 0) return kError;
    const int32_t multiplier = g.c_out / g.c_in;
    // A channel band (g.chan0, g.c_out of the layer's wc channels): weights, biases and
    // requantization factors are read at the global channel chan0 + oc.
    const int32_t wc = out.shape[out.rank - 1], ch0 = g.chan0;
    if (ch0 < 0 || ch0 + g.c_out > wc) return kError;
    const int8_t *w;
    const uint8_t *bias;
    if (!layer_weights(c, (uint32_t)(g.k_h * g.k_w * wc), wc, &w, &bias)) return kError;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    const int32_t in_offset = -in.zero_point;
#ifndef TIGRIS_NO_BLOCKED_DEPTHWISE  // a firmware's choice of ~8.7 KB of flash over speed (docs/firmware.md)
    if (dw_m1::applies(g)) {  // multiplier 1 (s8_depthwise.h); factors it cannot take: below
        const dw_m1::Layer l{&g, c.plan, &out, x, y, w, bias, wc, in_offset, c.op->act_min, c.op->act_max};
        const int rc = dw_m1::run(l);
        if (rc != dw_m1::kGeneric) return rc;
    }
#endif

    // Blocks of four adjacent output channels; with multiplier 1 they read four adjacent input
    // channels (one word per tap), otherwise (and for the last < 4 channels) one at a time.
    for (int32_t oc = 0; oc < g.c_out;) {
        const int32_t lanes = multiplier == 1 && oc + 4 <= g.c_out ? 4 : 1;
        ChannelRequant r[4];
        int32_t b[4] = {0, 0, 0, 0};
        for (int32_t k = 0; k < lanes; k++) {
            if (!channel_requant(c, out, ch0 + oc + k, &r[k])) return kError;
            if (bias) b[k] = rd_i32(bias + 4 * (ch0 + oc + k));
        }
        const int32_t ic = oc / multiplier;
        for (int32_t n = 0; n < g.n; n++) {
            const int8_t *xn = x + n * g.in_batch + (ptrdiff_t)g.in_row_start * g.in_row + ic;
            int8_t *yn = y + n * g.out_batch + (ptrdiff_t)g.out_row_start * g.out_row + oc;
            for (int32_t oy = 0; oy < g.out_h; oy++) {
                const int32_t y0 = oy * g.s_h - g.pad_top;
                int32_t ky_lo, ky_hi;
                tap_range(y0, g.k_h, g.d_h, g.in_h, &ky_lo, &ky_hi);
                for (int32_t ox = 0; ox < g.out_w; ox++) {
                    const int32_t x0 = ox * g.s_w - g.pad_left;
                    int32_t kx_lo, kx_hi;
                    tap_range(x0, g.k_w, g.d_w, g.in_w, &kx_lo, &kx_hi);
                    int32_t acc[4] = {0, 0, 0, 0};
                    for (int32_t ky = ky_lo; ky < ky_hi; ky++) {
                        const int8_t *src = xn + (ptrdiff_t)(y0 + ky * g.d_h) * g.in_row;
                        const int8_t *wk = w + ((ptrdiff_t)ky * g.k_w) * wc + ch0 + oc;
                        if (lanes == 4) {
                            for (int32_t kx = kx_lo; kx < kx_hi; kx++) {
                                mac4_channels(src + (ptrdiff_t)(x0 + kx * g.d_w) * g.c_in, wk + (ptrdiff_t)kx * wc,
                                              in_offset, acc);
                            }
                        } else {
                            for (int32_t kx = kx_lo; kx < kx_hi; kx++) {
                                const int32_t xv = src[(ptrdiff_t)(x0 + kx * g.d_w) * g.c_in];
                                acc[0] = wrap_add(acc[0], wrap_mul(wk[(ptrdiff_t)kx * wc], wrap_add(xv, in_offset)));
                            }
                        }
                    }
                    int8_t *dst = yn + (ptrdiff_t)oy * g.out_row + (ptrdiff_t)ox * g.c_out;
                    for (int32_t k = 0; k < lanes; k++) dst[k] = r[k].apply(wrap_add(acc[k], b[k]));
                }
            }
        }
        oc += lanes;
    }
    return 0;
}

// FULLY_CONNECTED: output [..., OC]; rows = output elements / OC, each reading IC input
// values. Banded (row_tiled): out_h rows from in_row_start / out_row_start.
int fully_connected(const Call &c)
{
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out) || !io_int8(in, out) || out.rank < 1) return kError;
    const int32_t out_c = out.shape[out.rank - 1];
    const int32_t full_rows = (int32_t)(out.elements / (uint32_t)out_c);
    if (full_rows <= 0 || in.elements % (uint32_t)full_rows != 0) return kError;
    const int32_t in_c = (int32_t)(in.elements / (uint32_t)full_rows);
    if (c.tiled() && c.tile().chan_tiled && c.tile().chan_partial) {  // an input-channel band, whole output
        if (out.rank != 2) return kError;
        return partial_rows(c, in, out, full_rows, in_c, (int8_t *)out.data + (int64_t)c.tile().out_row_start * out_c);
    }
    const kern::RowBand band = kern::row_band(c.mem, full_rows);
    if (c.tiled() && !band.active) return kError;
    // An output-channel band (chan_mix): columns [ch0, ch0 + cols) of out_c, packed; weights,
    // biases and factors of those columns.
    int32_t ch0 = 0, cols = out_c;
    if (c.tiled() && c.tile().chan_tiled) {
        const tigris_tile_ctx_t &t = c.tile();
        if (!t.chan_mix || out.rank != 2 || t.chan0 < 0 || t.chans < 1 || t.chan0 + t.chans > out_c) return kError;
        ch0 = t.chan0, cols = t.chans;
    }
    const int8_t *x = (const int8_t *)in.data + (int64_t)band.in_row_start * in_c;
    int8_t *y = (int8_t *)out.data + (int64_t)band.out_row_start * cols;
    const int8_t *w;
    const uint8_t *bias;
    if (!layer_weights(c, (uint32_t)(out_c * in_c), out_c, &w, &bias)) return kError;
    const int32_t in_offset = -in.zero_point;
    if (kFastMatmul) {
        mm::Product p{x, in_c, band.rows, in_c, w + (int64_t)ch0 * in_c, cols, y, cols,
                      in_offset, out.zero_point, c.op->act_min, c.op->act_max};
        if (!matmul_factors(c, out, bias, ch0, cols, &p)) return kError;
        const int rc = mm::run(p);
        if (rc != mm::kGeneric) return rc;
    }

    for (int32_t oc = 0; oc < cols; oc += 2) {
        const int32_t oc1 = oc + 1 < cols ? oc + 1 : oc;
        ChannelRequant r0, r1;
        if (!channel_requant(c, out, ch0 + oc, &r0) || !channel_requant(c, out, ch0 + oc1, &r1)) return kError;
        const int8_t *w0 = w + (int64_t)(ch0 + oc) * in_c, *w1 = w + (int64_t)(ch0 + oc1) * in_c;
        const int32_t b0 = bias ? rd_i32(bias + 4 * (ch0 + oc)) : 0, b1 = bias ? rd_i32(bias + 4 * (ch0 + oc1)) : 0;
        for (int32_t row = 0; row < band.rows; row++) {
            int32_t acc0 = 0, acc1 = 0;
            dot2(x + (int64_t)row * in_c, w0, w1, in_c, in_offset, &acc0, &acc1);
            y[(int64_t)row * cols + oc] = r0.apply(wrap_add(acc0, b0));
            y[(int64_t)row * cols + oc1] = r1.apply(wrap_add(acc1, b1));
        }
    }
    return 0;
}

}  // namespace tigris_s8
