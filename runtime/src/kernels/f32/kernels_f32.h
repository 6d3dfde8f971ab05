// Float reference kernels, one entry point per family (runtime/src/kernels/f32/*.cpp).
// Each returns 0, or -1 for anything it cannot compute (unsupported dtype, missing buffer,
// inconsistent tile context). Shapes and attributes were checked by the loader.
#pragma once

#include <math.h>

#include "kernels/common/geometry.h"

namespace tigris_rt {
namespace f32 {

using kern::Call;

int conv(const Call &c);                   // Conv, Depthwise, Conv1D (conv.cpp)
int conv_transpose(const Call &c);         // conv_transpose.cpp
int pool(const Call &c);                   // MaxPool, AvgPool, L2Pool (pool.cpp)
int global_pool(const Call &c);            // GlobalAvg, GlobalMax (pool.cpp)
int fully_connected(const Call &c);        // matrix.cpp
int matmul(const Call &c);                 // matrix.cpp
int binary(const Call &c);                 // arithmetic, comparisons, logical, Select (binary.cpp)
int add_n(const Call &c);                  // binary.cpp
int unary(const Call &c);                  // activations, math, LogicalNot (unary.cpp)
int cast(const Call &c);                   // cast.cpp
int softmax(const Call &c);                // Softmax, LogSoftmax (softmax.cpp)
int norm(const Call &c);                   // BatchNorm, InstNorm, LayerNorm, L2Norm (norm.cpp)
int reduce(const Call &c);                 // Reduce*, ArgMax/Min, CumSum (reduce.cpp)
int resize(const Call &c);                 // Resize, ResizeLinear (resize.cpp)
int concat_split(const Call &c);           // Concat, Split (movement.cpp)
int pad(const Call &c);                    // Pad, MirrorPad (pad.cpp)
int transpose(const Call &c);              // movement.cpp
int reshape(const Call &c);                // Reshape, Flatten, Squeeze, Unsqueeze (movement.cpp)
int constant(const Call &c);               // Constant: the weight's bytes (movement.cpp)
int gather(const Call &c);                 // Gather, GatherND, EmbeddingLookup (gather.cpp)
int slice(const Call &c);                  // StridedSlice, ReverseV2, DynamicUpdateSlice (slice.cpp)
int svdf(const Call &c);                   // sequence.cpp
int lstm(const Call &c);                   // sequence.cpp
int detection_postprocess(const Call &c);  // detection.cpp

// Views of input 0 and output 0 (same shape) under the call's band; -1 when the band cuts an
// axis of [a0, a1] or a buffer is missing (softmax.cpp).
int same_shape_views(const Call &c, int a0, int a1, kern::View *in, kern::View *out);

// Fused activation of Conv/Depthwise/FC/Conv1D/Add.
inline float fused(float x, uint8_t act)
{
    if (act == TIGRIS_ACT_RELU) return x > 0.0f ? x : 0.0f;
    if (act == TIGRIS_ACT_RELU6) return x > 0.0f ? (x < 6.0f ? x : 6.0f) : 0.0f;
    return x;
}

}  // namespace f32
}  // namespace tigris_rt
