// Cast between float32, int8, uint8, int16, int32, int64 and bool (docs/operators.md §3.3):
// float -> integer truncates and saturates, integer -> integer wraps, -> bool is != 0, and
// int8/uint8 with a quant param against float32 (de)quantizes.
#include "kernels/f32/elementwise.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

struct Scalar {
    bool is_float;
    float f;
    int64_t i;
};

Scalar read(const uint8_t *p, uint8_t dtype, const tigris_quant_param_t *q)
{
    Scalar s{false, 0.0f, 0};
    switch (dtype) {
    case TIGRIS_DTYPE_FLOAT32:
        s.is_float = true;
        s.f = load<float>(p);
        return s;
    case TIGRIS_DTYPE_INT8: s.i = (int8_t)p[0]; break;
    case TIGRIS_DTYPE_UINT8: s.i = p[0]; break;
    case TIGRIS_DTYPE_BOOL: s.i = p[0] != 0; break;
    case TIGRIS_DTYPE_INT16: s.i = load<int16_t>(p); break;
    case TIGRIS_DTYPE_INT32: s.i = load<int32_t>(p); break;
    default: s.i = load<int64_t>(p); break;
    }
    if (q != nullptr) {
        s.is_float = true;
        s.f = (float)((double)q->scale * (double)(s.i - q->zero_point));  // as the int8 DEQUANTIZE (§5)
    }
    return s;
}

int64_t saturate(float f, int64_t lo, int64_t hi)
{
    if (f != f) return 0;
    if (f <= (float)lo) return lo;
    if (f >= (float)hi) return hi;
    return (int64_t)f;  // truncates toward zero
}

float round_half_away(float v) { return v >= 0.0f ? floorf(v + 0.5f) : ceilf(v - 0.5f); }

void write(uint8_t *p, uint8_t dtype, const tigris_quant_param_t *q, const Scalar &s)
{
    if (dtype == TIGRIS_DTYPE_FLOAT32) {
        store<float>(p, s.is_float ? s.f : (float)s.i);
        return;
    }
    if (dtype == TIGRIS_DTYPE_BOOL) {
        p[0] = s.is_float ? s.f != 0.0f : s.i != 0;
        return;
    }
    int64_t lo, hi;
    switch (dtype) {
    case TIGRIS_DTYPE_INT8: lo = -128, hi = 127; break;
    case TIGRIS_DTYPE_UINT8: lo = 0, hi = 255; break;
    case TIGRIS_DTYPE_INT16: lo = -32768, hi = 32767; break;
    case TIGRIS_DTYPE_INT32: lo = -2147483647 - 1, hi = 2147483647; break;
    default: lo = INT64_MIN, hi = INT64_MAX; break;
    }
    int64_t v;
    if (q != nullptr) {
        float t = round_half_away(s.f / q->scale) + (float)q->zero_point;
        v = saturate(t, lo, hi);
    } else {
        v = s.is_float ? saturate(s.f, lo, hi) : s.i;  // integers wrap on the store below
    }
    switch (dtype) {
    case TIGRIS_DTYPE_INT8:
    case TIGRIS_DTYPE_UINT8: p[0] = (uint8_t)v; break;
    case TIGRIS_DTYPE_INT16: store<uint16_t>(p, (uint16_t)v); break;
    case TIGRIS_DTYPE_INT32: store<uint32_t>(p, (uint32_t)v); break;
    default: store<uint64_t>(p, (uint64_t)v); break;
    }
}

const tigris_quant_param_t *quant_of(const Call &c, const tigris_tensor_t &t)
{
    bool q8 = t.dtype == TIGRIS_DTYPE_INT8 || t.dtype == TIGRIS_DTYPE_UINT8;
    return q8 ? tigris_tensor_quant(c.plan, &t) : nullptr;
}

}  // namespace

int cast(const Call &c)
{
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    const tigris_quant_param_t *qi = quant_of(c, in), *qo = quant_of(c, out);
    if (c.in_ptr(0) == nullptr || c.out_ptr(0) == nullptr) return -1;
    // Quantized <-> anything but float32 (requantize included) belongs to the int8 kernels.
    if ((qi != nullptr && out.dtype != TIGRIS_DTYPE_FLOAT32) || (qo != nullptr && in.dtype != TIGRIS_DTYPE_FLOAT32))
        return -1;
    kern::Band band = kern::pointwise_band(c.mem);
    uint8_t ei = (uint8_t)tigris_dtype_size(in.dtype), eo = (uint8_t)tigris_dtype_size(out.dtype);
    if (ei == 0 || eo == 0) return -1;
    kern::Walk w;
    kern::walk_init(&w, kern::output0_view(c, band));
    if (!kern::walk_add(&w, kern::input_view(band, c.in_ptr(0), c.shape(in), in.ndim, ei, c.shape(out), out.ndim)))
        return -1;
    uint8_t di = in.dtype, d_o = out.dtype;
    kern::walk_rows(w, [&](uint8_t *const *p, const int64_t *st, int32_t n) {
        for (int32_t i = 0; i < n; ++i) write(p[0] + i * st[0], d_o, qo, read(p[1] + i * st[1], di, qi));
    });
    return 0;
}

}  // namespace f32
}  // namespace tigris_rt
