// int8 SOFTMAX over the last axis, TFLite's integer algorithm (output 1/256, -128):
//   d = x - max(row);  terms with d < diff_min are 0
//   e = exp_on_negative_values(Q5.26: SRDHM(d * 2^left_shift, m))        (Q0.31)
//   S = sum of RDBPOT(e, 12)                                            (Q12.19)
//   r, k = reciprocal(S);  y = clamp(RDBPOT(SRDHM(r, e), k + 23) - 128)
// (m, left_shift, diff_min) come from beta * in_scale (s8_params softmax_params); beta
// is the op's ALPHA attribute when present, else 1. AXES (optional) must be trailing
// axes; their flattened block is the softmax row.
#include "kernels/kernel_set.h"
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_fixed_point_math.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_s8 {
namespace {

constexpr int kScaledDiffIntegerBits = 5;
constexpr int kAccumulationIntegerBits = 12;

// One row of `depth` contiguous values; OutT int8 (output 1/256, -128) or int16 (TFLite's
// int8 -> int16 softmax: output 1/65536, -32768, exponent num_bits_over_unit + 31 - 16).
template <typename OutT>
void softmax_row(const int8_t *x, OutT *y, int32_t depth, const SoftmaxParams &p)
{
    int32_t max_in_row = -128;
    for (int32_t c = 0; c < depth; c++) max_in_row = x[c] > max_in_row ? x[c] : max_in_row;

    int32_t sum_of_exps = 0;  // Q12.19
    for (int32_t c = 0; c < depth; c++) {
        const int32_t diff = x[c] - max_in_row;
        if (diff >= p.diff_min) {
            const int32_t scaled =
                multiply_by_quantized_multiplier_greater_than_one(diff, p.input_multiplier, p.input_left_shift);
            const int32_t e = fp_exp_on_negative_values(scaled, kScaledDiffIntegerBits);
            sum_of_exps = wrap_add(sum_of_exps, rounding_divide_by_pot(e, kAccumulationIntegerBits));
        }
    }
    int num_bits_over_unit = 0;
    const int32_t shifted_scale = fp_reciprocal(sum_of_exps, kAccumulationIntegerBits, &num_bits_over_unit);
    const int exponent = num_bits_over_unit + 31 - 8 * (int)sizeof(OutT);
    const int32_t lo = sizeof(OutT) == 1 ? -128 : -32768, hi = sizeof(OutT) == 1 ? 127 : 32767;

    for (int32_t c = 0; c < depth; c++) {
        const int32_t diff = x[c] - max_in_row;
        if (diff >= p.diff_min) {
            const int32_t scaled =
                multiply_by_quantized_multiplier_greater_than_one(diff, p.input_multiplier, p.input_left_shift);
            const int32_t e = fp_exp_on_negative_values(scaled, kScaledDiffIntegerBits);
            const int32_t unsat = rounding_divide_by_pot(sat_rounding_doubling_high_mul(shifted_scale, e), exponent);
            y[c] = (OutT)clamp_i32(unsat + lo, lo, hi);
        } else {
            y[c] = (OutT)lo;
        }
    }
}

}  // namespace

int softmax(const Call &c)
{
    PointwiseIO io;
    if (pointwise_io(c, &io)) return kError;
    if (io.in.dtype != TIGRIS_DTYPE_INT8 || io.in.rank == 0) return kError;
    // TFLite's int8 softmax writes probabilities in 1/256 steps offset by -128; its int16
    // output form in 1/65536 steps (within 0.1%, as TFLM checks) offset by -32768.
    // (A build without the int16 kernels refuses that form at load: no int16 path then.)
    const bool out16 = tigris_rt::int16_built() && io.out.dtype == TIGRIS_DTYPE_INT16;
    if (out16 ? !int16_softmax_output(io.out.scale, io.out.zero_point)
              : io.out.dtype != TIGRIS_DTYPE_INT8 || io.out.scale != 1.0f / 256.0f || io.out.zero_point != -128)
        return kError;
    uint8_t len = 0;
    const uint8_t *beta_attr = c.attr(TIGRIS_ATTR_ALPHA, &len);
    const float beta = beta_attr != nullptr && len >= 4 ? rd_f32(beta_attr) : 1.0f;
    SoftmaxParams p;
    softmax_params(beta, io.in.scale, &p);
    if (p.input_left_shift < 0) return kError;  // TFLM: the multiplier must exceed one
    const int rank = io.in.rank;
    int first_axis = rank - 1;
    const uint8_t *axes = c.attr(TIGRIS_ATTR_AXES, &len);
    if (axes != nullptr && len >= 1) {
        first_axis = axes[0];
        for (uint8_t i = 0; i < len; i++) {
            if (axes[i] != first_axis + i) return kError;
        }
        if (first_axis + len != rank) return kError;  // only trailing blocks are contiguous
    }
    const kern::Band band = kern::pointwise_band(c.mem);
    for (int a = first_axis; a < rank; a++) {
        if (kern::band_cuts_axis(band, a)) return kError;
    }
    bool contiguous = true;
    const int rc = kern::for_each_lane(io.vo, io.vi, first_axis, rank - 1,
                                       [&](uint8_t *o, uint8_t *i, int64_t depth, int64_t ostep, int64_t istep) {
                                           if (ostep != (out16 ? 2 : 1) || istep != 1) contiguous = false;
                                           else if (out16)
                                               softmax_row((const int8_t *)i, (int16_t *)o, (int32_t)depth, p);
                                           else softmax_row((const int8_t *)i, (int8_t *)o, (int32_t)depth, p);
                                       });
    return rc == 0 && contiguous ? 0 : kError;
}

}  // namespace tigris_s8
