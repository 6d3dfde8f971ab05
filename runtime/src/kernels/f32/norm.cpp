// BatchNorm (folded multiplier/offset per channel), InstanceNorm, LayerNorm (trailing axes)
// and L2Normalization; mean and variance in two passes.
#include "kernels/common/lanes.h"
#include "kernels/f32/elementwise.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

float epsilon(const Call &c, float def)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(TIGRIS_ATTR_EPSILON, &len);
    float e = def;
    if (p != nullptr && len == 4) memcpy(&e, p, 4);
    return e;
}

// AXES block: first and last axis (default: the last axis only).
void block(const Call &c, int rank, int *a0, int *a1)
{
    uint8_t len = 0;
    const uint8_t *a = c.attr(TIGRIS_ATTR_AXES, &len);
    *a0 = a ? a[0] : rank - 1;
    *a1 = a ? a[len - 1] : rank - 1;
}

int batch_norm(const Call &c, const float *w, const float *b)
{
    int axis, last;
    block(c, c.in(0).ndim, &axis, &last);
    kern::View in, out;
    if (same_shape_views(c, axis, axis, &in, &out) != 0) return -1;
    return kern::for_each_lane(out, in, axis, axis, [&](uint8_t *o, uint8_t *i, int64_t n, int64_t os, int64_t is) {
        for (int64_t k = 0; k < n; ++k) store<float>(o + k * os, load<float>(i + k * is) * w[k] + (b ? b[k] : 0.0f));
    });
}

int layer_norm(const Call &c, const float *w, const float *b)
{
    int a0, a1;
    block(c, c.in(0).ndim, &a0, &a1);
    float eps = epsilon(c, 1e-5f);
    kern::View in, out;
    if (same_shape_views(c, a0, a1, &in, &out) != 0) return -1;
    return kern::for_each_lane(out, in, a0, a1, [&](uint8_t *o, uint8_t *i, int64_t n, int64_t os, int64_t is) {
        float sum = 0.0f;
        for (int64_t k = 0; k < n; ++k) sum += load<float>(i + k * is);
        float mean = sum / (float)n, var = 0.0f;
        for (int64_t k = 0; k < n; ++k) {
            float d = load<float>(i + k * is) - mean;
            var += d * d;
        }
        float inv = 1.0f / sqrtf(var / (float)n + eps);
        for (int64_t k = 0; k < n; ++k)
            store<float>(o + k * os, (load<float>(i + k * is) - mean) * inv * w[k] + (b ? b[k] : 0.0f));
    });
}

int l2_norm(const Call &c)
{
    int a0, a1;
    block(c, c.in(0).ndim, &a0, &a1);
    float eps = epsilon(c, 1e-6f);
    kern::View in, out;
    if (same_shape_views(c, a0, a1, &in, &out) != 0) return -1;
    return kern::for_each_lane(out, in, a0, a1, [&](uint8_t *o, uint8_t *i, int64_t n, int64_t os, int64_t is) {
        float sq = 0.0f;
        for (int64_t k = 0; k < n; ++k) {
            float v = load<float>(i + k * is);
            sq += v * v;
        }
        float norm = sqrtf(sq);
        norm = norm > eps ? norm : eps;
        for (int64_t k = 0; k < n; ++k) store<float>(o + k * os, load<float>(i + k * is) / norm);
    });
}

// InstanceNorm: per (batch, channel) over every other axis; needs whole tensors.
int instance_norm(const Call &c, const float *w, const float *b)
{
    if (c.tiled() || b == nullptr) return -1;
    const tigris_tensor_t &t = c.in(0);
    int axis, last;
    block(c, t.ndim, &axis, &last);
    const uint8_t *in = c.in_ptr(0);
    uint8_t *out = c.out_ptr(0);
    if (in == nullptr || out == nullptr || axis < 1) return -1;
    kern::View v = kern::whole_view(in, c.shape(t), t.ndim, 4);
    kern::ReducedAxes r{};
    int64_t count = 1;
    for (int a = 1; a < t.ndim; ++a)
        if (a != axis) {
            r.len[r.n] = v.shape[a];
            r.step[r.n++] = v.stride[a] * 4;
            count *= v.shape[a];
        }
    float eps = epsilon(c, 1e-5f);
    for (int32_t n = 0; n < v.shape[0]; ++n)
        for (int32_t ch = 0; ch < v.shape[axis]; ++ch) {
            int64_t off = (n * v.stride[0] + ch * v.stride[axis]) * 4;
            uint8_t *src = const_cast<uint8_t *>(in) + off;
            float sum = 0.0f, var = 0.0f;
            kern::for_each_reduced(src, r, [&](uint8_t *p) { sum += load<float>(p); });
            float mean = sum / (float)count;
            kern::for_each_reduced(src, r, [&](uint8_t *p) {
                float d = load<float>(p) - mean;
                var += d * d;
            });
            float scale = w[ch] / sqrtf(var / (float)count + eps), shift = b[ch];
            kern::for_each_reduced(
                src, r, [&](uint8_t *p) { store<float>(out + (p - in), (load<float>(p) - mean) * scale + shift); });
        }
    return 0;
}

}  // namespace

int norm(const Call &c)
{
    if (c.in(0).dtype != TIGRIS_DTYPE_FLOAT32) return -1;
    const float *w = static_cast<const float *>(c.weight());
    const float *b = static_cast<const float *>(c.bias());
    switch (c.op->op_type) {
    case TIGRIS_OP_BATCH_NORM: return w ? batch_norm(c, w, b) : -1;
    case TIGRIS_OP_LAYER_NORM: return w ? layer_norm(c, w, b) : -1;
    case TIGRIS_OP_INST_NORM: return w ? instance_norm(c, w, b) : -1;
    case TIGRIS_OP_L2_NORMALIZATION: return l2_norm(c);
    default: return -1;
    }
}

}  // namespace f32
}  // namespace tigris_rt
