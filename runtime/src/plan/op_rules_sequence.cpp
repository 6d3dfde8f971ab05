// Rules of the sequence operators with state (docs/operators.md §3.8): SVDF and LSTM, float32,
// SVDF on quantized int8 data with an int16 or int8 state (§5.3), LSTM also int8 and 16x8;
// constants through the CONSTANTS attribute.
#include <math.h>

#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_lstm.h"
#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

constexpr uint16_t kAbsent = TIGRIS_NONE;

// CONSTANTS with exactly `n` entries, each a weight index or (when `optional` allows it) absent.
bool constants(const OpView &v, uint8_t n, uint32_t optional_mask, uint16_t *w)
{
    uint8_t len = 0;
    const uint8_t *p = v.attr(TIGRIS_ATTR_CONSTANTS, &len);
    if (p == nullptr || len != 2u * n || v.has_weight() || v.has_bias()) return false;
    for (uint8_t i = 0; i < n; ++i) {
        w[i] = rd_u16(p + 2 * i);
        if (w[i] == kAbsent ? ((optional_mask >> i) & 1u) == 0 : w[i] >= v.plan->header->num_weights) return false;
    }
    return true;
}

bool bytes_ok(const OpView &v, uint16_t w, uint64_t elements, uint64_t element_size = 4)
{
    return w == kAbsent || v.weight_bytes_at(w) == elements * element_size;
}

bool all_float(const OpView &v)
{
    for (uint8_t i = 0; i < v.num_in(); ++i)
        if (v.in(i).dtype != TIGRIS_DTYPE_FLOAT32) return false;
    for (uint8_t i = 0; i < v.num_out(); ++i)
        if (v.out(i).dtype != TIGRIS_DTYPE_FLOAT32) return false;
    return true;
}

// int8 SVDF (TFLM's integer SVDF): x and y quantized int8, the state int16 or int8 (with the
// time weights of the same type), int32 bias; the SVDF attribute adds the feature and output
// factors (multiplier, shift) after the rank.
bool svdf_int8_dtypes(const OpView &v)
{
    const tigris_tensor_t &x = v.in(0), &state = v.in(1), &y = v.out(0), &state_out = v.out(1);
    if (x.dtype != TIGRIS_DTYPE_INT8 || y.dtype != TIGRIS_DTYPE_INT8) return false;
    if (tigris_tensor_quant(v.plan, &x) == nullptr || tigris_tensor_quant(v.plan, &y) == nullptr) return false;
    if (state.dtype != TIGRIS_DTYPE_INT16 && state.dtype != TIGRIS_DTYPE_INT8) return false;
    return state_out.dtype == state.dtype && v.op->fused_act == TIGRIS_ACT_NONE;
}

bool check_svdf(const OpView &v)
{
    if (v.num_in() != 2 || v.num_out() != 2) return false;
    const bool quantized = v.in(0).dtype == TIGRIS_DTYPE_INT8;
    if (quantized ? !svdf_int8_dtypes(v) : !all_float(v)) return false;
    const tigris_tensor_t &x = v.in(0), &state = v.in(1), &y = v.out(0), &state_out = v.out(1);
    if (x.ndim != 2 || state.ndim != 2 || y.ndim != 2 || !same_shape(v, state, state_out)) return false;
    const int32_t *xs = v.shape(x), *ss = v.shape(state), *ys = v.shape(y);
    if (ss[0] != xs[0] || ys[0] != xs[0]) return false;
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_SVDF, &len);
    if (a == nullptr || len != (quantized ? 20 : 4)) return false;
    int64_t rank = rd_i32(a), units = ys[1], filters = units * rank;
    if (rank < 1 || filters < 1 || ss[1] % filters != 0 || ss[1] < filters) return false;
    if (quantized && (!tigris_s8::factor_in_range(rd_i32(a + 4), rd_i32(a + 8)) ||
                      !tigris_s8::factor_in_range(rd_i32(a + 12), rd_i32(a + 16))))
        return false;
    int64_t memory = ss[1] / filters;
    uint16_t w[3];
    if (!constants(v, 3, 0x4u, w)) return false;
    const uint64_t feature_size = quantized ? 1 : 4, time_size = state.dtype == TIGRIS_DTYPE_INT16 ? 2 : feature_size;
    return bytes_ok(v, w[0], (uint64_t)(filters * xs[1]), feature_size) &&
           bytes_ok(v, w[1], (uint64_t)(filters * memory), time_size) && bytes_ok(v, w[2], (uint64_t)units);
}

