// Resize nearest (any dtype, byte copies), bilinear and bicubic (float32) over H and W of NHWC
// (or L of NLC), with the coordinate modes of docs/operators.md §3.7 (tf_crop_and_resize's region
// and extrapolation value in the long RESIZE_SCALES form); banded calls map through global
// rows/columns (kern::map_geometry).
#include <string.h>

#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

struct Axis {
    double scale;     // output / input
    int32_t in, out;  // full extents
    int32_t factor;   // integer-factor form (nearest without RESIZE_SCALES), else 0
    double roi0, roi1;  // tf_crop_and_resize's region, as fractions of the extent
};

struct Modes {
    uint8_t coord, nearest, cubic, exclude_outside;
    double cubic_a;
    float extrapolation;
};

constexpr uint8_t kCropAndResize = 5;

double source_coord(const Axis &a, int32_t o, uint8_t mode)
{
    switch (mode) {
    case kCropAndResize: {
        double span = (a.roi1 - a.roi0) * (a.in - 1);
        return a.roi0 * (a.in - 1) + (a.out > 1 ? o * span / (a.out - 1) : 0.5 * span);
    }
    case 1: return (o + 0.5) / a.scale - 0.5;
    case 2: return a.out > 1 ? (o + 0.5) / a.scale - 0.5 : 0.0;
    case 3: return a.out > 1 ? (double)o * (a.in - 1) / (a.out - 1) : 0.0;
    case 4: return (o + 0.5) / a.scale;
    default: return o / a.scale;
    }
}

// tf_crop_and_resize leaves outputs whose source lies outside the input to the extrapolation value.
inline bool outside(const Axis &a, double x, const Modes &m)
{
    return m.coord == kCropAndResize && (x < 0 || x > a.in - 1);
}

int32_t clamp_index(double v, int32_t n)
{
    if (v < 0) return 0;
    if (v > n - 1) return n - 1;
    return (int32_t)v;
}

int32_t nearest_index(const Axis &a, int32_t o, const Modes &m)
{
    if (a.factor > 0) return o / a.factor;
    double x = source_coord(a, o, m.coord), f = floor(x), r;
    switch (m.nearest) {
    case 1: r = (x - f == 0.5) ? f : floor(x + 0.5); break;
    case 2: r = floor(x + 0.5); break;
    case 3: r = ceil(x); break;
    default: r = f; break;
    }
    return clamp_index(r, a.in);
}

struct Lerp {
    int32_t i0, i1;
    float f;
    bool outside;
};

Lerp linear_index(const Axis &a, int32_t o, const Modes &m)
{
    double x = source_coord(a, o, m.coord);
    Lerp l;
    l.outside = outside(a, x, m);
    if (x < 0) x = 0;
    if (x > a.in - 1) x = a.in - 1;
    l.i0 = (int32_t)floor(x);
    l.i1 = l.i0 + 1 < a.in ? l.i0 + 1 : a.in - 1;
    l.f = (float)(x - l.i0);
    return l;
}

void read_axes(const Call &c, const kern::MapGeom &g, Axis *h, Axis *w, Modes *m)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(TIGRIS_ATTR_RESIZE_SCALES, &len);
    bool nearest = c.op->op_type == TIGRIS_OP_RESIZE;
    *h = Axis{(double)g.full_out_h / g.full_in_h, g.full_in_h, g.full_out_h, 0, 0.0, 1.0};
    *w = Axis{(double)g.full_out_w / g.full_in_w, g.full_in_w, g.full_out_w, 0, 0.0, 1.0};
    *m = Modes{0, 0, 0, 0, -0.75, 0.0f};
    if (p == nullptr) {
        if (nearest) {
            h->factor = c.op->spatial.stride_h;
            w->factor = c.in(0).ndim == 4 ? c.op->spatial.stride_w : 1;
        }
        return;
    }
    float sh, sw;
    memcpy(&sh, p, 4);
    memcpy(&sw, p + 4, 4);
    h->scale = sh;
    if (c.in(0).ndim == 4) w->scale = sw;
    if (len >= 12) m->coord = p[8], m->nearest = p[9];
    if (len == 36) {
        float f[6];
        memcpy(f, p + 12, sizeof f);
        m->cubic = p[10], m->exclude_outside = p[11], m->cubic_a = f[0], m->extrapolation = f[5];
        h->roi0 = f[1], h->roi1 = f[2];
        if (c.in(0).ndim == 4) w->roi0 = f[3], w->roi1 = f[4];
    }
}

