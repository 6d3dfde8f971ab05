// The int16 kernels' dispatch: which ops they own and the kernel the operator table
// (ops/op_table.h) names for each. Byte movement (S16::kByteMovement) comes back to the
// float kernels, which move int16 bytes as TFLite does.
#include "kernels/kernel_set.h"
#include "kernels/s16/s16_kernels.h"
#include "ops/op_table.h"

namespace tigris_s16 {

namespace {

// The int16 kernel the op's row names, or nullptr.
KernelFn kernel_of(tigris_rt::ops::S16 kernel)
{
    using tigris_rt::ops::S16;
    switch (kernel) {
    case S16::kConv: return conv;
    case S16::kDepthwise: return depthwise;
    case S16::kFullyConnected: return fully_connected;
    case S16::kConvTranspose: return conv_transpose;
    case S16::kAvgPool: return avg_pool;
    case S16::kMaxPool: return max_pool;
    case S16::kGlobalAvg: return global_avg;
    case S16::kGlobalMax: return global_max;
    case S16::kReduceMean: return reduce_mean;
    case S16::kAdd: return add;
    case S16::kSub: return sub;
    case S16::kMul: return mul;
    case S16::kLeakyRelu: return leaky_relu;
    case S16::kSigmoid: return sigmoid;
    case S16::kTanh: return tanh_act;
    case S16::kSoftmax: return softmax;
    case S16::kPad: return pad;
    case S16::kByteMovement: return byte_movement;
    case S16::kQuantizeCast: return quantize_cast;
    case S16::kLstm: return lstm;
    case S16::kNone: break;
    }
    return nullptr;
}

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
    const tigris_rt::ops::OpInfo *row = tigris_rt::ops::op_info(op->op_type);
    const KernelFn kernel = row != nullptr ? kernel_of(row->s16) : nullptr;
    if (kernel == nullptr) return kError;
    if (kernel != byte_movement && !tigris_rt::kernel_enabled_s16(op->op_type)) return kError;  // left out
    const Call call{plan, op, op_index, mem};
    return kernel(call);
}

}  // namespace tigris_s16
