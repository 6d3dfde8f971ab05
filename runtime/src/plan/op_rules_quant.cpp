// int8 additions to the operator rules, for ops whose kernel dtype is quantized int8
// (docs/operators.md §1). Owned with the int8 kernels: extend here, not in the float rules.
#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

bool has_quant(const OpView &v, const tigris_tensor_t &t)
{
    return t.dtype != TIGRIS_DTYPE_INT8 || tigris_tensor_quant(v.plan, &t) != nullptr;
}

// Conv-like ops requantize per output channel or per tensor.
bool output_channels_ok(const OpView &v)
{
    const tigris_tensor_t &out = v.out(0);
    const tigris_quant_param_t *q = tigris_tensor_quant(v.plan, &out);
    if (q == nullptr || out.ndim == 0) return false;
    int32_t oc = v.shape(out)[out.ndim - 1];
    return q->num_channels == 1 || q->num_channels == (uint32_t)oc;
}

// TFLite's int8 softmax writes probabilities in steps of 1/256 offset by -128, over the
// last axes (a trailing AXES block).
bool softmax_ok(const OpView &v)
{
    const tigris_tensor_t &out = v.out(0);
    const tigris_quant_param_t *q = tigris_tensor_quant(v.plan, &out);
    if (out.dtype != TIGRIS_DTYPE_INT8 || q == nullptr || q->scale != 1.0f / 256.0f || q->zero_point != -128)
        return false;
    uint8_t len = 0;
    const uint8_t *axes = v.attr(TIGRIS_ATTR_AXES, &len);
    return axes == nullptr || len == 0 || axes[len - 1] == out.ndim - 1;
}

bool quantized16(const OpView &v, const tigris_tensor_t &t)
{
    return t.dtype != TIGRIS_DTYPE_INT16 || tigris_tensor_quant(v.plan, &t) != nullptr;
}

bool zero_point_is(const OpView &v, const tigris_tensor_t &t, int32_t zp, float scale)
{
    const tigris_quant_param_t *q = tigris_tensor_quant(v.plan, &t);
    return q != nullptr && q->zero_point == zp && (scale == 0.0f || q->scale == scale);
}

}  // namespace

bool check_quant16(const OpView &v)
{
    for (uint8_t i = 0; i < v.num_in(); ++i)
        if (!quantized16(v, v.in(i))) return false;
    for (uint8_t i = 0; i < v.num_out(); ++i)
        if (!quantized16(v, v.out(i))) return false;
    switch (v.op->op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE:
    case TIGRIS_OP_CONV1D:
    case TIGRIS_OP_CONV_TRANSPOSE:
    case TIGRIS_OP_FULLY_CONN: return output_channels_ok(v);
    // TFLite's 16-bit softmax: zero points 0, output steps of 1/32768; LOGISTIC/TANH: zero
    // points 0 (their output scale is checked by the kernel's factor derivation).
    case TIGRIS_OP_SOFTMAX: return zero_point_is(v, v.in(0), 0, 0.0f) && zero_point_is(v, v.out(0), 0, 0.0f);
    case TIGRIS_OP_SIGMOID:
    case TIGRIS_OP_TANH: return zero_point_is(v, v.in(0), 0, 0.0f) && zero_point_is(v, v.out(0), 0, 0.0f);
    default: return true;
    }
}

bool check_quant(const OpView &v)
{
    for (uint8_t i = 0; i < v.num_in(); ++i)
        if (!has_quant(v, v.in(i))) return false;
    for (uint8_t i = 0; i < v.num_out(); ++i)
        if (!has_quant(v, v.out(i))) return false;
    switch (v.op->op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE:
    case TIGRIS_OP_CONV1D:
    case TIGRIS_OP_CONV_TRANSPOSE:
    case TIGRIS_OP_FULLY_CONN: return output_channels_ok(v);
    case TIGRIS_OP_SOFTMAX: return softmax_ok(v);
    default: return true;
    }
}

}  // namespace rules
}  // namespace tigris_rt
