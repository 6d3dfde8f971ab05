// The int8 depthwise convolution of channel multiplier 1 (NHWC), the shape of every depthwise
// layer of the MobileNet / DS-CNN families, arranged for a Cortex-M with the DSP extension:
// blocks of four adjacent channels, their weights widened to int16 pairs once per block (so the
// pixel loop loads a tap's four weights with one double-word load and no SXTB16), interior
// pixels (window inside the input) with a fixed tap pattern and the input offset folded into the
// biases, a 3x3 window unrolled for edge pixels too (they read the neighbouring row or column
// with that tap's weights zero), other edge pixels with the taps clipped to the input; calls of
// few pixels (small bands) on a zero-point-padded copy of their input, so one table serves every
// pixel; four outputs requantized together (s8_requant.h). Bit-exact with TFLite's reference
// kernel (integer sums wrap, in any order; the requantization is
// multiply_by_quantized_multiplier's arithmetic).
// A channel band (chan_tiled) reads weights, biases and factors at the global channel chan0 + c.
#pragma once

#include "kernels/s8/s8_op.h"

namespace tigris_s8 {
namespace dw_m1 {

// Windows of at most this many taps take this path (the widened weights of a block live in a
// stack buffer of 2 words per tap); larger windows take the generic loop.
constexpr int32_t kMaxTaps = 25;

// The layer's operands, resolved by the caller (s8_conv.cpp): x and y the buffers of the
// call (band buffers when tiled), w the layer's [KH, KW, wc] weights, bias the layer's wc
// int32 values or nullptr.
struct Layer {
    const kern::SpatialGeom *g;
    const tigris_plan_t *plan;
    const Operand *out;
    const int8_t *x;
    int8_t *y;
    const int8_t *w;
    const uint8_t *bias;
    int32_t wc, in_offset, act_min, act_max;
};

// True when the call can take this path: multiplier 1, at most kMaxTaps taps.
inline bool applies(const kern::SpatialGeom &g)
{
    return g.c_out == g.c_in && g.k_h > 0 && g.k_w > 0 && g.k_h * g.k_w <= kMaxTaps;
}

// run()'s answer when a channel's factors are outside the range the loader admits (a plan the
// loader refused, handed to the kernel anyway): the caller's generic loop computes the call.
constexpr int kGeneric = 1;

// Computes every channel of the call: 0, kError when a channel's factors are missing, kGeneric.
int run(const Layer &l);

}  // namespace dw_m1
}  // namespace tigris_s8
