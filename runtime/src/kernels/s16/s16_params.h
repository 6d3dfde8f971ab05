// Factors and fixed-point steps of the int16 kernels, as TensorFlow Lite Micro's Prepare()
// and reference kernels compute them; the compiler may call these too, so a plan's stored
// factors and the runtime's derived ones agree.
#pragma once

#include <stdint.h>

#include "kernels/s8/s8_params.h"
#include "tigris.h"

namespace tigris_s16 {

// TFLite CalculateActivationRangeQuantized for an int16 output: [-32768, 32767], narrowed
// by ReLU to zp + round(0 / scale) and by ReLU6 to zp + round(6 / scale) (float32 division).
void activation_range(uint8_t fused_act, float scale, int32_t zero_point, int32_t *lo, int32_t *hi);

inline int16_t clamp_s16(int32_t x) { return (int16_t)(x < -32768 ? -32768 : (x > 32767 ? 32767 : x)); }

// TFLite MultiplyByQuantizedMultiplier(int64 x, m, shift) (TFLITE_SINGLE_ROUNDING unset):
// m rounded to Q0.15, then (x * m15 + 2^(14 - shift)) >> (15 - shift), truncated to int32.
// Valid for -31 <= shift <= 14 (TFLite's range is -31..7); 0 outside.
int32_t multiply_by_quantized_multiplier_64(int64_t x, int32_t m, int shift);

// ADD / SUB (int16): TFLite's general rescaling with left_shift 15; ADD forms the quotients
// in double, SUB in float32 (as TFLM's Prepare does).
void add_params(float s1, int32_t z1, float s2, int32_t z2, float sy, int32_t zy, tigris_s8::AddSubParams *p);
void sub_params(float s1, int32_t z1, float s2, int32_t z2, float sy, int32_t zy, tigris_s8::AddSubParams *p);

// LOGISTIC / TANH (int16) input scaling: multiplier (0 = power-of-two case) and left shift,
// from TFLM's Prepare (kInputIntegerBits 3; tanh accepts a left shift of 0 or 1 as POT).
// False when the output scale is not 2^-15 or a zero point is not 0.
struct SigmoidTanhParams {
    int32_t input_multiplier;
    int32_t input_left_shift;
};
bool sigmoid_tanh_params(float input_scale, float output_scale, bool tanh, SigmoidTanhParams *p);

// TFLite CheckedLog2: round(log2(x)) and whether x is within 1e-3 (in log2) of that power.
bool checked_log2(float x, int *log2_rounded);

// SOFTMAX (int16): input multiplier and left shift of in_scale * beta / (10 / 65535).
void softmax_params(double beta, float input_scale, int32_t *multiplier, int *left_shift);

// TFLite LUTLookup (int16 -> int16, 513 entries, 9-bit index and 7-bit interpolation), the
// table read as little-endian bytes (a plan weight).
int16_t lut_lookup(int16_t value, const uint8_t *lut);

// The 256-entry table of sigmoid(i / 24) in Q0.16 the int16 LOGISTIC and TANH interpolate
// (the op's weight); kSigmoidTableEntries entries.
constexpr int kSigmoidTableEntries = 256;
constexpr int kLutEntries = 513;

}  // namespace tigris_s16
