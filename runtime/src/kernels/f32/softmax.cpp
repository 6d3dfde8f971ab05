// Softmax and LogSoftmax over a contiguous block of axes (AXES, default the last), with the
// input scale beta (ALPHA, default 1): max-subtracted exponentials.
#include "kernels/common/lanes.h"
#include "kernels/f32/elementwise.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

// Axes block [a0, a1] of an AXES attribute (default: the last axis).
void axes_block(const Call &c, int rank, int *a0, int *a1)
{
    uint8_t len = 0;
    const uint8_t *a = c.attr(TIGRIS_ATTR_AXES, &len);
    if (a == nullptr || len == 0) {
        *a0 = *a1 = rank - 1;
        return;
    }
    *a0 = a[0];
    *a1 = a[len - 1];
}

}  // namespace

// Views of input 0 and output 0 (same shape) under the call's band; -1 when the band cuts an
// axis of [a0, a1].
int same_shape_views(const Call &c, int a0, int a1, kern::View *in, kern::View *out)
{
    kern::Band band = kern::pointwise_band(c.mem);
    for (int a = a0; a <= a1; ++a)
        if (kern::band_cuts_axis(band, a)) return -1;
    const tigris_tensor_t &ti = c.in(0), &to = c.out(0);
    if (c.in_ptr(0) == nullptr || c.out_ptr(0) == nullptr) return -1;
    uint8_t ei = (uint8_t)tigris_dtype_size(ti.dtype), eo = (uint8_t)tigris_dtype_size(to.dtype);
    *in = kern::input_view(band, c.in_ptr(0), c.shape(ti), ti.ndim, ei, c.shape(to), to.ndim);
    *out = kern::output_view(band, c.out_ptr(0), c.shape(to), to.ndim, eo);
    return 0;
}

int softmax(const Call &c)
{
    const tigris_tensor_t &t = c.in(0);
    if (t.dtype != TIGRIS_DTYPE_FLOAT32 || t.ndim == 0) return -1;
    int a0, a1;
    axes_block(c, t.ndim, &a0, &a1);
    kern::View in, out;
    if (same_shape_views(c, a0, a1, &in, &out) != 0) return -1;
    float beta = 1.0f;
    uint8_t len = 0;
    const uint8_t *pb = c.attr(TIGRIS_ATTR_ALPHA, &len);
    if (pb != nullptr && len == 4) memcpy(&beta, pb, 4);
    bool log_sm = c.op->op_type == TIGRIS_OP_LOG_SOFTMAX;
    return kern::for_each_lane(out, in, a0, a1, [&](uint8_t *o, uint8_t *i, int64_t n, int64_t os, int64_t is) {
        float mx = -INFINITY;
        for (int64_t k = 0; k < n; ++k) {
            float v = load<float>(i + k * is);
            mx = v > mx ? v : mx;
        }
        float sum = 0.0f;
        for (int64_t k = 0; k < n; ++k) {
            float e = expf(beta * (load<float>(i + k * is) - mx));
            sum += e;
            if (!log_sm) store<float>(o + k * os, e);
        }
        float lsum = logf(sum);
        for (int64_t k = 0; k < n; ++k) {
            float r = log_sm ? beta * (load<float>(i + k * is) - mx) - lsum : load<float>(o + k * os) / sum;
            store<float>(o + k * os, r);
        }
    });
}

}  // namespace f32
}  // namespace tigris_rt
