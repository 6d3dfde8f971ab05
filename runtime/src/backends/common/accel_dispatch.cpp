#include "backends/common/accel_dispatch.h"

#include "tigris_kernels_s8.h"

namespace tigris_accel {

int accel_dispatch(Backend backend, Counters &count, int (*forward)(const Call &), const tigris_plan_t *plan,
                   const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem, void *user_ctx)
{
    if (plan == nullptr || plan->header == nullptr || op == nullptr || mem == nullptr) return -1;
    if (!tigris_rt::kern::tile_ctx_usable(mem)) return -1;
    if (int8_op(plan, op)) {
        const Call call{plan, op, op_index, mem};
        if (backend_takes(backend, op->op_type) && forward(call) == 0) {
            count.native++;
            return 0;
        }
        count.fallback++;
    }
    return tigris_dispatch_kernel_s8(plan, op, op_index, mem, user_ctx);
}

}  // namespace tigris_accel
