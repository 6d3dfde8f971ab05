// The int8 reference kernel set: quantized int8 kernels this build contains, minus the
// families a build leaves out with TIGRIS_NO_KERNEL_<FAMILY> (docs/operators.md §4).
// Owned by the int8 kernels (runtime/src/kernels/s8/). Byte-movement ops the table does
// not list are answered by the float table (kernel_set_f32.cpp).
#include "kernels/kernel_set.h"
#include "kernels/s8/s8_kernels.h"

namespace tigris_s8 {

KernelFn kernel_for(uint8_t op_type)
{
    switch (op_type) {
#ifndef TIGRIS_NO_KERNEL_CONV
    case TIGRIS_OP_CONV: return conv;
    case TIGRIS_OP_CONV1D: return conv;
    case TIGRIS_OP_DEPTHWISE: return depthwise;
#endif
#ifndef TIGRIS_NO_KERNEL_MATRIX
    case TIGRIS_OP_FULLY_CONN: return fully_connected;
#endif
#ifndef TIGRIS_NO_KERNEL_POOL
    case TIGRIS_OP_AVG_POOL: return avg_pool;
    case TIGRIS_OP_MAX_POOL: return max_pool;
    case TIGRIS_OP_GLOBAL_AVG: return global_avg;
    case TIGRIS_OP_GLOBAL_MAX: return global_max;
#endif
#ifndef TIGRIS_NO_KERNEL_REDUCE
    case TIGRIS_OP_REDUCE_MEAN: return reduce_mean;
    case TIGRIS_OP_REDUCE_MAX: return reduce_max;
    case TIGRIS_OP_REDUCE_MIN: return reduce_min;
    case TIGRIS_OP_REDUCE_SUM: return reduce_sum;
#endif
#ifndef TIGRIS_NO_KERNEL_BINARY
    case TIGRIS_OP_ADD: return add;
    case TIGRIS_OP_SUB: return sub;
    case TIGRIS_OP_MUL: return mul;
    case TIGRIS_OP_MAXIMUM: return maximum;
    case TIGRIS_OP_MINIMUM: return minimum;
#endif
#ifndef TIGRIS_NO_KERNEL_ACTIVATION
    case TIGRIS_OP_RELU: return relu;
    case TIGRIS_OP_RELU6: return relu6;
    case TIGRIS_OP_CLIP: return clip;
    case TIGRIS_OP_LEAKY_RELU: return leaky_relu;
    case TIGRIS_OP_HARDSWISH: return hard_swish;
    case TIGRIS_OP_SIGMOID: return sigmoid;
    case TIGRIS_OP_TANH: return tanh_act;
#endif
#ifndef TIGRIS_NO_KERNEL_SOFTMAX
    case TIGRIS_OP_SOFTMAX: return softmax;
#endif
#ifndef TIGRIS_NO_KERNEL_RESIZE
    case TIGRIS_OP_RESIZE: return resize_nearest;
    case TIGRIS_OP_RESIZE_LINEAR: return resize_bilinear;
#endif
#ifndef TIGRIS_NO_KERNEL_MOVEMENT
    case TIGRIS_OP_RESHAPE: return copy;
    case TIGRIS_OP_FLATTEN: return copy;
    case TIGRIS_OP_SQUEEZE: return copy;
    case TIGRIS_OP_UNSQUEEZE: return copy;
    case TIGRIS_OP_CONCAT: return concat;
    case TIGRIS_OP_PAD: return pad;
    case TIGRIS_OP_TRANSPOSE: return transpose;
    case TIGRIS_OP_STRIDED_SLICE: return strided_slice;
#endif
#ifndef TIGRIS_NO_KERNEL_CAST
    case TIGRIS_OP_CAST: return quantize_cast;
#endif
    default: return nullptr;
    }
}

}  // namespace tigris_s8

namespace tigris_rt {

bool kernel_enabled_s8(uint8_t op_type) { return tigris_s8::kernel_for(op_type) != nullptr; }

}  // namespace tigris_rt
