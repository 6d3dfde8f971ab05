// The int16 (16x8) reference kernels: int16 activations, int8 weights, int64 (or int32)
// biases, as TensorFlow Lite Micro's reference kernels compute them. Each returns 0,
// tigris_s8::kError (-1) on an operand it cannot handle, or tigris_s8::kDelegate (-2) when
// the op is plain byte movement the float kernels run (TFLite moves int16 bytes without
// requantizing). Operand access and geometry are the int8 kernels' (s8_op.h) and
// kernels/common's; none writes outside its output view.
#pragma once

#include "kernels/s8/s8_op.h"

namespace tigris_s16 {

using Call = tigris_rt::kern::Call;
using KernelFn = int (*)(const Call &call);
using tigris_s8::kDelegate;
using tigris_s8::kError;

// s16_conv.cpp
int conv(const Call &);
int depthwise(const Call &);
int fully_connected(const Call &);
int conv_transpose(const Call &);

// s16_binary.cpp
int add(const Call &);
int sub(const Call &);
int mul(const Call &);

// s16_activation.cpp
int leaky_relu(const Call &);
int sigmoid(const Call &);
int tanh_act(const Call &);

// s16_softmax.cpp
int softmax(const Call &);

// s16_pool.cpp
int avg_pool(const Call &);
int max_pool(const Call &);
int global_avg(const Call &);
int global_max(const Call &);
int reduce_mean(const Call &);

// s16_movement.cpp
int pad(const Call &);
int byte_movement(const Call &);  // RESHAPE & co, CONCAT, TRANSPOSE, STRIDED_SLICE: kDelegate

// s16_quantize.cpp: CAST with a quantized int16 side (quantize / dequantize / requantize).
int quantize_cast(const Call &);

// s16_dispatch.cpp. Whether the int16 kernels own this op: its kernel dtype is int16 with a quant param on
// input 0, or it is a CAST with a quantized int16 side.
bool owns(const tigris_plan_t *plan, const tigris_op_t *op);

// Runs the op when the int16 kernels own it: the kernel's result, or kDelegate when they do
// not own it (or it is byte movement the float kernels run).
int dispatch(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem);

// s8/s8_lstm.cpp: UNIDIRECTIONAL_SEQUENCE_LSTM, 16x8 (the int8 form's step with int16 x, h, y
// and int64 biases).
int lstm(const Call &);

}  // namespace tigris_s16
