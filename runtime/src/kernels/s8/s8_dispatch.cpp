// tigris_dispatch_kernel_s8: the int8 reference dispatcher. An op whose kernel dtype
// (docs/operators.md §1) is int8 with a quant param runs the int8 kernel of its opcode;
// a CAST with a quantized int8 side (quantize, dequantize, requantize) runs the int8
// cast; everything else (float sections after a dequantize, bool/int32 ops, and int8
// byte movement the int8 table does not list) goes to the float reference dispatcher.
#include "kernels/kernel_set.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "ops/op_table.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"

namespace {

bool quantized_int8(const tigris_plan_t *plan, uint16_t tensor)
{
    const tigris_tensor_t *t = &plan->tensors[tensor];
    return t->dtype == TIGRIS_DTYPE_INT8 && tigris_tensor_quant(plan, t) != nullptr;
}

// Whether the int8 kernels own this op.
bool int8_op(const tigris_plan_t *plan, const tigris_op_t *op)
{
    if (op->num_inputs == 0 || op->num_outputs == 0) return false;
    const uint16_t in0 = tigris_op_inputs(plan, op)[0];
    const uint16_t out0 = tigris_op_outputs(plan, op)[0];
    if (in0 >= plan->header->num_tensors || out0 >= plan->header->num_tensors) return false;
    if (op->op_type == TIGRIS_OP_CAST) {
        const bool float_in = plan->tensors[in0].dtype == TIGRIS_DTYPE_FLOAT32;
        const bool float_out = plan->tensors[out0].dtype == TIGRIS_DTYPE_FLOAT32;
        return (quantized_int8(plan, in0) && (float_out || quantized_int8(plan, out0))) ||
               (float_in && quantized_int8(plan, out0));
    }
    if (tigris_rt::op_kernel_dtype(plan, op) != TIGRIS_DTYPE_INT8) return false;
    return quantized_int8(plan, in0);
}

// The int8 kernel the op's row names (ops/op_table.h), or nullptr.
tigris_s8::KernelFn kernel_of(tigris_rt::ops::S8 kernel)
{
    namespace k = tigris_s8;
    using tigris_rt::ops::S8;
    switch (kernel) {
    case S8::kConv: return k::conv;
    case S8::kDepthwise: return k::depthwise;
    case S8::kFullyConnected: return k::fully_connected;
    case S8::kAvgPool: return k::avg_pool;
    case S8::kMaxPool: return k::max_pool;
    case S8::kGlobalAvg: return k::global_avg;
    case S8::kGlobalMax: return k::global_max;
    case S8::kReduceMean: return k::reduce_mean;
    case S8::kReduceMax: return k::reduce_max;
    case S8::kReduceMin: return k::reduce_min;
    case S8::kReduceSum: return k::reduce_sum;
    case S8::kAdd: return k::add;
    case S8::kSub: return k::sub;
    case S8::kMul: return k::mul;
    case S8::kMaximum: return k::maximum;
    case S8::kMinimum: return k::minimum;
    case S8::kRelu: return k::relu;
    case S8::kRelu6: return k::relu6;
    case S8::kClip: return k::clip;
    case S8::kLeakyRelu: return k::leaky_relu;
    case S8::kHardSwish: return k::hard_swish;
    case S8::kSigmoid: return k::sigmoid;
    case S8::kTanh: return k::tanh_act;
    case S8::kSoftmax: return k::softmax;
    case S8::kResizeNearest: return k::resize_nearest;
    case S8::kResizeBilinear: return k::resize_bilinear;
    case S8::kCopy: return k::copy;
    case S8::kConcat: return k::concat;
    case S8::kPad: return k::pad;
    case S8::kTranspose: return k::transpose;
    case S8::kStridedSlice: return k::strided_slice;
    case S8::kQuantizeCast: return k::quantize_cast;
    case S8::kNone: break;
    }
    return nullptr;
}

}  // namespace

extern "C" int tigris_dispatch_kernel_s8(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                         tigris_mem_t *mem, void *user_ctx)
{
    if (plan == nullptr || plan->header == nullptr || op == nullptr || mem == nullptr) return -1;
    if (int8_op(plan, op) && tigris_rt::kernel_enabled_s8(op->op_type)) {
        const tigris_s8::KernelFn kernel = kernel_of(tigris_rt::ops::op_info(op->op_type)->s8);
        if (kernel != nullptr) {
            const tigris_s8::Call call{plan, op, op_index, mem};
            const int rc = kernel(call);
            if (rc != tigris_s8::kDelegate) return rc;
        }
    }
    return tigris_dispatch_kernel(plan, op, op_index, mem, user_ctx);
}
