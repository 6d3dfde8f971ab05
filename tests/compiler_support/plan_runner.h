// Test helper: run a compiled plan on the host runtime (loader + executor + float kernels)
// with caller-order inputs, converting to and from the stored layout as `tigris run` does:
// a rank-3/4 boundary tensor without the LINEAR or CALLER_ORDER flag is stored channels-last
// while the caller's arrays are channels-first (NCHW / NCL). int8 plans run on the int8
// dispatcher.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "compiler/ir/layout.h"
#include "compiler/passes/util.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"
#include "tigris_loader.h"

namespace tigris::test {

struct PlanRun {
  std::string error;                          // empty on success
  std::vector<std::vector<uint8_t>> outputs;  // caller order, model output order
  tigris_exec_stats_t stats{};
  uint32_t fast_size = 0;
  uint32_t fast_peak = 0;
};

inline std::vector<int64_t> stored_shape(const tigris_plan_t& plan, uint16_t t) {
  const tigris_tensor_t& rec = plan.tensors[t];
  const int32_t* dims = tigris_tensor_shape(&plan, &rec);
  return std::vector<int64_t>(dims, dims + rec.ndim);
}

inline bool channels_last(const tigris_plan_t& plan, uint16_t t) {
  const tigris_tensor_t& rec = plan.tensors[t];
  return (rec.ndim == 3 || rec.ndim == 4) && !(rec.flags & (TIGRIS_TENSOR_LINEAR | TIGRIS_TENSOR_CALLER_ORDER));
}

// Caller (channels-first) bytes -> stored axis order for tensor t, and back (elements of the
// declared dtype: a float32 boundary stored int8 is converted by tigris_input_write).
inline std::vector<uint8_t> to_stored(const tigris_plan_t& plan, uint16_t t, const std::vector<uint8_t>& data) {
  if (!channels_last(plan, t)) return data;
  std::vector<int64_t> stored = stored_shape(plan, t);
  int rank = static_cast<int>(stored.size());
  std::vector<int64_t> caller = ir::permute_shape(stored, ir::to_channels_first_perm(rank));
  return passes::transpose_data(data, caller, ir::to_channels_last_perm(rank),
                                tigris_dtype_size(tigris_tensor_declared_dtype(&plan.tensors[t])));
}

inline std::vector<uint8_t> to_caller(const tigris_plan_t& plan, uint16_t t, const std::vector<uint8_t>& data) {
  if (!channels_last(plan, t)) return data;
  std::vector<int64_t> stored = stored_shape(plan, t);
  return passes::transpose_data(data, stored, ir::to_channels_first_perm(static_cast<int>(stored.size())),
                                tigris_dtype_size(tigris_tensor_declared_dtype(&plan.tensors[t])));
}

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

// Run with a fast arena of exactly the plan's tigris_fast_arena_required() bytes (so a
// scheduled peak that under-counts fails the run) and a slow arena of `slow_size`.
// `state`: the plan's state buffer carried from run to run (an empty vector is sized and
// prepared with tigris_state_init first, as firmware does once); nullptr: a plan with state
// starts from its initial values.
inline PlanRun run_plan(const std::vector<uint8_t>& bytes, const std::vector<std::vector<uint8_t>>& inputs,
                        uint32_t slow_size, uint32_t extra_fast = 0, std::vector<uint8_t>* state = nullptr) {
  PlanRun r;
  tigris_plan_t plan;
  tigris_error_t le = tigris_plan_load(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan);
  if (le != TIGRIS_OK) {
    r.error = std::string("plan load: ") + tigris_error_str(le);
    return r;
  }
  r.fast_size = tigris_fast_arena_required(&plan) + extra_fast;
  std::unique_ptr<void, FreeDeleter> fast(std::aligned_alloc(64, (r.fast_size + 64) / 64 * 64));
  std::unique_ptr<void, FreeDeleter> slow(slow_size ? std::aligned_alloc(64, (slow_size + 63) / 64 * 64) : nullptr);
  std::vector<void*> ptrs(plan.header->num_tensors, nullptr);
  tigris_mem_t mem;
  if (tigris_mem_init(&mem, ptrs.data(), plan.header->num_tensors, fast.get(), r.fast_size, slow.get(), slow_size) !=
      TIGRIS_MEM_OK) {
    r.error = "mem init failed";
    return r;
  }
  if (inputs.size() != plan.header->num_model_inputs) {
    r.error = "wrong number of inputs";
    return r;
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    uint16_t t = plan.model_inputs[i];
    std::vector<uint8_t> stored = to_stored(plan, t, inputs[i]);
    tigris_error_t e = tigris_input_write(&plan, &mem, t, stored.data(), static_cast<uint32_t>(stored.size()));
    if (e != TIGRIS_OK) {
      r.error = std::string("input write: ") + tigris_error_str(e);
      return r;
    }
  }
  std::vector<uint8_t> ws(tigris_executor_workspace_required(&plan) + 64);
  // int8 plans run on the int8 dispatcher (it hands float sections to the float kernels).
  tigris_kernel_fn kernel =
      tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8 ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
  std::vector<uint8_t> fresh;
  std::vector<uint8_t>& st = state ? *state : fresh;
  if (st.empty() && tigris_state_required(&plan) > 0) {
    st.resize(tigris_state_required(&plan));
    if (tigris_state_init(&plan, st.data(), st.size()) != TIGRIS_EXEC_OK) {
      r.error = "state init failed";
      return r;
    }
  }
  tigris_exec_error_t xe = tigris_run_with_state(&plan, &mem, kernel, nullptr, &r.stats, ws.data(), ws.size(),
                                                 st.empty() ? nullptr : st.data(), st.size());
  r.fast_peak = mem.fast_peak;
  if (xe != TIGRIS_EXEC_OK) {
    r.error = std::string("run: ") + tigris_exec_error_str(xe);
    return r;
  }
  for (uint8_t i = 0; i < plan.header->num_model_outputs; ++i) {
    uint16_t t = plan.model_outputs[i];
    std::vector<uint8_t> out(tigris_iface_bytes(&plan, t));
    tigris_error_t e = tigris_output_read(&plan, &mem, t, out.data(), static_cast<uint32_t>(out.size()));
    if (e != TIGRIS_OK) {
      r.error = std::string("output read: ") + tigris_error_str(e);
      return r;
    }
    r.outputs.push_back(to_caller(plan, t, out));
  }
  return r;
}

}  // namespace tigris::test
