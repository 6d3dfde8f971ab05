// The int8 ADD fast path: TFLite's integer Add over one run of elements, both operands and the
// output the same length and contiguous, bit-exact with the reference formula (s8_binary.cpp):
//   a' = MBQM((a + off1) * 2^20, m1, s1), b' likewise; y = clamp(MBQM(a' + b', mo, so) + zy)
// for the factors TFLite derives (and any BINARY_REQUANT of the same form): one operand's factor
// is (2^30, 0), the "unit" operand whose term is exactly (x + off) * 2^19; the other's factor is
// the unit one too or has a multiplier >= 0 and a shift in -31..-1, the output's a multiplier
// >= 0 and a shift in -23..-1. Each doubling high
// multiply followed by its rounding right shift becomes one multiply-long onto a preloaded nudge
// (the shift's rounding constant and the sign correction folded into the high word) and one
// arithmetic shift, exact for these value ranges (s8_add.cpp); four outputs are saturated,
// packed and clamped as one word (SSAT, then SSUB8/SEL on the DSP extension).
// Used by the reference ADD and, on DSP builds without Helium, by the CMSIS-NN adapter.
#pragma once

#include <stdint.h>

#include "kernels/s8/s8_params.h"

namespace tigris_s8 {
namespace add_fast {

// One ADD's factors, prepared once per call.
struct Prepared {
    int32_t cu;          // unit operand: its offset * 2^20 (the term's double)
    int32_t cg;          // other operand: its offset * 2^21 (the multiply's input scale)
    int32_t mg, kg, eg;  // its multiplier, 2^(eg-1) and right shift 1..31
    int32_t mo, ko, eo;  // output multiplier, 2^(eo-1) + zy * 2^eo and right shift 1..23
    uint32_t lo4, hi4;   // act_min and act_max in each byte
    bool swap;           // operand b is the unit one
};

// False when the factors or bounds are outside what the fast path computes exactly (then the
// caller runs the generic formula): no unit operand, a negative multiplier, a left shift, a
// shift of 0 with another multiplier than 2^30, an output shift outside -23..-1, an offset beyond +-256, |zy| > 128, left_shift != 20, or
// act_min > act_max / outside int8.
bool prepare(const AddSubParams &f, int32_t act_min, int32_t act_max, Prepared *p);

// y[i] = ADD(a[i], b[i]) for i < n. y may be a or b (in place), not otherwise overlapping.
void run(const Prepared &p, const int8_t *a, const int8_t *b, int8_t *y, int32_t n);

}  // namespace add_fast
}  // namespace tigris_s8
