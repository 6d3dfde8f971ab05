// int16 data movement. TFLite moves int16 bytes as they are (CONCATENATION requires zero
// points of 0 and does not rescale): RESHAPE and its kin, CONCATENATION, TRANSPOSE and
// STRIDED_SLICE are the float kernels' byte movement (kDelegate). PAD fills with ALPHA (the
// PADV2 constant, dequantized by the compiler) quantized with the output's parameters to
// int16, else the output's zero point; it runs whole, as its int8 twin.
#include <string.h>

#include "common/le_bytes.h"
#include "kernels/s16/s16_kernels.h"
#include "kernels/s16/s16_params.h"
#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s16 {
namespace {

namespace kern = tigris_rt::kern;
using namespace tigris_s8;

void narrow(kern::View *v, int a, int32_t first, int32_t count)
{
    v->data += (int64_t)first * v->stride[a] * v->elem;
    v->shape[a] = count;
}

int16_t quantize16(float value, float scale, int32_t zero_point)
{
    const int64_t q = (int64_t)float_to_i32_sat(round_half_away_f(value / scale)) + zero_point;
    return (int16_t)(q < -32768 ? -32768 : (q > 32767 ? 32767 : q));
}

}  // namespace

int byte_movement(const Call &) { return kDelegate; }

int pad(const Call &c)
{
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    if (in.dtype != TIGRIS_DTYPE_INT16 || out.dtype != TIGRIS_DTYPE_INT16 || in.rank != out.rank || c.tiled())
        return kError;
    uint8_t len = 0;
    const uint8_t *pads = c.attr(TIGRIS_ATTR_PADS, &len);
    if (pads == nullptr || len < 8 * in.rank) return kError;
    const uint8_t *alpha = c.attr(TIGRIS_ATTR_ALPHA, &len);
    const int16_t fill = alpha != nullptr && len >= 4 ? quantize16(tigris_rt::rd_f32(alpha), out.scale, out.zero_point)
                                                      : clamp_s16(out.zero_point);
    int16_t *y = (int16_t *)out.data;
    for (uint32_t i = 0; i < out.elements; i++) y[i] = fill;
    kern::View dst = kern::whole_view(out.data, out.shape, out.rank, 2);  // where the input lands
    kern::View src = kern::whole_view(in.data, in.shape, in.rank, 2);
    for (int d = 0; d < in.rank; d++) {
        const int32_t lead = tigris_rt::rd_i32(pads + 4 * d);
        const int32_t trail = tigris_rt::rd_i32(pads + 4 * (in.rank + d));
        if ((int64_t)in.shape[d] + lead + trail != out.shape[d]) return kError;
        const int32_t lo = lead > 0 ? lead : 0;
        const int32_t hi = lead + in.shape[d] < out.shape[d] ? lead + in.shape[d] : out.shape[d];
        if (hi <= lo) return 0;  // everything cropped: all fill
        narrow(&dst, d, lo, hi - lo);
        narrow(&src, d, lo - lead, hi - lo);
    }
    return kern::copy_view(dst, src);
}

}  // namespace tigris_s16
