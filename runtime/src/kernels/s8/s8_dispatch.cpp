// tigris_dispatch_kernel_s8: the int8 reference dispatcher. An op whose kernel dtype
// (docs/operators.md §1) is int8 with a quant param runs the int8 kernel of its opcode;
// a CAST with a quantized int8 side (quantize, dequantize, requantize) runs the int8
// cast; everything else (float sections after a dequantize, bool/int32 ops, and int8
// byte movement the int8 table does not list) goes to the float reference dispatcher.
#include "kernels/kernel_set.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
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

}  // namespace

extern "C" int tigris_dispatch_kernel_s8(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                         tigris_mem_t *mem, void *user_ctx)
{
    if (plan == nullptr || plan->header == nullptr || op == nullptr || mem == nullptr) return -1;
    if (int8_op(plan, op)) {
        const tigris_s8::KernelFn kernel = tigris_s8::kernel_for(op->op_type);
        if (kernel != nullptr) {
            const tigris_s8::Call call{plan, op, op_index, mem};
            const int rc = kernel(call);
            if (rc != tigris_s8::kDelegate) return rc;
        }
    }
    return tigris_dispatch_kernel(plan, op, op_index, mem, user_ctx);
}
