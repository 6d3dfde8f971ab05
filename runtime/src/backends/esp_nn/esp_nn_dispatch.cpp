// tigris_dispatch_kernel_esp_nn: int8 ops the adapter forwards run in esp-nn with the
// prepared workspace; everything else, and every call esp-nn cannot express with it, runs in
// tigris_dispatch_kernel_s8 (backends/common/accel_dispatch.h).
#include "backends/common/accel_dispatch.h"
#include "backends/esp_nn/esp_nn_internal.h"
#include "tigris_kernels_esp_nn.h"

namespace tigris_accel {

namespace {

Counters g_esp_counters;

int forward_prepared_esp(const Call &call) { return tigris_esp::forward(call, tigris_esp::workspace()); }

}  // namespace

Counters &esp_nn_counters() { return g_esp_counters; }

}  // namespace tigris_accel

extern "C" int tigris_dispatch_kernel_esp_nn(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                                             tigris_mem_t *mem, void *user_ctx)
{
    return tigris_accel::accel_dispatch(tigris_accel::Backend::kEspNn, tigris_accel::esp_nn_counters(),
                                        tigris_accel::forward_prepared_esp, plan, op, op_index, mem, user_ctx);
}
