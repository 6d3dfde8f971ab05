// Which kernels this build contains. A build may leave kernel families out to save
// flash (TIGRIS_NO_KERNEL_<NAME> definitions, see docs/operators.md); the loader refuses
// a plan that uses a left-out kernel with TIGRIS_ERR_KERNEL_DISABLED.
#pragma once

#include <stdint.h>

#include "tigris.h"

namespace tigris_rt {

// True when this build has a kernel for op_type with activations of `dtype`
// (TIGRIS_DTYPE_FLOAT32, TIGRIS_DTYPE_INT8, TIGRIS_DTYPE_INT16, ...).
bool kernel_enabled(uint8_t op_type, uint8_t dtype);

// The float reference kernels: the kernel dtypes of the op's row of the operator table
// (float32 and the non-quantized dtypes: int32, int64, uint8, bool, int8 byte movement).
bool kernel_enabled_f32(uint8_t op_type, uint8_t dtype);

// The int8 reference kernels: the op's row names an int8 kernel (quantized int8 data).
// kernel_enabled(op, INT8) is kernel_enabled_s8(op) || kernel_enabled_f32(op, INT8).
bool kernel_enabled_s8(uint8_t op_type);

// The int16 reference kernels: the op's row names an int16 kernel other than byte movement
// (quantized int16 data; int16 byte movement is the float kernels'). kernel_enabled(op,
// INT16) is kernel_enabled_s16(op) || kernel_enabled_f32(op, INT16).
bool kernel_enabled_s16(uint8_t op_type);

// The dtype an op's kernel is chosen by (docs/operators.md §1): input 0's dtype, except
// Select (input 1) and EmbeddingLookup (output 0). The loader passes it to kernel_enabled.
inline uint8_t op_kernel_dtype(const tigris_plan_t *plan, const tigris_op_t *op)
{
    const uint16_t *ins = tigris_op_inputs(plan, op);
    if (op->op_type == TIGRIS_OP_SELECT_V2 && op->num_inputs >= 2) return plan->tensors[ins[1]].dtype;
    if (op->op_type == TIGRIS_OP_EMBEDDING_LOOKUP) return plan->tensors[tigris_op_outputs(plan, op)[0]].dtype;
    return plan->tensors[ins[0]].dtype;
}

}  // namespace tigris_rt
