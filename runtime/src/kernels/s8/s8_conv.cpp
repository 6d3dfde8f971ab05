// int8 CONV_2D, DEPTHWISE_CONV_2D and FULLY_CONNECTED, as TFLite's reference
// integer kernels compute them:
//   acc = sum w * (x - in_zp) [+ bias]         (int32, wrapping)
//   y   = clamp(MBQM(acc, m[c], s[c]) + out_zp, act_min, act_max)
// Taps outside the input (padding) are skipped. (m[c], s[c]) are the per-channel (or
// per-tensor) factors the compiler stored on the output tensor's quant param.
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"

namespace tigris_s8 {
namespace {

struct Requant {
    int32_t out_zp, act_min, act_max;
};

// Requantize one accumulator of output channel c.
inline int8_t requantize(const tigris_plan_t *plan, const Operand &out, const Requant &r, int32_t c,
                         int32_t acc, bool *ok)
{
    int32_t m = 0;
    int s = 0;
    if (!output_requant(plan, out, c, &m, &s)) {
        *ok = false;
        return 0;
    }
    const int32_t y = wrap_add(multiply_by_quantized_multiplier(acc, m, s), r.out_zp);
    return (int8_t)clamp_i32(y, r.act_min, r.act_max);
}

bool io_int8(const Operand &in, const Operand &out)
{
    return in.dtype == TIGRIS_DTYPE_INT8 && out.dtype == TIGRIS_DTYPE_INT8 && out.quantized;
}

}  // namespace

int conv(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t, tigris_mem_t *mem)
{
    Operand in, out;
    Spatial g;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (!io_int8(in, out) || spatial_geometry(op, in, out, mem->tile, &g)) return kError;
    const int32_t in_c = in.dims[in.rank - 1];
    const int32_t groups = op->spatial.group > 1 ? op->spatial.group : 1;
    if (in_c % groups != 0 || g.out_c % groups != 0) return kError;
    const int32_t group_in_c = in_c / groups;
    const int32_t group_out_c = g.out_c / groups;
    const uint32_t w_bytes = (uint32_t)g.out_c * g.k_h * g.k_w * group_in_c;
    const int8_t *w = (const int8_t *)op_weight_bytes(plan, op, w_bytes);
    const uint8_t *bias = op_bias_bytes(plan, op, (uint32_t)g.out_c * 4u);
    if (w == nullptr || (op->bias_idx != TIGRIS_NONE && bias == nullptr)) return kError;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    const int32_t in_offset = -in.zero_point;
    const Requant r = {out.zero_point, op->act_min, op->act_max};
    bool ok = true;

    for (int32_t n = 0; n < g.batches; n++) {
        for (int32_t oy = 0; oy < g.out_h; oy++) {
            const int32_t y0 = oy * g.stride_h - g.pad_top;
            for (int32_t ox = 0; ox < g.out_w; ox++) {
                const int32_t x0 = ox * g.stride_w - g.pad_left;
                int8_t *dst = y + g.out_offset(n, oy, ox);
                for (int32_t oc = 0; oc < g.out_c; oc++) {
                    const int32_t ic0 = (oc / group_out_c) * group_in_c;
                    int32_t acc = 0;
                    for (int32_t ky = 0; ky < g.k_h; ky++) {
                        const int32_t iy = y0 + ky * g.dil_h;
                        if (iy < 0 || iy >= g.in_h) continue;
                        for (int32_t kx = 0; kx < g.k_w; kx++) {
                            const int32_t ix = x0 + kx * g.dil_w;
                            if (ix < 0 || ix >= g.in_w) continue;
                            const int8_t *src = x + g.in_offset(n, iy, ix) + ic0;
                            const int8_t *wk = w + (((int64_t)oc * g.k_h + ky) * g.k_w + kx) * group_in_c;
                            for (int32_t ic = 0; ic < group_in_c; ic++) {
                                acc = wrap_add(acc, wrap_mul(wk[ic], wrap_add(src[ic], in_offset)));
                            }
                        }
                    }
                    if (bias) acc = wrap_add(acc, read_i32(bias + 4 * oc));
                    dst[oc] = requantize(plan, out, r, oc, acc, &ok);
                }
            }
        }
    }
    return ok ? 0 : kError;
}

int depthwise(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t, tigris_mem_t *mem)
{
    Operand in, out;
    Spatial g;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (!io_int8(in, out) || spatial_geometry(op, in, out, mem->tile, &g)) return kError;
    if (g.in_c <= 0 || g.out_c % g.in_c != 0) return kError;
    const int32_t multiplier = g.out_c / g.in_c;
    const int8_t *w = (const int8_t *)op_weight_bytes(plan, op, (uint32_t)g.k_h * g.k_w * g.out_c);
    const uint8_t *bias = op_bias_bytes(plan, op, (uint32_t)g.out_c * 4u);
    if (w == nullptr || (op->bias_idx != TIGRIS_NONE && bias == nullptr)) return kError;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    const int32_t in_offset = -in.zero_point;
    const Requant r = {out.zero_point, op->act_min, op->act_max};
    bool ok = true;

    for (int32_t n = 0; n < g.batches; n++) {
        for (int32_t oy = 0; oy < g.out_h; oy++) {
            const int32_t y0 = oy * g.stride_h - g.pad_top;
            for (int32_t ox = 0; ox < g.out_w; ox++) {
                const int32_t x0 = ox * g.stride_w - g.pad_left;
                int8_t *dst = y + g.out_offset(n, oy, ox);
                for (int32_t oc = 0; oc < g.out_c; oc++) {
                    const int32_t ic = oc / multiplier;
                    int32_t acc = 0;
                    for (int32_t ky = 0; ky < g.k_h; ky++) {
                        const int32_t iy = y0 + ky * g.dil_h;
                        if (iy < 0 || iy >= g.in_h) continue;
                        for (int32_t kx = 0; kx < g.k_w; kx++) {
                            const int32_t ix = x0 + kx * g.dil_w;
                            if (ix < 0 || ix >= g.in_w) continue;
                            const int32_t xv = x[g.in_offset(n, iy, ix) + ic];
                            const int32_t wv = w[((int64_t)ky * g.k_w + kx) * g.out_c + oc];
                            acc = wrap_add(acc, wrap_mul(wv, wrap_add(xv, in_offset)));
                        }
                    }
                    if (bias) acc = wrap_add(acc, read_i32(bias + 4 * oc));
                    dst[oc] = requantize(plan, out, r, oc, acc, &ok);
                }
            }
        }
    }
    return ok ? 0 : kError;
}

// FULLY_CONNECTED: output [..., OC]; rows = output elements / OC, each reading IC input
// values. Banded (row_tiled): out_h rows of a rank-2 [rows, IC] operand.
int fully_connected(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t, tigris_mem_t *mem)
{
    Operand in, out;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (!io_int8(in, out) || out.rank < 1) return kError;
    const int32_t out_c = out.dims[out.rank - 1];
    int32_t rows = (int32_t)(out.elements / (uint32_t)out_c);
    if (rows <= 0 || in.elements % (uint32_t)rows != 0) return kError;
    const int32_t in_c = (int32_t)(in.elements / (uint32_t)rows);
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    const tigris_tile_ctx_t &tile = mem->tile;
    if (tile.active) {
        if (!tile.row_tiled || tile.out_h <= 0 || tile.out_h > rows) return kError;
        rows = tile.out_h;
        x += (int64_t)tile.in_row_start * in_c;
        y += (int64_t)tile.out_row_start * out_c;
    }
    const int8_t *w = (const int8_t *)op_weight_bytes(plan, op, (uint32_t)out_c * (uint32_t)in_c);
    const uint8_t *bias = op_bias_bytes(plan, op, (uint32_t)out_c * 4u);
    if (w == nullptr || (op->bias_idx != TIGRIS_NONE && bias == nullptr)) return kError;
    const int32_t in_offset = -in.zero_point;
    const Requant r = {out.zero_point, op->act_min, op->act_max};
    bool ok = true;

    for (int32_t b = 0; b < rows; b++) {
        const int8_t *src = x + (int64_t)b * in_c;
        for (int32_t oc = 0; oc < out_c; oc++) {
            const int8_t *wr = w + (int64_t)oc * in_c;
            int32_t acc = 0;
            for (int32_t d = 0; d < in_c; d++) {
                acc = wrap_add(acc, wrap_mul(wr[d], wrap_add(src[d], in_offset)));
            }
            if (bias) acc = wrap_add(acc, read_i32(bias + 4 * oc));
            y[(int64_t)b * out_c + oc] = requantize(plan, out, r, oc, acc, &ok);
        }
    }
    return ok ? 0 : kError;
}

}  // namespace tigris_s8
