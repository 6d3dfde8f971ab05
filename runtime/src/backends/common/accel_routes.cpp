// Routes of the accelerated backends, read from the operator table.
#include "backends/common/accel_routes.h"

namespace tigris_accel {

bool backend_takes(Backend backend, uint8_t op_type)
{
    const tigris_rt::ops::OpInfo *row = tigris_rt::ops::op_info(op_type);
    return row != nullptr && (row->accel & (uint8_t)backend) != 0;
}

Route route(Backend backend, bool int8_plan, uint8_t op_type)
{
    if (!int8_plan) return Route::kFloatReference;
    if (backend_takes(backend, op_type)) return Route::kNative;
    const tigris_rt::ops::OpInfo *row = tigris_rt::ops::op_info(op_type);
    // An op with an int8 kernel, or whose float kernel moves int8 bytes, stays on the int8
    // path; any other op of an int8 plan belongs to a float32 section.
    const bool int8_kernel =
        row != nullptr && (row->s8 != tigris_rt::ops::S8::kNone || (row->f32_dtypes & tigris_rt::ops::kI8) != 0);
    return int8_kernel ? Route::kInt8Reference : Route::kFloatReference;
}

namespace {

uint64_t align16(uint64_t v) { return (v + 15u) & ~(uint64_t)15u; }
uint64_t larger(uint64_t a, uint64_t b) { return a > b ? a : b; }

bool elementwise(uint8_t op_type)
{
    return op_type == TIGRIS_OP_ADD || op_type == TIGRIS_OP_MUL || op_type == TIGRIS_OP_MAXIMUM ||
           op_type == TIGRIS_OP_MINIMUM;
}

// Vendor scratch of one op, the larger of CMSIS-NN's DSP and MVE variants: conv im2col
// 2 * Cin * kh * kw int16 values (DSP) or 4 lanes of Cin * kh * kw int8 rounded to 16 (MVE);
// depthwise Cin * kh * kw int16 values (DSP) or 4 * 124 * kh * kw bytes (MVE, CH_IN_BLOCK_MVE);
// fully connected Cout int32 sums (MVE); average pool C int32 sums (DSP).
uint64_t vendor_scratch(uint8_t op_type, uint64_t cin, uint64_t cout, uint64_t window)
{
    switch (op_type) {
    case TIGRIS_OP_FULLY_CONN: return cout * 4u;
    case TIGRIS_OP_AVG_POOL:
    case TIGRIS_OP_GLOBAL_AVG: return cin * 4u;
    case TIGRIS_OP_DEPTHWISE: return larger(cin * window * 2u, 4u * 124u * window);
    default: return larger(2u * cin * window * 2u, 4u * align16(cin * window));
    }
}

}  // namespace

uint32_t cmsis_nn_reserve_bound(const tigris_plan_t *plan)
{
    uint64_t scratch = 0, expansion = 0;
    for (uint32_t i = 0; i < plan->header->num_ops; ++i) {
        const tigris_op_t &op = plan->ops[i];
        if (!backend_takes(Backend::kCmsisNn, op.op_type) || op.num_inputs == 0 || op.num_outputs == 0) continue;
        if (elementwise(op.op_type)) continue;  // no vendor scratch, no factor expansion
        const tigris_tensor_t &in = plan->tensors[tigris_op_inputs(plan, &op)[0]];
        const tigris_tensor_t &out = plan->tensors[tigris_op_outputs(plan, &op)[0]];
        if (in.dtype != TIGRIS_DTYPE_INT8 || in.ndim == 0 || out.ndim == 0) continue;
        const uint64_t cin = (uint32_t)tigris_tensor_shape(plan, &in)[in.ndim - 1];
        const uint64_t cout = (uint32_t)tigris_tensor_shape(plan, &out)[out.ndim - 1];
        const uint64_t window = (uint64_t)(op.spatial.kernel_h ? op.spatial.kernel_h : 1u) *
                                (op.spatial.kernel_w ? op.spatial.kernel_w : 1u);
        scratch = larger(scratch, align16(vendor_scratch(op.op_type, cin, cout, window)));
        if (op.op_type != TIGRIS_OP_AVG_POOL && op.op_type != TIGRIS_OP_GLOBAL_AVG)
            expansion = larger(expansion, align16(cout * 8u));
    }
    const uint64_t total = scratch + expansion + 16u;
    return total > UINT32_MAX ? UINT32_MAX : (uint32_t)total;
}

}  // namespace tigris_accel
