#include "tools/tigris/host_run.h"

#include <string>

#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"
#include "tigris_mem.h"
#include "tools/tigris/cli_errors.h"

namespace tigris::cli {
namespace {

constexpr size_t kArenaAlign = 64;

// A zeroed buffer of `size` bytes plus the slack; returns its first kArenaAlign-aligned byte.
uint8_t* aligned_block(std::vector<uint8_t>& storage, size_t size) {
  if (size == 0) return nullptr;
  storage.assign(size + kArenaAlign, 0);
  const auto addr = reinterpret_cast<uintptr_t>(storage.data());
  return storage.data() + (kArenaAlign - addr % kArenaAlign) % kArenaAlign;
}

std::string name_of(const tigris_plan_t& plan, uint16_t idx) {
  return "'" + std::string(tigris_tensor_name(&plan, &plan.tensors[idx])) + "'";
}

std::string exec_failure(tigris_exec_error_t err, const HostRunConfig& config, uint32_t required) {
  std::string msg = std::string("run failed: ") + tigris_exec_error_str(err);
  if (err == TIGRIS_EXEC_ERR_MEM) {
    msg += " (fast arena " + std::to_string(config.fast_bytes) + " bytes, the plan requires " +
           std::to_string(required) + "; slow buffer " + std::to_string(config.slow_bytes) + " bytes)";
  }
  return msg;
}

}  // namespace

uint32_t default_slow_bytes(const tigris_plan_t& plan) {
  uint64_t total = 64 * 1024;
  for (uint32_t i = 0; i < plan.header->num_tensors; ++i) {
    const tigris_tensor_t& t = plan.tensors[i];
    if (t.flags & TIGRIS_TENSOR_CONSTANT) continue;
    total += 2 * ((static_cast<uint64_t>(t.size_bytes) + TIGRIS_PLAN_MAX_ALIGN - 1) / TIGRIS_PLAN_MAX_ALIGN *
                  TIGRIS_PLAN_MAX_ALIGN);
  }
  return total > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(total);
}

HostSession::HostSession(const tigris_plan_t& plan, const HostRunConfig& config)
    : plan_(plan),
      config_(config),
      tensor_ptrs_(plan.header->num_tensors, nullptr),
      workspace_(tigris_executor_workspace_required(&plan)),
      state_(tigris_state_required(&plan)) {
  fast_ = aligned_block(fast_storage_, config.fast_bytes);
  slow_ = aligned_block(slow_storage_, config.slow_bytes);
  if (workspace_.empty()) throw Failure("the plan's metadata gives no executor workspace size");
  reset_state();
}

void HostSession::reset_state() {
  if (state_.empty()) return;
  const tigris_exec_error_t err = tigris_state_init(&plan_, state_.data(), state_.size());
  if (err != TIGRIS_EXEC_OK) throw Failure(std::string("cannot prepare the state: ") + tigris_exec_error_str(err));
}

void HostSession::set_state(const std::vector<uint8_t>& bytes) {
  if (bytes.size() != state_.size())
    throw Failure("the state holds " + std::to_string(bytes.size()) + " bytes; the plan keeps " +
                  std::to_string(state_.size()));
  state_ = bytes;
}

void HostSession::set_trace(tigris_trace_fn trace, void* ctx) {
  config_.trace = trace;
  config_.trace_ctx = ctx;
}

HostRunResult HostSession::run(const std::vector<std::vector<uint8_t>>& inputs) {
  const tigris_plan_t& plan = plan_;
  const HostRunConfig& config = config_;
  const tigris_file_header_t& h = *plan.header;
  // Each run starts from empty arenas (the pointer table zeroed, peaks reset); only the
  // state buffer carries over.
  tigris_mem_t mem{};
  const tigris_mem_error_t mem_err =
      tigris_mem_init(&mem, tensor_ptrs_.data(), h.num_tensors, fast_, config.fast_bytes, slow_, config.slow_bytes);
  if (mem_err != TIGRIS_MEM_OK)
    throw Failure(std::string("cannot set up the arenas: ") + tigris_mem_error_str(mem_err));
  if (config.trace) tigris_mem_set_trace(&mem, config.trace, config.trace_ctx);

  for (uint32_t i = 0; i < h.num_model_inputs; ++i) {
    const uint16_t idx = plan.model_inputs[i];
    const std::vector<uint8_t>& data = inputs.at(i);
    const tigris_error_t err = tigris_input_write(&plan, &mem, idx, data.data(), static_cast<uint32_t>(data.size()));
    if (err == TIGRIS_ERR_MEM) {
      throw Failure("input " + name_of(plan, idx) + " does not fit: " + tigris_error_str(err) + " (fast arena " +
                    std::to_string(config.fast_bytes) + " bytes, slow buffer " + std::to_string(config.slow_bytes) +
                    " bytes)");
    }
    if (err != TIGRIS_OK) throw Failure("input " + name_of(plan, idx) + ": " + tigris_error_str(err));
  }

  HostRunResult result;
  result.workspace_bytes = workspace_.size();
  result.state_bytes = state_.size();
  result.int8_kernels = tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8;
  for (uint16_t t = 0; t < plan.header->num_tensors; ++t)
    result.int16_kernels |=
        plan.tensors[t].dtype == TIGRIS_DTYPE_INT16 && plan.tensors[t].quant_param_idx != TIGRIS_NONE;
  const tigris_kernel_fn kernel = result.int8_kernels ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
  const tigris_exec_error_t err =
      tigris_run_with_state(&plan, &mem, kernel, nullptr, &result.stats, workspace_.data(), workspace_.size(),
                            state_.empty() ? nullptr : state_.data(), state_.size());
  if (err != TIGRIS_EXEC_OK) throw Failure(exec_failure(err, config, tigris_fast_arena_required(&plan)));

  result.fast_peak = mem.fast_peak;
  result.slow_peak = mem.slow_peak;
  for (uint32_t i = 0; i < h.num_model_outputs; ++i) {
    const uint16_t idx = plan.model_outputs[i];
    std::vector<uint8_t> out(tigris_iface_bytes(&plan, idx));
    const tigris_error_t read = tigris_output_read(&plan, &mem, idx, out.data(), static_cast<uint32_t>(out.size()));
    if (read != TIGRIS_OK) throw Failure("output " + name_of(plan, idx) + ": " + tigris_error_str(read));
    result.outputs.push_back(std::move(out));
  }
  return result;
}

HostRunResult run_on_host(const tigris_plan_t& plan, const std::vector<std::vector<uint8_t>>& inputs,
                          const HostRunConfig& config) {
  HostSession session(plan, config);
  return session.run(inputs);
}

std::string runtime_version() {
  return std::to_string(TIGRIS_RUNTIME_VERSION_MAJOR) + "." + std::to_string(TIGRIS_RUNTIME_VERSION_MINOR) + "." +
         std::to_string(TIGRIS_RUNTIME_VERSION_PATCH);
}

}  // namespace tigris::cli