// Bicubic taps of one output coordinate: four clamped input indices and their weights
// (Keys' cubic convolution with coefficient A as the ONNX operator defines it; an integer
// source reads that element alone; exclude_outside drops taps beyond the edges and
// renormalizes).
struct Taps {
    int32_t i[4];
    double w[4];
    bool outside;
};

Taps cubic_taps(const Axis &a, int32_t o, const Modes &m)
{
    Taps t;
    double x = source_coord(a, o, m.coord), f = floor(x), r = x - f, A = m.cubic_a;
    t.outside = outside(a, x, m);
    if (r == 0) {  // exact: only the element itself (clamped)
        for (int k = 0; k < 4; ++k) t.i[k] = clamp_index(f, a.in), t.w[k] = k == 0 ? 1.0 : 0.0;
        return t;
    }
    double d[4] = {1 + r, r, 1 - r, 2 - r};  // distances of taps f-1, f, f+1, f+2
    double sum = 0;
    for (int k = 0; k < 4; ++k) {
        double s = d[k];
        double wk = s <= 1 ? ((A + 2) * s - (A + 3)) * s * s + 1 : ((A * s - 5 * A) * s + 8 * A) * s - 4 * A;
        double src = f - 1 + k;
        if (m.exclude_outside && (src < 0 || src > a.in - 1)) wk = 0;
        t.i[k] = clamp_index(src, a.in);
        t.w[k] = wk;
        sum += wk;
    }
    if (m.exclude_outside && sum != 0)
        for (double &wk : t.w) wk /= sum;
    return t;
}

// Local input row/column of a global index; -1 when outside the window.
inline int32_t local(int32_t global, int32_t first, int32_t count)
{
    int32_t l = global - first;
    return l >= 0 && l < count ? l : -1;
}

void fill(float *dst, int32_t count, float value)
{
    for (int32_t i = 0; i < count; ++i) dst[i] = value;
}

int nearest(const Call &c, const kern::MapGeom &g, const Axis &ah, const Axis &aw, const Modes &m)
{
    uint32_t px = (uint32_t)g.c_in * tigris_dtype_size(c.in(0).dtype);
    const uint8_t *in = c.in_ptr(0);
    uint8_t *out = c.out_ptr(0);
    uint32_t es = tigris_dtype_size(c.in(0).dtype);
    for (int32_t n = 0; n < g.n; ++n)
        for (int32_t r = 0; r < g.out_h; ++r) {
            bool out_y = outside(ah, source_coord(ah, g.out_row0 + r, m.coord), m);
            int32_t iy = local(nearest_index(ah, g.out_row0 + r, m), g.in_row0, g.in_h);
            if (iy < 0) return -1;
            const uint8_t *irow = in + ((n * g.in_batch) + (int64_t)(g.in_row_start + iy) * g.in_row) * es;
            uint8_t *orow = out + ((n * g.out_batch) + (int64_t)(g.out_row_start + r) * g.out_row) * es;
            for (int32_t x = 0; x < g.out_w; ++x) {
                int32_t ix = local(nearest_index(aw, g.out_col0 + x, m), g.in_col0, g.in_w);
                if (ix < 0) return -1;
                if (out_y || outside(aw, source_coord(aw, g.out_col0 + x, m.coord), m))
                    fill(reinterpret_cast<float *>(orow + (int64_t)x * px), g.c_in, m.extrapolation);
                else
                    memcpy(orow + (int64_t)x * px, irow + (int64_t)ix * px, px);
            }
        }
    return 0;
}

