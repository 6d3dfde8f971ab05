// Rules of softmax, normalizations, reductions and scans (docs/operators.md §3.4-3.5).
// Movement operators are in op_rules_movement.cpp.
#include <math.h>

#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

bool plain_unary_io(const OpView &v)
{
    return v.num_in() == 1 && v.num_out() == 1 && same_shape(v, v.in(0), v.out(0)) && v.in(0).dtype == v.out(0).dtype;
}

bool scalar_f32_ok(const OpView &v, uint8_t kind)
{
    uint8_t len = 0;
    const uint8_t *p = v.attr(kind, &len);
    if (p == nullptr) return true;
    if (len != 4) return false;
    float f = rd_f32(p);
    return isfinite(f) && (kind != TIGRIS_ATTR_EPSILON || f >= 0.0f);
}

// AXES absent, or contiguous axes (trailing ones when `trailing`).
bool contiguous_axes_ok(const OpView &v, uint8_t rank, bool trailing)
{
    uint8_t axes[kMaxRank];
    int n = read_axes(v, rank, axes);
    if (n < 0) return false;
    if (n == 0) return rank >= 1;
    if (axes[n - 1] - axes[0] + 1 != n) return false;
    return !trailing || axes[n - 1] == rank - 1;
}

bool check_softmax(const OpView &v)
{
    // int16 (16x8): the last axis, with its two 513-entry int16 LUTs (exp, 1/(1+x)) as the weight.
    // (A build without the int16 kernels refused both int16 forms before this rule.)
    if (int16_built() && plain_unary_io(v) && v.in(0).dtype == TIGRIS_DTYPE_INT16) {
        if (!v.has_weight() || v.weight_bytes() != 4u * 513u || v.has_bias()) return false;
        uint8_t axes[kMaxRank];
        int n = read_axes(v, v.in(0).ndim, axes);
        return v.in(0).ndim >= 1 && (n == 0 || (n == 1 && axes[0] == v.in(0).ndim - 1)) &&
               scalar_f32_ok(v, TIGRIS_ATTR_ALPHA);
    }
    // TFLite's int8 -> int16 form (its output quantization is the int8 rules').
    const bool int8_to_int16 = v.num_in() == 1 && v.num_out() == 1 && same_shape(v, v.in(0), v.out(0)) &&
                               v.in(0).dtype == TIGRIS_DTYPE_INT8 && v.out(0).dtype == TIGRIS_DTYPE_INT16 &&
                               int16_built();
    if (!(plain_unary_io(v) || int8_to_int16) || v.has_weight() || v.has_bias() || !float_or_q8(v.in(0).dtype))
        return false;
    return contiguous_axes_ok(v, v.in(0).ndim, false) && scalar_f32_ok(v, TIGRIS_ATTR_ALPHA);
}

bool check_norm(const OpView &v)
{
    if (!plain_unary_io(v)) return false;
    const tigris_tensor_t &in = v.in(0);
    uint8_t rank = in.ndim, t = v.op->op_type;
    const int32_t *s = v.shape(in);
    if (!scalar_f32_ok(v, TIGRIS_ATTR_EPSILON)) return false;
    if (t == TIGRIS_OP_L2_NORMALIZATION)
        return float_or_q8(in.dtype) && !v.has_weight() && !v.has_bias() && contiguous_axes_ok(v, rank, false);
    if (t == TIGRIS_OP_LAYER_NORM) {
        if (!float_or_q8(in.dtype) || !v.has_weight() || !contiguous_axes_ok(v, rank, true)) return false;
        uint8_t axes[kMaxRank];
        int n = read_axes(v, rank, axes);
        uint8_t first = n > 0 ? axes[0] : (uint8_t)(rank - 1);
        uint64_t count = 1;
        for (uint8_t a = first; a < rank; ++a) count *= (uint64_t)s[a];
        return v.weight_bytes() == count * tigris_dtype_size(in.dtype) &&
               (!v.has_bias() || v.bias_bytes() == count * 4);
    }
    // BatchNorm (rank >= 2) and InstNorm (rank >= 3): per-channel W and b of float32.
    if (in.dtype != TIGRIS_DTYPE_FLOAT32 || !v.has_weight()) return false;
    bool inst = t == TIGRIS_OP_INST_NORM;
    if (rank < (inst ? 3 : 2)) return false;
    int axis = read_single_axis(v, rank, rank - 1);
    if (axis < (inst ? 1 : 0)) return false;
    uint64_t c = (uint64_t)s[axis];
    if (v.weight_bytes() != c * 4) return false;
    if (inst && !v.has_bias()) return false;
    return !v.has_bias() || v.bias_bytes() == c * 4;
}

