// int8 pooling and mean reductions, as TFLite (Micro) computes them.
//   AVERAGE_POOL: sum of the valid taps / their count, rounded half away from zero
//                 (TFLite requires equal input/output quantization; when they differ
//                 we average x - in_zp the same way and requantize in_scale/out_scale).
//                 POOL_ROUNDING bit1 (count_include_pad) divides by the padded taps.
//   MAX_POOL:     max of the valid taps (requantized when the quantizations differ).
//   REDUCE_MAX/MIN: raw extremes; REDUCE_SUM: MBQM(sum - in_zp * n, m, s) + out_zp.
//   MEAN / GLOBAL_AVG: TFLite integer mean: (m, s) of in_scale/out_scale with 1/count
//                 folded in, y = MBQM(sum - in_zp * count, m, s) + out_zp; POOL_ROUNDING
//                 bit0 selects the AVERAGE_POOL rounding instead.
// Fused activations clamp to [act_min, act_max]; means clamp to int8.
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"
#include "ops/op_table.h"

namespace tigris_s8 {
namespace {

// POOL_ROUNDING flag bits (docs/operators.md §3.2).
constexpr uint8_t kRoundingAvgPool = 0x1;  // int8 GlobalAvg/ReduceMean: AVERAGE_POOL rounding
constexpr uint8_t kCountIncludePad = 0x2;  // AvgPool divides by the taps of the padded extent

uint8_t pool_flags(const Call &c)
{
    uint8_t len = 0;
    const uint8_t *f = c.attr(TIGRIS_ATTR_POOL_ROUNDING, &len);
    return f != nullptr && len >= 1 ? f[0] : 0;
}

// How a pooled or reduced value becomes an output byte.
struct PoolOut {
    bool requant = false;  // quantizations differ
    int32_t in_zp = 0, out_zp = 0, m = 0;
    int shift = 0;
    int32_t act_min = -128, act_max = 127;
};

PoolOut pool_out(const Call &c, const Operand &in, const Operand &out)
{
    PoolOut p;
    p.act_min = c.op->act_min;
    p.act_max = c.op->act_max;
    if (!same_quant(in, out)) {
        p.requant = true;
        p.in_zp = in.zero_point;
        p.out_zp = out.zero_point;
        rescale_multiplier(in.scale, out.scale, &p.m, &p.shift);
    }
    return p;
}

// AVERAGE_POOL value of a raw sum over `count` taps.
int8_t average_value(const PoolOut &p, int32_t sum, int32_t count)
{
    if (!p.requant) return (int8_t)clamp_i32(divide_round_away(sum, count), p.act_min, p.act_max);
    const int32_t avg = divide_round_away(sum - p.in_zp * count, count);
    return (int8_t)clamp_i32(wrap_add(multiply_by_quantized_multiplier(avg, p.m, p.shift), p.out_zp), p.act_min,
                             p.act_max);
}

int8_t max_value(const PoolOut &p, int32_t max)
{
    if (p.requant) max = wrap_add(multiply_by_quantized_multiplier(max - p.in_zp, p.m, p.shift), p.out_zp);
    return (int8_t)clamp_i32(max, p.act_min, p.act_max);
}

// Taps of a window starting at `start` (length k) inside [lo, hi).
inline int32_t taps_inside(int32_t start, int32_t k, int32_t lo, int32_t hi)
{
    const int32_t a = start > lo ? start : lo;
    const int32_t b = start + k < hi ? start + k : hi;
    return b > a ? b - a : 0;
}

template <bool kAverage>
int pool(const Call &c)
{
    Operand in, out;
    kern::SpatialGeom g;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    if (in.dtype != TIGRIS_DTYPE_INT8 || out.dtype != TIGRIS_DTYPE_INT8) return kError;
    if (kern::spatial_geometry(c, &g) || g.c_in != g.c_out) return kError;
    const PoolOut p = pool_out(c, in, out);
    const bool include_pad = kAverage && (pool_flags(c) & kCountIncludePad) != 0;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
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
                const int32_t count = include_pad ? taps_inside(y0, g.k_h, -g.pad_top, g.in_h + g.pad_bottom) *
                                                        taps_inside(x0, g.k_w, -g.pad_left, g.in_w + g.pad_right)
                                                  : (fy1 - fy0) * (fx1 - fx0);
                int8_t *dst = y + n * g.out_batch + (g.out_row_start + oy) * g.out_row + ox * g.c_out;
                for (int32_t ch = 0; ch < g.c_out; ch++) {
                    int32_t acc = kAverage ? 0 : -128;
                    for (int32_t fy = fy0; fy < fy1; fy++) {
                        const int8_t *row = x + n * g.in_batch + (g.in_row_start + y0 + fy) * g.in_row + ch;
                        for (int32_t fx = fx0; fx < fx1; fx++) {
                            const int32_t v = row[(x0 + fx) * g.c_in];
                            acc = kAverage ? acc + v : (v > acc ? v : acc);
                        }
                    }
                    dst[ch] = kAverage ? average_value(p, acc, count) : max_value(p, acc);
                }
            }
        }
    }
    return 0;
}

