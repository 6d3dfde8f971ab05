// The kernel callback both accelerated adapters share: an int8 op the backend takes (its row
// of the operator table) goes to the adapter's `forward`; what it does not take, and every call
// `forward` cannot express (it answers kFallback), runs in tigris_dispatch_kernel_s8 — the
// same bytes either way. The counters record which path each int8 call took (fallback counts
// every int8 call the vendor did not compute).
#pragma once

#include "backends/common/accel_counters.h"
#include "backends/common/accel_layers.h"
#include "backends/common/accel_routes.h"

namespace tigris_accel {

int accel_dispatch(Backend backend, Counters &count, int (*forward)(const Call &), const tigris_plan_t *plan,
                   const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem, void *user_ctx);

}  // namespace tigris_accel
