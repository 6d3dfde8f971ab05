// int8 CONV_2D (and CONV1D), DEPTHWISE_CONV_2D and FULLY_CONNECTED, as TFLite's
// reference integer kernels compute them:
//   acc = sum w * (x - in_zp) [+ bias]         (int32, wrapping)
//   y   = clamp(MBQM(acc, m[c], s[c]) + out_zp, act_min, act_max)
// Taps outside the input (padding) are skipped. (m[c], s[c]) are the per-channel (or
// per-tensor) factors the compiler stored on the output tensor's quant param.
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"

namespace tigris_s8 {
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

}  // namespace

int conv(const Call &c)
{
    Operand in, out;
    kern::SpatialGeom g;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out) || !io_int8(in, out)) return kError;
    if (kern::spatial_geometry(c, &g)) return kError;
    const int32_t groups = c.op->spatial.group > 1 ? c.op->spatial.group : 1;
    if (g.c_in % groups != 0 || g.c_out % groups != 0) return kError;
    const int32_t group_in_c = g.c_in / groups, group_out_c = g.c_out / groups;
    const int8_t *w;
    const uint8_t *bias;
    if (!layer_weights(c, (uint32_t)(g.c_out * g.k_h * g.k_w * group_in_c), g.c_out, &w, &bias)) return kError;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    const int32_t in_offset = -in.zero_point;

    for (int32_t oc = 0; oc < g.c_out; oc++) {
        ChannelRequant r;
        if (!channel_requant(c, out, oc, &r)) return kError;
        const int32_t ic0 = (oc / group_out_c) * group_in_c;
        const int32_t b = bias ? rd_i32(bias + 4 * oc) : 0;
        for (int32_t n = 0; n < g.n; n++) {
            for (int32_t oy = 0; oy < g.out_h; oy++) {
                const int32_t y0 = oy * g.s_h - g.pad_top;
                for (int32_t ox = 0; ox < g.out_w; ox++) {
                    const int32_t x0 = ox * g.s_w - g.pad_left;
                    int32_t acc = 0;
                    for (int32_t ky = 0; ky < g.k_h; ky++) {
                        const int32_t iy = y0 + ky * g.d_h;
                        if (iy < 0 || iy >= g.in_h) continue;
                        for (int32_t kx = 0; kx < g.k_w; kx++) {
                            const int32_t ix = x0 + kx * g.d_w;
                            if (ix < 0 || ix >= g.in_w) continue;
                            const int8_t *src =
                                x + n * g.in_batch + (g.in_row_start + iy) * g.in_row + ix * g.c_in + ic0;
                            const int8_t *wk = w + (((int64_t)oc * g.k_h + ky) * g.k_w + kx) * group_in_c;
                            for (int32_t ic = 0; ic < group_in_c; ic++) {
                                acc = wrap_add(acc, wrap_mul(wk[ic], wrap_add(src[ic], in_offset)));
                            }
                        }
                    }
                    y[n * g.out_batch + (g.out_row_start + oy) * g.out_row + ox * g.c_out + oc] =
                        r.apply(wrap_add(acc, b));
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
    const int8_t *w;
    const uint8_t *bias;
    if (!layer_weights(c, (uint32_t)(g.k_h * g.k_w * g.c_out), g.c_out, &w, &bias)) return kError;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    const int32_t in_offset = -in.zero_point;

    for (int32_t oc = 0; oc < g.c_out; oc++) {
        ChannelRequant r;
        if (!channel_requant(c, out, oc, &r)) return kError;
        const int32_t ic = oc / multiplier;
        const int32_t b = bias ? rd_i32(bias + 4 * oc) : 0;
        for (int32_t n = 0; n < g.n; n++) {
            for (int32_t oy = 0; oy < g.out_h; oy++) {
                const int32_t y0 = oy * g.s_h - g.pad_top;
                for (int32_t ox = 0; ox < g.out_w; ox++) {
                    const int32_t x0 = ox * g.s_w - g.pad_left;
                    int32_t acc = 0;
                    for (int32_t ky = 0; ky < g.k_h; ky++) {
                        const int32_t iy = y0 + ky * g.d_h;
                        if (iy < 0 || iy >= g.in_h) continue;
                        for (int32_t kx = 0; kx < g.k_w; kx++) {
                            const int32_t ix = x0 + kx * g.d_w;
                            if (ix < 0 || ix >= g.in_w) continue;
                            const int32_t xv = x[n * g.in_batch + (g.in_row_start + iy) * g.in_row + ix * g.c_in + ic];
                            const int32_t wv = w[((int64_t)ky * g.k_w + kx) * g.c_out + oc];
                            acc = wrap_add(acc, wrap_mul(wv, wrap_add(xv, in_offset)));
                        }
                    }
                    y[n * g.out_batch + (g.out_row_start + oy) * g.out_row + ox * g.c_out + oc] =
                        r.apply(wrap_add(acc, b));
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
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out) || !io_int8(in, out) || out.rank < 1) return kError;
    const int32_t out_c = out.shape[out.rank - 1];
    const int32_t full_rows = (int32_t)(out.elements / (uint32_t)out_c);
    if (full_rows <= 0 || in.elements % (uint32_t)full_rows != 0) return kError;
    const int32_t in_c = (int32_t)(in.elements / (uint32_t)full_rows);
    const kern::RowBand band = kern::row_band(c.mem, full_rows);
    if (c.tiled() && !band.active) return kError;
    const int8_t *x = (const int8_t *)in.data + (int64_t)band.in_row_start * in_c;
    int8_t *y = (int8_t *)out.data + (int64_t)band.out_row_start * out_c;
    const int8_t *w;
    const uint8_t *bias;
    if (!layer_weights(c, (uint32_t)(out_c * in_c), out_c, &w, &bias)) return kError;
    const int32_t in_offset = -in.zero_point;

    for (int32_t oc = 0; oc < out_c; oc++) {
        ChannelRequant r;
        if (!channel_requant(c, out, oc, &r)) return kError;
        const int8_t *wr = w + (int64_t)oc * in_c;
        const int32_t b = bias ? rd_i32(bias + 4 * oc) : 0;
        for (int32_t row = 0; row < band.rows; row++) {
            const int8_t *src = x + (int64_t)row * in_c;
            int32_t acc = 0;
            for (int32_t d = 0; d < in_c; d++) acc = wrap_add(acc, wrap_mul(wr[d], wrap_add(src[d], in_offset)));
            y[(int64_t)row * out_c + oc] = r.apply(wrap_add(acc, b));
        }
    }
    return 0;
}

}  // namespace tigris_s8
