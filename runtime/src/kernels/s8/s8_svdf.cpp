// SVDF on quantized int8 data (docs/operators.md §3.8), as TensorFlow Lite Micro's
// EvalIntegerSvdfReference computes it: int8 input and feature weights, a state and time
// weights of one type T (int16, or int8), int32 bias, int8 output. The feature product is
// rescaled by the SVDF attribute's first factor into T, saturated, offset by the state's
// zero point and written as the newest state column; the time products of every filter
// (int32, wrapping like TFLM's) are summed over rank onto the bias and rescaled by the
// second factor into int8. TFLM's integer SVDF applies no fused activation: neither do we.
#include <string.h>

#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"

namespace tigris_s8 {

namespace {

const uint8_t *constant(const Call &c, int k, uint32_t bytes)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(TIGRIS_ATTR_CONSTANTS, &len);
    if (p == nullptr || len < 2 * (k + 1) || c.plan->weight_entries == nullptr) return nullptr;
    uint16_t w = (uint16_t)(p[2 * k] | (p[2 * k + 1] << 8));
    if (w == TIGRIS_NONE || w >= c.plan->header->num_weights) return nullptr;
    const tigris_weight_entry_t *e = &c.plan->weight_entries[w];
    if (e->size_bytes < bytes) return nullptr;
    return (const uint8_t *)tigris_weight_data(c.plan, e);
}

template <typename T>
T load(const uint8_t *p, int64_t i)
{
    T v;
    memcpy(&v, p + i * (int64_t)sizeof(T), sizeof(T));
    return v;
}

template <typename T>
void store(uint8_t *p, int64_t i, T v)
{
    memcpy(p + i * (int64_t)sizeof(T), &v, sizeof(T));
}

struct Svdf {
    int32_t batch, in, units, rank, filters, memory;
    int32_t zx, zs, zy;
    int32_t m1, m2;
    int s1, s2;
    const int8_t *x;
    const uint8_t *state_in, *feature, *time, *bias;
    uint8_t *state;
    int8_t *y;
};

template <typename T>
int run(const Svdf &p)
{
    const int32_t lo = sizeof(T) == 2 ? -32768 : -128, hi = sizeof(T) == 2 ? 32767 : 127;
    const int64_t row = (int64_t)p.filters * p.memory;
    // The shifted state: every filter's memory moves left by one (TFLM shifts the whole
    // buffer by one element; the element that crosses into the previous filter's last
    // column is overwritten by the feature product below).
    memmove(p.state, p.state_in + sizeof(T), (size_t)(p.batch * row - 1) * sizeof(T));
    for (int32_t b = 0; b < p.batch; ++b) {
        const int8_t *xb = p.x + (int64_t)b * p.in;
        for (int32_t f = 0; f < p.filters; ++f) {
            int32_t dot = 0;
            const int8_t *w = (const int8_t *)p.feature + (int64_t)f * p.in;
            for (int32_t k = 0; k < p.in; ++k) dot = wrap_add(dot, wrap_mul(w[k], (int32_t)xb[k] - p.zx));
            dot = multiply_by_quantized_multiplier(dot, p.m1, p.s1);
            dot = clamp_i32(dot, lo, hi);
            store<T>(p.state, (int64_t)b * row + (int64_t)f * p.memory + p.memory - 1, (T)(p.zs + dot));
        }
    }
    for (int32_t b = 0; b < p.batch; ++b) {
        for (int32_t u = 0; u < p.units; ++u) {
            int32_t acc = p.bias ? load<int32_t>(p.bias, u) : 0;
            for (int32_t r = 0; r < p.rank; ++r) {
                const int64_t f = (int64_t)u * p.rank + r;
                int32_t t = 0;
                for (int32_t m = 0; m < p.memory; ++m) {
                    int32_t w = load<T>(p.time, f * p.memory + m);
                    int32_t s = load<T>(p.state, (int64_t)b * row + f * p.memory + m);
                    t = wrap_add(t, wrap_mul(w, s - p.zs));
                }
                acc = wrap_add(acc, t);
            }
            int32_t v = multiply_by_quantized_multiplier(acc, p.m2, p.s2) + p.zy;
            p.y[(int64_t)b * p.units + u] = clamp_s8(v);
        }
    }
    return 0;
}

}  // namespace

int svdf(const Call &c)
{
    if (c.tiled() || c.op->num_inputs != 2 || c.op->num_outputs != 2) return kError;
    Operand x, st, y, st_out;
    if (input_operand(c, 0, &x) != 0 || input_operand(c, 1, &st) != 0 || output_operand(c, 0, &y) != 0 ||
        output_operand(c, 1, &st_out) != 0)
        return kError;
    uint8_t len = 0;
    const uint8_t *a = c.attr(TIGRIS_ATTR_SVDF, &len);
    if (a == nullptr || len != 20) return kError;
    Svdf p{};
    p.batch = x.shape[0], p.in = x.shape[1], p.units = y.shape[1], p.rank = rd_i32(a);
    p.filters = p.units * p.rank;
    if (p.rank < 1 || p.filters < 1 || st.shape[1] % p.filters != 0) return kError;
    p.memory = st.shape[1] / p.filters;
    p.m1 = rd_i32(a + 4), p.s1 = rd_i32(a + 8), p.m2 = rd_i32(a + 12), p.s2 = rd_i32(a + 16);
    p.zx = x.zero_point, p.zs = st.zero_point, p.zy = y.zero_point;
    const uint32_t es = st.dtype == TIGRIS_DTYPE_INT16 ? 2u : 1u;
    p.feature = constant(c, 0, (uint32_t)(p.filters * p.in));
    p.time = constant(c, 1, (uint32_t)(p.filters * p.memory) * es);
    p.bias = constant(c, 2, (uint32_t)p.units * 4u);
    uint8_t blen = 0;
    const uint8_t *ca = c.attr(TIGRIS_ATTR_CONSTANTS, &blen);
    const bool bias_absent = ca != nullptr && blen >= 6 && (ca[4] | (ca[5] << 8)) == TIGRIS_NONE;
    if (p.feature == nullptr || p.time == nullptr || (p.bias == nullptr && !bias_absent)) return kError;
    p.x = (const int8_t *)x.data, p.state_in = st.data, p.state = st_out.data, p.y = (int8_t *)y.data;
    return st.dtype == TIGRIS_DTYPE_INT16 ? run<int16_t>(p) : run<int8_t>(p);
}

}  // namespace tigris_s8
