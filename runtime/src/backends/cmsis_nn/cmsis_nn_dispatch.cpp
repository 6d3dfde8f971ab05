// tigris_dispatch_kernel_cmsis_nn: int8 ops the adapter forwards run in CMSIS-NN with the
// workspace prepared for this mem; everything else, and every call CMSIS-NN cannot express,
// runs in tigris_dispatch_kernel_s8 (identical bytes either way).
#include "backends/cmsis_nn/cmsis_nn_internal.h"
#include "backends/common/accel_counters.h"
#include "tigris_kernels_cmsis_nn.h"
#include "tigris_kernels_s8.h"

namespace tigris_accel {

namespace {
Counters g_cmsis_counters;
}

Counters &cmsis_nn_counters() { return g_cmsis_counters; }

}  // namespace tigris_accel

extern "C" int tigris_dispatch_kernel_cmsis_nn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                               tigris_mem_t *mem, void *user_ctx)
{
    if (plan == nullptr || plan->header == nullptr || op == nullptr || mem == nullptr) return -1;
    if (tigris_accel::int8_op(plan, op)) {
        const tigris_cmsis::Context &ctx = tigris_cmsis::context();
        // Without a reservation for this mem only the ops that need none are forwarded.
        const tigris_cmsis::Workspace ws = ctx.active && ctx.mem == mem ? ctx.ws : tigris_cmsis::Workspace{};
        const tigris_accel::Call call{plan, op, op_index, mem};
        tigris_accel::Counters &count = tigris_accel::cmsis_nn_counters();
        if (tigris_cmsis::forward(call, ws) == 0) {
            count.native++;
            return 0;
        }
        count.fallback++;
    }
    return tigris_dispatch_kernel_s8(plan, op, op_index, mem, user_ctx);
}
