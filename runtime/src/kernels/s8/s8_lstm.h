// int8 LSTM (TFLite UNIDIRECTIONAL_SEQUENCE_LSTM as TensorFlow Lite Micro's integer kernel
// computes it, docs/operators.md row 86): the factors the kernel derives, shared with the
// loader's rule so a plan whose factors the fixed-point helpers cannot take is refused.
#pragma once

#include <stdint.h>

namespace tigris_s8 {

// Length of the quantized forms' LSTM attribute (int8 and 16x8): i32 time_major, f32 cell_clip, then for the
// input FC of gates i, f, c, o and the recurrent FC of gates i, f, c, o: i32 multiplier,
// i32 shift (the compiler's QuantizeMultiplier of s_x * s_W / 2^-12 and s_h * s_R / 2^-12,
// the products formed in float32 as TFLM's GetQuantizedConvolutionMultipler does).
constexpr uint8_t kLstmInt8AttrBytes = 8 + 8 * 8;
// Entries of the int8 form's CONSTANTS: the twelve of the float form, then the sigmoid table.
constexpr uint8_t kLstmInt8Constants = 13;

struct LstmQuant {
    bool time_major;
    int32_t fc_multiplier[8];  // input FC i, f, c, o; recurrent FC i, f, c, o
    int fc_shift[8];
    int32_t forget_multiplier, input_multiplier, output_multiplier;  // f·c -> c, i·g -> c, o·tanh(c) -> h
    int forget_shift, input_shift, output_shift;
    int32_t tanh_multiplier, tanh_shift;  // tanh(c): the cell's rescaling into the table's Q3.12 input
    bool clip;                            // cell_clip > 0
    int16_t quantized_clip;               // cell_clip / s_c, saturated to int16, truncated
};

// The factors from the attribute and the scales of h's and c's quant params (c: zero point
// 0, scale 2^p with -43 <= p <= 2 after TFLM's rounding of log2). False when any factor is
// out of the helpers' range (`int16`: 16x8 activations, whose FCs use the 64-bit MBQM, shift
// <= 14) or the attribute is malformed.
bool lstm_quant(const uint8_t *attr, uint8_t len, float h_scale, float c_scale, bool int16, LstmQuant *q);

}  // namespace tigris_s8