int bilinear(const Call &c, const kern::MapGeom &g, const Axis &ah, const Axis &aw, const Modes &m)
{
    if (c.in(0).dtype != TIGRIS_DTYPE_FLOAT32) return -1;
    const float *in = reinterpret_cast<const float *>(c.in_ptr(0));
    float *out = reinterpret_cast<float *>(c.out_ptr(0));
    for (int32_t n = 0; n < g.n; ++n)
        for (int32_t r = 0; r < g.out_h; ++r) {
            Lerp ly = linear_index(ah, g.out_row0 + r, m);
            int32_t y0 = local(ly.i0, g.in_row0, g.in_h), y1 = local(ly.i1, g.in_row0, g.in_h);
            if (y0 < 0 || y1 < 0) return -1;
            const float *r0 = in + n * g.in_batch + (int64_t)(g.in_row_start + y0) * g.in_row;
            const float *r1 = in + n * g.in_batch + (int64_t)(g.in_row_start + y1) * g.in_row;
            float *orow = out + n * g.out_batch + (int64_t)(g.out_row_start + r) * g.out_row;
            for (int32_t x = 0; x < g.out_w; ++x) {
                Lerp lx = linear_index(aw, g.out_col0 + x, m);
                int32_t x0 = local(lx.i0, g.in_col0, g.in_w), x1 = local(lx.i1, g.in_col0, g.in_w);
                if (x0 < 0 || x1 < 0) return -1;
                if (ly.outside || lx.outside) {
                    fill(orow + (int64_t)x * g.c_out, g.c_in, m.extrapolation);
                    continue;
                }
                for (int32_t ch = 0; ch < g.c_in; ++ch) {
                    float v00 = r0[(int64_t)x0 * g.c_in + ch], v01 = r0[(int64_t)x1 * g.c_in + ch];
                    float v10 = r1[(int64_t)x0 * g.c_in + ch], v11 = r1[(int64_t)x1 * g.c_in + ch];
                    float top = v00 + (v01 - v00) * lx.f, bottom = v10 + (v11 - v10) * lx.f;
                    orow[(int64_t)x * g.c_out + ch] = top + (bottom - top) * ly.f;
                }
            }
        }
    return 0;
}

// Bicubic: along W per tap row, then along H, in double as the ONNX reference does.
int bicubic(const Call &c, const kern::MapGeom &g, const Axis &ah, const Axis &aw, const Modes &m)
{
    if (c.in(0).dtype != TIGRIS_DTYPE_FLOAT32) return -1;
    const float *in = reinterpret_cast<const float *>(c.in_ptr(0));
    float *out = reinterpret_cast<float *>(c.out_ptr(0));
    for (int32_t n = 0; n < g.n; ++n)
        for (int32_t r = 0; r < g.out_h; ++r) {
            Taps ty = cubic_taps(ah, g.out_row0 + r, m);
            const float *rows[4];
            for (int k = 0; k < 4; ++k) {
                int32_t y = local(ty.i[k], g.in_row0, g.in_h);
                if (y < 0) return -1;
                rows[k] = in + n * g.in_batch + (int64_t)(g.in_row_start + y) * g.in_row;
            }
            float *orow = out + n * g.out_batch + (int64_t)(g.out_row_start + r) * g.out_row;
            for (int32_t x = 0; x < g.out_w; ++x) {
                Taps tx = cubic_taps(aw, g.out_col0 + x, m);
                int32_t cols[4];
                for (int k = 0; k < 4; ++k)
                    if ((cols[k] = local(tx.i[k], g.in_col0, g.in_w)) < 0) return -1;
                if (ty.outside || tx.outside) {
                    fill(orow + (int64_t)x * g.c_out, g.c_in, m.extrapolation);
                    continue;
                }
                for (int32_t ch = 0; ch < g.c_in; ++ch) {
                    double v = 0;
                    for (int j = 0; j < 4; ++j) {
                        double row = 0;
                        for (int k = 0; k < 4; ++k) row += tx.w[k] * rows[j][(int64_t)cols[k] * g.c_in + ch];
                        v += ty.w[j] * row;
                    }
                    orow[(int64_t)x * g.c_out + ch] = (float)v;
                }
            }
        }
    return 0;
}

}  // namespace

int resize(const Call &c)
{
    kern::MapGeom g;
    if (kern::map_geometry(c, &g) != 0 || g.c_in != g.c_out) return -1;
    if (c.in_ptr(0) == nullptr || c.out_ptr(0) == nullptr) return -1;
    Axis ah, aw;
    Modes m;
    read_axes(c, g, &ah, &aw, &m);
    if (c.op->op_type == TIGRIS_OP_RESIZE) return nearest(c, g, ah, aw, m);
    return m.cubic ? bicubic(c, g, ah, aw, m) : bilinear(c, g, ah, aw, m);
}

}  // namespace f32
}  // namespace tigris_rt