// TFLite integer mean of a raw sum over `count` elements.
struct MeanOut {
    int32_t m = 0, in_zp = 0, out_zp = 0;
    int shift = 0;
    int64_t count = 1;
};

MeanOut mean_out(const Operand &in, const Operand &out, int64_t count, bool fold = true)
{
    MeanOut r;
    const Operand &q = out.quantized && out.scale > 0.0f ? out : in;  // no output quant: reuse input's
    rescale_multiplier(in.scale, q.scale, &r.m, &r.shift);
    if (fold) fold_mean_count(count, &r.m, &r.shift);
    r.in_zp = in.zero_point;
    r.out_zp = q.zero_point;
    r.count = count;
    return r;
}

int8_t mean_value(const MeanOut &r, int32_t sum)
{
    const int32_t shifted = (int32_t)(uint32_t)((int64_t)sum - (int64_t)r.in_zp * r.count);
    return clamp_s8(wrap_add(multiply_by_quantized_multiplier(shifted, r.m, r.shift), r.out_zp));
}

enum class ReduceKind { kMean, kAvgPoolRounding, kMax, kMin, kSum };

// Whether an op this build keeps (TIGRIS_ONLY_OPS, the families) reduces with `k`: the paths
// of the other kinds go (a kernel handed one answers kError, see spatial_reduce).
constexpr bool kind_built(ReduceKind k)
{
    using tigris_rt::ops::op_built;
    switch (k) {
    case ReduceKind::kMean:
    case ReduceKind::kAvgPoolRounding: return op_built(TIGRIS_OP_GLOBAL_AVG) || op_built(TIGRIS_OP_REDUCE_MEAN);
    case ReduceKind::kMax: return op_built(TIGRIS_OP_GLOBAL_MAX) || op_built(TIGRIS_OP_REDUCE_MAX);
    case ReduceKind::kMin: return op_built(TIGRIS_OP_REDUCE_MIN);
    case ReduceKind::kSum: return op_built(TIGRIS_OP_REDUCE_SUM);
    }
    return false;
}
bool is_max(ReduceKind k) { return kind_built(ReduceKind::kMax) && k == ReduceKind::kMax; }
bool is_min(ReduceKind k) { return kind_built(ReduceKind::kMin) && k == ReduceKind::kMin; }
bool is_rounding(ReduceKind k) { return kind_built(ReduceKind::kMean) && k == ReduceKind::kAvgPoolRounding; }

bool is_extreme(ReduceKind k) { return is_max(k) || is_min(k); }

int32_t reduce_init(ReduceKind k) { return is_max(k) ? -128 : (is_min(k) ? 127 : 0); }

int32_t reduce_step(ReduceKind k, int32_t a, int32_t v)
{
    if (is_max(k)) return v > a ? v : a;
    if (is_min(k)) return v < a ? v : a;
    return a + v;
}

// reduce_step over `count` bytes `stride` apart, the kind's test hoisted out of the loop.
int32_t reduce_run(ReduceKind k, int32_t a, const int8_t *x, uint32_t count, uint32_t stride)
{
    if (is_max(k)) {
        for (; count > 0; --count, x += stride) a = *x > a ? *x : a;
    } else if (is_min(k)) {
        for (; count > 0; --count, x += stride) a = *x < a ? *x : a;
    } else {
        for (; count > 0; --count, x += stride) a += *x;
    }
    return a;
}

