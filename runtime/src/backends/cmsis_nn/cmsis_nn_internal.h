// CMSIS-NN adapter internals: the process-global prepared context (a reservation at the top
// of one mem's fast buffer) and the forwarders of each accelerated op.
#pragma once

#include <stdint.h>

#include "backends/common/accel_layers.h"

namespace tigris_cmsis {

using tigris_accel::Call;

// The reservation: vendor scratch first, then the per-channel expansion arrays
// (multipliers, then shifts, `expand_channels` each). Both 16-aligned.
// factors_checked: the call's plan is the prepared one and plan_factors_in_range held.
struct Workspace {
    uint8_t *vendor;
    uint32_t vendor_size;
    int32_t *expand;
    uint32_t expand_channels;
    bool factors_checked;
};

// The prepared plan is recognised by its tables (the executor hands banded calls a copy of
// the plan record with another weight blob, so the record's address does not identify it).
struct Context {
    bool active;
    tigris_mem_t *mem;
    uint32_t saved_fast_size;
    const tigris_op_t *ops;
    const int32_t *quant_data;
    Workspace ws;
};
Context &context();

// Adapter needs of a plan: the largest vendor scratch and the most channels a per-tensor
// conv-like output expands to, over every op the adapter forwards untiled; false when the
// plan is invalid or a size overflows. factors_checked: plan_factors_in_range held (checked
// first, so the scan and the calls of the prepared plan skip the per-channel check).
struct Needs {
    uint64_t vendor, expand_channels;
    bool factors_checked;
};
bool plan_needs(const tigris_plan_t *plan, Needs *n);

// Vendor scratch bytes op `c` needs as the adapter would forward it, and the channels its
// per-tensor factors expand to; -1 when it is not forwarded or is an op that needs neither
// (Mul, Maximum, Minimum).
int64_t op_vendor_need(const Call &c, bool factors_checked, uint32_t *expand_channels);

// A depthwise convolution of channel multiplier 1 with at most dw_m1::kMaxTaps taps (tiled or
// not), on a build with the DSP extension and without Helium (Cortex-M4/M7/M33): it stays on
// the int8 reference kernel, whose blocked path (kernels/s8/s8_depthwise.h) executes fewer
// instructions there than CMSIS-NN's (docs/backends.md §2). Larger windows, Helium builds and
// the plain-C build (the host's, whose tests compare CMSIS-NN's bytes with the reference's)
// forward it, as does a build without the blocked path (TIGRIS_NO_BLOCKED_DEPTHWISE).
bool depthwise_on_reference(const Call &c);

// Forward call `c` to CMSIS-NN with workspace `ws`: 0 done, tigris_accel::kFallback when the
// reference kernels must run it (nothing the reference rewrites is left half-done).
int forward(const Call &c, const Workspace &ws);

}  // namespace tigris_cmsis
