// int8 pooling and mean reductions, as TFLite (Micro) computes them.
//   AVERAGE_POOL: sum of the valid taps / their count, rounded half away from zero
//                 (TFLite requires equal input/output quantization; when they differ
//                 we average x - in_zp the same way and requantize in_scale/out_scale).
//   MAX_POOL:     max of the valid taps (requantized when the quantizations differ).
//   MEAN / GLOBAL_AVG: TFLite integer mean: (m, s) of in_scale/out_scale with 1/count
//                 folded in, y = MBQM(sum - in_zp * count, m, s) + out_zp; GLOBAL_AVG
//                 with POOL_ROUNDING = 1 uses the AVERAGE_POOL rounding instead.
// Fused activations clamp to [act_min, act_max]; means clamp to int8.
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_s8 {
namespace {

// How a pooled value becomes an output byte.
struct PoolOut {
    bool requant = false;         // quantizations differ
    int32_t in_zp = 0, out_zp = 0, m = 0;
    int shift = 0;
    int32_t act_min = -128, act_max = 127;
};

PoolOut pool_out(const tigris_op_t *op, const Operand &in, const Operand &out)
{
    PoolOut p;
    p.act_min = op->act_min;
    p.act_max = op->act_max;
    if (!same_quant(in, out)) {
        p.requant = true;
        p.in_zp = in.zero_point;
        p.out_zp = out.zero_point;
        rescale_multiplier(in.scale, out.scale, &p.m, &p.shift);
    }
    return p;
}

// AVERAGE_POOL value of a window: raw sum and tap count.
int8_t average_value(const PoolOut &p, int32_t sum, int32_t count)
{
    if (!p.requant) return (int8_t)clamp_i32(divide_round_away(sum, count), p.act_min, p.act_max);
    const int32_t avg = divide_round_away(sum - p.in_zp * count, count);
    const int32_t y = wrap_add(multiply_by_quantized_multiplier(avg, p.m, p.shift), p.out_zp);
    return (int8_t)clamp_i32(y, p.act_min, p.act_max);
}

int8_t max_value(const PoolOut &p, int32_t max)
{
    if (p.requant) max = wrap_add(multiply_by_quantized_multiplier(max - p.in_zp, p.m, p.shift), p.out_zp);
    return (int8_t)clamp_i32(max, p.act_min, p.act_max);
}

// POOL_ROUNDING flag bits (docs/operators.md §3.2).
constexpr uint8_t kRoundingAvgPool = 0x1;     // int8 GlobalAvg/ReduceMean: AVERAGE_POOL rounding
constexpr uint8_t kCountIncludePad = 0x2;     // AvgPool divides by the taps of the padded extent

uint8_t pool_flags(const tigris_plan_t *plan, uint16_t op_index)
{
    uint8_t len = 0;
    const uint8_t *f = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_POOL_ROUNDING, &len);
    return f != nullptr && len >= 1 ? f[0] : 0;
}

// Taps of a window starting at `start` (length k) inside [lo, hi).
inline int32_t taps_inside(int32_t start, int32_t k, int32_t lo, int32_t hi)
{
    const int32_t a = start > lo ? start : lo;
    const int32_t b = start + k < hi ? start + k : hi;
    return b > a ? b - a : 0;
}

template <bool kAverage>
int pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    Operand in, out;
    Spatial g;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (in.dtype != TIGRIS_DTYPE_INT8 || out.dtype != TIGRIS_DTYPE_INT8) return kError;
    if (spatial_geometry(op, in, out, mem->tile, &g) || g.in_c != g.out_c) return kError;
    const PoolOut p = pool_out(op, in, out);
    const bool include_pad = kAverage && (pool_flags(plan, op_index) & kCountIncludePad) != 0;
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    for (int32_t n = 0; n < g.batches; n++) {
        for (int32_t oy = 0; oy < g.out_h; oy++) {
            const int32_t y0 = oy * g.stride_h - g.pad_top;
            const int32_t fy0 = y0 < 0 ? -y0 : 0;
            const int32_t fy1 = g.k_h < g.in_h - y0 ? g.k_h : g.in_h - y0;
            for (int32_t ox = 0; ox < g.out_w; ox++) {
                const int32_t x0 = ox * g.stride_w - g.pad_left;
                const int32_t fx0 = x0 < 0 ? -x0 : 0;
                const int32_t fx1 = g.k_w < g.in_w - x0 ? g.k_w : g.in_w - x0;
                if (fy1 <= fy0 || fx1 <= fx0) return kError;  // a window of padding only
                const int32_t count =
                    include_pad ? taps_inside(y0, g.k_h, -g.pad_top, g.in_h + g.pad_bottom) *
                                      taps_inside(x0, g.k_w, -g.pad_left, g.in_w + g.pad_right)
                                : (fy1 - fy0) * (fx1 - fx0);
                int8_t *dst = y + g.out_offset(n, oy, ox);
                for (int32_t c = 0; c < g.out_c; c++) {
                    int32_t acc = kAverage ? 0 : -128;
                    for (int32_t fy = fy0; fy < fy1; fy++) {
                        for (int32_t fx = fx0; fx < fx1; fx++) {
                            const int32_t v = x[g.in_offset(n, y0 + fy, x0 + fx) + c];
                            acc = kAverage ? acc + v : (v > acc ? v : acc);
                        }
                    }
                    dst[c] = kAverage ? average_value(p, acc, count) : max_value(p, acc);
                }
            }
        }
    }
    return 0;
}

