// ConvTranspose, NHWC with OHWI weights [OC, KH, KW, IC/group], by input gathering: output
// (y, x) takes input (iy, ix) through tap (kh, kw) when y + pad_top - kh*d_h = iy*s_h.
// Banded calls map through global rows/columns (kern::map_geometry).
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

// Input index along one axis for output coordinate `o` and tap `k`, or -1 when no input lands.
inline int32_t source(int32_t o, int32_t k, int32_t pad, int32_t stride, int32_t dilation, int32_t full_in)
{
    int32_t t = o + pad - k * dilation;
    if (t < 0 || t % stride != 0) return -1;
    t /= stride;
    return t < full_in ? t : -1;
}

struct ConvTArgs {
    kern::MapGeom g;
    const float *in, *w, *b;
    float *out;
    int32_t k_h, k_w, s_h, s_w, d_h, d_w, pad_top, pad_left, groups;
};

// One output pixel; false when a contributing input row/column lies outside the window.
bool pixel(const ConvTArgs &a, int32_t n, int32_t r, int32_t x)
{
    const kern::MapGeom &g = a.g;
    int32_t y = g.out_row0 + r, xg = g.out_col0 + x;
    int32_t icg = g.c_in / a.groups, ocg = g.c_out / a.groups;
    const float *in_n = a.in + n * g.in_batch + (int64_t)g.in_row_start * g.in_row;
    float *o = a.out + n * g.out_batch + (int64_t)(g.out_row_start + r) * g.out_row + (int64_t)x * g.c_out;
    for (int32_t oc = 0; oc < g.c_out; ++oc) o[oc] = a.b ? a.b[oc] : 0.0f;
    for (int32_t kh = 0; kh < a.k_h; ++kh) {
        int32_t iy = source(y, kh, a.pad_top, a.s_h, a.d_h, g.full_in_h);
        if (iy < 0) continue;
        iy -= g.in_row0;
        if (iy < 0 || iy >= g.in_h) return false;
        for (int32_t kw = 0; kw < a.k_w; ++kw) {
            int32_t ix = source(xg, kw, a.pad_left, a.s_w, a.d_w, g.full_in_w);
            if (ix < 0) continue;
            ix -= g.in_col0;
            if (ix < 0 || ix >= g.in_w) return false;
            const float *ip = in_n + iy * g.in_row + (int64_t)ix * g.c_in;
            for (int32_t oc = 0; oc < g.c_out; ++oc) {
                const float *wp = a.w + (((int64_t)oc * a.k_h + kh) * a.k_w + kw) * icg;
                const float *gp = ip + (oc / ocg) * icg;
                float acc = 0.0f;
                for (int32_t c = 0; c < icg; ++c) acc += gp[c] * wp[c];
                o[oc] += acc;
            }
        }
    }
    return true;
}

}  // namespace

int conv_transpose(const Call &c)
{
    ConvTArgs a;
    if (c.in(0).ndim != 4 || kern::map_geometry(c, &a.g) != 0) return -1;
    const tigris_spatial_t &sp = c.op->spatial;
    a.in = reinterpret_cast<const float *>(c.in_ptr(0));
    a.out = reinterpret_cast<float *>(c.out_ptr(0));
    a.w = static_cast<const float *>(c.weight());
    a.b = static_cast<const float *>(c.bias());
    a.k_h = sp.kernel_h, a.k_w = sp.kernel_w, a.s_h = sp.stride_h, a.s_w = sp.stride_w;
    a.d_h = sp.dilation_h ? sp.dilation_h : 1, a.d_w = sp.dilation_w ? sp.dilation_w : 1;
    a.pad_top = sp.pad_top, a.pad_left = sp.pad_left;
    a.groups = sp.group ? sp.group : 1;
    if (a.in == nullptr || a.out == nullptr || a.w == nullptr || a.s_h < 1 || a.s_w < 1) return -1;
    if (a.g.c_in % a.groups != 0 || a.g.c_out % a.groups != 0) return -1;
    for (int32_t n = 0; n < a.g.n; ++n)
        for (int32_t r = 0; r < a.g.out_h; ++r)
            for (int32_t x = 0; x < a.g.out_w; ++x)
                if (!pixel(a, n, r, x)) return -1;
    return 0;
}

}  // namespace f32
}  // namespace tigris_rt
