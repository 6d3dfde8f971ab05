// int16 CONV_2D (and CONV1D), DEPTHWISE_CONV_2D, FULLY_CONNECTED and TRANSPOSE_CONV with
// int8 weights, as TFLite's reference 16x8 kernels compute them:
//   acc = sum w * (x - in_zp) [+ bias]         int64 with an int64 bias (8 bytes per channel),
//                                              int32 (wrapping) with an int32 bias (4 bytes)
//   y   = clamp(MBQM(acc, m[c], s[c]) + out_zp, act_lo, act_hi)
// MBQM of an int64 accumulator is TFLite's 64-bit form (Q0.15 multiplier); of an int32 one the
// int8 kernels' (double rounding). (m[c], s[c]) are the per-channel factors stored on the
// output's quant param; the clamp follows from fused_act and the output quantization. 16x8
// models have zero points of 0; TFLite's convolutions (CONV_2D, DEPTHWISE, TRANSPOSE_CONV)
// ignore them, FULLY_CONNECTED applies them: so do these kernels.
// Geometry and bands come from kernels/common/geometry.h, as for the int8 twins.
#include "common/le_bytes.h"
#include "kernels/s16/s16_kernels.h"
#include "kernels/s16/s16_params.h"
#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s16 {
namespace {

using tigris_s8::Operand;

// The bias of a layer with `out_c` channels: none, int32 or int64 (by the entry's size).
struct Bias {
    const uint8_t *data = nullptr;
    bool wide = false;  // int64
    int64_t at(int32_t c) const
    {
        if (data == nullptr) return 0;
        if (!wide) return tigris_rt::rd_i32(data + 4 * c);
        const uint32_t lo = tigris_rt::rd_u32(data + 8 * c);
        const uint32_t hi = tigris_rt::rd_u32(data + 8 * c + 4);
        return (int64_t)(((uint64_t)hi << 32) | lo);
    }
};

// Requantization of one output channel.
struct Requant {
    int32_t m = 0, out_zp = 0, lo = -32768, hi = 32767;
    int shift = 0;
    bool wide = true;
    int16_t apply(int64_t acc) const
    {
        const int32_t scaled = wide ? multiply_by_quantized_multiplier_64(acc, m, shift)
                                    : tigris_s8::multiply_by_quantized_multiplier((int32_t)acc, m, shift);
        return (int16_t)tigris_s8::clamp_i32(tigris_s8::wrap_add(scaled, out_zp), lo, hi);
    }
};

bool io_int16(const Operand &in, const Operand &out)
{
    return in.dtype == TIGRIS_DTYPE_INT16 && out.dtype == TIGRIS_DTYPE_INT16 && out.quantized;
}

// Weights (int8, w_bytes) and the optional bias of `out_c` channels.
bool layer_weights(const Call &c, uint32_t w_bytes, int32_t out_c, const int8_t **w, Bias *b)
{
    *w = (const int8_t *)tigris_s8::op_weight_bytes(c, w_bytes);
    if (*w == nullptr) return false;
    if (c.op->bias_idx == TIGRIS_NONE) return true;
    const uint32_t size = c.plan->weight_entries[c.op->bias_idx].size_bytes;
    b->wide = size == (uint32_t)out_c * 8u;
    if (!b->wide && size != (uint32_t)out_c * 4u) return false;
    b->data = tigris_s8::op_bias_bytes(c, size);
    return b->data != nullptr;
}

// `offsets`: apply the output zero point (FULLY_CONNECTED only).
bool requant_of(const Call &c, const Operand &out, const Bias &b, int32_t ch, Requant *r, bool offsets = false)
{
    r->out_zp = offsets ? out.zero_point : 0;
    r->wide = b.data == nullptr || b.wide;
    activation_range(c.op->fused_act, out.scale, out.zero_point, &r->lo, &r->hi);
    return tigris_s8::output_requant(c.plan, out, ch, &r->m, &r->shift);
}

// acc += w * x in the bias's width (int32 wraps as TFLite's int32 accumulator does).
inline int64_t accumulate(int64_t acc, int32_t w, int32_t x, bool wide)
{
    if (wide) return acc + (int64_t)w * (int64_t)x;
    return tigris_s8::wrap_add((int32_t)acc, tigris_s8::wrap_mul(w, x));
}

inline int64_t add_bias(int64_t acc, int64_t bias, bool wide)
{
    return wide ? acc + bias : tigris_s8::wrap_add((int32_t)acc, (int32_t)bias);
}

}  // namespace

