#include "tools/tigris/host_run.h"

#include <memory>
#include <string>

#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"
#include "tigris_mem.h"
#include "tools/tigris/cli_errors.h"

namespace tigris::cli {
namespace {

constexpr size_t kArenaAlign = 64;

// A zeroed byte buffer whose first `size` bytes start on a kArenaAlign boundary.
class AlignedBuffer {
 public:
  explicit AlignedBuffer(size_t size) : storage_(size + kArenaAlign, 0), size_(size) {
    const auto addr = reinterpret_cast<uintptr_t>(storage_.data());
    offset_ = (kArenaAlign - addr % kArenaAlign) % kArenaAlign;
  }
  uint8_t* data() { return size_ ? storage_.data() + offset_ : nullptr; }
  size_t size() const { return size_; }

 private:
  std::vector<uint8_t> storage_;
  size_t size_;
  size_t offset_ = 0;
};

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

HostRunResult run_on_host(const tigris_plan_t& plan, const std::vector<std::vector<uint8_t>>& inputs,
                          const HostRunConfig& config) {
  const tigris_file_header_t& h = *plan.header;
  AlignedBuffer fast(config.fast_bytes), slow(config.slow_bytes);
  std::vector<void*> tensor_ptrs(h.num_tensors, nullptr);
  tigris_mem_t mem{};
  const tigris_mem_error_t mem_err = tigris_mem_init(&mem, tensor_ptrs.data(), h.num_tensors, fast.data(),
                                                     config.fast_bytes, slow.data(), config.slow_bytes);
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
  result.workspace_bytes = tigris_executor_workspace_required(&plan);
  if (result.workspace_bytes == 0) throw Failure("the plan's metadata gives no executor workspace size");
  std::vector<uint8_t> workspace(result.workspace_bytes);
  result.state_bytes = tigris_state_required(&plan);
  std::vector<uint8_t> state(result.state_bytes);
  if (result.state_bytes) {
    const tigris_exec_error_t err = tigris_state_init(&plan, state.data(), state.size());
    if (err != TIGRIS_EXEC_OK) throw Failure(std::string("cannot prepare the state: ") + tigris_exec_error_str(err));
  }
  result.int8_kernels = tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8;
  for (uint16_t t = 0; t < plan.header->num_tensors; ++t)
    result.int16_kernels |=
        plan.tensors[t].dtype == TIGRIS_DTYPE_INT16 && plan.tensors[t].quant_param_idx != TIGRIS_NONE;
  const tigris_kernel_fn kernel = result.int8_kernels ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
  const tigris_exec_error_t err =
      tigris_run_with_state(&plan, &mem, kernel, nullptr, &result.stats, workspace.data(), workspace.size(),
                            result.state_bytes ? state.data() : nullptr, state.size());
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

std::string runtime_version() {
  return std::to_string(TIGRIS_RUNTIME_VERSION_MAJOR) + "." + std::to_string(TIGRIS_RUNTIME_VERSION_MINOR) + "." +
         std::to_string(TIGRIS_RUNTIME_VERSION_PATCH);
}

}  // namespace tigris::cli