// Reduction over every axis but the first (batch) and the last (channels) of a
// channels-last tensor, as GLOBAL_AVG / GLOBAL_MAX / MEAN over the spatial axes compute.
struct Global {
    int32_t batches = 0, rows = 0, cols = 0, channels = 0;  // rows: this call's rows
    int32_t buf_rows = 0, row0 = 0;
    int64_t count = 0;                                     // full reduced extent
};

int global_geometry(const Operand &in, const tigris_tile_ctx_t &tile, Global *g)
{
    if (in.rank < 2) return kError;
    g->batches = in.dims[0];
    g->channels = in.dims[in.rank - 1];
    g->rows = in.rank >= 3 ? in.dims[1] : 1;
    g->cols = 1;
    for (int d = 2; d < in.rank - 1; d++) g->cols *= in.dims[d];
    g->count = (int64_t)g->rows * g->cols;
    g->buf_rows = g->rows;
    if (tile.active) {
        if (in.rank < 3 || tile.in_h <= 0 || tile.in_row_start < 0 || tile.reduce_acc == nullptr)
            return kError;
        g->rows = tile.in_h;
        g->row0 = tile.in_row_start;
        g->buf_rows = tile.in_row_start + tile.in_h;
    }
    return 0;
}

// Sum (or max) of each (batch, channel) over this call's rows, folded into acc.
template <bool kMax>
void reduce_rows(const Operand &in, const Global &g, int32_t *acc, bool first)
{
    const int8_t *x = (const int8_t *)in.data;
    for (int32_t i = 0; i < g.batches * g.channels; i++) {
        if (first) acc[i] = kMax ? -128 : 0;
    }
    for (int32_t n = 0; n < g.batches; n++) {
        int32_t *a = acc + (int64_t)n * g.channels;
        for (int32_t r = 0; r < g.rows; r++) {
            const int8_t *row = x + ((int64_t)n * g.buf_rows + g.row0 + r) * g.cols * g.channels;
            for (int32_t e = 0; e < g.cols; e++) {
                for (int32_t c = 0; c < g.channels; c++) {
                    const int32_t v = row[(int64_t)e * g.channels + c];
                    a[c] = kMax ? (v > a[c] ? v : a[c]) : a[c] + v;
                }
            }
        }
    }
}

