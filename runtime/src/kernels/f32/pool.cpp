// Max/Avg/L2 pooling over windows (banded calls through kern::spatial_geometry) and global
// average/max pooling (banded by input through kern::reduce_band).
#include <float.h>

#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

constexpr uint8_t kCountIncludePad = 0x2, kNoAveraging = 0x4;

uint8_t pool_flags(const Call &c)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(TIGRIS_ATTR_POOL_ROUNDING, &len);
    return p != nullptr && len == 1 ? p[0] : 0;
}

// Taps of one window along an axis that lie inside [lo, hi).
int32_t taps_inside(int32_t start, int32_t k, int32_t d, int32_t lo, int32_t hi)
{
    int32_t n = 0;
    for (int32_t t = 0; t < k; ++t) {
        int32_t p = start + t * d;
        n += p >= lo && p < hi;
    }
    return n;
}

}  // namespace

int pool(const Call &c)
{
    kern::SpatialGeom g;
    if (kern::spatial_geometry(c, &g) != 0 || g.c_in != g.c_out) return -1;
    const float *in = reinterpret_cast<const float *>(c.in_ptr(0));
    float *out = reinterpret_cast<float *>(c.out_ptr(0));
    if (in == nullptr || out == nullptr) return -1;
    uint8_t type = c.op->op_type, flags = pool_flags(c);
    for (int32_t n = 0; n < g.n; ++n)
        for (int32_t r = 0; r < g.out_h; ++r) {
            int32_t iy0 = r * g.s_h - g.pad_top;
            for (int32_t x = 0; x < g.out_w; ++x) {
                int32_t ix0 = x * g.s_w - g.pad_left;
                float *o = out + n * g.out_batch + (int64_t)(g.out_row_start + r) * g.out_row + (int64_t)x * g.c_out;
                int32_t valid = taps_inside(iy0, g.k_h, g.d_h, 0, g.in_h) * taps_inside(ix0, g.k_w, g.d_w, 0, g.in_w);
                int32_t padded = taps_inside(iy0, g.k_h, g.d_h, -g.pad_top, g.in_h + g.pad_bottom) *
                                 taps_inside(ix0, g.k_w, g.d_w, -g.pad_left, g.in_w + g.pad_right);
                for (int32_t ch = 0; ch < g.c_out; ++ch) {
                    float acc = type == TIGRIS_OP_MAX_POOL ? -FLT_MAX : 0.0f;
                    bool any = false;
                    for (int32_t kh = 0; kh < g.k_h; ++kh) {
                        int32_t iy = iy0 + kh * g.d_h;
                        if (iy < 0 || iy >= g.in_h) continue;
                        const float *row = in + n * g.in_batch + (int64_t)(g.in_row_start + iy) * g.in_row + ch;
                        for (int32_t kw = 0; kw < g.k_w; ++kw) {
                            int32_t ix = ix0 + kw * g.d_w;
                            if (ix < 0 || ix >= g.in_w) continue;
                            float v = row[(int64_t)ix * g.c_in];
                            if (type == TIGRIS_OP_MAX_POOL) acc = any ? (v > acc || v != v ? v : acc) : v;
                            else if (type == TIGRIS_OP_AVG_POOL) acc += v;
                            else acc += v * v;
                            any = true;
                        }
                    }
                    if (type == TIGRIS_OP_AVG_POOL) {
                        int32_t count = (flags & kCountIncludePad) ? padded : valid;
                        acc = count > 0 ? acc / (float)count : 0.0f;
                    } else if (type == TIGRIS_OP_L2_POOL) {
                        acc = (flags & kNoAveraging) ? sqrtf(acc) : (valid > 0 ? sqrtf(acc / (float)valid) : 0.0f);
                    } else if (!any) {
                        acc = 0.0f;
                    }
                    o[ch] = acc;
                }
            }
        }
    return 0;
}

