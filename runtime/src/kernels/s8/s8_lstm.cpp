// int8 LSTM: TFLite UNIDIRECTIONAL_SEQUENCE_LSTM as TensorFlow Lite Micro's integer kernel
// (lstm_eval, 8-bit activations, 8-bit weights, 16-bit cell, 32-bit biases) computes it.
// Per step and batch row, for each hidden unit j, from the previous h:
//   gate_G = sat16(FC(x; W_G, b_G) + FC(h; R_G))  each FC: sum W·(v - z_v) (+ bias), requantized
//                                                 to int16 at 2^-12 (Q3.12), clamped to int16
//   f, i, o = sigmoid16(gate), g = tanh16(gate)   TFLM's int16 LOGISTIC/TANH on the Q3.12 input
//   c = sat16(sat16(f·c ⊗ 2^-15) + sat16(i·g ⊗ 2^-30 / s_c)), clipped to ±cell_clip / s_c
//   h = clamp8(z_h + o·tanh16(c) ⊗ 2^-30 / s_h)     (⊗: MultiplyByQuantizedMultiplier)
// The step's h is written to y and then becomes h; the state input tensors are copied to the
// state outputs first, so aliasing them is harmless.
#include "kernels/s8/s8_lstm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/s16/s16_kernels.h"
#include "kernels/s16/s16_params.h"
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_s8 {

namespace {

constexpr int kSigmoidTableEntries = 256;

inline int16_t sat16(int32_t v) { return (int16_t)clamp_i32(v, -32768, 32767); }

inline uint32_t table_at(const uint8_t *t, uint32_t i) { return tigris_rt::rd_u16(t + 2 * i); }

// TFLM reference_integer_ops::Logistic(0, 0, ...): the Q3.12 input times 3, interpolated in
// the sigmoid table with 9 fractional bits.
int16_t sigmoid16(const uint8_t *table, int16_t v)
{
    const int32_t x = (int32_t)v * 3;
    const uint32_t ax = (uint32_t)abs(x);
    const uint32_t uh = ax >> 9;
    uint32_t result;
    if (uh >= 255) {
        result = 0x7FFFu << 10;
    } else {
        const uint32_t ua = table_at(table, uh), ub = table_at(table, uh + 1);
        result = (ua << 9) + (ax & 0x1FFu) * (ub - ua);
    }
    result = x >= 0 ? result + (1u << 9) : (1u << (16 + 9)) - result + (1u << 9) - 1u;
    return (int16_t)(result >> 10);
}

// TFLM reference_integer_ops::Tanh(multiplier, shift, ...) on an int16 input: rescaled, then
// interpolated with 8 fractional bits (tanh(x) = 2 sigmoid(2x) - 1).
int16_t tanh16(const uint8_t *table, int32_t multiplier, int32_t shift, int16_t v)
{
    const int32_t round = shift > 0 ? 1 << (shift - 1) : 0;
    const int32_t x = ((int32_t)v * multiplier + round) >> shift;
    const uint32_t ax = (uint32_t)abs(x);
    const uint32_t uh = ax >> 8;
    int32_t result;
    if (uh >= 255) {
        result = (int32_t)(0xFFFFu << 8);
    } else {
        const uint32_t ua = table_at(table, uh), ub = table_at(table, uh + 1);
        result = (int32_t)((ua << 8) + (ax & 0xFFu) * (ub - ua));
    }
    result = x >= 0 ? result - (1 << (14 + 9)) + (1 << (9 - 2)) : -result + (1 << (14 + 9)) + (1 << (9 - 2)) - 1;
    return (int16_t)(result >> (9 - 1));
}

// CONSTANTS entry k with at least `bytes` bytes (nullptr when absent or short).
const uint8_t *constant(const Call &c, int k, uint32_t bytes)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(TIGRIS_ATTR_CONSTANTS, &len);
    if (p == nullptr || len < 2 * (k + 1)) return nullptr;
    const uint16_t w = tigris_rt::rd_u16(p + 2 * k);
    if (w == TIGRIS_NONE || c.plan->weight_entries == nullptr || w >= c.plan->header->num_weights) return nullptr;
    const tigris_weight_entry_t *e = &c.plan->weight_entries[w];
    if (e->size_bytes < bytes) return nullptr;
    return (const uint8_t *)tigris_weight_data(c.plan, e);
}

// One FC output: sum_k w[k] (v[k] + offset) (+ bias), requantized to int16. int8
// activations: int32 accumulator (wrapping, as the int8 FC) and bias, the 32-bit MBQM;
// int16 activations (16x8): int64 accumulator and bias, TFLite's 64-bit MBQM.
template <typename Act>
int16_t fc16(const int8_t *w, const Act *v, int32_t n, int32_t offset, const uint8_t *bias, int32_t j, int32_t m, int s)
{
    if constexpr (sizeof(Act) == 1) {
        int32_t acc = 0;
        for (int32_t k = 0; k < n; ++k) acc = wrap_add(acc, (int32_t)w[k] * ((int32_t)v[k] + offset));
        if (bias != nullptr) acc = wrap_add(acc, rd_i32(bias + 4 * j));
        return sat16(multiply_by_quantized_multiplier(acc, m, s));
    }
    int64_t acc = 0;
    for (int32_t k = 0; k < n; ++k) acc += (int64_t)((int32_t)w[k] * ((int32_t)v[k] + offset));
    if (bias != nullptr)
        acc += (int64_t)((uint64_t)tigris_rt::rd_u32(bias + 8 * j) |
                         ((uint64_t)tigris_rt::rd_u32(bias + 8 * j + 4) << 32));
    return sat16(tigris_s16::multiply_by_quantized_multiplier_64(acc, m, s));
}

}  // namespace