// The output byte of a reduced value (a raw max/min, or a raw sum over `count`).
// SUM is TFLite's QuantizedMeanOrSum without the 1/count fold.
int8_t reduced_value(ReduceKind kind, const PoolOut &p, const MeanOut &r, int32_t acc, int64_t count)
{
    if (is_extreme(kind)) return max_value(p, acc);
    if (is_rounding(kind)) return average_value(p, acc, (int32_t)count);
    return mean_value(r, acc);
}

// A flat by-input band (BY_INPUT mode FLAT) of a reduction over the `reduced` axes of `count`
// elements per output: each int8 element combined into its output's int32 accumulator (exact
// in any order); the last band writes every output as the whole kernel does.
int flat_reduce(const Call &c, ReduceKind kind, const Operand &in, const Operand &out, const bool *reduced,
                int64_t count)
{
    const kern::ReduceBand band = kern::reduce_band(c.mem);
    int32_t *acc = (int32_t *)band.acc;
    if (acc == nullptr || band.in_h < 0 || in.rank < 1) return kError;
    const int8_t *x = (const int8_t *)in.data;
    if (band.first)
        for (uint32_t i = 0; i < out.elements; i++) acc[i] = reduce_init(kind);
    kern::for_each_flat(in.shape, (uint8_t)in.rank, reduced, band.flat_start, band.in_h,
                        [&](int64_t o, int64_t k) { acc[o] = reduce_step(kind, acc[o], x[k]); });
    if (!band.last) return 0;
    const PoolOut p = pool_out(c, in, out);
    const MeanOut r = mean_out(in, out, count, kind != ReduceKind::kSum);
    int8_t *y = (int8_t *)out.data;
    for (uint32_t i = 0; i < out.elements; i++) y[i] = reduced_value(kind, p, r, acc[i], count);
    return 0;
}

// Reduction over every axis but batch (0) and channels (last) of a channels-last
// tensor: GLOBAL_AVG / GLOBAL_MAX and spatial MEAN. Whole, or banded by input rows with
// one int32 per output element in tile.reduce_acc (zeroed on the first band, output
// written on the last).
int spatial_reduce(const Call &c, ReduceKind kind)
{
    if (!kind_built(kind)) return kError;
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    if (in.dtype != TIGRIS_DTYPE_INT8 || out.dtype != TIGRIS_DTYPE_INT8 || in.rank < 2) return kError;
    const int32_t batches = in.shape[0];
    int32_t channels = in.shape[in.rank - 1];
    int32_t rows = in.rank >= 3 ? in.shape[1] : 1, cols = 1;
    for (int d = 2; d < in.rank - 1; d++) cols *= in.shape[d];
    const int64_t count = (int64_t)rows * cols;
    if (out.elements != (uint32_t)(batches * channels) || count > 0x7FFFFF) return kError;
    const PoolOut p = pool_out(c, in, out);
    const MeanOut r = mean_out(in, out, count, kind != ReduceKind::kSum);
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    const kern::ReduceBand band = kern::reduce_band(c.mem);
    if (band.active && band.flat) {
        bool reduced[kMaxRank] = {};
        for (int d = 1; d + 1 < in.rank; d++) reduced[d] = true;
        return flat_reduce(c, kind, in, out, reduced, count);
    }
    if (c.tiled() && c.tile().chan_tiled) {  // a channel band: every row and column of its channels
        const tigris_tile_ctx_t &t = c.tile();
        if (band.active || t.in_h != rows || t.in_row_start != 0 || t.chan0 < 0 || t.chans < 1 ||
            t.chan0 + t.chans > channels)
            return kError;
        channels = t.chans;  // buffers hold the band's channels, packed
    } else if (c.tiled() && (!band.active || in.rank < 3 || band.in_h < 0)) {
        return kError;
    }
    const int32_t row0 = band.active ? band.in_row_start : 0;
    const int32_t buf_rows = band.active ? band.in_row_start + band.in_h : rows;
    if (band.active) rows = band.in_h;
    int32_t *acc = (int32_t *)band.acc;
    for (int32_t n = 0; n < batches; n++) {
        for (int32_t ch = 0; ch < channels; ch++) {
            const int64_t i = (int64_t)n * channels + ch;
            const bool fresh = !band.active || band.first;
            int32_t a = fresh ? reduce_init(kind) : acc[i];
            const int8_t *src = x + ((int64_t)n * buf_rows + row0) * cols * channels + ch;
            a = reduce_run(kind, a, src, (uint32_t)rows * (uint32_t)cols, (uint32_t)channels);
            if (band.active) acc[i] = a;
            if (!band.active || band.last) y[i] = reduced_value(kind, p, r, a, count);
        }
    }
    return 0;
}

}  // namespace

