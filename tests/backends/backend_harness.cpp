// The backends of this build and the two-dispatcher op comparison (backend_harness.h).
#include "backend_harness.h"

#include "tigris_kernels_cmsis_nn.h"
#include "tigris_kernels_esp_nn.h"
#include "tigris_kernels_s8.h"

namespace backtest {

namespace {

#ifdef TIGRIS_HAS_CMSIS_NN
int cmsis_prepare(const tigris_plan_t* plan, tigris_mem_t* mem) { return tigris_cmsis_nn_prepare(plan, mem); }
void cmsis_release(tigris_mem_t* mem) { EXPECT_EQ(tigris_cmsis_nn_deinit(mem), 0); }
#endif
#ifdef TIGRIS_HAS_ESP_NN
int esp_prepare(const tigris_plan_t* plan, tigris_mem_t* mem) { return tigris_esp_nn_prepare(plan, mem); }
void esp_release(tigris_mem_t*) { tigris_esp_nn_deinit(); }
#endif

std::vector<Backend> make_backends() {
  std::vector<Backend> v;
#ifdef TIGRIS_HAS_CMSIS_NN
  v.push_back({"cmsis-nn", tigris_dispatch_kernel_cmsis_nn, cmsis_prepare, cmsis_release,
               tigris_accel::cmsis_nn_counters, true});
#endif
#ifdef TIGRIS_HAS_ESP_NN
  v.push_back(
      {"esp-nn", tigris_dispatch_kernel_esp_nn, esp_prepare, esp_release, tigris_accel::esp_nn_counters, false});
#endif
  return v;
}

// Runs `kernel` on copies of `bufs`; returns its code and the op's output buffers.
int run_once(const tigris_plan_t* plan, uint16_t op, std::vector<Bytes> bufs, tigris_kernel_fn kernel,
             tigris_mem_t* mem, const tigris_tile_ctx_t& tile, std::vector<Bytes>* outs) {
  std::vector<void*> ptrs(bufs.size());
  for (size_t t = 0; t < bufs.size(); t++) ptrs[t] = bufs[t].empty() ? nullptr : bufs[t].data();
  void** saved_ptrs = mem->tensor_ptrs;
  const uint16_t saved_count = mem->num_tensors;
  mem->tensor_ptrs = ptrs.data();
  mem->num_tensors = (uint16_t)ptrs.size();
  mem->tile = tile;
  const int rc = kernel(plan, &plan->ops[op], op, mem, nullptr);
  mem->tile = tigris_tile_ctx_t{};
  mem->tensor_ptrs = saved_ptrs;
  mem->num_tensors = saved_count;
  const tigris_op_t& o = plan->ops[op];
  for (uint8_t i = 0; i < o.num_outputs; i++) outs->push_back(bufs[tigris_op_outputs(plan, &o)[i]]);
  return rc;
}

}  // namespace

const std::vector<Backend>& backends() {
  static const std::vector<Backend> v = make_backends();
  return v;
}

Compared compare_op(const tigris_plan_t* plan, uint16_t op, const std::vector<Bytes>& bufs, const Backend& b,
                    const tigris_tile_ctx_t& tile) {
  Compared r;
  tigris_mem_t ref_mem{};
  r.rc_ref = run_once(plan, op, bufs, tigris_dispatch_kernel_s8, &ref_mem, tile, &r.ref);

  // The adapter on an arena of its own, prepared for the plan.
  std::vector<void*> arena_ptrs(plan->header->num_tensors);
  std::vector<uint8_t> fast(1u << 20);
  tigris_mem_t mem{};
  EXPECT_EQ(tigris_mem_init(&mem, arena_ptrs.data(), (uint16_t)arena_ptrs.size(), fast.data(), (uint32_t)fast.size(),
                            nullptr, 0),
            TIGRIS_MEM_OK);
  EXPECT_EQ(b.prepare(plan, &mem), 0) << b.name;
  const tigris_accel::Counters before = b.counters();
  r.rc_acc = run_once(plan, op, bufs, b.dispatch, &mem, tile, &r.acc);
  r.native = b.counters().native - before.native;
  r.fallback = b.counters().fallback - before.fallback;
  b.release(&mem);
  return r;
}

void expect_identical(const Compared& r, bool native, const std::string& what) {
  EXPECT_EQ(r.rc_ref, 0) << what << ": reference";
  EXPECT_EQ(r.rc_acc, 0) << what << ": adapter";
  ASSERT_EQ(r.ref.size(), r.acc.size()) << what;
  for (size_t i = 0; i < r.ref.size(); i++) EXPECT_TRUE(r.ref[i] == r.acc[i]) << what << ": output " << i << " differs";
  EXPECT_EQ(r.native, native ? 1u : 0u) << what << (native ? ": expected a native call" : ": expected a fallback");
  EXPECT_EQ(r.fallback, native ? 0u : 1u) << what;
}

Bytes bytes(size_t n, uint32_t seed, int lo, int hi) {
  Bytes v(n);
  uint32_t x = seed * 2654435761u + 0x9E3779B9u;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v[i] = (int8_t)(lo + (int)(x % (uint32_t)(hi - lo + 1)));
  }
  return v;
}

}  // namespace backtest
