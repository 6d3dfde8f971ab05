// int16 pooling and means, as TFLite Micro's reference kernels compute them:
//   AVERAGE_POOL: sum of the valid taps / their count, rounded half away from zero, clamped
//                 to the fused activation's range (TFLite requires equal quantizations).
//   MAX_POOL:     max of the valid taps, clamped likewise.
//   MEAN / GLOBAL_AVG: TFLite's integer mean, y = MBQM(sum - in_zp * n, m, s) + out_zp with
//                 (m, s) of in_scale / out_scale and 1/n folded in; POOL_ROUNDING bit0 selects
//                 the AVERAGE_POOL rounding (an AVERAGE_POOL_2D over the whole map).
//   GLOBAL_MAX:   the max over the map.
// Sums are int32 as TFLite's. Banded like the int8 twins: windows through
// kern::spatial_geometry, spatial means by input rows with one int32 per output element in
// tile.reduce_acc.
#include <string.h>

#include "kernels/s16/s16_kernels.h"
#include "kernels/s16/s16_params.h"
#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s16 {
namespace {

namespace kern = tigris_rt::kern;
using namespace tigris_s8;

constexpr uint8_t kRoundingAvgPool = 0x1;  // POOL_ROUNDING bit0

uint8_t pool_flags(const Call &c)
{
    uint8_t len = 0;
    const uint8_t *f = c.attr(TIGRIS_ATTR_POOL_ROUNDING, &len);
    return f != nullptr && len >= 1 ? f[0] : 0;
}

bool int16_pair(const Operand &in, const Operand &out)
{
    return in.dtype == TIGRIS_DTYPE_INT16 && out.dtype == TIGRIS_DTYPE_INT16 && in.quantized && out.quantized;
}

template <bool kAverage>
int pool(const Call &c)
{
    Operand in, out;
    kern::SpatialGeom g;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out) || !int16_pair(in, out)) return kError;
    if (kern::spatial_geometry(c, &g) || g.c_in != g.c_out) return kError;
    int32_t lo, hi;
    activation_range(c.op->fused_act, out.scale, out.zero_point, &lo, &hi);
    const int16_t *x = (const int16_t *)in.data;
    int16_t *y = (int16_t *)out.data;
    for (int32_t n = 0; n < g.n; n++) {
        for (int32_t oy = 0; oy < g.out_h; oy++) {
            const int32_t y0 = oy * g.s_h - g.pad_top;
            const int32_t fy0 = y0 < 0 ? -y0 : 0;
            const int32_t fy1 = g.k_h < g.in_h - y0 ? g.k_h : g.in_h - y0;
            for (int32_t ox = 0; ox < g.out_w; ox++) {
                const int32_t x0 = ox * g.s_w - g.pad_left;
                const int32_t fx0 = x0 < 0 ? -x0 : 0;
                const int32_t fx1 = g.k_w < g.in_w - x0 ? g.k_w : g.in_w - x0;
                if (fy1 <= fy0 || fx1 <= fx0) return kError;  // a window of padding only
                const int32_t count = (fy1 - fy0) * (fx1 - fx0);
                int16_t *dst = y + n * g.out_batch + (g.out_row_start + oy) * g.out_row + ox * g.c_out;
                for (int32_t ch = 0; ch < g.c_out; ch++) {
                    int32_t acc = kAverage ? 0 : INT16_MIN;
                    for (int32_t fy = fy0; fy < fy1; fy++) {
                        const int16_t *row = x + n * g.in_batch + (g.in_row_start + y0 + fy) * g.in_row + ch;
                        for (int32_t fx = fx0; fx < fx1; fx++) {
                            const int32_t v = row[(x0 + fx) * g.c_in];
                            acc = kAverage ? wrap_add(acc, v) : (v > acc ? v : acc);
                        }
                    }
                    if (kAverage) acc = divide_round_away(acc, count);
                    dst[ch] = (int16_t)clamp_i32(acc, lo, hi);
                }
            }
        }
    }
    return 0;
}

enum class Kind { kMean, kAvgPoolRounding, kMax };

struct MeanOut {
    int32_t m = 0, in_zp = 0, out_zp = 0;
    int shift = 0;
    int64_t count = 1;
};

MeanOut mean_out(const Operand &in, const Operand &out, int64_t count)
{
    MeanOut r;
    rescale_multiplier(in.scale, out.scale, &r.m, &r.shift);
    fold_mean_count(count, &r.m, &r.shift);
    r.in_zp = in.zero_point;
    r.out_zp = out.zero_point;
    r.count = count;
    return r;
}

int16_t reduced_value(Kind k, const MeanOut &r, int32_t acc)
{
    if (k == Kind::kMax) return (int16_t)acc;
    if (k == Kind::kAvgPoolRounding) return clamp_s16(divide_round_away(acc, (int32_t)r.count));
    const int32_t shifted = (int32_t)(uint32_t)((int64_t)acc - (int64_t)r.in_zp * r.count);
    return clamp_s16(wrap_add(multiply_by_quantized_multiplier(shifted, r.m, r.shift), r.out_zp));
}