int avg_pool(const Call &c) { return pool<true>(c); }

int max_pool(const Call &c) { return pool<false>(c); }

int global_avg(const Call &c)
{
    return spatial_reduce(c, (pool_flags(c) & kRoundingAvgPool) ? ReduceKind::kAvgPoolRounding : ReduceKind::kMean);
}

int global_max(const Call &c) { return spatial_reduce(c, ReduceKind::kMax); }

namespace {

// MEAN / MAX / MIN / SUM over AXES (absent = every axis; keep_dims read from the output
// rank). Banded calls keep axis 1, or reduce every axis but batch and channels (by input).
int reduce_axes(const Call &c, ReduceKind kind)
{
    if (!kind_built(kind)) return kError;
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    if (in.dtype != TIGRIS_DTYPE_INT8 || out.dtype != TIGRIS_DTYPE_INT8 || in.rank == 0) return kError;
    uint8_t len = 0;
    const uint8_t *axes = c.attr(TIGRIS_ATTR_AXES, &len);
    bool reduced[kMaxRank] = {};
    for (int d = 0; d < in.rank; d++) reduced[d] = axes == nullptr;
    for (uint8_t i = 0; axes != nullptr && i < len; i++) {
        if (axes[i] >= in.rank) return kError;
        reduced[axes[i]] = true;
    }
    int64_t count = 1;
    int n_reduced = 0;
    int32_t keep_shape[kMaxRank];
    for (int d = 0; d < in.rank; d++) {
        keep_shape[d] = reduced[d] ? 1 : in.shape[d];
        if (reduced[d]) count *= in.shape[d], n_reduced++;
    }
    if (count > 0x7FFFFF) return kError;
    if (c.tiled() && kern::reduce_band(c.mem).active && kern::reduce_band(c.mem).flat)
        return flat_reduce(c, kind, in, out, reduced, count);
    if (c.tiled() && kern::reduce_band(c.mem).active) {
        // By-input band of a spatial mean: only [N, ..., C] -> [N, C].
        if (reduced[0] || reduced[in.rank - 1] || n_reduced != in.rank - 2) return kError;
        return spatial_reduce(c, kind);
    }
    const kern::Band band = kern::pointwise_band(c.mem);
    if (band.row_axis >= 0 && band.row_axis < in.rank && reduced[band.row_axis]) return kError;
    const kern::View vo = kern::output_view(band, out.data, keep_shape, in.rank, 1);
    const kern::View vi = kern::input_view(band, in.data, in.shape, in.rank, 1, keep_shape, in.rank);
    const MeanOut r = mean_out(in, out, count, kind != ReduceKind::kSum);
    const PoolOut p = pool_out(c, in, out);
    return kern::for_each_group(vo, vi, reduced, [&](uint8_t *o, uint8_t *base, const kern::ReducedAxes &ax) {
        int32_t a = reduce_init(kind);
        kern::for_each_reduced(base, ax, [&](uint8_t *e) { a = reduce_step(kind, a, (int8_t)*e); });
        *(int8_t *)o = reduced_value(kind, p, r, a, count);
    });
}

}  // namespace

// MEAN; POOL_ROUNDING bit0 selects AVERAGE_POOL rounding.
int reduce_mean(const Call &c)
{
    return reduce_axes(c, (pool_flags(c) & kRoundingAvgPool) ? ReduceKind::kAvgPoolRounding : ReduceKind::kMean);
}

// REDUCE_MAX / REDUCE_MIN: the raw extreme (TFLite requires equal quantization; requantized
// otherwise). SUM: MBQM(sum - zx * n, sx/sy) + zy (TFLite's QuantizedMeanOrSum).
int reduce_max(const Call &c) { return reduce_axes(c, ReduceKind::kMax); }
int reduce_min(const Call &c) { return reduce_axes(c, ReduceKind::kMin); }
int reduce_sum(const Call &c) { return reduce_axes(c, ReduceKind::kSum); }

}  // namespace tigris_s8
