// Reductions over AXES (mean/max/min/sum on float32, all on bool), ArgMax/ArgMin along one
// axis, CumSum along one axis. Banded calls: pointwise bands when the band axis is kept,
// by-input bands (float accumulator in reduce_acc) when it is reduced.
#include <float.h>

#include "kernels/common/lanes.h"
#include "kernels/f32/elementwise.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

// Reduced-axis flags from AXES (absent: all axes); the keepdims output shape into `keep`.
void reduced_axes(const Call &c, const int32_t *shape, uint8_t rank, bool *reduced, int32_t *keep)
{
    uint8_t len = 0;
    const uint8_t *a = c.attr(TIGRIS_ATTR_AXES, &len);
    for (uint8_t i = 0; i < rank; ++i) reduced[i] = a == nullptr;
    for (uint8_t i = 0; a != nullptr && i < len; ++i) reduced[a[i]] = true;
    for (uint8_t i = 0; i < rank; ++i) keep[i] = reduced[i] ? 1 : shape[i];
}

float combine(uint8_t op, float acc, float v)
{
    switch (op) {
    case TIGRIS_OP_REDUCE_MAX: return (v > acc || v != v) ? v : acc;
    case TIGRIS_OP_REDUCE_MIN:
    case TIGRIS_OP_REDUCE_ALL: return (v < acc || v != v) ? v : acc;
    default: return acc + v;
    }
}

float identity(uint8_t op)
{
    switch (op) {
    case TIGRIS_OP_REDUCE_MAX: return -INFINITY;
    case TIGRIS_OP_REDUCE_MIN: return INFINITY;
    case TIGRIS_OP_REDUCE_ALL: return 1.0f;
    default: return 0.0f;
    }
}

// Reads an input element as float (bool as 0/1).
float value(const uint8_t *p, bool is_bool) { return is_bool ? (p[0] ? 1.0f : 0.0f) : load<float>(p); }

struct ReduceViews {
    kern::View in, dest;  // dest: keepdims-shaped float accumulator or the output itself
    bool by_input, init, finish;
};

int reduce_views(const Call &c, const bool *reduced, const int32_t *keep, ReduceViews *v)
{
    const tigris_tensor_t &t = c.in(0);
    const int32_t *s = c.shape(t);
    uint8_t e = (uint8_t)tigris_dtype_size(t.dtype);
    kern::Band band = kern::pointwise_band(c.mem);
    v->by_input = band.row_axis >= 0 && band.row_axis < t.ndim && reduced[band.row_axis];
    v->init = v->finish = true;
    if (v->by_input) {
        kern::ReduceBand rb = kern::reduce_band(c.mem);
        if (!rb.active || band.col_axis >= 0 || t.dtype != TIGRIS_DTYPE_FLOAT32) return -1;
        v->in = kern::rows_view(c.in_ptr(0), s, t.ndim, e, band.row_axis, rb.in_h, rb.in_row_start);
        v->dest = kern::whole_view(rb.acc, keep, t.ndim, 4);
        v->init = rb.first;
        v->finish = rb.last;
        return 0;
    }
    v->in = kern::input_view(band, c.in_ptr(0), s, t.ndim, e, s, t.ndim);
    v->dest = kern::output_view(band, c.out_ptr(0), keep, t.ndim, (uint8_t)tigris_dtype_size(c.out(0).dtype));
    return 0;
}

