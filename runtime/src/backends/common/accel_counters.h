// Per-adapter call counters: how many int8 calls a vendor kernel ran and how many went to
// the reference int8 kernels. Internal (tests read them to check the routing); plain
// zero-initialised globals, not thread-safe, like the adapters themselves.
#pragma once

#include <stdint.h>

namespace tigris_accel {

struct Counters {
    uint32_t native;    // calls a vendor kernel computed
    uint32_t fallback;  // calls handed to tigris_dispatch_kernel_s8
};

#ifdef TIGRIS_HAS_CMSIS_NN
Counters &cmsis_nn_counters();
#endif
#ifdef TIGRIS_HAS_ESP_NN
Counters &esp_nn_counters();
#endif

}  // namespace tigris_accel
