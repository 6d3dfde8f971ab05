// int8 RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR (NHWC), as TFLite Micro computes
// them for int8 (no requantization; TFLite requires equal quantization):
//   nearest:  in = min(floor((out + hp * 0.5) * scale) or round(out * scale) with
//             align_corners, in_size - 1), scale = in/out (or (in-1)/(out-1))
//   bilinear: TFLite's integer path (ResizeBilinearInteger): 10-bit fixed-point source
//             coordinates, 20-bit weights, result rounded half away from zero.
// Banded calls map output rows/cols to input through full-tensor indices (out_row0,
// in_row0, out_col0, in_col0 of the tile context). TFLite's variants in RESIZE_SCALES
// modes: nearest (0, floor) asymmetric, (4, floor) half_pixel_centers, (3,
// round_prefer_ceil) align_corners; bilinear 0 asymmetric, 1/2 half_pixel_centers,
// 3 align_corners. Source positions come from the tensor sizes, as in TFLite.
#include <math.h>

#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"

namespace tigris_s8 {
namespace {

struct ResizeFlags {
    bool align_corners = false;
    bool half_pixel_centers = false;
};

// Band geometry: computed output rows [out_row0, out_row0 + out_h) (global), written at
// buffer row out_row_start; input window starts at global row in_row0 of a buffer whose
// window begins at in_row_start. Columns likewise when width_tiled.
struct ResizeGeom {
    int32_t batches = 0, channels = 0;
    int32_t in_full_h = 0, in_full_w = 0, out_full_h = 0, out_full_w = 0;
    int32_t out_h = 0, out_w = 0, out_row0 = 0, out_col0 = 0;
    int32_t in_h = 0, in_w = 0, in_row0 = 0, in_col0 = 0;
    int32_t in_buf_rows = 0, in_buf_cols = 0, in_row_start = 0;
    int32_t out_buf_rows = 0, out_buf_cols = 0, out_row_start = 0;
};

int resize_geometry(const Operand &in, const Operand &out, const tigris_tile_ctx_t &tile, ResizeGeom *g)
{
    if (in.rank != 4 || out.rank != 4 || in.dims[0] != out.dims[0] || in.dims[3] != out.dims[3]) return kError;
    if (in.dtype != TIGRIS_DTYPE_INT8 || out.dtype != TIGRIS_DTYPE_INT8) return kError;
    *g = ResizeGeom();
    g->batches = in.dims[0];
    g->channels = in.dims[3];
    g->in_full_h = g->in_h = g->in_buf_rows = in.dims[1];
    g->in_full_w = g->in_w = g->in_buf_cols = in.dims[2];
    g->out_full_h = g->out_h = g->out_buf_rows = out.dims[1];
    g->out_full_w = g->out_w = g->out_buf_cols = out.dims[2];
    if (!tile.active) return 0;
    if (tile.out_h <= 0 || tile.in_h <= 0 || tile.in_row_start < 0 || tile.out_row_start < 0) return kError;
    g->out_h = tile.out_h;
    g->in_h = tile.in_h;
    g->out_row0 = tile.out_row0;
    g->in_row0 = tile.in_row0;
    g->in_row_start = tile.in_row_start;
    g->out_row_start = tile.out_row_start;
    g->in_buf_rows = tile.in_row_start + tile.in_h;
    g->out_buf_rows = tile.out_row_start + tile.out_h;
    if (tile.width_tiled) {
        if (tile.out_w <= 0 || tile.in_w <= 0) return kError;
        g->out_w = g->out_buf_cols = tile.out_w;
        g->in_w = g->in_buf_cols = tile.in_w;
        g->out_col0 = tile.out_col0;
        g->in_col0 = tile.in_col0;
    }
    return 0;
}

// Offset of (n, global input row iy, global input col ix); -1 outside the window.
int64_t in_offset(const ResizeGeom &g, int32_t n, int32_t iy, int32_t ix)
{
    const int32_t r = iy - g.in_row0, c = ix - g.in_col0;
    if (r < 0 || r >= g.in_h || c < 0 || c >= g.in_w) return -1;
    return (((int64_t)n * g.in_buf_rows + g.in_row_start + r) * g.in_buf_cols + c) * g.channels;
}

int64_t out_offset(const ResizeGeom &g, int32_t n, int32_t r, int32_t c)
{
    return (((int64_t)n * g.out_buf_rows + g.out_row_start + r) * g.out_buf_cols + c) * g.channels;
}

// TFLite GetNearestNeighbor.
int32_t nearest_source(int32_t out_index, int32_t in_size, int32_t out_size, const ResizeFlags &f)
{
    const float scale = (f.align_corners && out_size > 1) ? (float)(in_size - 1) / (float)(out_size - 1)
                                                         : (float)in_size / (float)out_size;
    const float offset = f.half_pixel_centers ? 0.5f : 0.0f;
    const float pos = ((float)out_index + offset) * scale;
    int32_t v = f.align_corners ? (int32_t)round_half_away_f(pos) : (int32_t)floorf(pos);
    if (v > in_size - 1) v = in_size - 1;
    if (f.half_pixel_centers && v < 0) v = 0;
    return v;
}

// TFLite ComputeInterpolationValuesInteger: Q10 source coordinate and its neighbours.
void interpolation_integer(int32_t value, int32_t scale_10, bool half_pixel, int32_t in_size,
                           int32_t *scaled, int32_t *lower, int32_t *upper)
{
    *scaled = half_pixel ? value * scale_10 + scale_10 / 2 - (1 << 9) : value * scale_10;
    const int32_t lo = *scaled / (1 << 10);
    *lower = lo > 0 ? lo : 0;
    const int32_t hi = (*scaled + (1 << 10) - 1) / (1 << 10);
    *upper = hi < in_size - 1 ? hi : in_size - 1;
}

int32_t scale_q10(int32_t in_size, int32_t out_size, bool align_corners)
{
    if (align_corners && out_size > 1) return ((1 << 10) * (in_size - 1) + (out_size - 1) / 2) / (out_size - 1);
    return ((1 << 10) * in_size + out_size / 2) / out_size;
}

// TFLite's (align_corners, half_pixel_centers) from RESIZE_SCALES' coordinate and
// nearest modes; false when TFLite has no such variant. The integer-factor form (no
// attribute) is TFLite's default (asymmetric, floor).
bool resize_flags(const tigris_plan_t *plan, uint16_t op_index, bool nearest, ResizeFlags *f)
{
    *f = ResizeFlags();
    uint8_t len = 0;
    const uint8_t *a = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_RESIZE_SCALES, &len);
    if (a == nullptr || len < 12) return true;
    const uint8_t coord = a[8], nearest_mode = a[9];
    if (nearest) {
        if (coord == 0 && nearest_mode == 0) return true;
        if (coord == 4 && nearest_mode == 0) return f->half_pixel_centers = true;
        if (coord == 3 && nearest_mode == 2) return f->align_corners = true;
        return false;
    }
    if (coord == 0) return true;
    if (coord == 1 || coord == 2) return f->half_pixel_centers = true;
    if (coord == 3) return f->align_corners = true;
    return false;
}

}  // namespace

