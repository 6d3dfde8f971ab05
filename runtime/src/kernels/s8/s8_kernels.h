// The int8 reference kernels behind tigris_dispatch_kernel_s8. Each returns 0, kError
// (-1) on an operand it cannot handle, or kDelegate (-2) when the op is plain byte
// movement the float kernels run; none writes outside its output view.
#pragma once

#include "tigris_executor.h"

namespace tigris_s8 {

using KernelFn = int (*)(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                         tigris_mem_t *mem);

// s8_conv.cpp
int conv(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int depthwise(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int fully_connected(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);

// s8_pool.cpp
int avg_pool(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int max_pool(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int global_avg(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int global_max(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int reduce_mean(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);

// s8_binary.cpp
int add(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int sub(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int mul(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int maximum(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int minimum(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);

// s8_activation.cpp
int relu(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int relu6(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int clip(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int leaky_relu(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int hard_swish(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int sigmoid(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int tanh_act(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);

// s8_softmax.cpp
int softmax(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);

// s8_movement.cpp
int copy(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int concat(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int pad(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int transpose(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int strided_slice(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);

// s8_resize.cpp
int resize_nearest(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);
int resize_bilinear(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);

// s8_quantize.cpp: CAST with a quantized int8 side (quantize / dequantize / requantize).
int quantize_cast(const tigris_plan_t *, const tigris_op_t *, uint16_t, tigris_mem_t *);

// The int8 kernel of an opcode, or nullptr (kernels/kernel_set_s8.cpp).
KernelFn kernel_for(uint8_t op_type);

}  // namespace tigris_s8
