// Rules of the spatial and matrix operators: Conv, Depthwise, Conv1D, ConvTranspose,
// FullyConnected, MatMul, Max/Avg/L2 pools, global pools, Resize (docs/operators.md §3.1-3.2, §3.7).
#include <math.h>

#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

uint32_t dil(uint16_t d) { return d == 0 ? 1u : d; }

// Output-size rule of one axis: o == (i + pa + pb - ek) / s + 1 with i + pa + pb >= ek.
bool axis_size_ok(int32_t i, uint32_t k, uint32_t s, uint32_t d, uint32_t pa, uint32_t pb, int32_t o)
{
    if (k == 0 || s == 0) return false;
    // Exact in 32 bits, without a 64-bit division: dims are in [1, 2^31) (loader step 16), each
    // pad below 2^16 and the window extent below 2^24 (k < 2^8, d < 2^16).
    const uint32_t ek = (k - 1u) * d + 1u;
    const uint32_t padded = (uint32_t)i + pa + pb;
    if (padded < ek) return false;
    return (uint32_t)o == (padded - ek) / s + 1u;
}

// Every pooling window of one axis holds at least one tap inside the input.
bool windows_have_taps(int32_t i, uint32_t k, uint32_t s, uint32_t d, uint32_t pa, int32_t o)
{
    for (int32_t y = 0; y < o; ++y) {
        int64_t start = (int64_t)y * s - pa;
        bool any = false;
        for (uint32_t t = 0; t < k && !any; ++t) {
            int64_t p = start + (int64_t)t * d;
            any = p >= 0 && p < i;
        }
        if (!any) return false;
    }
    return true;
}

// Data of the spatial ops and FullyConnected: float32, int8, and int16 (16x8 quantization).
// A build without the int16 kernels refused int16 ops before their rule (check_operator).
bool int16_data(uint8_t d) { return int16_built() && d == TIGRIS_DTYPE_INT16; }
bool spatial_dtype(uint8_t d) { return float_or_q8(d) || int16_data(d); }

// Bytes per weight element: the data's, except int16 ops whose weights are int8.
uint32_t weight_element_size(uint8_t data_dtype)
{
    return int16_data(data_dtype) ? 1u : tigris_dtype_size(data_dtype);
}

bool not_linear(const tigris_tensor_t &t) { return (t.flags & TIGRIS_TENSOR_LINEAR) == 0; }

// One input, one output, same dtype (float32 or int8), ranks `rank`, channels-last, same batch.
bool plain_spatial_io(const OpView &v, uint8_t rank)
{
    if (v.num_in() != 1 || v.num_out() != 1) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    if (in.ndim != rank || out.ndim != rank || in.dtype != out.dtype) return false;
    if (!not_linear(in) || !not_linear(out)) return false;
    return v.shape(in)[0] == v.shape(out)[0];
}

// int32 biases; int16 ops: int64 (TFLite's 16x8 bias) or int32 (its int32-accumulator form).
bool bias_ok(const OpView &v, int32_t oc)
{
    if (!v.has_bias()) return true;
    if (int16_data(v.in(0).dtype) && v.bias_bytes() == (uint64_t)oc * 8u) return true;
    return v.bias_bytes() == (uint64_t)oc * 4u;
}

bool check_conv(const OpView &v)
{
    const tigris_op_t *op = v.op;
    bool conv1d = op->op_type == TIGRIS_OP_CONV1D;
    uint8_t rank = conv1d ? 3 : 4;
    if (!plain_spatial_io(v, rank) || !v.has_weight()) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    if (!spatial_dtype(in.dtype)) return false;
    const int32_t *is = v.shape(in), *os = v.shape(out);
    const tigris_spatial_t &sp = op->spatial;
    int32_t ic = is[rank - 1], oc = os[rank - 1];
    uint32_t es = weight_element_size(in.dtype);
    uint64_t taps = (uint64_t)sp.kernel_h * (conv1d ? 1u : sp.kernel_w);
    uint64_t expect;
    if (op->op_type == TIGRIS_OP_DEPTHWISE) {
        uint32_t g = sp.group == 0 ? (uint32_t)ic : sp.group;
        if (g != (uint32_t)ic || oc % ic != 0) return false;
        expect = taps * (uint64_t)oc * es;
    } else {
        uint32_t g = sp.group == 0 ? 1u : sp.group;
        if (ic % (int32_t)g != 0 || oc % (int32_t)g != 0) return false;
        expect = taps * (uint64_t)oc * (uint64_t)(ic / (int32_t)g) * es;
    }
    if (v.weight_bytes() != expect || !bias_ok(v, oc)) return false;
    if (!axis_size_ok(is[1], sp.kernel_h, sp.stride_h, dil(sp.dilation_h), sp.pad_top, sp.pad_bottom, os[1]))
        return false;
    if (conv1d)
        return sp.kernel_w == 1 && sp.stride_w == 1 && sp.dilation_w <= 1 && sp.pad_left == 0 && sp.pad_right == 0;
    return axis_size_ok(is[2], sp.kernel_w, sp.stride_w, dil(sp.dilation_w), sp.pad_left, sp.pad_right, os[2]);
}

