// QUANTIZE / DEQUANTIZE / requantize, carried by CAST ops whose int8 side is quantized
// (docs/operators.md, int8 section). As TFLite Micro computes them:
//   float32 -> int8: q = clamp(round_half_away(x / scale) + zp)       (float32 division)
//   int8 -> float32: x = (float)((double)scale * (q - zp))
//   int8 -> int8:    q' = clamp(MBQM(q - zp, m, s) + zp'), m,s of (double)s / (double)s'
#include <string.h>

#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_s8 {

int quantize_cast(const Call &c)
{
    PointwiseIO io;
    if (pointwise_io(c, &io)) return kError;
    const Operand &in = io.in, &out = io.out;
    if (in.dtype == TIGRIS_DTYPE_FLOAT32 && out.dtype == TIGRIS_DTYPE_INT8 && out.quantized) {
        const float scale = out.scale;
        const int32_t zp = out.zero_point;
        return kern::for_each_position(io.vo, io.vi, [&](uint8_t *o, uint8_t *i) {
            float x;
            memcpy(&x, i, 4);
            *(int8_t *)o = quantize_value(x, scale, zp);
        });
    }
    if (in.dtype == TIGRIS_DTYPE_INT8 && in.quantized && out.dtype == TIGRIS_DTYPE_FLOAT32) {
        const double scale = (double)in.scale;
        const int32_t zp = in.zero_point;
        return kern::for_each_position(io.vo, io.vi, [&](uint8_t *o, uint8_t *i) {
            const float y = (float)(scale * (double)(*(const int8_t *)i - zp));
            memcpy(o, &y, 4);
        });
    }
    if (in.dtype == TIGRIS_DTYPE_INT8 && out.dtype == TIGRIS_DTYPE_INT8 && in.quantized && out.quantized) {
        int32_t m = 0;
        int s = 0;
        rescale_multiplier(in.scale, out.scale, &m, &s);
        const int32_t zx = in.zero_point, zy = out.zero_point;
        return map_int8(io, [&](int8_t *y, const int8_t *x) {
            *y = clamp_s8(wrap_add(multiply_by_quantized_multiplier(*x - zx, m, s), zy));
        });
    }
    return kError;
}

}  // namespace tigris_s8
