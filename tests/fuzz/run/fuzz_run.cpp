// libFuzzer target "load plus run" (docs/plan-format.md "Fuzzing"): whatever bytes a plan
// holds, once tigris_plan_load accepts it no run on any kernel set may read or write outside
// its buffers or execute undefined behaviour. Every arena is an exactly sized heap block, so
// ASan sees any access past it.
#include "fuzz_run.h"

#include <stdlib.h>
#include <string.h>

#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_cmsis_nn.h"
#include "tigris_kernels_esp_nn.h"
#include "tigris_kernels_s8.h"
#include "tigris_loader.h"
#include "tigris_mem.h"

namespace {

// Small arenas: a mutated header may ask for gigabytes; the run then fails with OOM.
constexpr uint32_t kMaxFast = 512u * 1024u;
constexpr uint32_t kMaxSlow = 2u * 1024u * 1024u;
constexpr size_t kMaxWorkspace = 256u * 1024u;
constexpr size_t kMaxState = 256u * 1024u;

uint32_t slow_bytes(const tigris_plan_t& plan) {
  uint64_t total = 4096;
  for (uint32_t i = 0; i < plan.header->num_tensors; i++) {
    const tigris_tensor_t& t = plan.tensors[i];
    if (!(t.flags & TIGRIS_TENSOR_CONSTANT)) total += 2ull * ((t.size_bytes + 63ull) & ~63ull);
  }
  return total > kMaxSlow ? kMaxSlow : (uint32_t)total;
}

void* block(size_t n) { return calloc(n ? n : 1, 1); }

// The kernel sets of the build: the two reference dispatchers, and the accelerated adapters
// when the build has them (each prepares its workspace from the plan first).
enum Backend { kRefFloat, kRefInt8, kCmsisNn, kEspNn };

tigris_kernel_fn kernel_of(Backend b) {
  switch (b) {
#ifdef TIGRIS_HAS_CMSIS_NN
  case kCmsisNn: return tigris_dispatch_kernel_cmsis_nn;
#endif
#ifdef TIGRIS_HAS_ESP_NN
  case kEspNn: return tigris_dispatch_kernel_esp_nn;
#endif
  case kRefInt8: return tigris_dispatch_kernel_s8;
  default: return tigris_dispatch_kernel;
  }
}

uint32_t fast_required(const tigris_plan_t& plan, Backend b) {
#ifdef TIGRIS_HAS_CMSIS_NN
  if (b == kCmsisNn) return tigris_cmsis_nn_fast_arena_required(&plan);
#endif
  (void)b;
  return tigris_fast_arena_required(&plan);
}

bool prepare(const tigris_plan_t& plan, tigris_mem_t* mem, Backend b) {
#ifdef TIGRIS_HAS_CMSIS_NN
  if (b == kCmsisNn) return tigris_cmsis_nn_prepare(&plan, mem) == 0;
#endif
#ifdef TIGRIS_HAS_ESP_NN
  if (b == kEspNn) return tigris_esp_nn_prepare(&plan, mem) == 0;
#endif
  (void)plan, (void)mem, (void)b;
  return true;
}

void release(tigris_mem_t* mem, Backend b) {
#ifdef TIGRIS_HAS_CMSIS_NN
  if (b == kCmsisNn) tigris_cmsis_nn_deinit(mem);
#endif
#ifdef TIGRIS_HAS_ESP_NN
  if (b == kEspNn) tigris_esp_nn_deinit();
#endif
  (void)mem, (void)b;
}

// One run on backend `b` with fresh arenas and inputs of a fixed pattern.
bool run_once(const tigris_plan_t& plan, Backend b) {
  const tigris_kernel_fn kernel = kernel_of(b);
  const uint32_t need = fast_required(plan, b);
  const uint32_t fast_size = need > kMaxFast ? kMaxFast : need;
  const uint32_t slow_size = slow_bytes(plan);
  const size_t ws_need = tigris_executor_workspace_required(&plan);
  const size_t ws_size = ws_need > kMaxWorkspace ? kMaxWorkspace : ws_need;
  const size_t st_need = tigris_state_required(&plan);
  const size_t st_size = st_need > kMaxState ? kMaxState : st_need;
  void** ptrs = (void**)block(plan.header->num_tensors * sizeof(void*));
  void *fast = block(fast_size), *slow = block(slow_size), *ws = block(ws_size), *state = block(st_size);
  bool ok = false;
  tigris_mem_t mem;
  // An adapter reserves its workspace at the top of the fast arena before anything is placed.
  if (ptrs && fast && slow && ws && state &&
      tigris_mem_init(&mem, ptrs, plan.header->num_tensors, fast, fast_size, slow, slow_size) == TIGRIS_MEM_OK &&
      prepare(plan, &mem, b)) {
    bool inputs_ok = true;
    for (uint32_t i = 0; inputs_ok && i < plan.header->num_model_inputs; i++) {
      const uint16_t idx = plan.model_inputs[i];
      const uint32_t bytes = tigris_iface_bytes(&plan, idx);
      if (bytes == 0 || bytes > kMaxSlow) {
        inputs_ok = false;
        break;
      }
      uint8_t* in = (uint8_t*)block(bytes);
      if (!in) {
        inputs_ok = false;
        break;
      }
      for (uint32_t k = 0; k < bytes; k++) in[k] = (uint8_t)(k * 37u + 11u);
      // Float inputs: small finite values rather than the byte pattern's.
      if (bytes % 4 == 0 && tigris_tensor_declared_dtype(&plan.tensors[idx]) == TIGRIS_DTYPE_FLOAT32)
        for (uint32_t e = 0; e < bytes / 4; e++) {
          const float f = (float)((int)(e % 17u) - 8) / 8.0f;
          memcpy(in + 4 * e, &f, 4);
        }
      inputs_ok = tigris_input_write(&plan, &mem, idx, in, bytes) == TIGRIS_OK;
      free(in);
    }
    tigris_exec_error_t err = TIGRIS_EXEC_OK;
    if (st_size == st_need && st_size) err = tigris_state_init(&plan, state, st_size);
    if (inputs_ok && err == TIGRIS_EXEC_OK && ws_size == ws_need && st_size == st_need) {
      tigris_exec_stats_t stats;
      err = tigris_run_with_state(&plan, &mem, kernel, nullptr, &stats, ws, ws_size, st_size ? state : nullptr,
                                  st_size);
      ok = err == TIGRIS_EXEC_OK;
    }
    release(&mem, b);
  }
  free(ptrs);
  free(fast);
  free(slow);
  free(ws);
  free(state);
  return ok;
}

// A While runs as long as its condition holds, which a mutated plan can make forever (an
// empty body keeps a true condition): such plans are loaded, not run.
bool has_while(const tigris_plan_t& plan) {
  for (uint32_t i = 0; i < plan.header->num_ops; i++)
    if (plan.ops[i].op_type == TIGRIS_OP_WHILE) return true;
  return false;
}

}  // namespace

FuzzRunResult fuzz_run_plan(const uint8_t* data, size_t size) {
  FuzzRunResult r{false, 0, 0};
  if (size > 0xFFFFFFFFu) return r;
  uint8_t* buf = (uint8_t*)aligned_alloc(16, size ? (size + 15) / 16 * 16 : 16);
  if (!buf) return r;
  if (size) memcpy(buf, data, size);
  tigris_plan_t plan;
  if (tigris_plan_load(buf, (uint32_t)size, &plan) == TIGRIS_OK) {
    r.loaded = true;
    if (has_while(plan)) {
      free(buf);
      return r;
    }
    // Every kernel set runs every plan: a mutated plan may pair any op with any dtype, and
    // the int8 sets hand what they do not take (float, int16) to the float reference.
    const Backend backends[] = {kRefFloat, kRefInt8,
#ifdef TIGRIS_HAS_CMSIS_NN
                                kCmsisNn,
#endif
#ifdef TIGRIS_HAS_ESP_NN
                                kEspNn,
#endif
    };
    for (Backend b : backends) {
      r.runs++;
      r.runs_ok += run_once(plan, b);
    }
  }
  free(buf);
  return r;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  fuzz_run_plan(data, size);
  return 0;
}