int conv(const Call &c)
{
    Operand in, out;
    tigris_rt::kern::SpatialGeom g;
    if (tigris_s8::input_operand(c, 0, &in) || tigris_s8::output_operand(c, 0, &out) || !io_int16(in, out))
        return kError;
    if (tigris_rt::kern::spatial_geometry(c, &g)) return kError;
    const int32_t groups = c.op->spatial.group > 1 ? c.op->spatial.group : 1;
    if (g.c_in % groups != 0 || g.c_out % groups != 0) return kError;
    const int32_t group_in_c = g.c_in / groups, group_out_c = g.c_out / groups;
    const int8_t *w;
    Bias bias;
    if (!layer_weights(c, (uint32_t)(g.c_out * g.k_h * g.k_w * group_in_c), g.c_out, &w, &bias)) return kError;
    const int16_t *x = (const int16_t *)in.data;
    int16_t *y = (int16_t *)out.data;
    const int32_t in_offset = 0;  // TFLite's 16x8 convolution reads raw inputs
    for (int32_t oc = 0; oc < g.c_out; oc++) {
        Requant r;
        if (!requant_of(c, out, bias, oc, &r)) return kError;
        const int32_t ic0 = (oc / group_out_c) * group_in_c;
        const int64_t b = bias.at(oc);
        for (int32_t n = 0; n < g.n; n++) {
            for (int32_t oy = 0; oy < g.out_h; oy++) {
                const int32_t y0 = oy * g.s_h - g.pad_top;
                for (int32_t ox = 0; ox < g.out_w; ox++) {
                    const int32_t x0 = ox * g.s_w - g.pad_left;
                    int64_t acc = 0;
                    for (int32_t ky = 0; ky < g.k_h; ky++) {
                        const int32_t iy = y0 + ky * g.d_h;
                        if (iy < 0 || iy >= g.in_h) continue;
                        for (int32_t kx = 0; kx < g.k_w; kx++) {
                            const int32_t ix = x0 + kx * g.d_w;
                            if (ix < 0 || ix >= g.in_w) continue;
                            const int16_t *src =
                                x + n * g.in_batch + (g.in_row_start + iy) * g.in_row + ix * g.c_in + ic0;
                            const int8_t *wk = w + (((int64_t)oc * g.k_h + ky) * g.k_w + kx) * group_in_c;
                            for (int32_t ic = 0; ic < group_in_c; ic++)
                                acc = accumulate(acc, wk[ic], src[ic] + in_offset, r.wide);
                        }
                    }
                    y[n * g.out_batch + (g.out_row_start + oy) * g.out_row + ox * g.c_out + oc] =
                        r.apply(add_bias(acc, b, r.wide));
                }
            }
        }
    }
    return 0;
}

