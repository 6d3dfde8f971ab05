// tigris_dispatch_kernel: the float32 reference dispatcher (also every non-quantized dtype
// and byte movement of int8 data), and the way in to the int16 kernels: an op on quantized
// int16 data runs the int16 kernel its row names (kernels/s16/s16_dispatch.cpp; the int8
// dispatcher hands non-int8 ops here). Ops the build leaves out, or dtypes without a
// kernel, return -1 (the operator table, ops/op_table.h, is what the loader checks too).
#include "tigris_kernels.h"

#include "kernels/f32/kernels_f32.h"
#include "kernels/kernel_set.h"
#include "kernels/s16/s16_kernels.h"
#include "ops/op_table.h"

using tigris_rt::f32::Call;

namespace {

// The float kernel of the op's row (ops/op_table.h).
int dispatch(const Call &c, tigris_rt::ops::F32 kernel)
{
    namespace k = tigris_rt::f32;
    using tigris_rt::ops::F32;
    switch (kernel) {
    case F32::kConv: return k::conv(c);
    case F32::kConvTranspose: return k::conv_transpose(c);
    case F32::kPool: return k::pool(c);
    case F32::kGlobalPool: return k::global_pool(c);
    case F32::kFullyConnected: return k::fully_connected(c);
    case F32::kMatMul: return k::matmul(c);
    case F32::kBinary: return k::binary(c);
    case F32::kAddN: return k::add_n(c);
    case F32::kUnary: return k::unary(c);
    case F32::kCast: return k::cast(c);
    case F32::kSoftmax: return k::softmax(c);
    case F32::kNorm: return k::norm(c);
    case F32::kReduce: return k::reduce(c);
    case F32::kResize: return k::resize(c);
    case F32::kConcatSplit: return k::concat_split(c);
    case F32::kPad: return k::pad(c);
    case F32::kTranspose: return k::transpose(c);
    case F32::kReshape: return k::reshape(c);
    case F32::kGather: return k::gather(c);
    case F32::kSlice: return k::slice(c);
    case F32::kSvdf: return k::svdf(c);
    case F32::kLstm: return k::lstm(c);
    case F32::kDetection: return k::detection_postprocess(c);
    case F32::kNone: break;
    }
    return -1;  // no float kernel: control flow runs in the executor
}

}  // namespace

extern "C" int tigris_dispatch_kernel(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                      tigris_mem_t *mem, void *user_ctx)
{
    (void)user_ctx;
    if (plan == nullptr || op == nullptr || mem == nullptr || mem->tensor_ptrs == nullptr) return -1;
    if (op->num_inputs < 1 || op->num_outputs < 1) return -1;
    const uint16_t *ins = tigris_op_inputs(plan, op), *outs = tigris_op_outputs(plan, op);
    for (uint8_t i = 0; i < op->num_inputs; ++i)
        if (ins[i] >= mem->num_tensors) return -1;
    for (uint8_t i = 0; i < op->num_outputs; ++i)
        if (outs[i] >= mem->num_tensors || mem->tensor_ptrs[outs[i]] == nullptr) return -1;
    const int s16 = tigris_s16::dispatch(plan, op, op_index, mem);  // kDelegate: not the int16 kernels'
    if (s16 != tigris_s16::kDelegate) return s16;
    if (!tigris_rt::kernel_enabled_f32(op->op_type, tigris_rt::op_kernel_dtype(plan, op))) return -1;
    Call c{plan, op, op_index, mem};
    return dispatch(c, tigris_rt::ops::op_info(op->op_type)->f32);
}