// Over every axis but batch (0) and channels (last) of a channels-last tensor; whole or by
// input rows (tile.reduce_acc holds one int32 per output element).
int spatial_reduce(const Call &c, Kind kind)
{
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out) || !int16_pair(in, out) || in.rank < 2) return kError;
    const int32_t batches = in.shape[0], channels = in.shape[in.rank - 1];
    int32_t rows = in.rank >= 3 ? in.shape[1] : 1, cols = 1;
    for (int d = 2; d < in.rank - 1; d++) cols *= in.shape[d];
    const int64_t count = (int64_t)rows * cols;
    if (out.elements != (uint32_t)(batches * channels) || count > 0x7FFFFF) return kError;
    const MeanOut r = mean_out(in, out, count);
    const int16_t *x = (const int16_t *)in.data;
    int16_t *y = (int16_t *)out.data;
    const kern::ReduceBand band = kern::reduce_band(c.mem);
    if (c.tiled() && (!band.active || in.rank < 3 || band.in_h < 0)) return kError;
    const int32_t row0 = band.active ? band.in_row_start : 0;
    const int32_t buf_rows = band.active ? band.in_row_start + band.in_h : rows;
    if (band.active) rows = band.in_h;
    int32_t *acc = (int32_t *)band.acc;
    for (int32_t n = 0; n < batches; n++) {
        for (int32_t ch = 0; ch < channels; ch++) {
            const int64_t i = (int64_t)n * channels + ch;
            const bool fresh = !band.active || band.first;
            int32_t a = fresh ? (kind == Kind::kMax ? INT16_MIN : 0) : acc[i];
            const int16_t *src = x + ((int64_t)n * buf_rows + row0) * cols * channels + ch;
            for (int64_t e = 0; e < (int64_t)rows * cols; e++) {
                const int32_t v = src[e * channels];
                a = kind == Kind::kMax ? (v > a ? v : a) : wrap_add(a, v);
            }
            if (band.active) acc[i] = a;
            if (!band.active || band.last) y[i] = reduced_value(kind, r, a);
        }
    }
    return 0;
}

}  // namespace

int avg_pool(const Call &c) { return pool<true>(c); }

int max_pool(const Call &c) { return pool<false>(c); }

int global_avg(const Call &c)
{
    return spatial_reduce(c, (pool_flags(c) & kRoundingAvgPool) ? Kind::kAvgPoolRounding : Kind::kMean);
}

int global_max(const Call &c) { return spatial_reduce(c, Kind::kMax); }

// MEAN over AXES (absent: every axis; keep_dims read from the output's rank). Banded calls
// keep axis 1, or reduce every axis but batch and channels by input rows.
int reduce_mean(const Call &c)
{
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out) || !int16_pair(in, out) || in.rank == 0) return kError;
    const Kind kind = (pool_flags(c) & kRoundingAvgPool) ? Kind::kAvgPoolRounding : Kind::kMean;
    uint8_t len = 0;
    const uint8_t *axes = c.attr(TIGRIS_ATTR_AXES, &len);
    bool reduced[tigris_rt::kern::kMaxRank] = {};
    for (int d = 0; d < in.rank; d++) reduced[d] = axes == nullptr;
    for (uint8_t i = 0; axes != nullptr && i < len; i++) {
        if (axes[i] >= in.rank) return kError;
        reduced[axes[i]] = true;
    }
    int64_t count = 1;
    int n_reduced = 0;
    int32_t keep_shape[tigris_rt::kern::kMaxRank];
    for (int d = 0; d < in.rank; d++) {
        keep_shape[d] = reduced[d] ? 1 : in.shape[d];
        if (reduced[d]) count *= in.shape[d], n_reduced++;
    }
    if (count > 0x7FFFFF) return kError;
    if (c.tiled() && kern::reduce_band(c.mem).active) {
        if (reduced[0] || reduced[in.rank - 1] || n_reduced != in.rank - 2) return kError;
        return spatial_reduce(c, kind);
    }
    const kern::Band band = kern::pointwise_band(c.mem);
    if (band.row_axis >= 0 && band.row_axis < in.rank && reduced[band.row_axis]) return kError;
    const kern::View vo = kern::output_view(band, out.data, keep_shape, in.rank, 2);
    const kern::View vi = kern::input_view(band, in.data, in.shape, in.rank, 2, keep_shape, in.rank);
    const MeanOut r = mean_out(in, out, count);
    return kern::for_each_group(vo, vi, reduced, [&](uint8_t *o, uint8_t *base, const kern::ReducedAxes &ax) {
        int32_t a = 0;
        kern::for_each_reduced(base, ax, [&](uint8_t *e) {
            int16_t v;
            memcpy(&v, e, 2);
            a = wrap_add(a, v);
        });
        const int16_t y = reduced_value(kind, r, a);
        memcpy(o, &y, 2);
    });
}

}  // namespace tigris_s16
