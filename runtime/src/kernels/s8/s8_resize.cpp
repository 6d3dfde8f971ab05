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

bool int8_maps(const Operand &in, const Operand &out)
{
    return in.dtype == TIGRIS_DTYPE_INT8 && out.dtype == TIGRIS_DTYPE_INT8 && in.rank == 4 && out.rank == 4;
}

// Offset of (n, global input row iy, global input col ix); -1 outside the window.
int64_t in_offset(const kern::MapGeom &g, int32_t n, int32_t iy, int32_t ix)
{
    const int32_t r = iy - g.in_row0, col = ix - g.in_col0;
    if (r < 0 || r >= g.in_h || col < 0 || col >= g.in_w) return -1;
    return n * g.in_batch + (g.in_row_start + r) * g.in_row + (int64_t)col * g.c_in;
}

int64_t out_offset(const kern::MapGeom &g, int32_t n, int32_t r, int32_t col)
{
    return n * g.out_batch + (g.out_row_start + r) * g.out_row + (int64_t)col * g.c_out;
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
void interpolation_integer(int32_t value, int32_t scale_10, bool half_pixel, int32_t in_size, int32_t *scaled,
                           int32_t *lower, int32_t *upper)
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
bool resize_flags(const Call &c, bool nearest, ResizeFlags *f)
{
    *f = ResizeFlags();
    uint8_t len = 0;
    const uint8_t *a = c.attr(TIGRIS_ATTR_RESIZE_SCALES, &len);
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

int resize_nearest(const Call &c)
{
    Operand in, out;
    kern::MapGeom g;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    ResizeFlags f;
    // Modes TFLite lacks are plain byte movement: the float kernels' general formula.
    if (!resize_flags(c, true, &f)) return kDelegate;
    if (!int8_maps(in, out) || kern::map_geometry(c, &g) || g.c_in != g.c_out) return kError;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    for (int32_t n = 0; n < g.n; n++) {
        for (int32_t r = 0; r < g.out_h; r++) {
            const int32_t iy = nearest_source(g.out_row0 + r, g.full_in_h, g.full_out_h, f);
            for (int32_t col = 0; col < g.out_w; col++) {
                const int32_t ix = nearest_source(g.out_col0 + col, g.full_in_w, g.full_out_w, f);
                const int64_t src = in_offset(g, n, iy, ix);
                if (src < 0) return kError;
                int8_t *dst = y + out_offset(g, n, r, col);
                for (int32_t ch = 0; ch < g.c_out; ch++) dst[ch] = x[src + ch];
            }
        }
    }
    return 0;
}

int resize_bilinear(const Call &c)
{
    Operand in, out;
    kern::MapGeom g;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    ResizeFlags f;
    if (!resize_flags(c, false, &f) || !int8_maps(in, out) || kern::map_geometry(c, &g) || g.c_in != g.c_out)
        return kError;
    const int32_t sh = scale_q10(g.full_in_h, g.full_out_h, f.align_corners);
    const int32_t sw = scale_q10(g.full_in_w, g.full_out_w, f.align_corners);
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    for (int32_t n = 0; n < g.n; n++) {
        for (int32_t r = 0; r < g.out_h; r++) {
            int32_t iy, y0, y1;
            interpolation_integer(g.out_row0 + r, sh, f.half_pixel_centers, g.full_in_h, &iy, &y0, &y1);
            for (int32_t col = 0; col < g.out_w; col++) {
                int32_t ix, x0, x1;
                interpolation_integer(g.out_col0 + col, sw, f.half_pixel_centers, g.full_in_w, &ix, &x0, &x1);
                const int64_t p00 = in_offset(g, n, y0, x0), p10 = in_offset(g, n, y1, x0);
                const int64_t p01 = in_offset(g, n, y0, x1), p11 = in_offset(g, n, y1, x1);
                if (p00 < 0 || p10 < 0 || p01 < 0 || p11 < 0) return kError;
                const int64_t wy1 = iy - (1 << 10) * y0, wy0 = (1 << 10) - wy1;
                const int64_t wx1 = ix - (1 << 10) * x0, wx0 = (1 << 10) - wx1;
                int8_t *dst = y + out_offset(g, n, r, col);
                for (int32_t ch = 0; ch < g.c_out; ch++) {
                    const int64_t v = x[p00 + ch] * wy0 * wx0 + x[p10 + ch] * wy1 * wx0 + x[p01 + ch] * wy0 * wx1 +
                                      x[p11 + ch] * wy1 * wx1;
                    const int64_t round = v > 0 ? (1 << 19) : -(1 << 19);
                    dst[ch] = (int8_t)((v + round) / (1 << 20));
                }
            }
        }
    }
    return 0;
}

}  // namespace tigris_s8
