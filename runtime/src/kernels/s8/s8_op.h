// Operand access of the int8 kernels: tensor records with their quantization, the
// requantization factors stored on outputs, weights, attribute reads. Geometry (shapes +
// tile context -> extents, paddings, band views) comes from kernels/common/geometry.h,
// shared with the float kernels.
#pragma once

#include <stdint.h>

#include "common/le_bytes.h"
#include "kernels/common/geometry.h"
#include "kernels/common/lanes.h"
#include "tigris_executor.h"

namespace tigris_s8 {

namespace kern = tigris_rt::kern;

constexpr int kMaxRank = kern::kMaxRank;
constexpr int kError = -1;
// A kernel's answer "plain byte movement: let the float kernels run it".
constexpr int kDelegate = -2;

// One tensor operand of an op: record, shape, quantization and data.
struct Operand {
    uint16_t index = TIGRIS_NONE;
    uint8_t dtype = 0;
    uint8_t rank = 0;
    const int32_t *shape = nullptr;
    uint32_t elements = 0;
    float scale = 1.0f;  // 1 and 0 when unquantized
    int32_t zero_point = 0;
    bool quantized = false;
    const tigris_quant_param_t *quant = nullptr;
    uint8_t *data = nullptr;  // tensor buffer (band buffer when tiled)
};

// Input / output `i` of the call; kError when the index, record or buffer is unusable.
int input_operand(const kern::Call &c, int i, Operand *out);
int output_operand(const kern::Call &c, int i, Operand *out);

// Scale and zero point of a quant param (1, 0 when null).
void quant_values(const tigris_quant_param_t *q, float *scale, int32_t *zero_point);

// Same quantization (TFLM's tolerance: |scale difference| <= 1e-6, equal zero points).
bool same_quant(float s1, int32_t z1, float s2, int32_t z2);
inline bool same_quant(const Operand &a, const Operand &b)
{
    return same_quant(a.scale, a.zero_point, b.scale, b.zero_point);
}

// Output requantization factors of channel c from the output's quant param (per-tensor
// when it has one channel); false when the output carries none.
bool output_requant(const tigris_plan_t *plan, const Operand &out, int32_t c, int32_t *multiplier, int *shift);

// The op's weight (or bias) bytes when present and at least `bytes` long, else nullptr.
const uint8_t *op_weight_bytes(const kern::Call &c, uint32_t bytes);
const uint8_t *op_bias_bytes(const kern::Call &c, uint32_t bytes);

// Little-endian reads of attribute payloads and weight blobs (possibly unaligned).
using tigris_rt::rd_f32;
using tigris_rt::rd_i32;

// Input 0 and output 0 of a pointwise call as views under the call's band.
struct PointwiseIO {
    Operand in, out;
    kern::View vi, vo;
};
int pointwise_io(const kern::Call &c, PointwiseIO *io);

// Calls fn(int8_t *out, const int8_t *in) for every element of io.vo (in broadcast).
template <typename Fn>
int map_int8(const PointwiseIO &io, Fn fn)
{
    return kern::for_each_position(io.vo, io.vi, [&](uint8_t *o, uint8_t *i) { fn((int8_t *)o, (const int8_t *)i); });
}

}  // namespace tigris_s8
