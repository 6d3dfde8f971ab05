// The int8 reference kernel set: quantized int8 kernels this build contains.
// Owned by the int8 kernels (runtime/src/kernels/s8/): add each op here as its kernel lands.
// Byte-movement ops on int8 data are answered by the float table (kernel_set_f32.cpp).
#include "kernels/kernel_set.h"

namespace tigris_rt {

bool kernel_enabled_s8(uint8_t op_type) {
    switch (op_type) {
    default:
        return false;
    }
}

}  // namespace tigris_rt