namespace {

// A flat by-input band (BY_INPUT mode FLAT): every axis but the batch (0) and the channels
// (last) reduced, each element combined into its channel's accumulator in memory order
// (the whole kernel's order per channel).
int global_pool_flat(const Call &c, bool is_max, const kern::ReduceBand &rb)
{
    const tigris_tensor_t &t = c.in(0);
    const int32_t *s = c.shape(t);
    const float *in = reinterpret_cast<const float *>(c.in_ptr(0));
    float *out = reinterpret_cast<float *>(c.out_ptr(0));
    float *acc = static_cast<float *>(rb.acc);
    if (in == nullptr || out == nullptr || acc == nullptr || rb.in_h < 0) return -1;
    bool reduced[kern::kMaxRank] = {};
    for (uint8_t a = 1; a + 1 < t.ndim; ++a) reduced[a] = true;
    const int64_t outs = (int64_t)s[0] * s[t.ndim - 1];
    if (rb.first)
        for (int64_t i = 0; i < outs; ++i) acc[i] = is_max ? -FLT_MAX : 0.0f;
    kern::for_each_flat(s, t.ndim, reduced, rb.flat_start, rb.in_h, [&](int64_t o, int64_t k) {
        const float v = in[k];
        acc[o] = is_max ? (v > acc[o] || v != v ? v : acc[o]) : acc[o] + v;
    });
    if (!rb.last) return 0;
    const float count = (float)s[1] * (float)(t.ndim == 4 ? s[2] : 1);
    for (int64_t i = 0; i < outs; ++i) out[i] = is_max ? acc[i] : acc[i] / count;
    return 0;
}

}  // namespace

int global_pool(const Call &c)
{
    const tigris_tensor_t &t = c.in(0);
    if (t.ndim != 3 && t.ndim != 4) return -1;
    const int32_t *s = c.shape(t);
    int32_t n_batch = s[0], ch = s[t.ndim - 1], h = s[1], w = t.ndim == 4 ? s[2] : 1;
    const float *in = reinterpret_cast<const float *>(c.in_ptr(0));
    float *out = reinterpret_cast<float *>(c.out_ptr(0));
    if (in == nullptr || out == nullptr) return -1;
    bool is_max = c.op->op_type == TIGRIS_OP_GLOBAL_MAX;
    kern::ReduceBand rb = kern::reduce_band(c.mem);
    if (rb.active && rb.flat) return global_pool_flat(c, is_max, rb);
    const tigris_tile_ctx_t &band = c.tile();
    if (c.tiled() && band.chan_tiled) {  // a channel band: every row and column of its channels
        if (rb.active || band.in_h != h || band.in_row_start != 0 || band.chans < 1 || band.chan0 + band.chans > ch)
            return -1;
        ch = band.chans;
    } else if (c.tiled() && !rb.active) {
        return -1;
    }
    int32_t rows = rb.active ? rb.in_h : h, start = rb.active ? rb.in_row_start : 0;
    float *acc = rb.active ? static_cast<float *>(rb.acc) : out;
    int64_t row = (int64_t)w * ch, batch = (int64_t)(start + rows) * row;
    for (int32_t n = 0; n < n_batch; ++n) {
        float *a = acc + (int64_t)n * ch;
        if (!rb.active || rb.first)
            for (int32_t k = 0; k < ch; ++k) a[k] = is_max ? -FLT_MAX : 0.0f;
        const float *src = in + n * batch + (int64_t)start * row;
        for (int64_t p = 0; p < (int64_t)rows * w; ++p)
            for (int32_t k = 0; k < ch; ++k) {
                float v = src[p * ch + k];
                a[k] = is_max ? (v > a[k] || v != v ? v : a[k]) : a[k] + v;
            }
    }
    if (rb.active && !rb.last) return 0;
    float count = (float)h * (float)w;
    for (int64_t i = 0; i < (int64_t)n_batch * ch; ++i) out[i] = is_max ? acc[i] : acc[i] / count;
    return 0;
}

}  // namespace f32
}  // namespace tigris_rt
