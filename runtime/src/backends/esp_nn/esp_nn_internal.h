// ESP-NN adapter internals: the process-global workspace prepare obtains from the platform
// allocator, and the forwarders of each accelerated op.
#pragma once

#include <stdint.h>

#include "backends/common/accel_layers.h"

namespace tigris_esp {

using tigris_accel::Call;

// 16-aligned blocks, each NULL / 0 when absent.
struct Workspace {
    uint8_t *vendor;  // esp-nn's conv / depthwise scratch (esp_nn_set_*_scratch_buf)
    uint32_t vendor_size;
    int32_t *expand;  // per-tensor factors expanded: multipliers, then shifts
    uint32_t expand_channels;
    int8_t *pad;  // one image copied with explicit padding
    uint32_t pad_size;
};
Workspace &workspace();

// What forwarding op `c` (untiled) needs; false when it is not forwarded. Sizes are 64-bit:
// prepare refuses a plan whose needs overflow.
struct OpNeeds {
    uint64_t conv_vendor, dw_vendor;  // esp-nn scratch, direct or on a padded copy
    uint64_t expand_channels, pad;
    const void *weights;  // conv / depthwise weights (alignment check), or NULL
};
bool op_needs(const Call &c, OpNeeds *n);

// Forward call `c` to esp-nn: 0 done, tigris_accel::kFallback when the reference kernels
// must run it.
int forward(const Call &c, const Workspace &ws);

}  // namespace tigris_esp
