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
};

// Conv / Conv1D: weight [OC, KH, KW, IC/group].
void conv_pixel(const ConvArgs &a, int32_t n, int32_t r, int32_t x, int32_t groups)
{
    const kern::SpatialGeom &g = a.g;
    int32_t icg = g.c_in / groups, ocg = g.c_out / groups;
    int32_t iy0 = r * g.s_h - g.pad_top, ix0 = x * g.s_w - g.pad_left;
    const float *in_n = a.in + n * g.in_batch + (int64_t)g.in_row_start * g.in_row;
    float *o = a.out + n * g.out_batch + (int64_t)(g.out_row_start + r) * g.out_row + (int64_t)x * g.c_out;
    for (int32_t oc = 0; oc < g.c_out; ++oc) {
        float acc = a.b ? a.b[oc] : 0.0f;
        int32_t c0 = (oc / ocg) * icg;
        for (int32_t kh = 0; kh < g.k_h; ++kh) {
            int32_t iy = iy0 + kh * g.d_h;
            if (iy < 0 || iy >= g.in_h) continue;
            for (int32_t kw = 0; kw < g.k_w; ++kw) {
                int32_t ix = ix0 + kw * g.d_w;
                if (ix < 0 || ix >= g.in_w) continue;
                const float *ip = in_n + iy * g.in_row + (int64_t)ix * g.c_in + c0;
                const float *wp = a.w + (((int64_t)oc * g.k_h + kh) * g.k_w + kw) * icg;
                for (int32_t c = 0; c < icg; ++c) acc += ip[c] * wp[c];
            }
        }
        o[oc] = fused(acc, a.act);
    }
}

// Depthwise: weight [KH, KW, C*mult]; output channel oc reads input channel oc / mult.
void depthwise_pixel(const ConvArgs &a, int32_t n, int32_t r, int32_t x)
{
    const kern::SpatialGeom &g = a.g;
    int32_t mult = g.c_out / g.c_in;
    int32_t iy0 = r * g.s_h - g.pad_top, ix0 = x * g.s_w - g.pad_left;
    const float *in_n = a.in + n * g.in_batch + (int64_t)g.in_row_start * g.in_row;
    float *o = a.out + n * g.out_batch + (int64_t)(g.out_row_start + r) * g.out_row + (int64_t)x * g.c_out;
    for (int32_t oc = 0; oc < g.c_out; ++oc) o[oc] = a.b ? a.b[oc] : 0.0f;
    for (int32_t kh = 0; kh < g.k_h; ++kh) {
        int32_t iy = iy0 + kh * g.d_h;
        if (iy < 0 || iy >= g.in_h) continue;
        for (int32_t kw = 0; kw < g.k_w; ++kw) {
            int32_t ix = ix0 + kw * g.d_w;
            if (ix < 0 || ix >= g.in_w) continue;
            const float *ip = in_n + iy * g.in_row + (int64_t)ix * g.c_in;
            const float *wp = a.w + ((int64_t)kh * g.k_w + kw) * g.c_out;
            for (int32_t oc = 0; oc < g.c_out; ++oc) o[oc] += ip[oc / mult] * wp[oc];
        }
    }
    for (int32_t oc = 0; oc < g.c_out; ++oc) o[oc] = fused(o[oc], a.act);
}

}  // namespace

int conv(const Call &c)
{
    ConvArgs a;
    if (kern::spatial_geometry(c, &a.g) != 0) return -1;
    a.in = reinterpret_cast<const float *>(c.in_ptr(0));
    a.out = reinterpret_cast<float *>(c.out_ptr(0));
    a.w = static_cast<const float *>(c.weight());
    a.b = static_cast<const float *>(c.bias());
    a.act = c.op->fused_act;
    if (a.in == nullptr || a.out == nullptr || a.w == nullptr) return -1;
    bool dw = c.op->op_type == TIGRIS_OP_DEPTHWISE;
    int32_t groups = c.op->spatial.group == 0 ? 1 : c.op->spatial.group;
    if (dw ? (a.g.c_out % a.g.c_in != 0) : (a.g.c_in % groups != 0 || a.g.c_out % groups != 0)) return -1;
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
