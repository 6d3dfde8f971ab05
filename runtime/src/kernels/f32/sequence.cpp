// SVDF and LSTM (TFLite semantics, docs/operators.md §3.8): whole tensors, constants from the
// CONSTANTS attribute, state carried through the op's state input/output tensors.
#include <float.h>
#include <math.h>
#include <string.h>

#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

// Weight `k` of the CONSTANTS attribute (NULL when absent or not decoded).
const float *constant(const Call &c, int k)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(TIGRIS_ATTR_CONSTANTS, &len);
    if (p == nullptr || len < 2 * (k + 1)) return nullptr;
    uint16_t w = (uint16_t)(p[2 * k] | (p[2 * k + 1] << 8));
    if (w == TIGRIS_NONE || w >= c.plan->header->num_weights || c.plan->weight_entries == nullptr) return nullptr;
    return static_cast<const float *>(tigris_weight_data(c.plan, &c.plan->weight_entries[w]));
}

int32_t attr_i32(const Call &c, uint8_t kind, int index)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(kind, &len);
    int32_t v = 0;
    if (p != nullptr && len >= 4 * (index + 1)) memcpy(&v, p + 4 * index, 4);
    return v;
}

// TFLite's reference float Logistic: 1 beyond 16.619..., exp(x) below -9, else 1 / (1 + e^-x).
float tflite_sigmoid(float x)
{
    if (x > 16.619047164916992188f) return 1.0f;
    if (x < -9.0f) return expf(x);
    return 1.0f / (1.0f + expf(-x));
}

// TFLite's no-activation clamp of a float FC or MUL result: [lowest, max] of float.
float in_float_range(float v) { return v < -FLT_MAX ? -FLT_MAX : (v > FLT_MAX ? FLT_MAX : v); }

}  // namespace

int svdf(const Call &c)
{
    const float *x = reinterpret_cast<const float *>(c.in_ptr(0));
    const float *state_in = reinterpret_cast<const float *>(c.in_ptr(1));
    float *y = reinterpret_cast<float *>(c.out_ptr(0));
    float *state = reinterpret_cast<float *>(c.out_ptr(1));
    const float *feature = constant(c, 0), *time = constant(c, 1), *bias = constant(c, 2);
    if (c.tiled() || !x || !state_in || !y || !state || !feature || !time) return -1;
    const int32_t *xs = c.shape(c.in(0)), *ss = c.shape(c.in(1)), *ys = c.shape(c.out(0));
    int32_t batch = xs[0], in = xs[1], units = ys[1], rank = attr_i32(c, TIGRIS_ATTR_SVDF, 0);
    int32_t filters = units * rank;
    if (rank < 1 || filters < 1) return -1;
    int32_t memory = ss[1] / filters;
    for (int32_t b = 0; b < batch; ++b) {
        // Shift every filter's memory left by one and append this step's feature activation.
        const float *src = state_in + (int64_t)b * filters * memory;
        float *st = state + (int64_t)b * filters * memory;
        for (int32_t f = 0; f < filters; ++f) {
            memmove(st + (int64_t)f * memory, src + (int64_t)f * memory + 1, (size_t)(memory - 1) * 4);
            float dot = 0.0f;
            for (int32_t k = 0; k < in; ++k) dot += feature[(int64_t)f * in + k] * x[(int64_t)b * in + k];
            st[(int64_t)f * memory + memory - 1] = dot;
        }
        for (int32_t u = 0; u < units; ++u) {
            float acc = bias ? bias[u] : 0.0f;
            for (int32_t r = 0; r < rank; ++r) {
                int32_t f = u * rank + r;
                float t = 0.0f;
                for (int32_t m = 0; m < memory; ++m) t += time[(int64_t)f * memory + m] * st[(int64_t)f * memory + m];
                acc += t;
            }
            y[(int64_t)b * units + u] = fused(acc, c.op->fused_act);
        }
    }
    return 0;
}

// TFLite Micro's float LSTM (lstm_eval.h), operation for operation so results are bit-exact:
// each gate is the input FC (sum from 0 in input order, then + bias) plus the recurrent FC
// (sum + 0), each FC clamped to the float range as FullyConnected's no-activation range
// does; the gates use the previous h; c = f·c + i·g (each product clamped likewise), then
// clipped; h = tanh(c)·o.
int lstm(const Call &c)
{
    const float *x = reinterpret_cast<const float *>(c.in_ptr(0));
    const float *h0 = reinterpret_cast<const float *>(c.in_ptr(1)), *c0 = reinterpret_cast<const float *>(c.in_ptr(2));
    float *y = reinterpret_cast<float *>(c.out_ptr(0));
    float *h = reinterpret_cast<float *>(c.out_ptr(1)), *cell = reinterpret_cast<float *>(c.out_ptr(2));
    const float *W[4], *R[4], *B[4];
    for (int g = 0; g < 4; ++g) W[g] = constant(c, g), R[g] = constant(c, 4 + g), B[g] = constant(c, 8 + g);
    if (c.tiled() || !x || !h0 || !c0 || !y || !h || !cell) return -1;
    for (int g = 0; g < 4; ++g)
        if (!W[g] || !R[g]) return -1;
    bool time_major = attr_i32(c, TIGRIS_ATTR_LSTM, 0) == 1;
    float clip;
    uint8_t len = 0;
    const uint8_t *a = c.attr(TIGRIS_ATTR_LSTM, &len);
    if (a == nullptr || len != 8) return -1;
    memcpy(&clip, a + 4, 4);
    const int32_t *xs = c.shape(c.in(0)), *hs = c.shape(c.in(1));
    int32_t steps = xs[time_major ? 0 : 1], batch = xs[time_major ? 1 : 0], in = xs[2], hid = hs[1];
    memmove(h, h0, (size_t)batch * hid * 4);
    memmove(cell, c0, (size_t)batch * hid * 4);
    for (int32_t t = 0; t < steps; ++t)
        for (int32_t b = 0; b < batch; ++b) {
            int64_t row = time_major ? (int64_t)t * batch + b : (int64_t)b * steps + t;
            const float *xt = x + row * in;
            const float *hp = h + (int64_t)b * hid;
            float *yt = y + row * hid, *ct = cell + (int64_t)b * hid;
            for (int32_t j = 0; j < hid; ++j) {
                float gate[4];
                for (int g = 0; g < 4; ++g) {
                    float from_x = 0.0f, from_h = 0.0f;
                    for (int32_t k = 0; k < in; ++k) from_x += xt[k] * W[g][(int64_t)j * in + k];
                    for (int32_t k = 0; k < hid; ++k) from_h += hp[k] * R[g][(int64_t)j * hid + k];
                    gate[g] = in_float_range(from_x + (B[g] ? B[g][j] : 0.0f)) + in_float_range(from_h + 0.0f);
                }
                float cn = in_float_range(tflite_sigmoid(gate[1]) * ct[j]);
                cn = cn + in_float_range(tflite_sigmoid(gate[0]) * tanhf(gate[2]));
                if (clip > 0.0f) {  // std::max(std::min(clip, c), -clip)
                    cn = cn < clip ? cn : clip;
                    cn = cn < -clip ? -clip : cn;
                }
                ct[j] = cn;
                // h of this step; h itself still holds the previous one
                yt[j] = in_float_range(tanhf(cn) * tflite_sigmoid(gate[3]));
            }
            memcpy(h + (int64_t)b * hid, yt, (size_t)hid * 4);
        }
    return 0;
}

}  // namespace f32
}  // namespace tigris_rt
