// tigris_dispatch_kernel: the float32 reference dispatcher (also every non-quantized dtype
// and byte movement of int8 data), and the way in to the int16 kernels: an op on quantized
// int16 data runs the int16 kernel its row names (kernels/s16/s16_dispatch.cpp; the int8
// dispatcher hands non-int8 ops here). Ops the build leaves out, or dtypes without a
// kernel, return -1 (the operator table, ops/op_table.h, is what the loader checks too).
#include "tigris_kernels.h"

#include "kernels/f32/kernels_f32.h"
#include "kernels/kernel_set.h"
#include "kernels/s16/s16_kernels.h"
#include "kernels/signal/signal_kernels.h"
#include "ops/op_table.h"

using tigris_rt::f32::Call;

namespace {

// The float kernel of the op's row (ops/op_table.h). A kernel no built family uses is not
// referenced, so a build with TIGRIS_NO_KERNEL_<FAMILY> does not link it.
#define TIGRIS_F32_KERNEL(K, fn)                                        \
  case F32::K:                                                          \
    if constexpr (tigris_rt::f32_kernel_built(F32::K)) return k::fn(c); \
    return -1;

int dispatch(const Call &c, tigris_rt::ops::F32 kernel)
{
    namespace k = tigris_rt::f32;
    using tigris_rt::ops::F32;
    switch (kernel) {
        TIGRIS_F32_KERNEL(kConv, conv)
        TIGRIS_F32_KERNEL(kConvTranspose, conv_transpose)
        TIGRIS_F32_KERNEL(kPool, pool)
        TIGRIS_F32_KERNEL(kGlobalPool, global_pool)
        TIGRIS_F32_KERNEL(kFullyConnected, fully_connected)
        TIGRIS_F32_KERNEL(kMatMul, matmul)
        TIGRIS_F32_KERNEL(kBinary, binary)
        TIGRIS_F32_KERNEL(kAddN, add_n)
        TIGRIS_F32_KERNEL(kUnary, unary)
        TIGRIS_F32_KERNEL(kCast, cast)
        TIGRIS_F32_KERNEL(kSoftmax, softmax)
        TIGRIS_F32_KERNEL(kNorm, norm)
        TIGRIS_F32_KERNEL(kReduce, reduce)
        TIGRIS_F32_KERNEL(kResize, resize)
        TIGRIS_F32_KERNEL(kConcatSplit, concat_split)
        TIGRIS_F32_KERNEL(kPad, pad)
        TIGRIS_F32_KERNEL(kTranspose, transpose)
        TIGRIS_F32_KERNEL(kReshape, reshape)
        TIGRIS_F32_KERNEL(kConstant, constant)
        TIGRIS_F32_KERNEL(kGather, gather)
        TIGRIS_F32_KERNEL(kSlice, slice)
        TIGRIS_F32_KERNEL(kSvdf, svdf)
        TIGRIS_F32_KERNEL(kLstm, lstm)
        TIGRIS_F32_KERNEL(kDetection, detection_postprocess)
    case F32::kSignal:
        if constexpr (tigris_rt::f32_kernel_built(F32::kSignal)) return tigris_rt::signal::run(c);
        return -1;
    case F32::kNone: break;
    }
    return -1;  // no float kernel: control flow runs in the executor
}

#undef TIGRIS_F32_KERNEL

}  // namespace

extern "C" int tigris_dispatch_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                      tigris_mem_t *mem, void *user_ctx)
{
    (void)user_ctx;
    if (plan == nullptr || op == nullptr || mem == nullptr || mem->tensor_ptrs == nullptr) return -1;
    if (!tigris_rt::kern::tile_ctx_usable(mem)) return -1;
    if ((op->num_inputs < 1 && op->op_type != TIGRIS_OP_CONSTANT) || op->num_outputs < 1) return -1;
    const uint16_t *ins = tigris_op_inputs(plan, op), *outs = tigris_op_outputs(plan, op);
    for (uint8_t i = 0; i < op->num_inputs; ++i)
        if (ins[i] >= mem->num_tensors) return -1;
    for (uint8_t i = 0; i < op->num_outputs; ++i)
        if (outs[i] >= mem->num_tensors || mem->tensor_ptrs[outs[i]] == nullptr) return -1;
    if (!tigris_rt::int16_built()) {  // TIGRIS_NO_KERNEL_INT16: the int16 kernels are not linked
        if (tigris_s16::owns(plan, op)) return -1;
    } else {
        const int s16 = tigris_s16::dispatch(plan, op, op_index, mem);  // kDelegate: not the int16 kernels'
        if (s16 != tigris_s16::kDelegate) return s16;
    }
    if (!tigris_rt::kernel_enabled_f32(op->op_type, tigris_rt::op_kernel_dtype(plan, op))) return -1;
    Call c{plan, op, op_index, mem};
    return dispatch(c, tigris_rt::ops::op_info(op->op_type)->f32);
}