int resize_nearest(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    Operand in, out;
    ResizeGeom g;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    ResizeFlags f;
    // Modes TFLite lacks are plain byte movement: the float kernels' general formula.
    if (!resize_flags(plan, op_index, true, &f)) return kDelegate;
    if (resize_geometry(in, out, mem->tile, &g)) return kError;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    for (int32_t n = 0; n < g.batches; n++) {
        for (int32_t r = 0; r < g.out_h; r++) {
            const int32_t iy = nearest_source(g.out_row0 + r, g.in_full_h, g.out_full_h, f);
            for (int32_t c = 0; c < g.out_w; c++) {
                const int32_t ix = nearest_source(g.out_col0 + c, g.in_full_w, g.out_full_w, f);
                const int64_t src = in_offset(g, n, iy, ix);
                if (src < 0) return kError;
                int8_t *dst = y + out_offset(g, n, r, c);
                for (int32_t ch = 0; ch < g.channels; ch++) dst[ch] = x[src + ch];
            }
        }
    }
    return 0;
}

int resize_bilinear(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    Operand in, out;
    ResizeGeom g;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    ResizeFlags f;
    if (!resize_flags(plan, op_index, false, &f) || resize_geometry(in, out, mem->tile, &g)) return kError;
    const int32_t sh = scale_q10(g.in_full_h, g.out_full_h, f.align_corners);
    const int32_t sw = scale_q10(g.in_full_w, g.out_full_w, f.align_corners);
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    for (int32_t n = 0; n < g.batches; n++) {
        for (int32_t r = 0; r < g.out_h; r++) {
            int32_t iy, y0, y1;
            interpolation_integer(g.out_row0 + r, sh, f.half_pixel_centers, g.in_full_h, &iy, &y0, &y1);
            for (int32_t c = 0; c < g.out_w; c++) {
                int32_t ix, x0, x1;
                interpolation_integer(g.out_col0 + c, sw, f.half_pixel_centers, g.in_full_w, &ix, &x0, &x1);
                const int64_t p00 = in_offset(g, n, y0, x0), p10 = in_offset(g, n, y1, x0);
                const int64_t p01 = in_offset(g, n, y0, x1), p11 = in_offset(g, n, y1, x1);
                if (p00 < 0 || p10 < 0 || p01 < 0 || p11 < 0) return kError;
                const int64_t wy1 = iy - (1 << 10) * y0, wy0 = (1 << 10) - wy1;
                const int64_t wx1 = ix - (1 << 10) * x0, wx0 = (1 << 10) - wx1;
                int8_t *dst = y + out_offset(g, n, r, c);
                for (int32_t ch = 0; ch < g.channels; ch++) {
                    const int64_t v = x[p00 + ch] * wy0 * wx0 + x[p10 + ch] * wy1 * wx0 +
                                      x[p01 + ch] * wy0 * wx1 + x[p11 + ch] * wy1 * wx1;
                    const int64_t round = v > 0 ? (1 << 19) : -(1 << 19);
                    dst[ch] = (int8_t)((v + round) / (1 << 20));
                }
            }
        }
    }
    return 0;
}

}  // namespace tigris_s8
