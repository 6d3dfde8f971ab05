// int8 additions to the operator rules, for ops whose kernel dtype is quantized int8
// (docs/operators.md §1). Owned with the int8 kernels: extend here, not in the float rules.
#include "kernels/kernel_set.h"
#include "kernels/s8/s8_exact_real.h"
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_params.h"
#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

bool has_quant(const OpView &v, const tigris_tensor_t &t)
{
    return t.dtype != TIGRIS_DTYPE_INT8 || tigris_tensor_quant(v.plan, &t) != nullptr;
}

// Conv-like ops requantize per output channel or per tensor, with the factors the compiler
// stored on the output's quant param: each must be one the fixed-point helpers take (a
// shift beyond 31 would shift an int32 by its width or more).
bool output_channels_ok(const OpView &v)
{
    const tigris_tensor_t &out = v.out(0);
    const tigris_quant_param_t *q = tigris_tensor_quant(v.plan, &out);
    if (q == nullptr || out.ndim == 0 || v.plan->quant_data == nullptr) return false;
    int32_t oc = v.shape(out)[out.ndim - 1];
    if (q->num_channels != 1 && q->num_channels != (uint32_t)oc) return false;
    const int32_t *m = tigris_quant_multipliers(v.plan, q), *s = tigris_quant_shifts(v.plan, q);
    for (uint32_t c = 0; c < q->num_channels; ++c)
        if (!tigris_s8::factor_in_range(rd_i32(m + c), rd_i32(s + c))) return false;
    return true;
}

// TFLite's int8 softmax writes probabilities in steps of 1/256 offset by -128 (int8 output)
// or of 1/65536 offset by -32768 (int16 output), over the last axes (a trailing AXES block).
bool softmax_ok(const OpView &v)
{
    const tigris_tensor_t &out = v.out(0);
    const tigris_quant_param_t *q = tigris_tensor_quant(v.plan, &out);
    if (q == nullptr) return false;
    if (int16_built() && out.dtype == TIGRIS_DTYPE_INT16  // else refused before (check_operator)
            ? !tigris_s8::int16_softmax_output(q->scale, q->zero_point)
            : out.dtype != TIGRIS_DTYPE_INT8 || q->scale != 1.0f / 256.0f || q->zero_point != -128)
        return false;
    uint8_t len = 0;
    const uint8_t *axes = v.attr(TIGRIS_ATTR_AXES, &len);
    return axes == nullptr || len == 0 || axes[len - 1] == out.ndim - 1;
}

// Factors the kernels derive from scales (QuantizeMultiplier of a real ratio) must give a
// shift the fixed-point helpers take: a real below 2^30 has a shift of at most 31 after
// rounding. Checked for every ratio an int8/int16 kernel may form: each input scale over
// each output scale (RELU, pools, requantizing moves, ADD's output factor bound by it),
// the product of two input scales over the output's (MUL), and the fixed scalings of
// LOGISTIC/TANH (input * 2^27), HARD_SWISH (input * 2^15 / 384) and LEAKY_RELU (alpha).
// The reals are the doubles the kernels form, computed exactly in integers (s8_exact_real.h).
bool real_factor_ok(tigris_s8::ExactReal real)
{
    return tigris_s8::exact_greater(tigris_s8::ExactReal{1, 30, false, true}, real);
}

float scale_of(const OpView &v, const tigris_tensor_t &t)
{
    const tigris_quant_param_t *q = tigris_tensor_quant(v.plan, &t);
    return q != nullptr ? q->scale : 0.0f;
}

constexpr bool activation_row(uint8_t code)
{
    return code >= 1u && code <= ops::kOpCount && ops::kOpDefs[code - 1u].family == ops::Family::kActivation;
}

