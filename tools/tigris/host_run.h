// One inference of a loaded plan on the host build of the runtime: caller-owned
// arenas, the reference kernels, the plan-sized executor workspace and state.
// Used by `run` (and by `analyze --trace` through the trace hook).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_trace.h"

namespace tigris::cli {

struct HostRunConfig {
  uint32_t fast_bytes = 0;  // fast arena capacity (aligned base)
  uint32_t slow_bytes = 0;  // slow buffer capacity; 0 passes no slow buffer
  tigris_trace_fn trace = nullptr;
  void* trace_ctx = nullptr;
};

struct HostRunResult {
  std::vector<std::vector<uint8_t>> outputs;  // per model output: declared dtype, stored axis order
  tigris_exec_stats_t stats{};
  uint32_t fast_peak = 0, slow_peak = 0;
  size_t workspace_bytes = 0, state_bytes = 0;
  bool int8_kernels = false;
  bool int16_kernels = false;  // the plan holds quantized int16 data (the int16 kernels run it)
};

// "0.13.0": the version of the runtime this binary links.
std::string runtime_version();

// A slow buffer that holds every non-constant tensor twice over, aligned, plus headroom:
// the run reports what it actually used.
uint32_t default_slow_bytes(const tigris_plan_t& plan);

// `inputs` holds, per model input in plan order, the bytes tigris_input_write takes:
// declared dtype, stored axis order, exactly tigris_iface_bytes long.
// Throws Failure naming the input, output or runtime error code on any refusal.
HostRunResult run_on_host(const tigris_plan_t& plan, const std::vector<std::vector<uint8_t>>& inputs,
                          const HostRunConfig& config);

}  // namespace tigris::cli