// Output of a reduction over `axes` (n of them; n == 0: all): keepdims or dropped dims.
bool reduced_shape_ok(const OpView &v, const uint8_t *axes, int n)
{
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    const int32_t *is = v.shape(in), *os = v.shape(out);
    uint8_t rank = in.ndim;
    bool reduced[kMaxRank] = {};
    int count = n == 0 ? rank : n;
    for (uint8_t a = 0; a < rank; ++a) reduced[a] = n == 0;
    for (int i = 0; i < n; ++i) reduced[axes[i]] = true;
    if (out.ndim == rank) {
        for (uint8_t a = 0; a < rank; ++a)
            if (os[a] != (reduced[a] ? 1 : is[a])) return false;
        return true;
    }
    if (out.ndim != rank - count) return false;
    for (uint8_t a = 0, j = 0; a < rank; ++a)
        if (!reduced[a] && os[j++] != is[a]) return false;
    return true;
}

bool check_reduce(const OpView &v)
{
    if (v.num_in() != 1 || v.num_out() != 1 || v.has_weight() || v.has_bias()) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    uint8_t t = v.op->op_type;
    bool int16_mean = t == TIGRIS_OP_REDUCE_MEAN && in.dtype == TIGRIS_DTYPE_INT16;  // 16x8 quantized
    if (t == TIGRIS_OP_REDUCE_ALL ? in.dtype != TIGRIS_DTYPE_BOOL : !float_or_q8(in.dtype) && !int16_mean) return false;
    if (out.dtype != in.dtype) return false;
    uint8_t axes[kMaxRank];
    int n = read_axes(v, in.ndim, axes);
    if (n < 0) return false;
    uint8_t len = 0;
    const uint8_t *pr = v.attr(TIGRIS_ATTR_POOL_ROUNDING, &len);
    if (pr != nullptr && (len != 1 || pr[0] > 1)) return false;
    return reduced_shape_ok(v, axes, n);
}

bool check_arg(const OpView &v)
{
    if (v.num_in() != 1 || v.num_out() != 1 || v.has_weight() || v.has_bias()) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    if (!is_numeric(in.dtype) || !is_index_dtype(out.dtype)) return false;
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_AXES, &len);
    if (a == nullptr || len != 1 || a[0] >= in.ndim) return false;
    int m = -1;
    if (v.attr(TIGRIS_ATTR_MOVEMENT, &len) != nullptr) {
        m = movement_count(v);
        if (m != 1 || movement_at(v, 0) < 0 || movement_at(v, 0) > 1) return false;
    }
    return reduced_shape_ok(v, a, 1);
}

bool check_cumsum(const OpView &v)
{
    if (!plain_unary_io(v) || v.has_weight() || v.has_bias() || !is_numeric(v.in(0).dtype)) return false;
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_AXES, &len);
    if (a == nullptr || len != 1 || a[0] >= v.in(0).ndim) return false;
    const uint8_t *o = v.attr(TIGRIS_ATTR_CUMSUM_OPTIONS, &len);
    return o == nullptr || (len == 2 && o[0] <= 1 && o[1] <= 1);
}

}  // namespace

Verdict check_shape_ops(const OpView &v)
{
    switch (rule_of(v)) {
        TIGRIS_RULE(kSoftmax, check_softmax(v))
        TIGRIS_RULE(kNorm, check_norm(v))
        TIGRIS_RULE(kReduce, check_reduce(v))
        TIGRIS_RULE(kArg, check_arg(v))
        TIGRIS_RULE(kCumSum, check_cumsum(v))
    default: return kNotMine;
    }
}

}  // namespace rules
}  // namespace tigris_rt
