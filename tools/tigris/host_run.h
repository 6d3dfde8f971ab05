// Inference of a loaded plan on the host build of the runtime: caller-owned arenas, the
// reference kernels, the plan-sized executor workspace and state. Used by `run` (and by
// `analyze --trace` through the trace hook) for one run, and by the Python module's Session
// for runs that keep the plan's state between them, as firmware does.
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

// A plan's arenas, executor workspace and state, allocated once. The state is initialised
// on construction and carried from each run to the next until reset_state(); a failed run
// leaves it as it was. `plan` must outlive the session.
class HostSession {
 public:
  HostSession(const tigris_plan_t& plan, const HostRunConfig& config);
  HostSession(const HostSession&) = delete;
  HostSession& operator=(const HostSession&) = delete;

  // `inputs` holds, per model input in plan order, the bytes tigris_input_write takes:
  // declared dtype, stored axis order, exactly tigris_iface_bytes long.
  // Throws Failure naming the input, output or runtime error code on any refusal.
  HostRunResult run(const std::vector<std::vector<uint8_t>>& inputs);
  // Writes every variable's initial value again (tigris_state_init).
  void reset_state();
  // The state buffer (tigris_state_required bytes; empty for a plan without state).
  const std::vector<uint8_t>& state() const { return state_; }
  // Replaces the state buffer's contents; Failure when `bytes` is not exactly its size.
  void set_state(const std::vector<uint8_t>& bytes);
  // The trace hook for the following runs (nullptr: none).
  void set_trace(tigris_trace_fn trace, void* ctx);
  const HostRunConfig& config() const { return config_; }

 private:
  const tigris_plan_t& plan_;
  HostRunConfig config_;
  std::vector<uint8_t> fast_storage_, slow_storage_;  // over-allocated for alignment
  uint8_t* fast_ = nullptr;                           // aligned bases, nullptr for 0 bytes
  uint8_t* slow_ = nullptr;
  std::vector<void*> tensor_ptrs_;
  std::vector<uint8_t> workspace_, state_;
};

// One run in a fresh session.
HostRunResult run_on_host(const tigris_plan_t& plan, const std::vector<std::vector<uint8_t>>& inputs,
                          const HostRunConfig& config);

}  // namespace tigris::cli
