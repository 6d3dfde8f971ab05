// What the accelerated int8 adapters (CMSIS-NN, ESP-NN) share: which ops the int8 reference
// kernels own, and each accelerable op resolved from the plan and the tile context into the
// plain numbers a vendor kernel takes. A resolver answers 0 when the op can be forwarded as
// described (docs/backends.md §2) and kFallback otherwise; it reads only plan metadata, so
// prepare-time scans (no buffers) and dispatch use the same rules. Data pointers are bound
// at dispatch.
#pragma once

#include <stdint.h>

#include "kernels/common/geometry.h"
#include "tigris.h"
#include "tigris_mem.h"

namespace tigris_accel {

using tigris_rt::kern::Call;
using tigris_rt::kern::SpatialGeom;

constexpr int kFallback = 1;
// Largest extent handed to a vendor kernel (both libraries keep dims in 16 bits, esp-nn
// some window origins in int16).
constexpr int32_t kMaxDim = 32767;

// Candidates for forwarding: ops the int8 reference kernels own (quantized int8 input 0, int8
// kernel dtype; CAST excluded) whose operand indices are all in range.
bool int8_op(const tigris_plan_t *plan, const tigris_op_t *op);
// Every input and output index of the op names a tensor of the plan.
bool op_indices_valid(const tigris_plan_t *plan, const tigris_op_t *op);

// One image's window. Rows are trimmed so the outputs read exactly the rows handed over:
// (out_h - 1) * s_h + k_h == pad_top + in_h + pad_bottom. Columns keep the buffer's width
// (it is the row stride): (out_w - 1) * s_w + k_w == pad_left + in_w + pad_right - extra_w,
// with extra_w unread columns at the right. Every window touches the input
// (pad_top, pad_left < kernel; pad_bottom, pad_right < kernel).
struct Window {
    int32_t in_h, in_w, out_h, out_w;
    int32_t k_h, k_w, s_h, s_w;
    int32_t pad_top, pad_bottom, pad_left, pad_right;
    int32_t extra_w;
};
// False when the geometry has dilation, an empty output or a window of padding only.
bool tight_window(const SpatialGeom &g, Window *w);

// Requantization of a conv-like output: per-channel arrays from the plan, or one pair to
// expand (per_tensor). Multipliers are never INT32_MIN and shifts lie in [-31, 30], where the
// vendor arithmetic equals TFLite's.
struct Requant {
    const int32_t *mult, *shift;  // num_channels == channels
    int32_t mult0, shift0;        // per_tensor
    bool per_tensor;
};

// Every per-channel factor of every int8 CONV / DEPTHWISE / FULLY_CONNECTED output of the
// plan is one the vendors take (the check conv_layer and fc_layer make per call otherwise).
// An adapter checks this once when it prepares a plan and passes `factors_checked` to the
// resolvers, so a banded stage's many calls skip a scan of every output channel.
bool plan_factors_in_range(const tigris_plan_t *plan);

// CONV (groups allowed) or DEPTHWISE resolved for the call (tile context included).
struct ConvLayer {
    SpatialGeom g;  // batch, channels, buffer strides, band row starts
    Window win;     // per image
    int32_t groups, ch_mult;
    int32_t in_offset, out_offset, act_min, act_max;  // in_offset = -in_zp
    Requant rq;
    const int8_t *weights;  // NULL while a compressed block is not decoded
    const int32_t *bias;    // NULL when the op has none
    bool depthwise;
    // A channel band (tile chan_tiled): g.c_out of the layer's channels from global channel
    // chan0, and weights, bias and per-channel factors above already point at chan0. A Conv
    // band (chan_mix) reads contiguous weights; a depthwise band's weights are strided: tap t
    // of band channel k at weights[t * w_stride + k] (w_stride the layer's channels; equal
    // to g.c_out, contiguous, outside a band).
    bool chan_band;
    int32_t chan0, w_stride;
};
// Channel bands are resolved only with `chan_bands` (an adapter that handles the offsets).
int conv_layer(const Call &c, ConvLayer *l, bool factors_checked = false, bool chan_bands = false);

// FULLY_CONNECTED: `rows` rows of in_c values from input row in_row0 to output row out_row0.
// With `chan_bands`, an output-channel band (chan_mix): out_c columns of the layer's from
// column chan0, weights, bias and per-channel factors already at chan0, rows out_c wide.
struct FcLayer {
    int32_t rows, in_c, out_c, in_row0, out_row0;
    int32_t in_offset, out_offset, act_min, act_max;
    Requant rq;  // per_tensor: (mult0, shift0)
    const int8_t *weights;
    const int32_t *bias;
};
int fc_layer(const Call &c, FcLayer *l, bool factors_checked = false, bool chan_bands = false);

// AVG_POOL (untiled, equal in/out quantization, no dilation, count_include_pad only without
// padding) and, with `global`, GLOBAL_AVG with AVERAGE_POOL rounding (POOL_ROUNDING bit0) as
// a pool over the whole map.
struct PoolLayer {
    int32_t n, c;
    Window win;
    int32_t act_min, act_max;
};
int avg_pool_layer(const Call &c, PoolLayer *l);
int global_avg_layer(const Call &c, PoolLayer *l);

// MUL of two same-shape tensors (no constant, no broadcast), per-tensor quantization, result
// shift in [-31, 15]; whole or banded by rows (stripes): `segments` runs of `count` elements.
struct MulLayer {
    int32_t segments, count;
    int64_t in_seg_stride, out_seg_stride, in_first, out_first;  // elements
    int32_t in1_offset, in2_offset, out_offset, mult, shift, act_min, act_max;
};
int mul_layer(const Call &c, MulLayer *l);

// ADD of two same-shape tensors (no constant, no broadcast), per-tensor quantization: each
// operand (x - zp) << left_shift requantized by its factor, the sum by the output's
// (`seg.mult`, `seg.shift`), as the reference; factors derived as TFLM does or from
// BINARY_REQUANT, every multiplier != INT32_MIN and every shift in [-31, 0]. Segments as MUL.
struct AddLayer {
    MulLayer seg;
    int32_t in1_mult, in1_shift, in2_mult, in2_shift, left_shift;
};
int add_layer(const Call &c, AddLayer *l);

// MAXIMUM / MINIMUM of two same-shape tensors that share the output's quantization: plain
// byte comparisons over `segments` x `count` elements, as MulLayer.
int min_max_layer(const Call &c, MulLayer *l);

// The tensor buffer of input / output i of the call (NULL when unbound).
int8_t *input_data(const Call &c, uint8_t i);
int8_t *output_data(const Call &c, uint8_t i);

// Round up to a multiple of 16 in 64 bits (sizes are checked against UINT32_MAX by callers).
inline uint64_t align16(uint64_t n) { return (n + 15u) & ~(uint64_t)15u; }

// A call with no tile context and no buffers, for prepare-time scans of a plan.
struct ScanCall {
    tigris_mem_t mem;
    Call call;
    ScanCall(const tigris_plan_t *plan, uint16_t op_index);
};

}  // namespace tigris_accel
