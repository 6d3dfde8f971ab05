// tigris_dispatch_kernel: the float32 reference dispatcher (also every non-quantized dtype
// and byte movement of int8 data). Ops the build leaves out, or dtypes without a kernel,
// return -1 (kernel_set_f32.cpp is the table the loader checks).
#include "tigris_kernels.h"

#include "kernels/f32/kernels_f32.h"
#include "kernels/kernel_set.h"
#include "kernels/s16/s16_kernels.h"

using tigris_rt::f32::Call;

namespace {

int dispatch(const Call &c)
{
    namespace k = tigris_rt::f32;
    switch (c.op->op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE:
    case TIGRIS_OP_CONV1D: return k::conv(c);
    case TIGRIS_OP_CONV_TRANSPOSE: return k::conv_transpose(c);
    case TIGRIS_OP_MAX_POOL:
    case TIGRIS_OP_AVG_POOL:
    case TIGRIS_OP_L2_POOL: return k::pool(c);
    case TIGRIS_OP_GLOBAL_AVG:
    case TIGRIS_OP_GLOBAL_MAX: return k::global_pool(c);
    case TIGRIS_OP_FULLY_CONN: return k::fully_connected(c);
    case TIGRIS_OP_MATMUL: return k::matmul(c);
    case TIGRIS_OP_ADD:
    case TIGRIS_OP_SUB:
    case TIGRIS_OP_MUL:
    case TIGRIS_OP_DIV:
    case TIGRIS_OP_SQUARED_DIFFERENCE:
    case TIGRIS_OP_MAXIMUM:
    case TIGRIS_OP_MINIMUM:
    case TIGRIS_OP_FLOOR_DIV:
    case TIGRIS_OP_FLOOR_MOD:
    case TIGRIS_OP_PRELU:
    case TIGRIS_OP_EQUAL:
    case TIGRIS_OP_LESS:
    case TIGRIS_OP_LESS_EQUAL:
    case TIGRIS_OP_GREATER:
    case TIGRIS_OP_GREATER_EQUAL:
    case TIGRIS_OP_LOGICAL_AND:
    case TIGRIS_OP_LOGICAL_OR:
    case TIGRIS_OP_SELECT_V2: return k::binary(c);
    case TIGRIS_OP_ADD_N: return k::add_n(c);
    case TIGRIS_OP_RELU:
    case TIGRIS_OP_RELU6:
    case TIGRIS_OP_CLIP:
    case TIGRIS_OP_LEAKY_RELU:
    case TIGRIS_OP_ELU:
    case TIGRIS_OP_SIGMOID:
    case TIGRIS_OP_TANH:
    case TIGRIS_OP_HARDSWISH:
    case TIGRIS_OP_ERF:
    case TIGRIS_OP_ABS:
    case TIGRIS_OP_NEG:
    case TIGRIS_OP_RSQRT:
    case TIGRIS_OP_EXP:
    case TIGRIS_OP_LOG:
    case TIGRIS_OP_SQRT:
    case TIGRIS_OP_SQUARE:
    case TIGRIS_OP_FLOOR:
    case TIGRIS_OP_CEIL:
    case TIGRIS_OP_ROUND:
    case TIGRIS_OP_SIN:
    case TIGRIS_OP_COS:
    case TIGRIS_OP_LOGICAL_NOT: return k::unary(c);
    case TIGRIS_OP_CAST: return k::cast(c);
    case TIGRIS_OP_SOFTMAX:
    case TIGRIS_OP_LOG_SOFTMAX: return k::softmax(c);
    case TIGRIS_OP_BATCH_NORM:
    case TIGRIS_OP_INST_NORM:
    case TIGRIS_OP_LAYER_NORM:
    case TIGRIS_OP_L2_NORMALIZATION: return k::norm(c);
    case TIGRIS_OP_REDUCE_MEAN:
    case TIGRIS_OP_REDUCE_MAX:
    case TIGRIS_OP_REDUCE_MIN:
    case TIGRIS_OP_REDUCE_SUM:
    case TIGRIS_OP_REDUCE_ALL:
    case TIGRIS_OP_ARG_MAX:
    case TIGRIS_OP_ARG_MIN:
    case TIGRIS_OP_CUMSUM: return k::reduce(c);
    case TIGRIS_OP_RESIZE:
    case TIGRIS_OP_RESIZE_LINEAR: return k::resize(c);
    case TIGRIS_OP_CONCAT:
    case TIGRIS_OP_SPLIT: return k::concat_split(c);
    case TIGRIS_OP_PAD:
    case TIGRIS_OP_MIRROR_PAD: return k::pad(c);
    case TIGRIS_OP_TRANSPOSE: return k::transpose(c);
    case TIGRIS_OP_FLATTEN:
    case TIGRIS_OP_RESHAPE:
    case TIGRIS_OP_SQUEEZE:
    case TIGRIS_OP_UNSQUEEZE: return k::reshape(c);
    case TIGRIS_OP_GATHER:
    case TIGRIS_OP_GATHER_ND:
    case TIGRIS_OP_EMBEDDING_LOOKUP: return k::gather(c);
    case TIGRIS_OP_STRIDED_SLICE:
    case TIGRIS_OP_REVERSE_V2:
    case TIGRIS_OP_DYNAMIC_UPDATE_SLICE: return k::slice(c);
    case TIGRIS_OP_SVDF: return k::svdf(c);
    case TIGRIS_OP_LSTM: return k::lstm(c);
    case TIGRIS_OP_DETECTION_POSTPROCESS: return k::detection_postprocess(c);
    default: return -1;
    }
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
    // TEMP registration: quantized int16 ops run on the int16 kernels (byte movement comes back).
    const int s16 = tigris_s16::dispatch(plan, op, op_index, mem);
    if (s16 != tigris_s16::kDelegate) return s16;
    if (!tigris_rt::kernel_enabled_f32(op->op_type, tigris_rt::op_kernel_dtype(plan, op))) return -1;
    if (op->op_type == TIGRIS_OP_IF || op->op_type == TIGRIS_OP_WHILE) return -1;  // the executor runs them
    Call c{plan, op, op_index, mem};
    return dispatch(c);
}
