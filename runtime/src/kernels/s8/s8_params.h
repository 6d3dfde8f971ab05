// Requantization factors of the int8 kernels, derived from tensor scales exactly as
// TensorFlow Lite Micro's Prepare() functions derive them (same precision: where TFLM
// divides in float32 before widening to double, so do we). The compiler may call these
// too, so factors it stores in a plan and factors the runtime derives always agree.
#pragma once

#include <stdint.h>

namespace tigris_s8 {

// TFLite QuantizeMultiplier: frexp(real) -> q in [0.5, 1) and exponent e;
// m = round_half_away(q * 2^31) (m == 2^31 -> m / 2, e + 1); shift = e (positive = left);
// e < -31 flushes to (0, 0); real == 0 gives (0, 0). Negative reals give a negative m.
void quantize_multiplier(double real, int32_t *multiplier, int *shift);

// Requantization factors of a CONV / DEPTHWISE / FULLY_CONNECTED output channel, as TFLM's
// Prepare computes them: (double)in * (double)w[c] / (double)out for convolutions and
// per-channel FULLY_CONNECTED; a per-tensor FULLY_CONNECTED forms in * w in float32 first
// (GetQuantizedConvolutionMultipler). The compiler stores these on the output quant param.
void layer_multiplier(float input_scale, float weight_scale, float output_scale, bool per_tensor_fc,
                      int32_t *multiplier, int *shift);

// TFLite CalculateInputRadius: floor((2^ib - 1) * 2^(total_bits - ib) / 2^left_shift).
int32_t calculate_input_radius(int input_integer_bits, int input_left_shift, int total_signed_bits);

// Quantize a float to int8: clamp(round_half_away(value / scale) + zero_point).
int8_t quantize_value(float value, float scale, int32_t zero_point);

struct AddSubParams {
    int32_t input1_offset, input2_offset, output_offset;  // -z1, -z2, zy
    int left_shift;                                       // 20 for int8
    int32_t input1_multiplier, input2_multiplier, output_multiplier;
    int input1_shift, input2_shift, output_shift;  // all <= 0
};
// ADD: multipliers s1/(2 max), s2/(2 max), 2 max/(2^20 sy), computed in double.
void add_params(float s1, int32_t z1, float s2, int32_t z2, float sy, int32_t zy, AddSubParams *p);
// SUB: the same factors, but TFLM forms the quotients in float32 before widening.
void sub_params(float s1, int32_t z1, float s2, int32_t z2, float sy, int32_t zy, AddSubParams *p);

// MUL: multiplier of s1 * s2 / sy (double).
void mul_params(float s1, float s2, float sy, int32_t *multiplier, int *shift);

// LOGISTIC / TANH (int8): input multiplier of in_scale * 2^27 (4 integer bits), its
// left shift, and the input radius beyond which the output saturates.
struct SigmoidTanhParams {
    int32_t input_multiplier;
    int input_left_shift;
    int32_t input_range_radius;
};
void sigmoid_tanh_params(float input_scale, SigmoidTanhParams *p);

// SOFTMAX (int8 -> int8): beta * in_scale * 2^26 (5 integer bits) as multiplier and left
// shift (capped at 2^31 - 1), and diff_min = -input radius.
struct SoftmaxParams {
    int32_t input_multiplier;
    int input_left_shift;
    int32_t diff_min;
};
void softmax_params(float beta, float input_scale, SoftmaxParams *p);
// SOFTMAX int8 -> int16: TFLM's output check, zero point -32768 and scale 1/65536 within 0.1%.
inline bool int16_softmax_output(float scale, int32_t zero_point)
{
    const float d = scale - 1.0f / 65536.0f;
    return zero_point == -32768 && (d < 0 ? -d : d) <= 0.001f / 65536.0f;
}

// HARD_SWISH: 16-bit output and "relu-ish" multipliers with their exponents.
struct HardSwishParams {
    int16_t output_multiplier;
    int output_exponent;
    int16_t reluish_multiplier;
    int reluish_exponent;
};
void hard_swish_params(float input_scale, float output_scale, HardSwishParams *p);

// LEAKY_RELU: multipliers of in_scale * alpha / out_scale and in_scale / out_scale
// (both quotients formed in float32, as TFLM does).
struct LeakyReluParams {
    int32_t alpha_multiplier;
    int alpha_shift;
    int32_t identity_multiplier;
    int identity_shift;
};
void leaky_relu_params(float input_scale, float alpha, float output_scale, LeakyReluParams *p);

// RELU: multiplier of in_scale / out_scale (float quotient) and the clamp
// [max(-128, zy), 127]. RELU6 (TFLM): clamp at the input's zero and quantized 6.
void relu_multiplier(float input_scale, float output_scale, int32_t *multiplier, int *shift);
// Multiplier of in_scale / out_scale in double precision (QUANTIZE requantize, MEAN).
void rescale_multiplier(float input_scale, float output_scale, int32_t *multiplier, int *shift);

// MEAN: fold 1/count into (multiplier, shift) as TFLite's integer mean does:
// s = min(floor(log2 count), 32, 31 + shift); m = (m << s) / count; shift -= s.
void fold_mean_count(int64_t count, int32_t *multiplier, int *shift);

// AVERAGE_POOL rounding: sum / count rounded to nearest, ties away from zero.
inline int32_t divide_round_away(int32_t sum, int32_t count)
{
    return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
}

}  // namespace tigris_s8
