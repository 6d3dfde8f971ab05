// Unary elementwise ops: activations and float math (<math.h> float functions), Abs/Neg on
// integers, LogicalNot. Banded calls through pointwise views.
#include "kernels/f32/elementwise.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

float f32_attr(const Call &c, uint8_t kind, int index, float def)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(kind, &len);
    if (p == nullptr || len < 4 * (index + 1)) return def;
    float v;
    memcpy(&v, p + 4 * index, 4);
    return v;
}

template <typename F>
int run(const kern::Walk &w, F f)
{
    map1<float, float>(w, f);
    return 0;
}

int float_unary(const Call &c, const kern::Walk &w)
{
    float alpha, lo, hi;
    switch (c.op->op_type) {
    case TIGRIS_OP_RELU: return run(w, [](float x) { return x > 0.0f ? x : (x != x ? x : 0.0f); });
    case TIGRIS_OP_RELU6: return run(w, [](float x) { return x != x ? x : (x > 0.0f ? (x < 6.0f ? x : 6.0f) : 0.0f); });
    case TIGRIS_OP_CLIP:
        lo = f32_attr(c, TIGRIS_ATTR_CLIP_BOUNDS, 0, -INFINITY);
        hi = f32_attr(c, TIGRIS_ATTR_CLIP_BOUNDS, 1, INFINITY);
        return run(w, [lo, hi](float x) {
            float y = x < lo ? lo : x;
            return y > hi ? hi : y;
        });
    case TIGRIS_OP_LEAKY_RELU:
        alpha = f32_attr(c, TIGRIS_ATTR_ALPHA, 0, 0.01f);
        return run(w, [alpha](float x) { return x < 0.0f ? alpha * x : x; });
    case TIGRIS_OP_ELU:
        alpha = f32_attr(c, TIGRIS_ATTR_ALPHA, 0, 1.0f);
        return run(w, [alpha](float x) { return x < 0.0f ? alpha * (expf(x) - 1.0f) : x; });
    case TIGRIS_OP_SIGMOID: return run(w, [](float x) { return 1.0f / (1.0f + expf(-x)); });
    // x times SIGMOID's value, so a fused SiLU equals the Sigmoid + Mul it replaces bit for bit.
    case TIGRIS_OP_SILU: return run(w, [](float x) { return x * (1.0f / (1.0f + expf(-x))); });
    case TIGRIS_OP_TANH: return run(w, [](float x) { return tanhf(x); });
    case TIGRIS_OP_HARDSWISH:
        return run(w, [](float x) {
            float g = x / 6.0f + 0.5f;
            g = g < 0.0f ? 0.0f : (g > 1.0f ? 1.0f : g);
            return x * g;
        });
    case TIGRIS_OP_ERF: return run(w, [](float x) { return erff(x); });
    case TIGRIS_OP_ABS: return run(w, [](float x) { return fabsf(x); });
    case TIGRIS_OP_NEG: return run(w, [](float x) { return -x; });
    case TIGRIS_OP_RSQRT: return run(w, [](float x) { return 1.0f / sqrtf(x); });
    case TIGRIS_OP_EXP: return run(w, [](float x) { return expf(x); });
    case TIGRIS_OP_LOG: return run(w, [](float x) { return logf(x); });
    case TIGRIS_OP_SQRT: return run(w, [](float x) { return sqrtf(x); });
    case TIGRIS_OP_SQUARE: return run(w, [](float x) { return x * x; });
    case TIGRIS_OP_FLOOR: return run(w, [](float x) { return floorf(x); });
    case TIGRIS_OP_CEIL: return run(w, [](float x) { return ceilf(x); });
    case TIGRIS_OP_ROUND: return run(w, [](float x) { return rintf(x); });
    case TIGRIS_OP_SIN: return run(w, [](float x) { return sinf(x); });
    case TIGRIS_OP_COS: return run(w, [](float x) { return cosf(x); });
    case TIGRIS_OP_ASIN: return run(w, [](float x) { return asinf(x); });
    case TIGRIS_OP_ACOS: return run(w, [](float x) { return acosf(x); });
    case TIGRIS_OP_ATAN: return run(w, [](float x) { return atanf(x); });
    case TIGRIS_OP_SINH: return run(w, [](float x) { return sinhf(x); });
    case TIGRIS_OP_COSH: return run(w, [](float x) { return coshf(x); });
    case TIGRIS_OP_ASINH: return run(w, [](float x) { return asinhf(x); });
    case TIGRIS_OP_ACOSH: return run(w, [](float x) { return acoshf(x); });
    case TIGRIS_OP_ATANH: return run(w, [](float x) { return atanhf(x); });
    default: return -1;
    }
}

template <typename T>
int int_unary(const Call &c, const kern::Walk &w)
{
    typedef typename Unsigned<T>::type U;
    bool neg = c.op->op_type == TIGRIS_OP_NEG;
    if (!neg && c.op->op_type != TIGRIS_OP_ABS) return -1;
    map1<T, T>(w, [neg](T x) {
        if constexpr (Unsigned<T>::is_signed) {
            if (neg || x < 0) return (T)(0 - (U)x);
            return x;
        } else {
            return neg ? (T)(0 - (U)x) : x;
        }
    });
    return 0;
}

}  // namespace

int unary(const Call &c)
{
    kern::Band band = kern::pointwise_band(c.mem);
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    if (c.in_ptr(0) == nullptr || c.out_ptr(0) == nullptr) return -1;
    if (tigris_tensor_quant(c.plan, &in) != nullptr) return -1;  // quantized: int8 kernels
    uint8_t elem = (uint8_t)tigris_dtype_size(in.dtype);
    kern::Walk w;
    kern::walk_init(&w, kern::output0_view(c, band));
    if (!kern::walk_add(&w, kern::input_view(band, c.in_ptr(0), c.shape(in), in.ndim, elem, c.shape(out), out.ndim)))
        return -1;
    switch (in.dtype) {
    case TIGRIS_DTYPE_FLOAT32: return float_unary(c, w);
    case TIGRIS_DTYPE_INT32: return int_unary<int32_t>(c, w);
    case TIGRIS_DTYPE_INT64: return int_unary<int64_t>(c, w);
    case TIGRIS_DTYPE_UINT8: return int_unary<uint8_t>(c, w);
    case TIGRIS_DTYPE_BOOL:
        if (c.op->op_type != TIGRIS_OP_LOGICAL_NOT) return -1;
        map1<uint8_t, uint8_t>(w, [](uint8_t x) { return (uint8_t)(x ? 0 : 1); });
        return 0;
    default: return -1;
    }
}

}  // namespace f32
}  // namespace tigris_rt
