// StridedSlice (normalized start/end/step per axis, shrink mask), ReverseV2 (axis bitmask) and
// DynamicUpdateSlice (static or tensor starts, clamped), any dtype, as strided view copies.
#include <string.h>

#include "kernels/common/lanes.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

int32_t movement_at(const uint8_t *p, int i)
{
    int32_t v;
    memcpy(&v, p + 4 * i, 4);
    return v;
}

// Banded (the loader's band rule: no shrink, the band's axes taken whole), the output band
// reads the same band of the input.
int strided_slice(const Call &c, const uint8_t *mv)
{
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    int rank = in.ndim;
    uint8_t e = (uint8_t)tigris_dtype_size(in.dtype);
    const kern::Band band = kern::pointwise_band(c.mem);
    if (c.tiled() && out.ndim != in.ndim) return -1;
    const int32_t *is = c.shape(in);
    kern::View iv = kern::input_view(band, c.in_ptr(0), is, in.ndim, e, is, in.ndim);
    for (int a = 0; a < rank; ++a) {
        int64_t start = movement_at(mv, 3 * a), end = movement_at(mv, 3 * a + 1), step = movement_at(mv, 3 * a + 2);
        if (step == 0) return -1;
        if (kern::band_cuts_axis(band, a)) {
            if (start != 0 || step != 1 || end != is[a]) return -1;
            continue;
        }
        int64_t span = step > 0 ? end - start : start - end, st = step > 0 ? step : -step;
        int64_t n = span <= 0 ? 0 : (span + st - 1) / st;
        if (n == 0) return 0;  // empty output
        iv.data += start * iv.stride[a] * e;
        iv.stride[a] *= step;
        iv.shape[a] = (int32_t)n;
    }
    // The output viewed at the input's rank (shrunk axes have extent 1).
    kern::View ov = c.tiled() ? kern::output_view(band, c.out_ptr(0), c.shape(out), out.ndim, e)
                              : kern::whole_view(c.out_ptr(0), iv.shape, (uint8_t)rank, e);
    return kern::copy_view(ov, iv);
}

int reverse(const Call &c, const uint8_t *mv)
{
    const tigris_tensor_t &in = c.in(0);
    uint8_t e = (uint8_t)tigris_dtype_size(in.dtype);
    kern::View iv = kern::whole_view(c.in_ptr(0), c.shape(in), in.ndim, e);
    int32_t mask = movement_at(mv, 0);
    for (int a = 0; a < in.ndim; ++a)
        if ((mask >> a) & 1) {
            iv.data += (int64_t)(iv.shape[a] - 1) * iv.stride[a] * e;
            iv.stride[a] = -iv.stride[a];
        }
    if (c.in_ptr(0) == c.out_ptr(0)) return -1;
    return kern::copy_view(kern::whole_view(c.out_ptr(0), c.shape(c.out(0)), c.out(0).ndim, e), iv);
}

int dynamic_update_slice(const Call &c, const uint8_t *mv)
{
    const tigris_tensor_t &opnd = c.in(0), &out = c.out(0);
    int rank = opnd.ndim;
    uint8_t e = (uint8_t)tigris_dtype_size(opnd.dtype);
    bool update_weight = c.op->weight_idx != TIGRIS_NONE;
    uint8_t starts_input = update_weight ? 1 : 2;
    const uint8_t *update = update_weight ? static_cast<const uint8_t *>(c.weight()) : c.in_ptr(1);
    if (update == nullptr) return -1;
    if (c.out_ptr(0) != c.in_ptr(0)) memmove(c.out_ptr(0), c.in_ptr(0), out.size_bytes);
    int32_t ushape[kern::kMaxRank];
    for (int a = 0; a < rank; ++a) ushape[a] = movement_at(mv, rank + a);
    kern::View ov = kern::whole_view(c.out_ptr(0), c.shape(out), out.ndim, e);
    bool dynamic = c.op->num_inputs > starts_input;
    const uint8_t *sp = dynamic ? c.in_ptr(starts_input) : nullptr;
    if (dynamic && sp == nullptr) return -1;
    bool wide = sp != nullptr && c.in(starts_input).dtype == TIGRIS_DTYPE_INT64;
    for (int a = 0; a < rank; ++a) {
        int64_t s = movement_at(mv, a);
        if (sp != nullptr) {
            if (wide) memcpy(&s, sp + 8 * a, 8);
            else s = movement_at(sp, a);
        }
        int64_t hi = ov.shape[a] - ushape[a];
        s = s < 0 ? 0 : (s > hi ? hi : s);
        ov.data += s * ov.stride[a] * e;
        ov.shape[a] = ushape[a];
    }
    return kern::copy_view(ov, kern::whole_view(update, ushape, (uint8_t)rank, e));
}

}  // namespace

int slice(const Call &c)
{
    uint8_t len = 0;
    const uint8_t *mv = c.attr(TIGRIS_ATTR_MOVEMENT, &len);
    if (mv == nullptr || c.in_ptr(0) == nullptr || c.out_ptr(0) == nullptr) return -1;
    if (c.tiled() && c.op->op_type != TIGRIS_OP_STRIDED_SLICE) return -1;
    switch (c.op->op_type) {
    case TIGRIS_OP_STRIDED_SLICE: return strided_slice(c, mv);
    case TIGRIS_OP_REVERSE_V2: return reverse(c, mv);
    default: return dynamic_update_slice(c, mv);
    }
}

}  // namespace f32
}  // namespace tigris_rt