bool lstm_quant(const uint8_t *attr, uint8_t len, float h_scale, float c_scale, bool int16, LstmQuant *q)
{
    if (attr == nullptr || len != kLstmInt8AttrBytes) return false;
    const int32_t time_major = rd_i32(attr);
    const float clip = rd_f32(attr + 4);
    if ((time_major != 0 && time_major != 1) || !(clip >= 0.0f) || !isfinite(clip)) return false;
    if (!(c_scale > 0.0f) || !(h_scale > 0.0f) || !isfinite(c_scale) || !isfinite(h_scale)) return false;
    q->time_major = time_major == 1;
    for (int g = 0; g < 8; ++g) {
        q->fc_multiplier[g] = rd_i32(attr + 8 + 8 * g);
        q->fc_shift[g] = rd_i32(attr + 12 + 8 * g);
        if (!factor_in_range(q->fc_multiplier[g], q->fc_shift[g])) return false;
        if (int16 && q->fc_shift[g] > 14) return false;  // the 64-bit MBQM's range
    }
    // TFLM: gate outputs are Q0.15 (2^-15); the cell's scale is s_c, h's s_h.
    const float kGateOut = 1.0f / 32768.0f;
    mul_params(kGateOut, c_scale, c_scale, &q->forget_multiplier, &q->forget_shift);
    mul_params(kGateOut, kGateOut, c_scale, &q->input_multiplier, &q->input_shift);
    mul_params(kGateOut, kGateOut, h_scale, &q->output_multiplier, &q->output_shift);
    if (!factor_in_range(q->forget_multiplier, q->forget_shift) ||
        !factor_in_range(q->input_multiplier, q->input_shift) ||
        !factor_in_range(q->output_multiplier, q->output_shift))
        return false;
    // TFLM CreateLstmCellStateInfo: the cell's power of two by CheckedLog2 (rounded float
    // log2), and Tanh's rescaling: left shift 15 + p - 3, or multiplier 3 and a right shift.
    const float log2_scale = logf(c_scale) * (1.0f / logf(2.0f));
    const float rounded = roundf(log2_scale);
    if (!(rounded >= -43.0f && rounded <= 2.0f)) return false;
    const int32_t left = 12 + (int32_t)rounded;
    if (left >= 0) {
        q->tanh_multiplier = 3 << left;
        q->tanh_shift = 0;
    } else {
        q->tanh_multiplier = 3;
        q->tanh_shift = -left;
    }
    q->clip = clip > 0.0f;
    double qc = (double)clip / (double)c_scale;
    qc = qc < -32768.0 ? -32768.0 : (qc > 32767.0 ? 32767.0 : qc);
    q->quantized_clip = (int16_t)qc;
    return true;
}