int depthwise(const Call &c)
{
    Operand in, out;
    tigris_rt::kern::SpatialGeom g;
    if (tigris_s8::input_operand(c, 0, &in) || tigris_s8::output_operand(c, 0, &out) || !io_int16(in, out))
        return kError;
    if (tigris_rt::kern::spatial_geometry(c, &g) || g.c_in <= 0 || g.c_out % g.c_in != 0) return kError;
    const int32_t multiplier = g.c_out / g.c_in;
    const int8_t *w;
    Bias bias;
    if (!layer_weights(c, (uint32_t)(g.k_h * g.k_w * g.c_out), g.c_out, &w, &bias)) return kError;
    const int16_t *x = (const int16_t *)in.data;
    int16_t *y = (int16_t *)out.data;
    const int32_t in_offset = 0;  // as CONV_2D
    for (int32_t oc = 0; oc < g.c_out; oc++) {
        Requant r;
        if (!requant_of(c, out, bias, oc, &r)) return kError;
        const int32_t ic = oc / multiplier;
        const int64_t b = bias.at(oc);
        for (int32_t n = 0; n < g.n; n++) {
            for (int32_t oy = 0; oy < g.out_h; oy++) {
                const int32_t y0 = oy * g.s_h - g.pad_top;
                for (int32_t ox = 0; ox < g.out_w; ox++) {
                    const int32_t x0 = ox * g.s_w - g.pad_left;
                    int64_t acc = 0;
                    for (int32_t ky = 0; ky < g.k_h; ky++) {
                        const int32_t iy = y0 + ky * g.d_h;
                        if (iy < 0 || iy >= g.in_h) continue;
                        for (int32_t kx = 0; kx < g.k_w; kx++) {
                            const int32_t ix = x0 + kx * g.d_w;
                            if (ix < 0 || ix >= g.in_w) continue;
                            const int32_t xv = x[n * g.in_batch + (g.in_row_start + iy) * g.in_row + ix * g.c_in + ic];
                            acc = accumulate(acc, w[((int64_t)ky * g.k_w + kx) * g.c_out + oc], xv + in_offset, r.wide);
                        }
                    }
                    y[n * g.out_batch + (g.out_row_start + oy) * g.out_row + ox * g.c_out + oc] =
                        r.apply(add_bias(acc, b, r.wide));
                }
            }
        }
    }
    return 0;
}

// FULLY_CONNECTED: output [..., OC]; rows = output elements / OC, each reading IC input
// values. Banded (row_tiled): out_h rows from in_row_start / out_row_start.
int fully_connected(const Call &c)
{
    Operand in, out;
    if (tigris_s8::input_operand(c, 0, &in) || tigris_s8::output_operand(c, 0, &out) || !io_int16(in, out) ||
        out.rank < 1)
        return kError;
    const int32_t out_c = out.shape[out.rank - 1];
    const int32_t full_rows = (int32_t)(out.elements / (uint32_t)out_c);
    if (full_rows <= 0 || in.elements % (uint32_t)full_rows != 0) return kError;
    const int32_t in_c = (int32_t)(in.elements / (uint32_t)full_rows);
    const tigris_rt::kern::RowBand band = tigris_rt::kern::row_band(c.mem, full_rows);
    if (c.tiled() && !band.active) return kError;
    const int16_t *x = (const int16_t *)in.data + (int64_t)band.in_row_start * in_c;
    int16_t *y = (int16_t *)out.data + (int64_t)band.out_row_start * out_c;
    const int8_t *w;
    Bias bias;
    if (!layer_weights(c, (uint32_t)(out_c * in_c), out_c, &w, &bias)) return kError;
    const int32_t in_offset = -in.zero_point;
    for (int32_t oc = 0; oc < out_c; oc++) {
        Requant r;
        if (!requant_of(c, out, bias, oc, &r, true)) return kError;
        const int8_t *wr = w + (int64_t)oc * in_c;
        const int64_t b = bias.at(oc);
        for (int32_t row = 0; row < band.rows; row++) {
            const int16_t *src = x + (int64_t)row * in_c;
            int64_t acc = 0;
            for (int32_t d = 0; d < in_c; d++) acc = accumulate(acc, wr[d], src[d] + in_offset, r.wide);
            y[(int64_t)row * out_c + oc] = r.apply(add_bias(acc, b, r.wide));
        }
    }
    return 0;
}

