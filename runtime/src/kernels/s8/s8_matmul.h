// The int8 matrix product of a 1x1 convolution (rows: pixels) and of a fully connected layer
// (rows: batch rows):
//   y[r][c] = clamp(requant(bias[c] + sum_k w[c][k] * (x[r][k] + in_offset)) + out_zp, lo, hi)
// arranged for a Cortex-M with the DSP extension. Blocks of four output channels, their factors
// prepared once (s8_requant.h) and kept for every row they serve. With many rows the block's
// weights are widened to int16 pairs once into a stack buffer, so a row costs one word load and
// two SXTAB16 per four inputs and one doubleword load and two SMLAD per channel; with one to
// eight rows (a fully connected layer of batch 1, a tile of a few pixels) the rows are widened
// once per call instead and each weight word is split by two ANDs (few_rows below); longer
// few-row calls read the four weight rows directly. The input offset is added to the
// input (SXTAB16), so no call sums weights. Without the DSP extension the same packing and lane
// operations run in plain C (the host tests exercise them). Bit-exact with TFLite: integer sums
// wrap, in any order; the requantization is multiply_by_quantized_multiplier's arithmetic.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "kernels/s8/s8_requant.h"

namespace tigris_s8 {
namespace mm {

// run()'s answer when a channel's factors are outside what s8_requant.h takes (m == INT32_MIN,
// a shift outside kMinShift..kMaxShift): the caller computes the whole call its generic way
// (rewriting the outputs run() wrote).
constexpr int kGeneric = 1;

// The widened-weight buffer holds this many inputs of four channels (1 KiB of stack); longer
// rows take the direct path.
constexpr int32_t kMaxPackedK = 128;

// Rows from which the block's weights are widened once (below: the direct path, cheaper than a
// widening pass for so few rows).
constexpr int32_t kPackRows = 4;

// Up to kFewMaxRows rows (below) whose inputs (rows x k) fit this many int16 values (1.5 KiB of
// stack, in a frame of its own) are widened once per call instead, with the offset added, and
// each weight word is split without sign extension: w & 0xFF00FF00 holds (256 w1, 256 w3) as
// int16 lanes, (w << 8) & 0xFF00FF00 holds (256 w0, 256 w2). The sums are 256 times the
// products; a chunk of kFewChunk inputs keeps them below 2^31 (|x + offset| <= 383, |w| <= 128),
// so each chunk's sum shifted right by 8 is exact. Longer rows take the direct path.
constexpr int32_t kFewMaxInputs = 768;
constexpr int32_t kFewChunk = 128;

// Up to this many rows take the few-row path, where they fit kFewMaxInputs (more take the
// packed one): 4 to 8 rows of the band tiles of tight budgets cost fewer instructions widened
// once per call than with each block's weights widened per call (vww at 1 KiB 28.60M -> 26.70M
// on the Cortex-M4); with up to 16 rows str_ww and vww at 2-4 KiB ran slower again.
constexpr int32_t kFewMaxRows = 8;

struct Product {
    const int8_t *x;    // row r at x + r * x_stride, k values
    ptrdiff_t x_stride;
    int32_t rows, k;
    const int8_t *w;    // channel c's k weights at w + c * k
    int32_t channels;
    int8_t *y;          // y[r * y_stride + c]
    ptrdiff_t y_stride;
    int32_t in_offset, out_zp, act_min, act_max;
    const int32_t *mult = nullptr, *shift = nullptr;  // channel c's factors at [c]; per_tensor: [0] for all
    bool per_tensor = false;
    const uint8_t *bias = nullptr;  // channel c's int32 bias at bias + 4 c (any alignment), or nullptr
};

// True when run() widens the weights once for the rows (several rows, k <= kMaxPackedK): the
// shapes where it beats CMSIS-NN's kernels on the Cortex-M4 (docs/backends.md §2).
inline bool packs(int32_t rows, int32_t k) { return rows >= kPackRows && k >= 4 && k <= kMaxPackedK; }

// True when run() takes the few-row path above (one to kFewMaxRows rows, 8 <= k, rows x k
// within kFewMaxInputs, at least four channels): the shapes where it beats CMSIS-NN's
// vector-matrix kernels and the packed path on the Cortex-M4 (docs/backends.md §2).
inline bool few_rows(int32_t rows, int32_t k, int32_t channels)
{
    return rows >= 1 && rows <= kFewMaxRows && k >= 8 && (int64_t)rows * k <= kFewMaxInputs && channels >= 4;
}

// 0, or kGeneric.
int run(const Product &p);

}  // namespace mm
}  // namespace tigris_s8
