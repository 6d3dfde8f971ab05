// int8 convolution of one group (NHWC, weights [oc][kh][kw][ic]) for a Cortex-M with the DSP
// extension and without Helium, the CMSIS-NN adapter's choice for KxK convolutions there
// (backends/cmsis_nn/cmsis_nn_layers.cpp, docs/backends.md §2). The windows of two output
// pixels are gathered into a caller-owned int16 buffer with the input offset added (padded
// taps 0), each block of four window values stored as the two int16 pairs SXTB16 unpacks four
// int8 weights into ((k0, k2), (k1, k3)), so the weights are read as stored, one word per four.
// Then two output channels x two pixels (a lone last pixel: one) accumulate with SMLAD and are requantized
// with s8_requant.h's prepared factors. Bit-exact with TFLite's reference kernel: integer sums
// wrap in any order, the requantization is multiply_by_quantized_multiplier's arithmetic.
// Without the DSP extension the same buffer layout and loops run in plain C (host tests).
#pragma once

#include <stdint.h>

#include "kernels/common/geometry.h"

namespace tigris_s8 {
namespace im2col {

// One call's operands. g: the call's geometry (row bands: in_row_start, out_row_start; an
// output-channel band: g->c_out of the layer's channels, w / bias / factors already at the
// band's first channel). Input pixels are g->c_in values apart, output pixels g->c_out.
struct Conv {
    const tigris_rt::kern::SpatialGeom *g;
    const int8_t *x;
    int8_t *y;
    const int8_t *w;                                  // [g->c_out][k_h][k_w][g->c_in]
    const int32_t *bias;                              // g->c_out values, or nullptr
    const int32_t *mult, *shift;                      // factors of output channel oc at [oc * factor_step]
    int32_t factor_step;                              // 1 per channel, 0 per tensor
    int32_t in_offset, out_offset, act_min, act_max;  // in_offset = -input zero point
    // The caller has checked that every factor is one s8_requant.h's channel_q takes (the
    // CMSIS-NN adapter's conv_layer does): run() then skips its own pass over the channels,
    // which costs as much as a one-pixel tile's products on a small window.
    bool factors_checked;
};

// Bytes of int16 buffer run() needs: two pixels' windows, K = c_in x k_h x k_w values each
// rounded up to a multiple of 4 (4 x that: what CMSIS-NN's DSP arm_convolve_s8 reserves); 8-aligned.
int64_t buffer_bytes(const tigris_rt::kern::SpatialGeom &g);

// run()'s answer when it did not compute the call (nothing written): a buffer smaller than
// buffer_bytes or misaligned, an empty or inconsistent geometry, or (without factors_checked)
// a channel's factors outside what s8_requant.h's channel_q takes. The caller computes the
// call another way.
constexpr int kRefused = 1;

// Computes every output of the call into c.y: 0, or kRefused.
int run(const Conv &c, void *buffer, int64_t buffer_size);

}  // namespace im2col
}  // namespace tigris_s8