namespace {

// The step loop for int8 (Act = int8_t) or int16 (Act = int16_t) x, h and y.
template <typename Act>
int run_lstm(const Call &c)
{
    Operand x, h0, c0, y, h, cell;
    if (c.tiled() || input_operand(c, 0, &x) || input_operand(c, 1, &h0) || input_operand(c, 2, &c0) ||
        output_operand(c, 0, &y) || output_operand(c, 1, &h) || output_operand(c, 2, &cell))
        return kError;
    const uint8_t act = sizeof(Act) == 1 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_INT16;
    if (x.dtype != act || h0.dtype != act || y.dtype != act || h.dtype != act || c0.dtype != TIGRIS_DTYPE_INT16 ||
        cell.dtype != TIGRIS_DTYPE_INT16 || !x.quantized || !h0.quantized || !c0.quantized || x.rank != 3 ||
        h0.rank != 2)
        return kError;
    uint8_t len = 0;
    const uint8_t *a = c.attr(TIGRIS_ATTR_LSTM, &len);
    LstmQuant q;
    if (!lstm_quant(a, len, h0.scale, c0.scale, sizeof(Act) == 2, &q)) return kError;
    const int32_t steps = x.shape[q.time_major ? 0 : 1], batch = x.shape[q.time_major ? 1 : 0], in = x.shape[2];
    const int32_t hid = h0.shape[1];
    const int8_t *W[4], *R[4];
    const uint8_t *B[4];
    for (int g = 0; g < 4; ++g) {
        W[g] = (const int8_t *)constant(c, g, (uint32_t)(hid * in));
        R[g] = (const int8_t *)constant(c, 4 + g, (uint32_t)(hid * hid));
        B[g] = constant(c, 8 + g, (uint32_t)hid * (sizeof(Act) == 1 ? 4u : 8u));
        if (W[g] == nullptr || R[g] == nullptr) return kError;
    }
    const uint8_t *table = constant(c, 12, 2u * kSigmoidTableEntries);
    if (table == nullptr) return kError;
    memmove(h.data, h0.data, (size_t)batch * hid * sizeof(Act));
    memmove(cell.data, c0.data, (size_t)batch * hid * 2);
    const int32_t x_offset = -x.zero_point, h_offset = -h0.zero_point, zh = h0.zero_point;
    const int32_t h_min = sizeof(Act) == 1 ? -128 : -32768, h_max = sizeof(Act) == 1 ? 127 : 32767;
    Act *hs = (Act *)h.data;
    Act *ys = (Act *)y.data;
    const Act *xs = (const Act *)x.data;
    for (int32_t t = 0; t < steps; ++t)
        for (int32_t b = 0; b < batch; ++b) {
            const int64_t row = q.time_major ? (int64_t)t * batch + b : (int64_t)b * steps + t;
            const Act *xt = xs + row * in;
            const Act *hp = hs + (int64_t)b * hid;
            Act *yt = ys + row * hid;
            uint8_t *ct = cell.data + (int64_t)b * hid * 2;
            for (int32_t j = 0; j < hid; ++j) {
                int16_t gate[4];  // i, f, c, o
                for (int g = 0; g < 4; ++g) {
                    const int16_t from_x =
                        fc16(W[g] + (int64_t)j * in, xt, in, x_offset, B[g], j, q.fc_multiplier[g], q.fc_shift[g]);
                    const int16_t from_h = fc16(R[g] + (int64_t)j * hid, hp, hid, h_offset, nullptr, j,
                                                q.fc_multiplier[4 + g], q.fc_shift[4 + g]);
                    gate[g] = sat16((int32_t)from_x + from_h);
                }
                const int16_t ig = sigmoid16(table, gate[0]), fg = sigmoid16(table, gate[1]);
                const int16_t gg = tanh16(table, 3, 0, gate[2]), og = sigmoid16(table, gate[3]);
                int16_t cv;
                memcpy(&cv, ct + 2 * j, 2);
                const int16_t kept =
                    sat16(multiply_by_quantized_multiplier((int32_t)fg * cv, q.forget_multiplier, q.forget_shift));
                const int16_t added =
                    sat16(multiply_by_quantized_multiplier((int32_t)ig * gg, q.input_multiplier, q.input_shift));
                cv = sat16((int32_t)kept + added);
                if (q.clip)
                    cv = cv > q.quantized_clip ? q.quantized_clip
                                               : (cv < -q.quantized_clip ? (int16_t)-q.quantized_clip : cv);
                memcpy(ct + 2 * j, &cv, 2);
                const int16_t tc = tanh16(table, q.tanh_multiplier, q.tanh_shift, cv);
                const int32_t hv =
                    zh + multiply_by_quantized_multiplier((int32_t)tc * og, q.output_multiplier, q.output_shift);
                yt[j] = (Act)clamp_i32(hv, h_min, h_max);
            }
            memcpy(hs + (int64_t)b * hid, yt, (size_t)hid * sizeof(Act));
        }
    return 0;
}

}  // namespace

int lstm(const Call &c) { return run_lstm<int8_t>(c); }

}  // namespace tigris_s8

namespace tigris_s16 {

// The 16x8 form: int16 x, h and y, int64 biases (TFLM's EvalLstm<int16_t, int8_t, int16_t, int64_t>).
int lstm(const Call &c) { return tigris_s8::run_lstm<int16_t>(c); }

}  // namespace tigris_s16
