// int8 unary activations. Each output byte depends on the input byte alone, so every
// kernel fills a 256-entry table with TFLite Micro's own formula for each input value
// and maps the tensor through it (same bytes as evaluating per element).
//   RELU:       y = clamp(MBQM(x - zx, m, s) + zy, max(-128, zy), 127), m,s of sx/sy
//   RELU6:      equal quantization: clamp(x, zx, q6) with q6 = round(6/sx) + zx (TFLM);
//               otherwise RELU's formula clamped at round(6/sy) + zy. CLIP likewise.
//   LEAKY_RELU: x >= zx: MBQM(x - zx, identity); else MBQM(x - zx, alpha) (ALPHA, default 0.01)
//   HARD_SWISH: TFLite's 16-bit fixed-point hard swish
//   TABLE:      the 256 entries are the op's weight (computed by the compiler)
//   LOGISTIC / TANH: output 1/256, -128 (logistic) or 1/128, 0 (tanh) as TFLM requires:
//               gemmlowp fixed point on a Q4.27 input; any other output quantization:
//               TFLite's float LUT (dequantize, f, round(y / sy) + zy, clamp)
#include <math.h>

#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_fixed_point_math.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_s8 {
namespace {

using Unary = PointwiseIO;

int unary_operands(const Call &c, Unary *u)
{
    if (pointwise_io(c, u)) return kError;
    return u->in.dtype == TIGRIS_DTYPE_INT8 && u->out.dtype == TIGRIS_DTYPE_INT8 ? 0 : kError;
}

// Map the op's input through lut (indexed by the input byte as uint8).
int apply_lut(const Unary &u, const int8_t lut[256])
{
    return map_int8(u, [&](int8_t *y, const int8_t *x) { *y = lut[(uint8_t)*x]; });
}

// y = clamp(MBQM(x - zx, m, s) + zy, lo, hi) for every int8 x.
void requant_lut(int32_t zx, int32_t m, int s, int32_t zy, int32_t lo, int32_t hi, int8_t lut[256])
{
    for (int v = -128; v <= 127; v++) {
        const int32_t y = wrap_add(zy, multiply_by_quantized_multiplier(v - zx, m, s));
        lut[(uint8_t)v] = (int8_t)clamp_i32(y, lo, hi);
    }
}

// TFLite's integer HARD_SWISH of one input value.
int8_t hard_swish_value(int32_t x, int32_t zx, int32_t zy, const HardSwishParams &p)
{
    const int16_t input_value = (int16_t)(x - zx);
    const int16_t hires = (int16_t)(input_value * (1 << 7));
    const int16_t preshift_output = sat_rounding_doubling_high_mul16(hires, p.output_multiplier);
    int16_t reluish = hires;
    auto saturating_left_shift = [](int16_t v, int amount) {
        const int64_t r = (int64_t)v * ((int64_t)1 << amount);
        return (int16_t)(r > INT16_MAX ? INT16_MAX : (r < INT16_MIN ? INT16_MIN : r));
    };
    if (p.reluish_exponent > 0) reluish = saturating_left_shift(reluish, p.reluish_exponent - 1);
    reluish = sat_rounding_doubling_high_mul16(reluish, p.reluish_multiplier);
    if (p.reluish_exponent > 0) reluish = saturating_left_shift(reluish, 1);
    if (p.reluish_exponent < 0) reluish = rounding_divide_by_pot16(reluish, -p.reluish_exponent);
    reluish = (int16_t)((reluish + (1 << 15)) >> 1);  // [-1, 1] -> [0, 1]
    // Saturating doubling high multiply that truncates (SQDMULH), not rounds.
    int16_t product;
    if (reluish == INT16_MIN && preshift_output == INT16_MIN) {
        product = INT16_MAX;
    } else {
        product = (int16_t)(((int32_t)reluish * (int32_t)preshift_output) / (1 << 15));
    }
    int16_t out = rounding_divide_by_pot16(product, -p.output_exponent);
    out = (int16_t)(out + zy);
    return (int8_t)(out > 127 ? 127 : (out < -128 ? -128 : out));
}

// TFLite LUTPopulate<int8_t>: float dequantize, transform, round(y * (1 / sy)) + zy.
void float_lut(float sx, int32_t zx, float sy, int32_t zy, float (*f)(float), int8_t lut[256])
{
    const float inverse_scale = 1.0f / sy;
    for (int v = -128; v <= 127; v++) {
        const float dequantized = sx * (float)(v - zx);
        const float rescaled = round_half_away_f(f(dequantized) * inverse_scale);
        const int32_t q = float_to_i32_sat(rescaled + (float)zy);
        lut[(uint8_t)v] = clamp_s8(q);
    }
}

float logistic_f(float v) { return 1.0f / (1.0f + expf(-v)); }
float tanh_f(float v) { return tanhf(v); }

// TFLM's fixed-point LOGISTIC (is_tanh = false) or TANH of one input value.
int8_t sigmoid_tanh_value(int32_t x, int32_t zx, const SigmoidTanhParams &p, bool is_tanh)
{
    const int32_t input = x - zx;
    if (input <= -p.input_range_radius) return -128;
    if (input >= p.input_range_radius) return 127;
    const int32_t q4 = multiply_by_quantized_multiplier(input, p.input_multiplier, p.input_left_shift);
    if (is_tanh) {
        const int32_t q0 = fp_tanh(q4, 4);
        return clamp_s8(rounding_divide_by_pot(q0, 31 - 7));
    }
    const int32_t q0 = fp_logistic(q4, 4);
    return clamp_s8(rounding_divide_by_pot(q0, 31 - 8) - 128);
}

int sigmoid_tanh(const Call &c, bool is_tanh)
{
    Unary u;
    if (unary_operands(c, &u)) return kError;
    int8_t lut[256];
    const float canonical_scale = is_tanh ? 1.0f / 128.0f : 1.0f / 256.0f;
    const int32_t canonical_zp = is_tanh ? 0 : -128;
    if (u.out.scale == canonical_scale && u.out.zero_point == canonical_zp) {
        SigmoidTanhParams p;
        sigmoid_tanh_params(u.in.scale, &p);
        for (int v = -128; v <= 127; v++) lut[(uint8_t)v] = sigmoid_tanh_value(v, u.in.zero_point, p, is_tanh);
    } else {
        float_lut(u.in.scale, u.in.zero_point, u.out.scale, u.out.zero_point, is_tanh ? tanh_f : logistic_f, lut);
    }
    return apply_lut(u, lut);
}

// Clamp to [lo, hi] (real values): equal quantization clamps the bytes at the quantized
// bounds; otherwise requantize (RELU's formula) and clamp at the output's bounds.
int clamp_real(const Call &c, float lo, float hi)
{
    Unary u;
    if (unary_operands(c, &u)) return kError;
    int8_t lut[256];
    const Operand &q = same_quant(u.in, u.out) ? u.in : u.out;
    int32_t qlo = lo <= -3.0e38f ? -128 : quantize_value(lo, q.scale, q.zero_point);
    const int32_t qhi = hi >= 3.0e38f ? 127 : quantize_value(hi, q.scale, q.zero_point);
    if (qhi < qlo) qlo = qhi;  // ONNX: lo > hi gives hi everywhere
    if (same_quant(u.in, u.out)) {
        for (int v = -128; v <= 127; v++) lut[(uint8_t)v] = (int8_t)(v > qhi ? qhi : (v < qlo ? qlo : v));
    } else {
        int32_t m = 0;
        int s = 0;
        relu_multiplier(u.in.scale, u.out.scale, &m, &s);
        requant_lut(u.in.zero_point, m, s, u.out.zero_point, qlo, qhi, lut);
    }
    return apply_lut(u, lut);
}

}  // namespace