namespace {

// Input index along one axis for output coordinate `o` and tap `k`, or -1 when no input lands.
inline int32_t source(int32_t o, int32_t k, int32_t pad, int32_t stride, int32_t full_in)
{
    const int32_t t = o + pad - k;
    if (t < 0 || t % stride != 0) return -1;
    return t / stride < full_in ? t / stride : -1;
}

}  // namespace

// TRANSPOSE_CONV (ConvTranspose, OHWI weights [OC, KH, KW, IC]), by input gathering: output
// (y, x) sums input (iy, ix) through tap (kh, kw) when y + pad_top - kh = iy * s_h. TFLite
// scatters into an int64 scratch; the sums are the same. Banded calls map through global
// rows and columns (kern::map_geometry), as the float kernel does.
int conv_transpose(const Call &c)
{
    Operand in, out;
    tigris_rt::kern::MapGeom g;
    if (tigris_s8::input_operand(c, 0, &in) || tigris_s8::output_operand(c, 0, &out) || !io_int16(in, out))
        return kError;
    if (in.rank != 4 || tigris_rt::kern::map_geometry(c, &g)) return kError;
    const tigris_spatial_t &sp = c.op->spatial;
    const int32_t k_h = sp.kernel_h, k_w = sp.kernel_w, s_h = sp.stride_h, s_w = sp.stride_w;
    const int32_t groups = sp.group > 1 ? sp.group : 1;
    if (s_h < 1 || s_w < 1 || sp.dilation_h > 1 || sp.dilation_w > 1) return kError;
    if (g.c_in % groups != 0 || g.c_out % groups != 0) return kError;
    const int32_t icg = g.c_in / groups, ocg = g.c_out / groups;
    const int8_t *w;
    Bias bias;
    if (!layer_weights(c, (uint32_t)(g.c_out * k_h * k_w * icg), g.c_out, &w, &bias)) return kError;
    const int16_t *x = (const int16_t *)in.data;
    int16_t *y = (int16_t *)out.data;
    const int32_t in_offset = 0;  // as CONV_2D
    for (int32_t oc = 0; oc < g.c_out; oc++) {
        Requant r;
        if (!requant_of(c, out, bias, oc, &r)) return kError;
        const int64_t b = bias.at(oc);
        const int32_t ic0 = (oc / ocg) * icg;
        for (int32_t n = 0; n < g.n; n++) {
            const int16_t *x_n = x + n * g.in_batch + (int64_t)g.in_row_start * g.in_row;
            for (int32_t row = 0; row < g.out_h; row++) {
                for (int32_t col = 0; col < g.out_w; col++) {
                    int64_t acc = 0;
                    for (int32_t kh = 0; kh < k_h; kh++) {
                        int32_t iy = source(g.out_row0 + row, kh, sp.pad_top, s_h, g.full_in_h);
                        if (iy < 0) continue;
                        iy -= g.in_row0;
                        if (iy < 0 || iy >= g.in_h) return kError;
                        for (int32_t kw = 0; kw < k_w; kw++) {
                            int32_t ix = source(g.out_col0 + col, kw, sp.pad_left, s_w, g.full_in_w);
                            if (ix < 0) continue;
                            ix -= g.in_col0;
                            if (ix < 0 || ix >= g.in_w) return kError;
                            const int16_t *src = x_n + iy * g.in_row + (int64_t)ix * g.c_in + ic0;
                            const int8_t *wk = w + (((int64_t)oc * k_h + kh) * k_w + kw) * icg;
                            for (int32_t ic = 0; ic < icg; ic++)
                                acc = accumulate(acc, wk[ic], src[ic] + in_offset, r.wide);
                        }
                    }
                    y[n * g.out_batch + (int64_t)(g.out_row_start + row) * g.out_row + (int64_t)col * g.c_out + oc] =
                        r.apply(add_bias(acc, b, r.wide));
                }
            }
        }
    }
    return 0;
}

}  // namespace tigris_s16
