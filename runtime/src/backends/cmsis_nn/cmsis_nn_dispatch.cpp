// tigris_dispatch_kernel_cmsis_nn: int8 ops the adapter forwards run in CMSIS-NN with the
// workspace prepared for this mem; everything else, and every call CMSIS-NN cannot express,
// runs in tigris_dispatch_kernel_s8 (backends/common/accel_dispatch.h).
#include "backends/cmsis_nn/cmsis_nn_internal.h"
#include "backends/common/accel_dispatch.h"
#include "tigris_kernels_cmsis_nn.h"

namespace tigris_accel {

namespace {

Counters g_cmsis_counters;

// Without a reservation for this mem only the ops that need none are forwarded; factors are
// taken as checked only for the plan prepared.
int forward_prepared_cmsis(const Call &call)
{
    const tigris_cmsis::Context &ctx = tigris_cmsis::context();
    if (!ctx.active || ctx.mem != call.mem) return tigris_cmsis::forward(call, tigris_cmsis::Workspace{});
    tigris_cmsis::Workspace ws = ctx.ws;
    ws.factors_checked = ws.factors_checked && call.plan->ops == ctx.ops && call.plan->quant_data == ctx.quant_data;
    return tigris_cmsis::forward(call, ws);
}

}  // namespace

Counters &cmsis_nn_counters() { return g_cmsis_counters; }

}  // namespace tigris_accel

extern "C" int tigris_dispatch_kernel_cmsis_nn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                               tigris_mem_t *mem, void *user_ctx)
{
    return tigris_accel::accel_dispatch(tigris_accel::Backend::kCmsisNn, tigris_accel::cmsis_nn_counters(),
                                        tigris_accel::forward_prepared_cmsis, plan, op, op_index, mem, user_ctx);
}
