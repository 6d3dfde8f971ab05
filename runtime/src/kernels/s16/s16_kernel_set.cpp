// The int16 reference kernel set and its routing: which opcodes have an int16 kernel (minus
// the families a build leaves out with TIGRIS_NO_KERNEL_<FAMILY>, docs/operators.md §4), and
// which ops those kernels own. Byte movement is listed (TFLite moves int16 bytes) and runs on
// the float kernels.
#include "kernels/kernel_set.h"
#include "kernels/s16/s16_kernels.h"

namespace tigris_s16 {

KernelFn kernel_for(uint8_t op_type)
{
    switch (op_type) {
#ifndef TIGRIS_NO_KERNEL_CONV
    case TIGRIS_OP_CONV: return conv;
    case TIGRIS_OP_CONV1D: return conv;
    case TIGRIS_OP_DEPTHWISE: return depthwise;
#endif
#ifndef TIGRIS_NO_KERNEL_CONV_TRANSPOSE
    case TIGRIS_OP_CONV_TRANSPOSE: return conv_transpose;
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
#endif
#ifndef TIGRIS_NO_KERNEL_BINARY
    case TIGRIS_OP_ADD: return add;
    case TIGRIS_OP_SUB: return sub;
    case TIGRIS_OP_MUL: return mul;
#endif
#ifndef TIGRIS_NO_KERNEL_ACTIVATION
    case TIGRIS_OP_LEAKY_RELU: return leaky_relu;
    case TIGRIS_OP_SIGMOID: return sigmoid;
    case TIGRIS_OP_TANH: return tanh_act;
#endif
#ifndef TIGRIS_NO_KERNEL_SOFTMAX
    case TIGRIS_OP_SOFTMAX: return softmax;
#endif
#ifndef TIGRIS_NO_KERNEL_MOVEMENT
    case TIGRIS_OP_PAD: return pad;
    case TIGRIS_OP_RESHAPE:
    case TIGRIS_OP_FLATTEN:
    case TIGRIS_OP_SQUEEZE:
    case TIGRIS_OP_UNSQUEEZE:
    case TIGRIS_OP_CONCAT:
    case TIGRIS_OP_TRANSPOSE:
    case TIGRIS_OP_STRIDED_SLICE: return byte_movement;
#endif
#ifndef TIGRIS_NO_KERNEL_CAST
    case TIGRIS_OP_CAST: return quantize_cast;
#endif
    default: return nullptr;
    }
}

namespace {

bool quantized_int16(const tigris_plan_t *plan, uint16_t tensor)
{
    const tigris_tensor_t *t = &plan->tensors[tensor];
    return t->dtype == TIGRIS_DTYPE_INT16 && tigris_tensor_quant(plan, t) != nullptr;
}

}  // namespace

bool owns(const tigris_plan_t *plan, const tigris_op_t *op)
{
    if (plan == nullptr || plan->header == nullptr || op == nullptr) return false;
    if (op->num_inputs == 0 || op->num_outputs == 0) return false;
    const uint16_t in0 = tigris_op_inputs(plan, op)[0];
    const uint16_t out0 = tigris_op_outputs(plan, op)[0];
    if (in0 >= plan->header->num_tensors || out0 >= plan->header->num_tensors) return false;
    if (op->op_type == TIGRIS_OP_CAST) return quantized_int16(plan, in0) || quantized_int16(plan, out0);
    return tigris_rt::op_kernel_dtype(plan, op) == TIGRIS_DTYPE_INT16 && quantized_int16(plan, in0);
}

int dispatch(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    if (!owns(plan, op)) return kDelegate;
    const KernelFn kernel = kernel_for(op->op_type);
    if (kernel == nullptr) return kError;
    const Call call{plan, op, op_index, mem};
    return kernel(call);
}

}  // namespace tigris_s16

namespace tigris_rt {

bool kernel_enabled_s16(uint8_t op_type)
{
    const tigris_s16::KernelFn k = tigris_s16::kernel_for(op_type);
    return k != nullptr && k != tigris_s16::byte_movement;
}

}  // namespace tigris_rt
