// Which operators the accelerated int8 backends take, from the operator table's accel column
// (ops/op_table.h): what the adapters' dispatchers forward and what `tigris codegen` reports.
// Built into every runtime (the host's too), with or without a vendor library.
#pragma once

#include <stdint.h>

#include "ops/op_table.h"
#include "tigris.h"

namespace tigris_accel {

enum class Backend : uint8_t {
    kCmsisNn = tigris_rt::ops::kAccelCmsisNn,
    kEspNn = tigris_rt::ops::kAccelEspNn,
};

// The op's row lets `backend` compute it (a call may still fall back on its geometry).
bool backend_takes(Backend backend, uint8_t op_type);

enum class Route : uint8_t {
    kNative,          // the vendor library, when the call's geometry allows (else the int8 reference)
    kInt8Reference,   // the int8 reference kernels (tigris_dispatch_kernel_s8)
    kFloatReference,  // the float reference kernels: a float plan, or a float32 section of an int8 one
};

// How an op runs under `backend` in a plan whose dispatch dtype is int8 (`int8_plan`) or
// float32: vendor kernels are int8-only.
Route route(Backend backend, bool int8_plan, uint8_t op_type);

// Fast-arena bytes the CMSIS-NN adapter reserves for `plan` on any CMSIS-NN build: the larger
// of the DSP (Cortex-M4/M7, host) and MVE (Cortex-M55) buffers of every int8 conv, depthwise,
// fully connected and average pool it may forward (elementwise ops need none), plus the
// per-channel factor expansion and 16 bytes of separation. At least tigris_cmsis_nn_scratch_required() of whichever build runs
// the plan (tests/backends checks it against the host build's); sizes what codegen declares.
uint32_t cmsis_nn_reserve_bound(const tigris_plan_t *plan);

}  // namespace tigris_accel