// ConvTranspose axis: base = (i-1)s - pa - pb + (k-1)d + 1 >= 1 and 0 <= o - base < max(s, d).
bool convt_axis_ok(int32_t i, uint32_t k, uint32_t s, uint32_t d, uint32_t pa, uint32_t pb, int32_t o)
{
    if (k == 0 || s == 0) return false;
    int64_t base = (int64_t)(i - 1) * s - pa - pb + (int64_t)(k - 1) * d + 1;
    int64_t extra = (int64_t)o - base;
    return base >= 1 && extra >= 0 && extra < (int64_t)(s > d ? s : d);
}

bool check_conv_transpose(const OpView &v)
{
    if (!plain_spatial_io(v, 4) || !v.has_weight()) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    if (!spatial_dtype(in.dtype)) return false;
    const int32_t *is = v.shape(in), *os = v.shape(out);
    const tigris_spatial_t &sp = v.op->spatial;
    uint32_t g = sp.group == 0 ? 1u : sp.group;
    if (is[3] % (int32_t)g != 0 || os[3] % (int32_t)g != 0) return false;
    uint64_t expect = (uint64_t)sp.kernel_h * sp.kernel_w * (uint64_t)os[3] * (uint64_t)(is[3] / (int32_t)g) *
                      weight_element_size(in.dtype);
    if (v.weight_bytes() != expect || !bias_ok(v, os[3])) return false;
    return convt_axis_ok(is[1], sp.kernel_h, sp.stride_h, dil(sp.dilation_h), sp.pad_top, sp.pad_bottom, os[1]) &&
           convt_axis_ok(is[2], sp.kernel_w, sp.stride_w, dil(sp.dilation_w), sp.pad_left, sp.pad_right, os[2]);
}

bool check_fully_connected(const OpView &v)
{
    if (v.num_in() != 1 || v.num_out() != 1 || !v.has_weight()) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    if (!spatial_dtype(in.dtype) || in.dtype != out.dtype || in.ndim < 1) return false;
    if (out.ndim != 1 && out.ndim != 2) return false;
    const int32_t *os = v.shape(out);
    // 32-bit quotient: dims are positive and a tensor's elements fit its 32-bit size_bytes (step 16).
    const uint32_t batch = out.ndim == 2 ? (uint32_t)os[0] : 1u;
    const int32_t oc = os[out.ndim - 1];
    const uint32_t n = (uint32_t)elements(v, in);
    if (n % batch != 0) return false;
    const uint32_t ic = n / batch;
    return v.weight_bytes() == (uint64_t)oc * ic * weight_element_size(in.dtype) && bias_ok(v, oc);
}

bool check_matmul(const OpView &v)
{
    if (v.num_out() != 1 || v.has_bias()) return false;
    Operand ops[2];
    if (!resolve_operands(v, 2, ops)) return false;
    const tigris_tensor_t &out = v.out(0);
    if (!float_or_q8(out.dtype) || ops[0].dtype != out.dtype || ops[1].dtype != out.dtype) return false;
    uint8_t ra = ops[0].rank, rb = ops[1].rank, ro = out.ndim;
    if (ra < 2 || rb < 2 || ro < 2 || ra > ro || rb > ro) return false;
    const int32_t *a = ops[0].shape, *b = ops[1].shape, *o = v.shape(out);
    if (a[ra - 1] != b[rb - 2] || o[ro - 2] != a[ra - 2] || o[ro - 1] != b[rb - 1]) return false;
    // Batch dims: each operand's broadcasts to the output's, and the output's is their broadcast.
    for (uint8_t i = 0; i + 2 < ro; ++i) {
        int32_t od = o[ro - 3 - i];
        int32_t ad = i + 2 < ra ? a[ra - 3 - i] : 1, bd = i + 2 < rb ? b[rb - 3 - i] : 1;
        if ((ad != 1 && ad != od) || (bd != 1 && bd != od)) return false;
        if (od != 1 && ad != od && bd != od) return false;
    }
    return true;
}

bool pool_flags_ok(const OpView &v)
{
    uint8_t len = 0;
    const uint8_t *p = v.attr(TIGRIS_ATTR_POOL_ROUNDING, &len);
    if (p == nullptr) return true;
    if (len != 1) return false;
    uint8_t allowed = v.op->op_type == TIGRIS_OP_AVG_POOL ? 0x2u : v.op->op_type == TIGRIS_OP_L2_POOL ? 0x4u : 0x1u;
    return (p[0] & ~allowed) == 0;
}

