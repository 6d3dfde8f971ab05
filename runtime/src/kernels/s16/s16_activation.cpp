// int16 LEAKY_RELU, LOGISTIC and TANH, as TFLite Micro's reference kernels compute them.
//   LEAKY_RELU: x' = x - zx; y = clamp(zy + MBQM(x', m_id, s_id)) for x' >= 0, else with the
//     alpha factors (a negative alpha multiplies by |m| and negates).
//   LOGISTIC / TANH: the input rescaled by (multiplier, left shift) (TFLM's Prepare), then the
//     256-entry table of sigmoid(i / 24) in Q0.16 interpolated (9 fractional bits for
//     LOGISTIC, 8 for TANH, using tanh(x) = 2 sigmoid(2x) - 1). The table is the op's weight.
// Elements map one to one, banded like every pointwise op (kern::pointwise_band).
#include <stdlib.h>
#include <string.h>

#include "common/le_bytes.h"
#include "kernels/s16/s16_kernels.h"
#include "kernels/s16/s16_params.h"
#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s16 {
namespace {

using namespace tigris_s8;

int int16_io(const Call &c, PointwiseIO *io)
{
    if (pointwise_io(c, io)) return kError;
    if (io->in.dtype != TIGRIS_DTYPE_INT16 || io->out.dtype != TIGRIS_DTYPE_INT16) return kError;
    return io->in.quantized && io->out.quantized ? 0 : kError;
}

template <typename Fn>
int map_int16(const PointwiseIO &io, Fn fn)
{
    return tigris_rt::kern::for_each_position(io.vo, io.vi, [&](uint8_t *o, uint8_t *i) {
        int16_t x;
        memcpy(&x, i, 2);
        const int16_t y = fn((int32_t)x);
        memcpy(o, &y, 2);
    });
}

// The op's sigmoid table (kSigmoidTableEntries little-endian uint16), or nullptr.
const uint8_t *sigmoid_table(const Call &c) { return op_weight_bytes(c, 2u * kSigmoidTableEntries); }

inline uint32_t table_at(const uint8_t *t, uint32_t i) { return tigris_rt::rd_u16(t + 2 * i); }

// The input rescaled for the table (TFLM: x * multiplier + round, shifted right).
struct Rescale {
    int32_t multiplier, shift, round;
    int32_t apply(int32_t x) const { return (int32_t)(((int64_t)x * multiplier + round) >> shift); }
};

bool rescale(const PointwiseIO &io, bool tanh, Rescale *r)
{
    SigmoidTanhParams p;
    if (io.in.zero_point != 0 || io.out.zero_point != 0) return false;
    if (!sigmoid_tanh_params(io.in.scale, io.out.scale, tanh, &p)) return false;
    r->multiplier = p.input_multiplier;
    r->shift = p.input_left_shift;
    if (r->multiplier == 0) {  // power-of-two scale
        r->multiplier = 3 << r->shift;
        r->shift = 0;
    }
    r->round = r->shift > 0 ? 1 << (r->shift - 1) : 0;
    return true;
}

}  // namespace

int leaky_relu(const Call &c)
{
    PointwiseIO io;
    if (int16_io(c, &io)) return kError;
    uint8_t len = 0;
    const uint8_t *alpha = c.attr(TIGRIS_ATTR_ALPHA, &len);
    LeakyReluParams p;
    leaky_relu_params(io.in.scale, alpha != nullptr && len >= 4 ? tigris_rt::rd_f32(alpha) : 0.01f, io.out.scale, &p);
    const bool negative_alpha = p.alpha_multiplier < 0;
    const int32_t alpha_m = negative_alpha ? wrap_neg(p.alpha_multiplier) : p.alpha_multiplier;
    const int32_t zx = io.in.zero_point, zy = io.out.zero_point;
    return map_int16(io, [&](int32_t v) {
        const int32_t input = v - zx;
        int32_t y = zy;
        if (input >= 0) {
            y = wrap_add(y, multiply_by_quantized_multiplier(input, p.identity_multiplier, p.identity_shift));
        } else {
            const int32_t scaled = multiply_by_quantized_multiplier(input, alpha_m, p.alpha_shift);
            y = wrap_add(y, negative_alpha ? wrap_neg(scaled) : scaled);
        }
        return clamp_s16(y);
    });
}

int sigmoid(const Call &c)
{
    PointwiseIO io;
    Rescale r;
    const uint8_t *table = sigmoid_table(c);
    if (int16_io(c, &io) || table == nullptr || !rescale(io, false, &r)) return kError;
    return map_int16(io, [&](int32_t v) {
        const int32_t x = r.apply(v);
        const uint32_t ax = (uint32_t)abs(x);
        const uint32_t uh = ax >> 9;
        uint32_t result;
        if (uh >= 255) {
            result = 0x7FFFu << 10;  // saturated
        } else {
            const uint32_t ua = table_at(table, uh), ub = table_at(table, uh + 1);
            result = (ua << 9) + (ax & 0x1FFu) * (ub - ua);
        }
        result = x >= 0 ? result + (1u << 9) : (1u << (16 + 9)) - result + (1u << 9) - 1u;
        return (int16_t)(result >> 10);
    });
}

int tanh_act(const Call &c)
{
    PointwiseIO io;
    Rescale r;
    const uint8_t *table = sigmoid_table(c);
    if (int16_io(c, &io) || table == nullptr || !rescale(io, true, &r)) return kError;
    return map_int16(io, [&](int32_t v) {
        const int32_t x = r.apply(v);
        const uint32_t ax = (uint32_t)abs(x);
        const uint32_t uh = ax >> 8;
        int32_t result;
        if (uh >= 255) {
            result = (int32_t)(0xFFFFu << 8);  // saturated
        } else {
            const uint32_t ua = table_at(table, uh), ub = table_at(table, uh + 1);
            result = (int32_t)((ua << 8) + (ax & 0xFFu) * (ub - ua));
        }
        result = x >= 0 ? result - (1 << (14 + 9)) + (1 << (9 - 2)) : -result + (1 << (14 + 9)) + (1 << (9 - 2)) - 1;
        return (int16_t)(result >> (9 - 1));
    });
}

}  // namespace tigris_s16
