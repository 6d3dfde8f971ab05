// kernel_enabled: the int8 table first for int8, then the float reference table
// (which also answers byte movement on int8 data).
#include "kernels/kernel_set.h"

namespace tigris_rt {

bool kernel_enabled(uint8_t op_type, uint8_t dtype)
{
    if (dtype == TIGRIS_DTYPE_INT8 && kernel_enabled_s8(op_type)) return true;
    if (dtype == TIGRIS_DTYPE_INT16 && kernel_enabled_s16(op_type)) return true;  // TEMP registration
    return kernel_enabled_f32(op_type, dtype);
}

}  // namespace tigris_rt
