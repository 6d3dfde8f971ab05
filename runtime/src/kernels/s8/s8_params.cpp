// Factor derivations of the int8 kernels (see s8_params.h): each function mirrors the
// arithmetic of the TFLite Micro Prepare() it replaces, including where it computes in
// float32 and where in double.
#include "kernels/s8/s8_params.h"

#include <math.h>

#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s8 {

void quantize_multiplier(double real, int32_t *multiplier, int *shift)
{
    *multiplier = 0;
    *shift = 0;
    if (real == 0.0 || real != real) return;
    int e = 0;
    const double q = frexp(real, &e);
    int64_t q_fixed = (int64_t)round_half_away_d(q * 2147483648.0);
    if (q_fixed == ((int64_t)1 << 31)) {
        q_fixed /= 2;
        ++e;
    }
    if (e < -31) {
        e = 0;
        q_fixed = 0;
    }
    *multiplier = (int32_t)q_fixed;  // -2^31 wraps to INT32_MIN, as the C cast does
    *shift = e;
}

void layer_multiplier(float input_scale, float weight_scale, float output_scale, bool per_tensor_fc,
                      int32_t *multiplier, int *shift)
{
    const double product =
        per_tensor_fc ? (double)(input_scale * weight_scale) : (double)input_scale * (double)weight_scale;
    quantize_multiplier(product / (double)output_scale, multiplier, shift);
}

int32_t calculate_input_radius(int input_integer_bits, int input_left_shift, int total_signed_bits)
{
    // (2^ib - 1) * 2^(total - ib) / 2^left_shift: scaling by powers of two is exact.
    const double max_input_rescaled =
        (double)((1 << input_integer_bits) - 1) * ldexp(1.0, total_signed_bits - input_integer_bits - input_left_shift);
    const double r = floor(max_input_rescaled);
    if (r >= 2147483647.0) return INT32_MAX;
    return (int32_t)r;
}

int8_t quantize_value(float value, float scale, int32_t zero_point)
{
    const float rounded = round_half_away_f(value / scale);
    const int64_t q = (int64_t)float_to_i32_sat(rounded) + zero_point;
    return (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
}

namespace {

// QuantizeMultiplierSmallerThanOneExp (real in (0, 1), shift <= 0).
void quantize_smaller_than_one(double real, int32_t *multiplier, int *shift)
{
    quantize_multiplier(real, multiplier, shift);
}

// DownScaleInt32ToInt16Multiplier: round a Q0.31 multiplier to Q0.15.
int16_t downscale_to_int16(int32_t m)
{
    const int32_t kRoundingOffset = 1 << 15;
    if (m >= INT32_MAX - kRoundingOffset) return INT16_MAX;
    return (int16_t)((m + kRoundingOffset) >> 16);
}

void fill_offsets(int32_t z1, int32_t z2, int32_t zy, AddSubParams *p)
{
    p->input1_offset = -z1;
    p->input2_offset = -z2;
    p->output_offset = zy;
    p->left_shift = 20;
}

}  // namespace

void add_params(float s1, int32_t z1, float s2, int32_t z2, float sy, int32_t zy, AddSubParams *p)
{
    fill_offsets(z1, z2, zy, p);
    const double twice_max = 2.0 * (double)(s1 > s2 ? s1 : s2);
    quantize_smaller_than_one((double)s1 / twice_max, &p->input1_multiplier, &p->input1_shift);
    quantize_smaller_than_one((double)s2 / twice_max, &p->input2_multiplier, &p->input2_shift);
    quantize_smaller_than_one(twice_max / ((double)(1 << 20) * (double)sy), &p->output_multiplier, &p->output_shift);
}

void sub_params(float s1, int32_t z1, float s2, int32_t z2, float sy, int32_t zy, AddSubParams *p)
{
    fill_offsets(z1, z2, zy, p);
    const float twice_max = 2.0f * (s1 > s2 ? s1 : s2);
    quantize_smaller_than_one((double)(s1 / twice_max), &p->input1_multiplier, &p->input1_shift);
    quantize_smaller_than_one((double)(s2 / twice_max), &p->input2_multiplier, &p->input2_shift);
    quantize_smaller_than_one((double)(twice_max / ((float)(1 << 20) * sy)), &p->output_multiplier, &p->output_shift);
}

void mul_params(float s1, float s2, float sy, int32_t *multiplier, int *shift)
{
    quantize_multiplier((double)s1 * (double)s2 / (double)sy, multiplier, shift);
}

void sigmoid_tanh_params(float input_scale, SigmoidTanhParams *p)
{
    const int kInputIntegerBits = 4;
    const double real = (double)input_scale * (double)(1 << (31 - kInputIntegerBits));
    int e = 0;
    const double q = frexp(real, &e);
    const double m = round_half_away_d(q * 2147483648.0);
    // TFLM casts without the 2^31 check; the x86 conversion of 2^31 yields INT32_MIN.
    p->input_multiplier = m >= 2147483648.0 ? INT32_MIN : (int32_t)m;
    p->input_left_shift = e;
    p->input_range_radius = calculate_input_radius(kInputIntegerBits, e, 31);
}

void softmax_params(double beta, float input_scale, SoftmaxParams *p)
{
    const int kScaledDiffIntegerBits = 5;
    const double max_real_multiplier = 2147483647.0;  // (1 << 31) - 1
    double real = beta * (double)input_scale * (double)(1 << (31 - kScaledDiffIntegerBits));
    if (real > max_real_multiplier) real = max_real_multiplier;
    quantize_multiplier(real, &p->input_multiplier, &p->input_left_shift);
    p->diff_min = -calculate_input_radius(kScaledDiffIntegerBits, p->input_left_shift, 31);
}

void hard_swish_params(float input_scale, float output_scale, HardSwishParams *p)
{
    const float hires_input_scale = (1.0f / 128.0f) * input_scale;
    const float reluish_scale = 3.0f / 32768.0f;
    int32_t m = 0;
    quantize_multiplier((double)(hires_input_scale / output_scale), &m, &p->output_exponent);
    p->output_multiplier = downscale_to_int16(m);
    quantize_multiplier((double)(hires_input_scale / reluish_scale), &m, &p->reluish_exponent);
    p->reluish_multiplier = downscale_to_int16(m);
}

void leaky_relu_params(float input_scale, float alpha, float output_scale, LeakyReluParams *p)
{
    quantize_multiplier((double)(input_scale * alpha / output_scale), &p->alpha_multiplier, &p->alpha_shift);
    quantize_multiplier((double)(input_scale / output_scale), &p->identity_multiplier, &p->identity_shift);
}

void relu_multiplier(float input_scale, float output_scale, int32_t *multiplier, int *shift)
{
    quantize_multiplier((double)(input_scale / output_scale), multiplier, shift);
}

void rescale_multiplier(float input_scale, float output_scale, int32_t *multiplier, int *shift)
{
    quantize_multiplier((double)input_scale / (double)output_scale, multiplier, shift);
}

void fold_mean_count(int64_t count, int32_t *multiplier, int *shift)
{
    if (count <= 0) return;
    int s = 0;
    while (s < 62 && ((int64_t)1 << (s + 1)) <= count) s++;  // floor(log2(count))
    if (s > 32) s = 32;
    if (s > 31 + *shift) s = 31 + *shift;
    if (s < 0) s = 0;
    *multiplier = (int32_t)(((int64_t)*multiplier * ((int64_t)1 << s)) / count);
    *shift -= s;
}

}  // namespace tigris_s8