// TFLite integer mean of a raw sum over `count` elements.
struct MeanOut {
    int32_t m = 0, in_zp = 0, out_zp = 0;
    int shift = 0;
    int64_t count = 1;
};

MeanOut mean_out(const Operand &in, const Operand &out, int64_t count)
{
    MeanOut r;
    const Operand &q = out.quantized && out.scale > 0.0f ? out : in;  // no output quant: reuse input's
    rescale_multiplier(in.scale, q.scale, &r.m, &r.shift);
    fold_mean_count(count, &r.m, &r.shift);
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

enum class GlobalKind { kMean, kAvgPoolRounding, kMax };

// The output byte of a reduced value.
int8_t global_value(GlobalKind kind, const PoolOut &p, const MeanOut &r, int32_t acc, int64_t count)
{
    if (kind == GlobalKind::kMax) return max_value(p, acc);
    if (kind == GlobalKind::kAvgPoolRounding) return average_value(p, acc, (int32_t)count);
    return mean_value(r, acc);
}

// Shared body of GLOBAL_AVG / GLOBAL_MAX / spatial MEAN: whole, or banded by input rows
// with the running values in tile.reduce_acc (zeroed on the first band, output written
// on the last).
int global_reduce(const tigris_plan_t *plan, const tigris_op_t *op, tigris_mem_t *mem, GlobalKind kind)
{
    Operand in, out;
    Global g;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (in.dtype != TIGRIS_DTYPE_INT8 || out.dtype != TIGRIS_DTYPE_INT8) return kError;
    if (global_geometry(in, mem->tile, &g)) return kError;
    const int32_t total = g.batches * g.channels;
    if (out.elements != (uint32_t)total || g.count > 0x7FFFFF) return kError;
    const PoolOut p = pool_out(op, in, out);
    const MeanOut r = mean_out(in, out, g.count);
    int8_t *y = (int8_t *)out.data;
    const tigris_tile_ctx_t &tile = mem->tile;
    if (tile.active) {
        int32_t *acc = (int32_t *)tile.reduce_acc;
        if (kind == GlobalKind::kMax) reduce_rows<true>(in, g, acc, tile.reduce_first);
        else reduce_rows<false>(in, g, acc, tile.reduce_first);
        if (!tile.reduce_last) return 0;
        for (int32_t i = 0; i < total; i++) y[i] = global_value(kind, p, r, acc[i], g.count);
        return 0;
    }
    const int8_t *x = (const int8_t *)in.data;
    for (int32_t n = 0; n < g.batches; n++) {
        for (int32_t c = 0; c < g.channels; c++) {
            const int8_t *src = x + (int64_t)n * g.count * g.channels + c;
            int32_t acc = kind == GlobalKind::kMax ? -128 : 0;
            for (int64_t e = 0; e < g.count; e++) {
                const int32_t v = src[e * g.channels];
                acc = kind == GlobalKind::kMax ? (v > acc ? v : acc) : acc + v;
            }
            y[(int64_t)n * g.channels + c] = global_value(kind, p, r, acc, g.count);
        }
    }
    return 0;
}

}  // namespace

int avg_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    return pool<true>(plan, op, op_index, mem);
}

int max_pool(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    return pool<false>(plan, op, op_index, mem);
}

int global_avg(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    const bool avg_pool_rounding = (pool_flags(plan, op_index) & kRoundingAvgPool) != 0;
    return global_reduce(plan, op, mem, avg_pool_rounding ? GlobalKind::kAvgPoolRounding : GlobalKind::kMean);
}

int global_max(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t, tigris_mem_t *mem)
{
    return global_reduce(plan, op, mem, GlobalKind::kMax);
}

}  // namespace tigris_s8

