// QUANTIZE / DEQUANTIZE / requantize, carried by CAST ops whose int8 side is quantized
// (docs/operators.md, int8 section). As TFLite Micro computes them:
//   float32 -> int8: q = clamp(round_half_away(x / scale) + zp)       (float32 division)
//   int8 -> float32: x = (float)((double)scale * (q - zp))
//   int8 -> int8:    q' = clamp(MBQM(q - zp, m, s) + zp'), m,s of (double)s / (double)s'
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_s8 {

int quantize_cast(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t, tigris_mem_t *mem)
{
    Operand in, out;
    View vi, vo;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (in.elements != out.elements || in.rank != out.rank) return kError;
    if (band_view(in, mem->tile, false, &vi) || band_view(out, mem->tile, true, &vo)) return kError;

    if (in.dtype == TIGRIS_DTYPE_FLOAT32 && out.dtype == TIGRIS_DTYPE_INT8 && out.quantized) {
        const float *x = (const float *)vi.base;
        int8_t *y = (int8_t *)vo.base;
        const float scale = out.scale;
        const int32_t zp = out.zero_point;
        for_each_element(vo, &vi, nullptr,
                         [&](int32_t oo, int32_t io, int32_t) { y[oo] = quantize_value(x[io], scale, zp); });
        return 0;
    }
    if (in.dtype == TIGRIS_DTYPE_INT8 && in.quantized && out.dtype == TIGRIS_DTYPE_FLOAT32) {
        const int8_t *x = (const int8_t *)vi.base;
        float *y = (float *)vo.base;
        const double scale = (double)in.scale;
        const int32_t zp = in.zero_point;
        for_each_element(vo, &vi, nullptr,
                         [&](int32_t oo, int32_t io, int32_t) { y[oo] = (float)(scale * (double)(x[io] - zp)); });
        return 0;
    }
    if (in.dtype == TIGRIS_DTYPE_INT8 && out.dtype == TIGRIS_DTYPE_INT8 && in.quantized && out.quantized) {
        int32_t m = 0;
        int s = 0;
        rescale_multiplier(in.scale, out.scale, &m, &s);
        const int8_t *x = (const int8_t *)vi.base;
        int8_t *y = (int8_t *)vo.base;
        const int32_t zx = in.zero_point, zy = out.zero_point;
        for_each_element(vo, &vi, nullptr, [&](int32_t oo, int32_t io, int32_t) {
            y[oo] = clamp_s8(wrap_add(multiply_by_quantized_multiplier(x[io] - zx, m, s), zy));
        });
        return 0;
    }
    return kError;
}

}  // namespace tigris_s8
