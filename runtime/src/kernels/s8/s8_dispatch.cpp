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

// The int8 kernel the op's row names (ops/op_table.h), or nullptr; one no built family uses
// is not referenced (TIGRIS_NO_KERNEL_<FAMILY> builds do not link it).
#define TIGRIS_S8_KERNEL(K, fn)                                    \
  case S8::K:                                                      \
    if constexpr (tigris_rt::s8_kernel_built(S8::K)) return k::fn; \
    return nullptr;

tigris_s8::KernelFn kernel_of(tigris_rt::ops::S8 kernel)
{
    namespace k = tigris_s8;
    using tigris_rt::ops::S8;
    switch (kernel) {
        TIGRIS_S8_KERNEL(kConv, conv)
        TIGRIS_S8_KERNEL(kDepthwise, depthwise)
        TIGRIS_S8_KERNEL(kFullyConnected, fully_connected)
        TIGRIS_S8_KERNEL(kAvgPool, avg_pool)
        TIGRIS_S8_KERNEL(kMaxPool, max_pool)
        TIGRIS_S8_KERNEL(kGlobalAvg, global_avg)
        TIGRIS_S8_KERNEL(kGlobalMax, global_max)
        TIGRIS_S8_KERNEL(kReduceMean, reduce_mean)
        TIGRIS_S8_KERNEL(kReduceMax, reduce_max)
        TIGRIS_S8_KERNEL(kReduceMin, reduce_min)
        TIGRIS_S8_KERNEL(kReduceSum, reduce_sum)
        TIGRIS_S8_KERNEL(kAdd, add)
        TIGRIS_S8_KERNEL(kSub, sub)
        TIGRIS_S8_KERNEL(kMul, mul)
        TIGRIS_S8_KERNEL(kMaximum, maximum)
        TIGRIS_S8_KERNEL(kMinimum, minimum)
        TIGRIS_S8_KERNEL(kRelu, relu)
        TIGRIS_S8_KERNEL(kRelu6, relu6)
        TIGRIS_S8_KERNEL(kClip, clip)
        TIGRIS_S8_KERNEL(kLeakyRelu, leaky_relu)
        TIGRIS_S8_KERNEL(kHardSwish, hard_swish)
        TIGRIS_S8_KERNEL(kSigmoid, sigmoid)
        TIGRIS_S8_KERNEL(kTanh, tanh_act)
        TIGRIS_S8_KERNEL(kSoftmax, softmax)
        TIGRIS_S8_KERNEL(kResizeNearest, resize_nearest)
        TIGRIS_S8_KERNEL(kResizeBilinear, resize_bilinear)
        TIGRIS_S8_KERNEL(kCopy, copy)
        TIGRIS_S8_KERNEL(kConcat, concat)
        TIGRIS_S8_KERNEL(kPad, pad)
        TIGRIS_S8_KERNEL(kTranspose, transpose)
        TIGRIS_S8_KERNEL(kStridedSlice, strided_slice)
        TIGRIS_S8_KERNEL(kQuantizeCast, quantize_cast)
        TIGRIS_S8_KERNEL(kSvdf, svdf)
        TIGRIS_S8_KERNEL(kLstm, lstm)
        TIGRIS_S8_KERNEL(kTable, table)
    case S8::kNone: break;
    }
    return nullptr;
}

#undef TIGRIS_S8_KERNEL

}  // namespace

extern "C" int tigris_dispatch_kernel_s8(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                         tigris_mem_t *mem, void *user_ctx)
{
    if (plan == nullptr || plan->header == nullptr || op == nullptr || mem == nullptr) return -1;
    if (!tigris_rt::kern::tile_ctx_usable(mem)) return -1;
    if (int8_op(plan, op) && tigris_rt::kernel_enabled_s8(op->op_type)) {
        const tigris_s8::KernelFn kernel = kernel_of(tigris_rt::ops::op_info(op->op_type)->s8);
        if (kernel != nullptr) {
            const tigris_s8::Call call{plan, op, op_index, mem};
            const int rc = kernel(call);
            if (rc != tigris_s8::kDelegate) return rc;
        }
    }
    // The float dispatcher would answer -1 for every op when it has no kernel: not linked then.
    if constexpr (!tigris_rt::float_dispatch_built()) return -1;
    return tigris_dispatch_kernel(plan, op, op_index, mem, user_ctx);
}
