// QUANTIZE / DEQUANTIZE / requantize with a quantized int16 side, carried by CAST ops, as
// TensorFlow Lite Micro computes them:
//   float32 -> int16: q = clamp(round_half_away(x / scale) + zp)                 (float32 division)
//   int16 -> float32: x = (float)((double)scale * (q - zp))
//   int8 / int16 / int32 -> int8 / int16 / int32 (one side int16):
//                     q' = clamp(MBQM(q - zp, m, s) + zp'), m,s of (double)s / (double)s'
//                     (TFLite's Requantize; the difference q - zp wraps in int32)
#include <string.h>

#include "kernels/s16/s16_kernels.h"
#include "kernels/s16/s16_params.h"
#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s16 {
namespace {

using namespace tigris_s8;

bool integer(uint8_t d) { return d == TIGRIS_DTYPE_INT8 || d == TIGRIS_DTYPE_INT16 || d == TIGRIS_DTYPE_INT32; }

int32_t load(uint8_t d, const uint8_t *p)
{
    if (d == TIGRIS_DTYPE_INT8) return (int8_t)p[0];
    if (d == TIGRIS_DTYPE_INT16) {
        int16_t v;
        memcpy(&v, p, 2);
        return v;
    }
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

void store(uint8_t d, uint8_t *p, int64_t v)
{
    if (d == TIGRIS_DTYPE_INT8) {
        p[0] = (uint8_t)(int8_t)(v < -128 ? -128 : (v > 127 ? 127 : v));
    } else if (d == TIGRIS_DTYPE_INT16) {
        const int16_t s = clamp_s16((int32_t)(v < INT32_MIN ? INT32_MIN : (v > INT32_MAX ? INT32_MAX : v)));
        memcpy(p, &s, 2);
    } else {
        const int32_t s = (int32_t)(v < INT32_MIN ? INT32_MIN : (v > INT32_MAX ? INT32_MAX : v));
        memcpy(p, &s, 4);
    }
}

}  // namespace

int quantize_cast(const Call &c)
{
    PointwiseIO io;
    if (pointwise_io(c, &io)) return kError;
    const Operand &in = io.in, &out = io.out;
    if (in.dtype == TIGRIS_DTYPE_FLOAT32 && out.dtype == TIGRIS_DTYPE_INT16 && out.quantized) {
        const float scale = out.scale;
        const int32_t zp = out.zero_point;
        return tigris_rt::kern::for_each_position(io.vo, io.vi, [&](uint8_t *o, uint8_t *i) {
            float x;
            memcpy(&x, i, 4);
            store(TIGRIS_DTYPE_INT16, o, (int64_t)float_to_i32_sat(round_half_away_f(x / scale)) + zp);
        });
    }
    if (in.dtype == TIGRIS_DTYPE_INT16 && in.quantized && out.dtype == TIGRIS_DTYPE_FLOAT32) {
        const double scale = (double)in.scale;
        const int32_t zp = in.zero_point;
        return tigris_rt::kern::for_each_position(io.vo, io.vi, [&](uint8_t *o, uint8_t *i) {
            const float y = (float)(scale * (double)(load(TIGRIS_DTYPE_INT16, i) - zp));
            memcpy(o, &y, 4);
        });
    }
    const bool int16_side = in.dtype == TIGRIS_DTYPE_INT16 || out.dtype == TIGRIS_DTYPE_INT16;
    if (int16_side && integer(in.dtype) && integer(out.dtype) && in.quantized && out.quantized) {
        int32_t m = 0;
        int s = 0;
        rescale_multiplier(in.scale, out.scale, &m, &s);
        const int32_t zx = in.zero_point, zy = out.zero_point;
        const uint8_t di = in.dtype, dout = out.dtype;
        return tigris_rt::kern::for_each_position(io.vo, io.vi, [&](uint8_t *o, uint8_t *i) {
            const int32_t x = wrap_sub(load(di, i), zx);
            store(dout, o, wrap_add(multiply_by_quantized_multiplier(x, m, s), zy));
        });
    }
    return kError;
}

}  // namespace tigris_s16