bool check_pool(const OpView &v)
{
    const tigris_tensor_t &in = v.in(0);
    uint8_t rank = in.ndim;
    if ((rank != 3 && rank != 4) || !plain_spatial_io(v, rank) || v.has_weight() || v.has_bias()) return false;
    uint8_t op_type = v.op->op_type;
    if (op_type == TIGRIS_OP_L2_POOL ? in.dtype != TIGRIS_DTYPE_FLOAT32 : !spatial_dtype(in.dtype)) return false;
    if (!pool_flags_ok(v)) return false;
    const int32_t *is = v.shape(in), *os = v.shape(v.out(0));
    if (is[rank - 1] != os[rank - 1]) return false;
    const tigris_spatial_t &sp = v.op->spatial;
    if (op_type != TIGRIS_OP_MAX_POOL && (sp.dilation_h > 1 || sp.dilation_w > 1)) return false;
    if (!axis_size_ok(is[1], sp.kernel_h, sp.stride_h, dil(sp.dilation_h), sp.pad_top, sp.pad_bottom, os[1]) ||
        !windows_have_taps(is[1], sp.kernel_h, sp.stride_h, dil(sp.dilation_h), sp.pad_top, os[1]))
        return false;
    if (rank == 3)
        return sp.kernel_w == 1 && sp.stride_w == 1 && sp.dilation_w <= 1 && sp.pad_left == 0 && sp.pad_right == 0;
    return axis_size_ok(is[2], sp.kernel_w, sp.stride_w, dil(sp.dilation_w), sp.pad_left, sp.pad_right, os[2]) &&
           windows_have_taps(is[2], sp.kernel_w, sp.stride_w, dil(sp.dilation_w), sp.pad_left, os[2]);
}

bool check_global_pool(const OpView &v)
{
    const tigris_tensor_t &in = v.in(0);
    uint8_t rank = in.ndim;
    if ((rank != 3 && rank != 4) || !plain_spatial_io(v, rank) || v.has_weight() || v.has_bias()) return false;
    if (!spatial_dtype(in.dtype) || !pool_flags_ok(v)) return false;
    const int32_t *is = v.shape(in), *os = v.shape(v.out(0));
    for (uint8_t a = 1; a + 1 < rank; ++a)
        if (os[a] != 1) return false;
    return is[rank - 1] == os[rank - 1];
}

// The long RESIZE_SCALES form (cubic, tf_crop_and_resize): float32 data, modes in range, the
// cubic flag only on RESIZE_LINEAR, finite coefficient, region and extrapolation value.
bool check_resize_long_form(const uint8_t *p, bool linear, uint8_t dtype)
{
    if (dtype != TIGRIS_DTYPE_FLOAT32 || p[8] > 5 || p[9] > 3 || p[10] > (linear ? 1 : 0) || p[11] > 1) return false;
    for (int i = 0; i < 6; ++i)
        if (!isfinite(rd_f32(p + 12 + 4 * i))) return false;
    return true;
}

bool check_resize(const OpView &v)
{
    const tigris_tensor_t &in = v.in(0);
    uint8_t rank = in.ndim;
    if ((rank != 3 && rank != 4) || !plain_spatial_io(v, rank) || v.has_weight() || v.has_bias()) return false;
    bool linear = v.op->op_type == TIGRIS_OP_RESIZE_LINEAR;
    if (linear && !float_or_q8(in.dtype)) return false;
    const int32_t *is = v.shape(in), *os = v.shape(v.out(0));
    if (is[rank - 1] != os[rank - 1]) return false;
    uint8_t len = 0;
    const uint8_t *p = v.attr(TIGRIS_ATTR_RESIZE_SCALES, &len);
    if (p != nullptr) {
        if (len != 8 && len != 12 && len != 36) return false;
        for (int i = 0; i < 2; ++i) {
            float s = rd_f32(p + 4 * i);
            if (!(s > 0.0f) || !isfinite(s)) return false;
        }
        if (len == 12) return p[8] <= 4 && p[9] <= 3 && p[10] == 0 && p[11] == 0;
        if (len == 36) return check_resize_long_form(p, linear, in.dtype);
        return true;
    }
    if (linear) return true;
    const tigris_spatial_t &sp = v.op->spatial;
    if (sp.stride_h == 0 || os[1] != is[1] * (int32_t)sp.stride_h) return false;
    if (rank == 3) return sp.stride_w <= 1;
    return sp.stride_w != 0 && os[2] == is[2] * (int32_t)sp.stride_w;
}

}  // namespace

Verdict check_spatial(const OpView &v)
{
    switch (rule_of(v)) {
        TIGRIS_RULE(kConv, check_conv(v))
        TIGRIS_RULE(kConvTranspose, check_conv_transpose(v))
        TIGRIS_RULE(kFullyConnected, check_fully_connected(v))
        TIGRIS_RULE(kMatMul, check_matmul(v))
        TIGRIS_RULE(kPool, check_pool(v))
        TIGRIS_RULE(kGlobalPool, check_global_pool(v))
        TIGRIS_RULE(kResize, check_resize(v))
    default: return kNotMine;
    }
}

}  // namespace rules
}  // namespace tigris_rt
