// Which kernels this build contains, from the operator table (ops/op_table.h): an op's
// float reference kernel handles the kernel dtypes of its row, its int8 and int16 kernels
// exist when the row names them, minus the families the build leaves out with
// TIGRIS_NO_KERNEL_<FAMILY> (docs/operators.md §4).
#include "kernels/kernel_set.h"

#include "ops/op_table.h"

namespace tigris_rt {

bool kernel_enabled_f32(uint8_t op_type, uint8_t dtype)
{
    const ops::OpInfo *row = ops::op_info(op_type);
    return row != nullptr && ops::row_built(*row) &&
           (f32_dtypes_built(row->f32_dtypes) & ops::dtype_bit(dtype)) != 0;
}

bool kernel_enabled_s8(uint8_t op_type)
{
    const ops::OpInfo *row = ops::op_info(op_type);
    return row != nullptr && row->s8 != ops::S8::kNone && ops::row_built(*row);
}

bool kernel_enabled_s16(uint8_t op_type)
{
    const ops::OpInfo *row = ops::op_info(op_type);
    return int16_built() && row != nullptr && row->s16 != ops::S16::kNone && row->s16 != ops::S16::kByteMovement &&
           ops::row_built(*row);
}

bool kernel_enabled(uint8_t op_type, uint8_t dtype)
{
    if (dtype == TIGRIS_DTYPE_INT8 && kernel_enabled_s8(op_type)) return true;
    if (dtype == TIGRIS_DTYPE_INT16 && !int16_built()) return false;  // quantized int16: the int16 kernels' only
    if (dtype == TIGRIS_DTYPE_INT16 && kernel_enabled_s16(op_type)) return true;
    return kernel_enabled_f32(op_type, dtype);
}

}  // namespace tigris_rt