// The quantized forms (TFLM's integer LSTM): x, h and y int8 (or int16: 16x8) and c int16,
// with quant params (c's zero point 0), outputs as the state inputs, int8 weights, int32
// biases (int64 for 16x8), the sigmoid table as the 13th constant, and the factors of the
// 72-byte LSTM attribute.
bool check_lstm_quantized(const OpView &v, int64_t in, int64_t hidden)
{
    const tigris_tensor_t &x = v.in(0), &h0 = v.in(1), &c0 = v.in(2);
    const uint8_t act = x.dtype;
    const tigris_quant_param_t *qh = tigris_tensor_quant(v.plan, &h0), *qc = tigris_tensor_quant(v.plan, &c0);
    if (h0.dtype != act || v.out(0).dtype != act || v.out(1).dtype != act || c0.dtype != TIGRIS_DTYPE_INT16 ||
        v.out(2).dtype != TIGRIS_DTYPE_INT16 || qh == nullptr || qc == nullptr ||
        tigris_tensor_quant(v.plan, &x) == nullptr || qc->zero_point != 0)
        return false;
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_LSTM, &len);
    tigris_s8::LstmQuant q;
    if (!tigris_s8::lstm_quant(a, len, qh->scale, qc->scale, act == TIGRIS_DTYPE_INT16, &q)) return false;
    uint16_t w[tigris_s8::kLstmInt8Constants];
    if (!constants(v, tigris_s8::kLstmInt8Constants, 0xF00u, w)) return false;
    const uint64_t bias_bytes = (uint64_t)hidden * (act == TIGRIS_DTYPE_INT16 ? 8u : 4u);
    for (int g = 0; g < 4; ++g)
        if (v.weight_bytes_at(w[g]) != (uint64_t)(hidden * in) ||
            v.weight_bytes_at(w[4 + g]) != (uint64_t)(hidden * hidden) ||
            (w[8 + g] != kAbsent && v.weight_bytes_at(w[8 + g]) != bias_bytes))
            return false;
    return v.weight_bytes_at(w[12]) == 512u;
}

bool check_lstm(const OpView &v)
{
    if (v.num_in() != 3 || v.num_out() != 3 || v.op->fused_act != 0) return false;
    const bool quantized = v.in(0).dtype == TIGRIS_DTYPE_INT8 || v.in(0).dtype == TIGRIS_DTYPE_INT16;
    if (!quantized && !all_float(v)) return false;
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_LSTM, &len);
    if (a == nullptr || len < 8) return false;
    int32_t time_major = rd_i32(a);
    float clip = rd_f32(a + 4);
    if ((time_major != 0 && time_major != 1) || !isfinite(clip) || clip < 0.0f) return false;
    const tigris_tensor_t &x = v.in(0), &h0 = v.in(1), &c0 = v.in(2), &y = v.out(0);
    if (x.ndim != 3 || h0.ndim != 2 || y.ndim != 3) return false;
    const int32_t *xs = v.shape(x), *hs = v.shape(h0), *ys = v.shape(y);
    int64_t batch = xs[time_major ? 1 : 0], in = xs[2], hidden = hs[1];
    if (hs[0] != batch || !same_shape(v, h0, c0) || !same_shape(v, h0, v.out(1)) || !same_shape(v, h0, v.out(2)))
        return false;
    if (ys[0] != xs[0] || ys[1] != xs[1] || ys[2] != hidden) return false;
    if (quantized) return check_lstm_quantized(v, in, hidden);
    if (len != 8) return false;
    uint16_t w[12];
    if (!constants(v, 12, 0xF00u, w)) return false;
    for (int g = 0; g < 4; ++g)
        if (!bytes_ok(v, w[g], (uint64_t)(hidden * in)) || !bytes_ok(v, w[4 + g], (uint64_t)(hidden * hidden)) ||
            !bytes_ok(v, w[8 + g], (uint64_t)hidden))
            return false;
    return true;
}

}  // namespace

Verdict check_sequence(const OpView &v)
{
    switch (rule_of(v)) {
        TIGRIS_RULE(kSvdf, check_svdf(v))
        TIGRIS_RULE(kLstm, check_lstm(v))
        TIGRIS_RULE(kDetection, check_detection(v))
    default: return kNotMine;
    }
}

}  // namespace rules
}  // namespace tigris_rt
