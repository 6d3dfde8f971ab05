// Pad (constant fill, negative pads crop) and MirrorPad (reflect, symmetric, edge, wrap),
// any dtype. Whole tensors only.
#include <string.h>

#include "common/le_bytes.h"
#include "kernels/common/lanes.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

// The fill element of Pad in the output's dtype: ALPHA (default 0), quantized for int8/uint8.
void fill_element(const Call &c, uint8_t *e)
{
    const tigris_tensor_t &out = c.out(0);
    float v = 0.0f;
    uint8_t len = 0;
    const uint8_t *p = c.attr(TIGRIS_ATTR_ALPHA, &len);
    if (p != nullptr && len == 4) memcpy(&v, p, 4);
    const tigris_quant_param_t *q = tigris_tensor_quant(c.plan, &out);
    int64_t i = (int64_t)v;
    if (q != nullptr) {
        float t = v / q->scale;
        i = (int64_t)(t >= 0.0f ? floorf(t + 0.5f) : ceilf(t - 0.5f)) + q->zero_point;
        int64_t lo = out.dtype == TIGRIS_DTYPE_UINT8 ? 0 : -128, hi = out.dtype == TIGRIS_DTYPE_UINT8 ? 255 : 127;
        i = i < lo ? lo : (i > hi ? hi : i);
    }
    switch (out.dtype) {
    case TIGRIS_DTYPE_FLOAT32: memcpy(e, &v, 4); break;
    case TIGRIS_DTYPE_BOOL: e[0] = v != 0.0f; break;
    case TIGRIS_DTYPE_INT16: {
        int16_t s = (int16_t)i;
        memcpy(e, &s, 2);
        break;
    }
    case TIGRIS_DTYPE_INT32: {
        int32_t s = (int32_t)i;
        memcpy(e, &s, 4);
        break;
    }
    case TIGRIS_DTYPE_INT64: memcpy(e, &i, 8); break;
    default: e[0] = (uint8_t)i; break;
    }
}

int constant_pad(const Call &c)
{
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    uint8_t len = 0;
    const uint8_t *pads = c.attr(TIGRIS_ATTR_PADS, &len);
    int rank = in.ndim;
    uint8_t e = (uint8_t)tigris_dtype_size(in.dtype);
    uint8_t *dst = c.out_ptr(0);
    if (pads == nullptr || len != 8 * rank) return -1;
    uint8_t fill[8];
    fill_element(c, fill);
    for (uint32_t off = 0; off < out.size_bytes; off += e) memcpy(dst + off, fill, e);
    kern::View ov = kern::whole_view(dst, c.shape(out), out.ndim, e);
    kern::View iv = kern::whole_view(c.in_ptr(0), c.shape(in), in.ndim, e);
    for (int a = 0; a < rank; ++a) {
        int32_t lead = rd_i32(pads + 4 * a);
        int32_t o0 = lead > 0 ? lead : 0, i0 = lead < 0 ? -lead : 0;
        int32_t n = iv.shape[a] - i0;
        if (o0 + n > ov.shape[a]) n = ov.shape[a] - o0;
        if (n <= 0) return 0;  // nothing of the input survives the crop
        ov.data += (int64_t)o0 * ov.stride[a] * e;
        iv.data += (int64_t)i0 * iv.stride[a] * e;
        ov.shape[a] = iv.shape[a] = n;
    }
    return kern::copy_view(ov, iv);
}

// Input index of output index o on an axis of n elements with `before` leading pads.
int32_t mirror_index(int32_t o, int32_t before, int32_t n, int32_t mode)
{
    int32_t i = o - before;
    switch (mode) {
    case 0:  // reflect, edge not repeated
        if (i < 0) i = -i;
        if (i >= n) i = 2 * (n - 1) - i;
        break;
    case 1:  // symmetric, edge repeated
        if (i < 0) i = -i - 1;
        if (i >= n) i = 2 * n - 1 - i;
        break;
    case 2:  // edge
        i = i < 0 ? 0 : (i >= n ? n - 1 : i);
        break;
    default:  // wrap
        i %= n;
        if (i < 0) i += n;
        break;
    }
    return i;
}

int mirror_pad(const Call &c)
{
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    uint8_t len = 0;
    const uint8_t *mv = c.attr(TIGRIS_ATTR_MOVEMENT, &len);
    int rank = in.ndim;
    if (mv == nullptr || len != 4 * (1 + 2 * rank)) return -1;
    int32_t mode = rd_i32(mv);
    uint32_t e = tigris_dtype_size(in.dtype);
    kern::View iv = kern::whole_view(c.in_ptr(0), c.shape(in), in.ndim, (uint8_t)e);
    const int32_t *os = c.shape(out);
    uint8_t *dst = c.out_ptr(0);
    uint64_t total = out.size_bytes / e;
    int32_t idx[kern::kMaxRank] = {};
    for (uint64_t k = 0; k < total; ++k) {
        int64_t src = 0;
        for (int a = 0; a < rank; ++a)
            src += (int64_t)mirror_index(idx[a], rd_i32(mv + 4 * (1 + 2 * a)), iv.shape[a], mode) * iv.stride[a];
        memcpy(dst + k * e, iv.data + src * e, e);
        for (int a = rank - 1; a >= 0; --a) {
            if (++idx[a] < os[a]) break;
            idx[a] = 0;
        }
    }
    return 0;
}

}  // namespace

int pad(const Call &c)
{
    if (c.tiled() || c.in_ptr(0) == nullptr || c.out_ptr(0) == nullptr || c.in_ptr(0) == c.out_ptr(0)) return -1;
    return c.op->op_type == TIGRIS_OP_PAD ? constant_pad(c) : mirror_pad(c);
}

}  // namespace f32
}  // namespace tigris_rt
