// Which kernels this build contains. A build may leave kernel families out to save
// flash (TIGRIS_NO_KERNEL_<NAME> definitions, see docs/operators.md); the loader refuses
// a plan that uses a left-out kernel with TIGRIS_ERR_KERNEL_DISABLED.
#pragma once

#include <stdint.h>

#include "ops/op_table.h"
#include "tigris.h"

namespace tigris_rt {

// A float kernel, int8 kernel or loader rule that some op of a built family uses: only those
// are referenced by the dispatchers and the loader, so a build that leaves families out links
// neither their kernels nor their rules.
// The kernel dtypes the float reference kernels serve in this build: TIGRIS_NO_KERNEL_FLOAT32
// (an int8 firmware whose plans hold no float32 operator) leaves float32 data out, so a float
// kernel only byte movement and integer data still need is kept and the others go.
constexpr uint32_t f32_dtypes_built(uint32_t dtypes)
{
#ifdef TIGRIS_NO_KERNEL_FLOAT32
    return dtypes & ~ops::kF;
#else
    return dtypes;
#endif
}

// Whether this build has the int16 (16x8) kernels: TIGRIS_NO_KERNEL_INT16 (a firmware whose
// plans hold no op on quantized int16 data) leaves them out, and the loader refuses such ops.
constexpr bool int16_built()
{
#ifdef TIGRIS_NO_KERNEL_INT16
    return false;
#else
    return true;
#endif
}

constexpr bool f32_kernel_built(ops::F32 k)
{
    for (const ops::OpInfo &row : ops::kOpTable.rows)
        if (row.f32 == k && ops::row_built(row) && f32_dtypes_built(row.f32_dtypes) != 0) return true;
    return false;
}
// Whether tigris_dispatch_kernel can run anything in this build: a float kernel some built op
// uses, or the int16 kernels it leads to. An int8 build without either (TIGRIS_NO_KERNEL_FLOAT32,
// _INT16 and no byte-movement op kept) has the int8 dispatcher answer -1 itself.
constexpr bool float_dispatch_built()
{
    if (int16_built()) return true;
    for (const ops::OpInfo &row : ops::kOpTable.rows)
        if (row.f32 != ops::F32::kNone && f32_kernel_built(row.f32)) return true;
    return false;
}
constexpr bool s8_kernel_built(ops::S8 k)
{
    for (const ops::OpInfo &row : ops::kOpTable.rows)
        if (row.s8 == k && ops::row_built(row)) return true;
    return false;
}
constexpr bool rule_built(ops::Rule r)
{
    for (const ops::OpInfo &row : ops::kOpTable.rows)
        if (row.rule == r && ops::row_built(row)) return true;
    return false;
}

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
    if (op->op_type == TIGRIS_OP_EMBEDDING_LOOKUP || op->num_inputs == 0)
        return plan->tensors[tigris_op_outputs(plan, op)[0]].dtype;
    return plan->tensors[ins[0]].dtype;
}

// Whether an op writes quantized int16 data (output 0): TFLite's int8 -> int16 softmax, a
// quantize to int16 and the int16 ops. A build without the int16 kernels refuses it too
// (KERNEL_DISABLED at its operator check), so no int8 kernel keeps an int16 output path.
inline bool op_writes_int16(const tigris_plan_t *plan, const tigris_op_t *op)
{
    if (op->num_outputs == 0) return false;
    const tigris_tensor_t &t = plan->tensors[tigris_op_outputs(plan, op)[0]];
    return t.dtype == TIGRIS_DTYPE_INT16 && tigris_tensor_quant(plan, &t) != nullptr;
}

}  // namespace tigris_rt