int relu(const Call &c)
{
    Unary u;
    if (unary_operands(c, &u)) return kError;
    int32_t m = 0;
    int s = 0;
    relu_multiplier(u.in.scale, u.out.scale, &m, &s);
    int8_t lut[256];
    const int32_t lo = u.out.zero_point > -128 ? u.out.zero_point : -128;
    requant_lut(u.in.zero_point, m, s, u.out.zero_point, lo, 127, lut);
    return apply_lut(u, lut);
}

// RELU6 (TFLM): equal quantization clamps at the input's zero and quantized 6.
int relu6(const Call &c) { return clamp_real(c, 0.0f, 6.0f); }

// CLIP with CLIP_BOUNDS (f32 lo, f32 hi).
int clip(const Call &c)
{
    uint8_t len = 0;
    const uint8_t *b = c.attr(TIGRIS_ATTR_CLIP_BOUNDS, &len);
    if (b == nullptr || len < 8) return kError;
    return clamp_real(c, rd_f32(b), rd_f32(b + 4));
}

int leaky_relu(const Call &c)
{
    Unary u;
    if (unary_operands(c, &u)) return kError;
    uint8_t len = 0;
    const uint8_t *alpha = c.attr(TIGRIS_ATTR_ALPHA, &len);
    LeakyReluParams p;
    leaky_relu_params(u.in.scale, alpha != nullptr && len >= 4 ? rd_f32(alpha) : 0.01f, u.out.scale, &p);
    // A negative alpha multiplies by |m| and negates (TFLite keeps MBQM's m >= 0).
    const bool negative_alpha = p.alpha_multiplier < 0;
    const int32_t alpha_m = negative_alpha ? wrap_neg(p.alpha_multiplier) : p.alpha_multiplier;
    int8_t lut[256];
    for (int v = -128; v <= 127; v++) {
        const int32_t input = v - u.in.zero_point;
        int32_t y = u.out.zero_point;
        if (input >= 0) {
            y = wrap_add(y, multiply_by_quantized_multiplier(input, p.identity_multiplier, p.identity_shift));
        } else {
            const int32_t scaled = multiply_by_quantized_multiplier(input, alpha_m, p.alpha_shift);
            y = wrap_add(y, negative_alpha ? wrap_neg(scaled) : scaled);
        }
        lut[(uint8_t)v] = clamp_s8(y);
    }
    return apply_lut(u, lut);
}

int hard_swish(const Call &c)
{
    Unary u;
    if (unary_operands(c, &u)) return kError;
    HardSwishParams p;
    hard_swish_params(u.in.scale, u.out.scale, &p);
    if (p.output_exponent > 0) return kError;  // TFLM refuses this quantization
    int8_t lut[256];
    for (int v = -128; v <= 127; v++) {
        lut[(uint8_t)v] = hard_swish_value(v, u.in.zero_point, u.out.zero_point, p);
    }
    return apply_lut(u, lut);
}

// TABLE: the compiler computed the 256 outputs (one per input byte) into the weight.
int table(const Call &c)
{
    Unary u;
    if (unary_operands(c, &u)) return kError;
    const uint8_t *lut = op_weight_bytes(c, 256);
    if (lut == nullptr) return kError;
    return apply_lut(u, (const int8_t *)lut);
}

int sigmoid(const Call &c) { return sigmoid_tanh(c, false); }

int tanh_act(const Call &c) { return sigmoid_tanh(c, true); }

}  // namespace tigris_s8