// A flat by-input band (BY_INPUT mode FLAT): each element of the band combined into its
// output's accumulator in memory order (the whole kernel's order per output); the last band
// finishes as the whole kernel does.
int reduce_flat(const Call &c, uint8_t op, const bool *reduced, const int32_t *keep, const kern::ReduceBand &rb)
{
    const tigris_tensor_t &t = c.in(0);
    const int32_t *s = c.shape(t);
    if (t.dtype != TIGRIS_DTYPE_FLOAT32 || rb.acc == nullptr || rb.in_h < 0) return -1;
    int64_t outs = 1;
    float count = 1.0f;
    for (uint8_t a = 0; a < t.ndim; ++a) {
        outs *= keep[a];
        if (reduced[a]) count *= (float)s[a];
    }
    if (op != TIGRIS_OP_REDUCE_MEAN) count = 1.0f;
    float *acc = static_cast<float *>(rb.acc);
    const uint8_t *x = c.in_ptr(0);
    if (rb.first)
        for (int64_t i = 0; i < outs; ++i) acc[i] = identity(op);
    kern::for_each_flat(s, t.ndim, reduced, rb.flat_start, rb.in_h,
                        [&](int64_t o, int64_t k) { acc[o] = combine(op, acc[o], load<float>(x + 4 * k)); });
    if (!rb.last) return 0;
    uint8_t *y = c.out_ptr(0);
    for (int64_t i = 0; i < outs; ++i) store<float>(y + 4 * i, count == 1.0f ? acc[i] : acc[i] / count);
    return 0;
}

int reduce_values(const Call &c)
{
    const tigris_tensor_t &t = c.in(0);
    const int32_t *s = c.shape(t);
    uint8_t op = c.op->op_type, rank = t.ndim;
    bool is_bool = op == TIGRIS_OP_REDUCE_ALL;
    if (t.dtype != (is_bool ? TIGRIS_DTYPE_BOOL : TIGRIS_DTYPE_FLOAT32)) return -1;
    bool reduced[kern::kMaxRank];
    int32_t keep[kern::kMaxRank];
    reduced_axes(c, s, rank, reduced, keep);
    const kern::ReduceBand rb = kern::reduce_band(c.mem);
    if (rb.active && rb.flat) return c.out_ptr(0) == nullptr ? -1 : reduce_flat(c, op, reduced, keep, rb);
    ReduceViews v;
    if (c.in_ptr(0) == nullptr || c.out_ptr(0) == nullptr || reduce_views(c, reduced, keep, &v) != 0) return -1;
    bool direct = !v.by_input;  // dest is the output: bool outputs hold 0/1 bytes
    int rc = kern::for_each_group(v.dest, v.in, reduced, [&](uint8_t *o, uint8_t *base, const kern::ReducedAxes &r) {
        float acc = v.init ? identity(op) : load<float>(o);
        kern::for_each_reduced(base, r, [&](uint8_t *p) { acc = combine(op, acc, value(p, is_bool)); });
        if (direct && is_bool) o[0] = acc != 0.0f;
        else store<float>(o, acc);
    });
    if (rc != 0 || !v.finish) return rc;
    float count = 1.0f;
    for (uint8_t a = 0; a < rank; ++a)
        if (reduced[a]) count *= (float)s[a];
    if (op != TIGRIS_OP_REDUCE_MEAN) count = 1.0f;
    if (!v.by_input && count == 1.0f) return 0;
    // Finish: the mean divides by the full group size; a by-input band copies out its accumulator.
    kern::View out = v.by_input ? kern::whole_view(c.out_ptr(0), keep, rank, 4) : v.dest;
    return kern::for_each_position(out, v.dest,
                                   [count](uint8_t *o, uint8_t *a) { store<float>(o, load<float>(a) / count); });
}

template <typename T>
int64_t arg_index(const uint8_t *p, int64_t n, int64_t step, bool is_max, bool last)
{
    T best = load<T>(p);
    int64_t bi = 0;
    for (int64_t k = 1; k < n; ++k) {
        T v = load<T>(p + k * step);
        bool better = is_max ? (last ? v >= best : v > best) : (last ? v <= best : v < best);
        if (better) best = v, bi = k;
    }
    return bi;
}