namespace tigris_s8 {
namespace {

// Sum of the raw values of the region spanned by the reduced axes, from `base`.
int32_t region_sum(const int8_t *base, const View &iv, const int *axes, int n_axes)
{
    int32_t idx[kMaxRank] = {};
    int32_t sum = 0;
    int64_t off = 0;
    for (;;) {
        sum += base[off];
        int k = n_axes - 1;
        for (; k >= 0; k--) {
            const int d = axes[k];
            idx[k]++;
            off += iv.strides[d];
            if (idx[k] < iv.dims[d]) break;
            off -= (int64_t)iv.strides[d] * iv.dims[d];
            idx[k] = 0;
        }
        if (k < 0) return sum;
    }
}

}  // namespace

// MEAN over the AXES attribute (u8 axes, absent = every axis; keep_dims read from the
// output rank); POOL_ROUNDING bit0 selects AVERAGE_POOL rounding. Banded calls keep the
// row axis, or reduce every axis but batch and channels (by input).
int reduce_mean(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    Operand in, out;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (in.dtype != TIGRIS_DTYPE_INT8 || out.dtype != TIGRIS_DTYPE_INT8 || in.rank == 0) return kError;
    uint8_t len = 0;
    const uint8_t *axes = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_AXES, &len);
    bool reduced[kMaxRank] = {};
    for (int d = 0; d < in.rank; d++) reduced[d] = axes == nullptr;
    for (uint8_t i = 0; axes != nullptr && i < len; i++) {
        if (axes[i] >= in.rank) return kError;
        reduced[axes[i]] = true;
    }
    const bool avg_pool_rounding = (pool_flags(plan, op_index) & kRoundingAvgPool) != 0;
    int red[kMaxRank], kept[kMaxRank], n_red = 0, n_kept = 0;
    int64_t count = 1;
    for (int d = 0; d < in.rank; d++) {
        if (reduced[d]) {
            red[n_red++] = d;
            count *= in.dims[d];
        } else {
            kept[n_kept++] = d;
        }
    }
    const tigris_tile_ctx_t &tile = mem->tile;
    const int row_axis = in.rank >= 3 ? 1 : 0;
    if (tile.active && reduced[row_axis]) {
        // By-input band of a spatial mean: only [N, ..., C] -> [N, C] reductions.
        if (reduced[0] || reduced[in.rank - 1] || n_red != in.rank - 2) return kError;
        return global_reduce(plan, op, mem, avg_pool_rounding ? GlobalKind::kAvgPoolRounding : GlobalKind::kMean);
    }
    if (tile.active && out.rank != in.rank) return kError;
    if (count > 0x7FFFFF) return kError;
    View iv, ov;
    if (band_view(in, tile, false, &iv) || band_view(out, tile, true, &ov)) return kError;
    const MeanOut r = mean_out(in, out, count);
    const PoolOut p = pool_out(op, in, out);
    const GlobalKind kind = avg_pool_rounding ? GlobalKind::kAvgPoolRounding : GlobalKind::kMean;
    const int8_t *x = (const int8_t *)iv.base;
    int8_t *y = (int8_t *)ov.base;
    uint32_t kept_count = 1;
    for (int k = 0; k < n_kept; k++) kept_count *= (uint32_t)iv.dims[kept[k]];
    if (kept_count != ov.count()) return kError;
    for (uint32_t e = 0; e < kept_count; e++) {
        uint32_t rest = e;
        int64_t in_off = 0, out_off = 0;
        for (int k = n_kept - 1; k >= 0; k--) {
            const int d = kept[k];
            const int32_t coord = (int32_t)(rest % (uint32_t)iv.dims[d]);
            rest /= (uint32_t)iv.dims[d];
            in_off += (int64_t)coord * iv.strides[d];
            if (out.rank == in.rank) out_off += (int64_t)coord * ov.strides[d];
        }
        if (out.rank != in.rank) out_off = e;
        const int32_t sum = n_red ? region_sum(x + in_off, iv, red, n_red) : x[in_off];
        y[out_off] = global_value(kind, p, r, sum, count);
    }
    return 0;
}

}  // namespace tigris_s8
