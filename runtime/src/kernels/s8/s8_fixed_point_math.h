// gemmlowp's scalar fixed-point transcendental functions, as TFLite's int8 LOGISTIC,
// TANH and SOFTMAX reference kernels use them. Values are raw int32 of a Q(i).(31-i)
// format whose integer-bit count i is passed alongside; results are Q0.31.
#pragma once

#include <stdint.h>

namespace tigris_s8 {

// exp(a) for a <= 0 given in Q(integer_bits).(31-integer_bits), 0 <= integer_bits <= 30;
// Q0.31 result (INT32_MAX for a == 0). (gemmlowp exp_on_negative_values)
int32_t fp_exp_on_negative_values(int32_t a, int integer_bits);

// 1 / (1 + x) for x in [0, 1) in Q0.31. (gemmlowp one_over_one_plus_x_for_x_in_0_1)
int32_t fp_one_over_one_plus_x(int32_t a);

// (1 - x) / (1 + x) for x in [0, 1) in Q0.31.
int32_t fp_one_minus_x_over_one_plus_x(int32_t a);

// logistic(a) and tanh(a) for a in Q(integer_bits).(31-integer_bits); Q0.31 results.
int32_t fp_logistic(int32_t a, int integer_bits);
int32_t fp_tanh(int32_t a, int integer_bits);

// TFLite GetReciprocal: a Q0.31 scale and the bits above unity such that
// 1/x == scale * 2^-num_bits_over_unit, for x > 0 in Q(x_integer_digits).
int32_t fp_reciprocal(int32_t x, int x_integer_digits, int *num_bits_over_unit);

}  // namespace tigris_s8
