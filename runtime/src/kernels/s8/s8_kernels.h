// The int8 reference kernels behind tigris_dispatch_kernel_s8. Each returns 0, kError
// (-1) on an operand it cannot handle, or kDelegate (-2) when the op is plain byte
// movement the float kernels run; none writes outside its output view.
#pragma once

#include "kernels/common/geometry.h"
#include "tigris_executor.h"

namespace tigris_s8 {

using Call = tigris_rt::kern::Call;
using KernelFn = int (*)(const Call &call);

// s8_conv.cpp
int conv(const Call &);
int depthwise(const Call &);
int fully_connected(const Call &);

// s8_pool.cpp
int avg_pool(const Call &);
int max_pool(const Call &);
int global_avg(const Call &);
int global_max(const Call &);
int reduce_mean(const Call &);
int reduce_max(const Call &);
int reduce_min(const Call &);
int reduce_sum(const Call &);

// s8_binary.cpp
int add(const Call &);
int sub(const Call &);
int mul(const Call &);
int maximum(const Call &);
int minimum(const Call &);

// s8_activation.cpp
int relu(const Call &);
int relu6(const Call &);
int clip(const Call &);
int leaky_relu(const Call &);
int hard_swish(const Call &);
int table(const Call &);  // TABLE: y = weight[(uint8)x]
int sigmoid(const Call &);
int tanh_act(const Call &);

// s8_softmax.cpp
int softmax(const Call &);

// s8_movement.cpp
int copy(const Call &);
int concat(const Call &);
int pad(const Call &);
int transpose(const Call &);
int strided_slice(const Call &);

// s8_resize.cpp
int resize_nearest(const Call &);
int resize_bilinear(const Call &);

// s8_quantize.cpp: CAST with a quantized int8 side (quantize / dequantize / requantize).
int quantize_cast(const Call &);
// s8_lstm.cpp: UNIDIRECTIONAL_SEQUENCE_LSTM (int8 activations, int16 cell state).
int lstm(const Call &);

// s8_svdf.cpp: SVDF with an int16 (or int8) state.
int svdf(const Call &);

}  // namespace tigris_s8