bool derived_factors_ok(const OpView &v)
{
    using tigris_s8::exact_div;
    using tigris_s8::exact_of;
    float in_scales[2] = {0.0f, 0.0f};
    uint8_t quantized_inputs = 0;
    for (uint8_t i = 0; i < v.num_in(); ++i) {
        const float si = scale_of(v, v.in(i));
        if (si == 0.0f) continue;
        if (quantized_inputs < 2) in_scales[quantized_inputs] = si;
        quantized_inputs++;
        for (uint8_t o = 0; o < v.num_out(); ++o) {
            const float so = scale_of(v, v.out(o));
            if (so != 0.0f && !real_factor_ok(exact_div(exact_of(si), exact_of(so)))) return false;
        }
    }
    const float so = scale_of(v, v.out(0));
    if (quantized_inputs >= 2 && so != 0.0f &&
        !real_factor_ok(exact_div(tigris_s8::exact_mul(exact_of(in_scales[0]), exact_of(in_scales[1])), exact_of(so))))
        return false;
    // The fixed scalings below belong to activation ops: a build without one (its family or
    // TIGRIS_ONLY_OPS) refused it before (step 18), so it leaves its case out.
    static_assert(activation_row(TIGRIS_OP_SIGMOID) && activation_row(TIGRIS_OP_TANH) &&
                      activation_row(TIGRIS_OP_HARDSWISH) && activation_row(TIGRIS_OP_LEAKY_RELU),
                  "derived_factors_ok: the ops of its switch are activations");
    const float s0 = scale_of(v, v.in(0));
    switch (v.op->op_type) {
    case TIGRIS_OP_SIGMOID:
    case TIGRIS_OP_TANH:
        if (!ops::op_built(TIGRIS_OP_SIGMOID) && !ops::op_built(TIGRIS_OP_TANH)) return true;
        return real_factor_ok(tigris_s8::exact_scale(exact_of(s0), 27));
    // s0 * (32768.0 / 384.0) < 2^30 in double holds exactly for the floats below 3 * 2^22.
    case TIGRIS_OP_HARDSWISH: return !ops::op_built(TIGRIS_OP_HARDSWISH) || s0 < 12582912.0f;
    case TIGRIS_OP_LEAKY_RELU: {  // input * alpha over output; a missing alpha reads 0.01f, as the kernels
        if (!ops::op_built(TIGRIS_OP_LEAKY_RELU)) return true;
        uint8_t len = 0;
        const uint8_t *a = v.attr(TIGRIS_ATTR_ALPHA, &len);
        const float alpha = a != nullptr && len >= 4 ? rd_f32(a) : 0.01f;
        return so == 0.0f ||
               (alpha == alpha &&
                real_factor_ok(exact_div(tigris_s8::exact_mul(exact_of(s0), exact_of(alpha < 0 ? -alpha : alpha)),
                                         exact_of(so))));
    }
    default: return true;
    }
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

namespace {

// Every operand passes `ok`, and the factors the kernels derive from the scales are in range.
template <typename Ok>
bool operands_ok(const OpView &v, Ok ok)
{
    for (uint8_t i = 0; i < v.num_in(); ++i)
        if (!ok(v, v.in(i))) return false;
    for (uint8_t i = 0; i < v.num_out(); ++i)
        if (!ok(v, v.out(i))) return false;
    return derived_factors_ok(v);
}

bool has_output_channels(uint8_t op_type)
{
    return op_type == TIGRIS_OP_CONV || op_type == TIGRIS_OP_DEPTHWISE || op_type == TIGRIS_OP_CONV1D ||
           op_type == TIGRIS_OP_CONV_TRANSPOSE || op_type == TIGRIS_OP_FULLY_CONN;
}

}  // namespace

bool check_quant16(const OpView &v)
{
    if (!operands_ok(v, quantized16)) return false;
    if (has_output_channels(v.op->op_type)) return output_channels_ok(v);
    switch (v.op->op_type) {
    // TFLite's 16-bit softmax: zero points 0, output steps of 1/32768; LOGISTIC/TANH: zero
    // points 0 (their output scale is checked by the kernel's factor derivation).
    case TIGRIS_OP_SOFTMAX:
    case TIGRIS_OP_SIGMOID:
    case TIGRIS_OP_TANH: return zero_point_is(v, v.in(0), 0, 0.0f) && zero_point_is(v, v.out(0), 0, 0.0f);
    default: return true;
    }
}

bool check_quant(const OpView &v)
{
    if (!operands_ok(v, has_quant)) return false;
    if (has_output_channels(v.op->op_type)) return output_channels_ok(v);
    return v.op->op_type == TIGRIS_OP_SOFTMAX ? softmax_ok(v) : true;
}

}  // namespace rules
}  // namespace tigris_rt
