// Harness of the accelerated-backend tests: the adapters this build has (CMSIS-NN, ESP-NN),
// and one op run twice from the same bytes — through tigris_dispatch_kernel_s8 and through an
// adapter prepared for the plan — so a test compares the two outputs byte for byte and reads
// whether the adapter computed the call itself or handed it to the reference kernels.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/common/accel_counters.h"
#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_mem.h"

namespace backtest {

using Bytes = std::vector<int8_t>;

struct Backend {
  const char* name;
  tigris_kernel_fn dispatch;
  // Prepare the adapter for `plan` on `mem` (0 ok) and release it.
  int (*prepare)(const tigris_plan_t* plan, tigris_mem_t* mem);
  void (*release)(tigris_mem_t* mem);
  tigris_accel::Counters& (*counters)();
  bool cmsis;
};

// The adapters compiled into this build (empty when no library location was configured).
const std::vector<Backend>& backends();

#define BACKENDS_OR_SKIP()                                                           \
  do {                                                                               \
    if (backtest::backends().empty())                                                \
      GTEST_SKIP() << "no accelerated backend in this build: configure with "        \
                      "-DTIGRIS_CMSIS_NN_DIR=<CMSIS-NN source tree> and/or "         \
                      "-DTIGRIS_ESP_NN_DIR=<esp-nn source tree> (docs/backends.md)"; \
  } while (0)

// One op call compared: the reference's and the adapter's output bytes (whole buffers of
// every output, pre-filled identically, so bytes outside the band are compared too).
struct Compared {
  int rc_ref = -99, rc_acc = -99;
  std::vector<Bytes> ref, acc;  // per op output
  uint32_t native = 0, fallback = 0;
};

// Runs op `op` of `plan` with tensor buffers `bufs` (indexed by tensor; outputs sized by the
// caller) and tile context `tile`, once per dispatcher.
Compared compare_op(const tigris_plan_t* plan, uint16_t op, const std::vector<Bytes>& bufs, const Backend& b,
                    const tigris_tile_ctx_t& tile = tigris_tile_ctx_t{});

// EXPECTs both calls succeeded with identical outputs, and that the adapter ran the call
// natively (`native`) or fell back.
void expect_identical(const Compared& r, bool native, const std::string& what);

// Which adapters must run a case natively (the others fall back to the reference kernels).
enum Route { kNativeBoth, kCmsisOnly, kEspOnly, kFallbackBoth };
inline bool native_for(Route r, const Backend& b) {
  return r == kNativeBoth || (r == kCmsisOnly && b.cmsis) || (r == kEspOnly && !b.cmsis);
}

// Deterministic int8 bytes.
Bytes bytes(size_t n, uint32_t seed, int lo = -128, int hi = 127);

}  // namespace backtest
