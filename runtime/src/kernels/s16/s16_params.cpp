// Factor derivations and fixed-point steps of the int16 kernels (see s16_params.h).
#include "kernels/s16/s16_params.h"

#include <math.h>

#include "common/le_bytes.h"
#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s16 {

using tigris_s8::quantize_multiplier;

void activation_range(uint8_t fused_act, float scale, int32_t zero_point, int32_t *lo, int32_t *hi)
{
    *lo = -32768;
    *hi = 32767;
    if (fused_act == TIGRIS_ACT_NONE || !(scale > 0.0f)) return;
    const int32_t q0 = zero_point + tigris_s8::float_to_i32_sat(tigris_s8::round_half_away_f(0.0f / scale));
    if (q0 > *lo) *lo = q0;
    if (fused_act == TIGRIS_ACT_RELU6) {
        const int32_t q6 = zero_point + tigris_s8::float_to_i32_sat(tigris_s8::round_half_away_f(6.0f / scale));
        if (q6 < *hi) *hi = q6;
    }
}

int32_t multiply_by_quantized_multiplier_64(int64_t x, int32_t m, int shift)
{
    if (shift < -31 || shift > 14) return 0;
    const int32_t reduced = m < 0x7FFF0000 ? (int32_t)(((int64_t)m + (1 << 15)) >> 16) : 0x7FFF;
    const int total_shift = 15 - shift;
    const uint64_t product = (uint64_t)x * (uint64_t)(int64_t)reduced;  // wraps as TFLite's int64 would
    const int64_t rounded = (int64_t)(product + ((uint64_t)1 << (total_shift - 1)));
    return (int32_t)(uint32_t)(uint64_t)(rounded >> total_shift);
}

namespace {

void fill_offsets(int32_t z1, int32_t z2, int32_t zy, tigris_s8::AddSubParams *p)
{
    p->input1_offset = -z1;
    p->input2_offset = -z2;
    p->output_offset = zy;
    p->left_shift = 15;
}

}  // namespace

void add_params(float s1, int32_t z1, float s2, int32_t z2, float sy, int32_t zy, tigris_s8::AddSubParams *p)
{
    fill_offsets(z1, z2, zy, p);
    const double twice_max = 2.0 * (double)(s1 > s2 ? s1 : s2);
    quantize_multiplier((double)s1 / twice_max, &p->input1_multiplier, &p->input1_shift);
    quantize_multiplier((double)s2 / twice_max, &p->input2_multiplier, &p->input2_shift);
    quantize_multiplier(twice_max / ((double)(1 << 15) * (double)sy), &p->output_multiplier, &p->output_shift);
}

void sub_params(float s1, int32_t z1, float s2, int32_t z2, float sy, int32_t zy, tigris_s8::AddSubParams *p)
{
    fill_offsets(z1, z2, zy, p);
    const float twice_max = 2.0f * (s1 > s2 ? s1 : s2);
    quantize_multiplier((double)(s1 / twice_max), &p->input1_multiplier, &p->input1_shift);
    quantize_multiplier((double)(s2 / twice_max), &p->input2_multiplier, &p->input2_shift);
    quantize_multiplier((double)(twice_max / ((float)(1 << 15) * sy)), &p->output_multiplier, &p->output_shift);
}

bool checked_log2(float x, int *log2_rounded)
{
    *log2_rounded = 0;
    if (!(x > 0.0f) || !isfinite(x)) return false;
    // x = t * 2^(e-1) with t in [1, 2): log2(x) = e - 1 + log2(t). 2^0.001 bounds the
    // fraction TFLite accepts on either side of a power of two.
    int e = 0;
    const double t = 2.0 * frexp((double)x, &e);
    const double kNear = 1.0006933874625807;  // 2^0.001
    *log2_rounded = e - 1 + (t >= 1.4142135623730951 ? 1 : 0);
    return t < kNear || t > 2.0 / kNear;
}

bool sigmoid_tanh_params(float input_scale, float output_scale, bool tanh, SigmoidTanhParams *p)
{
    const int kInputIntegerBits = 3, kOutputFractionalBits = 15;
    int out_log2 = 0;
    if (!checked_log2(output_scale, &out_log2) || out_log2 != -kOutputFractionalBits) return false;
    int in_log2 = 0;
    bool pot = checked_log2(input_scale, &in_log2);
    p->input_left_shift = (15 - kInputIntegerBits) + in_log2;
    pot = pot && (p->input_left_shift == 0 || (tanh && p->input_left_shift == 1));
    if (pot) {
        p->input_multiplier = 0;
        return true;
    }
    // The input rescaled to 1 / (3 * 4096), doubled while it fits 15 bits.
    double multiplier = (double)input_scale * 4096.0 * 3.0;
    p->input_left_shift = 0;
    while (multiplier <= 32767.0 / 2.0 && p->input_left_shift <= 30) {
        p->input_left_shift++;
        multiplier *= 2.0;
    }
    p->input_multiplier = (int32_t)multiplier;
    return p->input_multiplier <= 32767;
}

void softmax_params(double beta, float input_scale, int32_t *multiplier, int *left_shift)
{
    quantize_multiplier((double)input_scale * beta / (10.0 / 65535.0), multiplier, left_shift);
}

int16_t lut_lookup(int16_t value, const uint8_t *lut)
{
    const uint16_t index = (uint16_t)(256 + (value >> 7));
    const int16_t offset = (int16_t)(value & 0x7f);
    const int16_t base = (int16_t)tigris_rt::rd_u16(lut + 2 * index);
    const int16_t next = (int16_t)tigris_rt::rd_u16(lut + 2 * index + 2);
    const int16_t slope = (int16_t)(next - base);
    const int delta = (slope * offset + 64) >> 7;
    return (int16_t)(base + delta);
}

}  // namespace tigris_s16
