// int16 SOFTMAX over the last axis, TFLite's 16-bit algorithm (input and output zero point 0,
// output scale 1/32768):
//   d = x - max(row); e = LUT_exp(clamp(MBQM(d, m, left_shift) + 32767))          (Q0.15)
//   S = sum e; h = clz(S); r = LUT_1/(1+x)(clamp(((S << (h-1)) + 2^13) >> 14 - 3*2^15))
//   y = clamp((e * r + 2^(30-h)) >> (31-h), 0, 32767)
// (m, left_shift) are in_scale * beta / (10/65535) (beta: ALPHA, default 1). The two
// 513-entry LUTs (exp on [-10, 0], 1/(1+x) on [0, 1]) are the op's weight, exp first.
// AXES (optional) must be the last axis alone, as TFLite's.
#include "common/le_bytes.h"
#include "kernels/s16/s16_kernels.h"
#include "kernels/s16/s16_params.h"
#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s16 {
namespace {

namespace kern = tigris_rt::kern;
using namespace tigris_s8;

int count_leading_zeros(uint32_t x)
{
    if (x == 0) return 32;
    int n = 0;
    while (!(x & 0x80000000u)) {
        x <<= 1;
        n++;
    }
    return n;
}

// The op's two LUTs (little-endian int16): exp, then 1 / (1 + x).
struct Luts {
    const uint8_t *exp, *one_over;
};

// One row of `depth` values, strided (in elements). The output row holds the exps meanwhile.
void softmax_row(const int16_t *x, int64_t xs, int16_t *y, int64_t ys, int32_t depth, int32_t m, int shift,
                 const Luts &l)
{
    int16_t max_in_row = INT16_MIN;
    for (int32_t c = 0; c < depth; c++) max_in_row = x[c * xs] > max_in_row ? x[c * xs] : max_in_row;
    int32_t sum_of_exps = 0;
    for (int32_t c = 0; c < depth; c++) {
        const int32_t diff = x[c * xs] - max_in_row;
        const int32_t scaled = multiply_by_quantized_multiplier(diff, m, shift);
        y[c * ys] = lut_lookup(clamp_s16(wrap_add(scaled, 32767)), l.exp);
        sum_of_exps = wrap_add(sum_of_exps, y[c * ys]);
    }
    const int headroom_plus_one = count_leading_zeros((uint32_t)sum_of_exps);
    const int32_t shifted_sum = (int32_t)((((int64_t)sum_of_exps << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    const int32_t sym_shifted_sum = shifted_sum - ((1 << 15) + (1 << 16));
    const int16_t reciprocal = lut_lookup(clamp_s16(sym_shifted_sum), l.one_over);
    const int right_shift = 31 - headroom_plus_one;
    const int64_t round = (int64_t)1 << (right_shift - 1);
    for (int32_t c = 0; c < depth; c++) {
        const int32_t r = (int32_t)(((int64_t)y[c * ys] * (int64_t)reciprocal + round) >> right_shift);
        y[c * ys] = (int16_t)(r < 0 ? 0 : (r > 32767 ? 32767 : r));
    }
}

}  // namespace

int softmax(const Call &c)
{
    PointwiseIO io;
    if (pointwise_io(c, &io)) return kError;
    if (io.in.dtype != TIGRIS_DTYPE_INT16 || io.out.dtype != TIGRIS_DTYPE_INT16 || io.in.rank == 0) return kError;
    if (!io.in.quantized || !io.out.quantized || io.in.zero_point != 0 || io.out.zero_point != 0) return kError;
    const uint8_t *w = op_weight_bytes(c, 4u * kLutEntries);
    if (w == nullptr) return kError;
    uint8_t len = 0;
    const uint8_t *beta_attr = c.attr(TIGRIS_ATTR_ALPHA, &len);
    const double beta = beta_attr != nullptr && len >= 4 ? (double)tigris_rt::rd_f32(beta_attr) : 1.0;
    int32_t m = 0;
    int shift = 0;
    softmax_params(beta, io.in.scale, &m, &shift);
    const int rank = io.in.rank;
    const uint8_t *axes = c.attr(TIGRIS_ATTR_AXES, &len);
    if (axes != nullptr && (len != 1 || axes[0] != rank - 1)) return kError;
    if (kern::band_cuts_axis(kern::pointwise_band(c.mem), rank - 1)) return kError;
    const Luts l{w, w + 2 * kLutEntries};
    return kern::for_each_lane(
        io.vo, io.vi, rank - 1, rank - 1, [&](uint8_t *o, uint8_t *i, int64_t depth, int64_t ostep, int64_t istep) {
            softmax_row((const int16_t *)i, istep / 2, (int16_t *)o, ostep / 2, (int32_t)depth, m, shift, l);
        });
}

}  // namespace tigris_s16
