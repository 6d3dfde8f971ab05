// Factor derivations of the int8 kernels (see s8_params.h): each function mirrors the
// arithmetic of the TFLite Micro Prepare() it replaces, including where it computes in
// float32 and where in double. The double steps are done exactly in integers
// (s8_exact_real.h): the same bits, without the soft-double routines on a single-precision FPU.
#include "kernels/s8/s8_params.h"

#include <math.h>

#include "kernels/s8/s8_exact_real.h"
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
    // per_tensor_fc: (double)(in * w), the float product; else (double)in * (double)w, exact.
    const ExactReal product = per_tensor_fc ? exact_of(input_scale * weight_scale)
                                            : exact_mul(exact_of(input_scale), exact_of(weight_scale));
    exact_quantize(exact_div(product, exact_of(output_scale)), multiplier, shift);
}

int32_t calculate_input_radius(int input_integer_bits, int input_left_shift, int total_signed_bits)
{
    // floor((2^ib - 1) * 2^(total - ib - left_shift)), capped at INT32_MAX.
    const int64_t base = ((int64_t)1 << input_integer_bits) - 1;
    if (base <= 0) return 0;
    const int p = total_signed_bits - input_integer_bits - input_left_shift;
    if (p >= 32) return INT32_MAX;  // base >= 1 (input_integer_bits >= 1)
    const int64_t r = p >= 0 ? base << p : (p > -63 ? base >> -p : 0);
    return r >= INT32_MAX ? INT32_MAX : (int32_t)r;
}

int8_t quantize_value(float value, float scale, int32_t zero_point)
{
    const float rounded = round_half_away_f(value / scale);
    const int64_t q = (int64_t)float_to_i32_sat(rounded) + zero_point;
    return (int8_t)(q < -128 ? -128 : (q > 127 ? 127 : q));
}

namespace {

// QuantizeMultiplierSmallerThanOneExp (real in (0, 1), shift <= 0) of the double `real` holds.
void quantize_smaller_than_one(ExactReal real, int32_t *multiplier, int *shift)
{
    exact_quantize(real, multiplier, shift);
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
    const ExactReal twice_max = exact_scale(exact_of(s1 > s2 ? s1 : s2), 1);  // 2.0 * (double)max
    quantize_smaller_than_one(exact_div(exact_of(s1), twice_max), &p->input1_multiplier, &p->input1_shift);
    quantize_smaller_than_one(exact_div(exact_of(s2), twice_max), &p->input2_multiplier, &p->input2_shift);
    quantize_smaller_than_one(exact_div(twice_max, exact_scale(exact_of(sy), 20)), &p->output_multiplier,
                              &p->output_shift);
}

void sub_params(float s1, int32_t z1, float s2, int32_t z2, float sy, int32_t zy, AddSubParams *p)
{
    fill_offsets(z1, z2, zy, p);
    const float twice_max = 2.0f * (s1 > s2 ? s1 : s2);
    quantize_smaller_than_one(exact_of(s1 / twice_max), &p->input1_multiplier, &p->input1_shift);
    quantize_smaller_than_one(exact_of(s2 / twice_max), &p->input2_multiplier, &p->input2_shift);
    quantize_smaller_than_one(exact_of(twice_max / ((float)(1 << 20) * sy)), &p->output_multiplier, &p->output_shift);
}

void mul_params(float s1, float s2, float sy, int32_t *multiplier, int *shift)
{
    exact_quantize(exact_div(exact_mul(exact_of(s1), exact_of(s2)), exact_of(sy)), multiplier, shift);
}

void sigmoid_tanh_params(float input_scale, SigmoidTanhParams *p)
{
    const int kInputIntegerBits = 4;
    const ExactReal real = exact_scale(exact_of(input_scale), 31 - kInputIntegerBits);
    int64_t m = 0;
    int e = 0;
    exact_frexp_q31(real, &m, &e);
    // TFLM casts without the 2^31 check; the x86 conversion of 2^31 yields INT32_MIN.
    if (real.negative) m = -m;
    p->input_multiplier = m >= ((int64_t)1 << 31) ? INT32_MIN : (int32_t)m;
    p->input_left_shift = e;
    p->input_range_radius = calculate_input_radius(kInputIntegerBits, e, 31);
}

void softmax_params(float beta, float input_scale, SoftmaxParams *p)
{
    const int kScaledDiffIntegerBits = 5;
    // (double)beta * (double)input_scale * 2^26, exact; capped at (1 << 31) - 1.
    ExactReal real = exact_scale(exact_mul(exact_of(beta), exact_of(input_scale)), 31 - kScaledDiffIntegerBits);
    const ExactReal max_real_multiplier{2147483647u, 0, false, true};
    if (exact_greater(real, max_real_multiplier)) real = max_real_multiplier;
    exact_quantize(real, &p->input_multiplier, &p->input_left_shift);
    p->diff_min = -calculate_input_radius(kScaledDiffIntegerBits, p->input_left_shift, 31);
}

void hard_swish_params(float input_scale, float output_scale, HardSwishParams *p)
{
    const float hires_input_scale = (1.0f / 128.0f) * input_scale;
    const float reluish_scale = 3.0f / 32768.0f;
    int32_t m = 0;
    exact_quantize(exact_of(hires_input_scale / output_scale), &m, &p->output_exponent);
    p->output_multiplier = downscale_to_int16(m);
    exact_quantize(exact_of(hires_input_scale / reluish_scale), &m, &p->reluish_exponent);
    p->reluish_multiplier = downscale_to_int16(m);
}

void leaky_relu_params(float input_scale, float alpha, float output_scale, LeakyReluParams *p)
{
    exact_quantize(exact_of(input_scale * alpha / output_scale), &p->alpha_multiplier, &p->alpha_shift);
    exact_quantize(exact_of(input_scale / output_scale), &p->identity_multiplier, &p->identity_shift);
}

void relu_multiplier(float input_scale, float output_scale, int32_t *multiplier, int *shift)
{
    exact_quantize(exact_of(input_scale / output_scale), multiplier, shift);
}

void rescale_multiplier(float input_scale, float output_scale, int32_t *multiplier, int *shift)
{
    exact_quantize(exact_div(exact_of(input_scale), exact_of(output_scale)), multiplier, shift);
}

void fold_mean_count(int64_t count, int32_t *multiplier, int *shift)
{
    if (count <= 0) return;
    int s = 0;
    while (s < 62 && ((int64_t)1 << (s + 1)) <= count) s++;  // floor(log2(count))
    if (s > 32) s = 32;
    if (s > 31 + *shift) s = 31 + *shift;
    if (s < 0) s = 0;
    // multiplier * 2^s / count, truncated toward zero as the int64 division, on magnitudes: an
    // unsigned division (libgcc's signed one is 160 B more on a Cortex-M).
    const int64_t m = *multiplier;
    const uint64_t q = ((uint64_t)(m < 0 ? -m : m) << s) / (uint64_t)count;
    *multiplier = (int32_t)(m < 0 ? -(int64_t)q : (int64_t)q);
    *shift -= s;
}

}  // namespace tigris_s8
