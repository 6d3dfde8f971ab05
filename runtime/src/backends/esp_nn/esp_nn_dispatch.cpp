// tigris_dispatch_kernel_esp_nn: int8 ops the adapter forwards run in esp-nn with the
// prepared workspace; everything else, and every call esp-nn cannot express with it, runs in
// tigris_dispatch_kernel_s8 (identical bytes either way).
#include "backends/common/accel_counters.h"
#include "backends/esp_nn/esp_nn_internal.h"
#include "tigris_kernels_esp_nn.h"
#include "tigris_kernels_s8.h"

namespace tigris_accel {

namespace {
Counters g_esp_counters;
}

Counters &esp_nn_counters() { return g_esp_counters; }

}  // namespace tigris_accel

extern "C" int tigris_dispatch_kernel_esp_nn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                             tigris_mem_t *mem, void *user_ctx)
{
    if (plan == nullptr || plan->header == nullptr || op == nullptr || mem == nullptr) return -1;
    if (tigris_accel::int8_op(plan, op)) {
        const tigris_accel::Call call{plan, op, op_index, mem};
        tigris_accel::Counters &count = tigris_accel::esp_nn_counters();
        if (tigris_esp::forward(call, tigris_esp::workspace()) == 0) {
            count.native++;
            return 0;
        }
        count.fallback++;
    }
    return tigris_dispatch_kernel_s8(plan, op, op_index, mem, user_ctx);
}
