// Which kernels this build contains. A build may leave kernel families out to save
// flash (TIGRIS_NO_KERNEL_<NAME> definitions, see docs/operators.md); the loader refuses
// a plan that uses a left-out kernel with TIGRIS_ERR_KERNEL_DISABLED.
#pragma once

#include <stdint.h>

namespace tigris_rt {

// True when this build has a kernel for op_type with activations of `dtype`
// (TIGRIS_DTYPE_FLOAT32 or TIGRIS_DTYPE_INT8).
bool kernel_enabled(uint8_t op_type, uint8_t dtype);

}  // namespace tigris_rt