int arg_reduce(const Call &c)
{
    const tigris_tensor_t &t = c.in(0), &o = c.out(0);
    uint8_t len = 0;
    const uint8_t *ax = c.attr(TIGRIS_ATTR_AXES, &len);
    if (ax == nullptr || len != 1 || c.in_ptr(0) == nullptr || c.out_ptr(0) == nullptr) return -1;
    int axis = ax[0];
    const uint8_t *mv = c.attr(TIGRIS_ATTR_MOVEMENT, &len);
    bool last = mv != nullptr && len == 4 && mv[0] == 1;
    bool is_max = c.op->op_type == TIGRIS_OP_ARG_MAX;
    kern::Band band = kern::pointwise_band(c.mem);
    if (kern::band_cuts_axis(band, axis)) return -1;
    const int32_t *s = c.shape(t);
    int32_t keep[kern::kMaxRank];
    bool reduced[kern::kMaxRank] = {};
    for (int a = 0; a < t.ndim; ++a) keep[a] = a == axis ? 1 : s[a];
    reduced[axis] = true;
    uint8_t eo = (uint8_t)tigris_dtype_size(o.dtype);
    kern::View in = kern::input_view(band, c.in_ptr(0), s, t.ndim, (uint8_t)tigris_dtype_size(t.dtype), s, t.ndim);
    kern::View out = kern::output_view(band, c.out_ptr(0), keep, t.ndim, eo);
    int64_t n = s[axis], step = in.stride[axis] * in.elem;
    uint8_t dt = t.dtype;
    return kern::for_each_group(out, in, reduced, [&](uint8_t *po, uint8_t *base, const kern::ReducedAxes &) {
        int64_t idx;
        switch (dt) {
        case TIGRIS_DTYPE_FLOAT32: idx = arg_index<float>(base, n, step, is_max, last); break;
        case TIGRIS_DTYPE_INT32: idx = arg_index<int32_t>(base, n, step, is_max, last); break;
        case TIGRIS_DTYPE_INT64: idx = arg_index<int64_t>(base, n, step, is_max, last); break;
        case TIGRIS_DTYPE_INT8: idx = arg_index<int8_t>(base, n, step, is_max, last); break;
        default: idx = arg_index<uint8_t>(base, n, step, is_max, last); break;
        }
        if (eo == 8) store<int64_t>(po, idx);
        else store<int32_t>(po, (int32_t)idx);
    });
}

inline float wrap_add(float a, float b) { return a + b; }
template <typename T>
inline T wrap_add(T a, T b)
{
    return (T)((uint64_t)a + (uint64_t)b);
}

template <typename T>
void scan(uint8_t *o, const uint8_t *i, int64_t n, int64_t os, int64_t is, bool exclusive, bool reverse)
{
    T acc = 0;
    for (int64_t j = 0; j < n; ++j) {
        int64_t k = reverse ? n - 1 - j : j;
        T v = load<T>(i + k * is);
        if (exclusive) store<T>(o + k * os, acc);
        acc = wrap_add(acc, v);
        if (!exclusive) store<T>(o + k * os, acc);
    }
}

int cumsum(const Call &c)
{
    uint8_t len = 0;
    const uint8_t *ax = c.attr(TIGRIS_ATTR_AXES, &len);
    if (ax == nullptr || len != 1) return -1;
    const uint8_t *opt = c.attr(TIGRIS_ATTR_CUMSUM_OPTIONS, &len);
    bool exclusive = opt != nullptr && len == 2 && opt[0], reverse = opt != nullptr && len == 2 && opt[1];
    kern::View in, out;
    if (same_shape_views(c, ax[0], ax[0], &in, &out) != 0) return -1;
    uint8_t dt = c.in(0).dtype;
    return kern::for_each_lane(out, in, ax[0], ax[0], [&](uint8_t *o, uint8_t *i, int64_t n, int64_t os, int64_t is) {
        switch (dt) {
        case TIGRIS_DTYPE_FLOAT32: scan<float>(o, i, n, os, is, exclusive, reverse); break;
        case TIGRIS_DTYPE_INT32: scan<int32_t>(o, i, n, os, is, exclusive, reverse); break;
        case TIGRIS_DTYPE_INT64: scan<int64_t>(o, i, n, os, is, exclusive, reverse); break;
        default: scan<uint8_t>(o, i, n, os, is, exclusive, reverse); break;
        }
    });
}

}  // namespace

int reduce(const Call &c)
{
    switch (c.op->op_type) {
    case TIGRIS_OP_ARG_MAX:
    case TIGRIS_OP_ARG_MIN: return arg_reduce(c);
    case TIGRIS_OP_CUMSUM: return cumsum(c);
    default: return reduce_values(c);
    }
}

}  // namespace f32
}  // namespace tigris_rt
