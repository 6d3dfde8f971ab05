// Random one-op plans: check_operator answers OK or BAD_OPERATOR without reading outside the
// plan, and every op it accepts runs through the float dispatcher (which may refuse a dtype or
// data-dependent input) without touching memory outside its tensors. Meant to run under
// ASan/UBSan too; deterministic seed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "runtime/src/plan/op_rules.h"
#include "tigris_kernels.h"
#include "unit/kernels_f32/plan_fixture.h"

namespace {

struct Rng {
  uint64_t s;
  uint32_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(s >> 33);
  }
  uint32_t below(uint32_t n) { return next() % n; }
};

const uint8_t kDtypes[] = {TIGRIS_DTYPE_FLOAT32, TIGRIS_DTYPE_FLOAT32, TIGRIS_DTYPE_FLOAT32, TIGRIS_DTYPE_INT32,
                           TIGRIS_DTYPE_INT64,   TIGRIS_DTYPE_BOOL,    TIGRIS_DTYPE_UINT8};

std::vector<int32_t> random_shape(Rng& r, const std::vector<int32_t>* like) {
  if (like != nullptr && r.below(6) != 0) {
    std::vector<int32_t> s = *like;
    if (!s.empty() && r.below(6) == 0) s[r.below((uint32_t)s.size())] = 1 + (int32_t)r.below(4);
    return s;
  }
  std::vector<int32_t> s(r.below(5));
  for (int32_t& d : s) d = 1 + (int32_t)r.below(4);
  return s;
}

std::vector<uint8_t> random_payload(Rng& r, uint8_t kind, uint32_t rank) {
  uint32_t len;
  switch (r.below(4)) {
  case 0: len = r.below(24); break;
  case 1: len = 4u * (1 + r.below(2 * rank + 4)); break;  // i32 lists
  case 2: len = kind == TIGRIS_ATTR_AXES || kind == TIGRIS_ATTR_TRANSPOSE_PERM ? rank : 4; break;
  default: len = kind == TIGRIS_ATTR_PADS ? 8 * rank : 8; break;
  }
  std::vector<uint8_t> b(len);
  for (uint8_t& x : b) x = (uint8_t)(r.below(3) == 0 ? r.next() : r.below(4));
  if ((kind == TIGRIS_ATTR_AXES || kind == TIGRIS_ATTR_TRANSPOSE_PERM) && r.below(2))
    for (uint32_t i = 0; i < len; ++i) b[i] = (uint8_t)(kind == TIGRIS_ATTR_AXES ? i : len - 1 - i);
  return b;
}

TEST(OpRulesFuzz, RandomOpsNeverOverrunAndAcceptedOnesRun) {
  // TIGRIS_FUZZ_SEED / TIGRIS_FUZZ_ITERS explore further (e.g. under an ASan build).
  const char* seed = std::getenv("TIGRIS_FUZZ_SEED");
  const char* iters = std::getenv("TIGRIS_FUZZ_ITERS");
  Rng r{seed ? std::strtoull(seed, nullptr, 10) : 12345u};
  const int iterations = iters ? std::atoi(iters) : 120000;
  int accepted = 0, ran = 0;
  bool seen[256] = {};
  for (int iter = 0; iter < iterations; ++iter) {
    fixture::Plan f;
    uint8_t type = (uint8_t)(1 + r.below(TIGRIS_OP_TYPE_MAX + 2));
    uint8_t dtype = kDtypes[r.below(sizeof(kDtypes))];
    std::vector<int32_t> base = random_shape(r, nullptr);
    uint32_t k = r.below(6);
    int n_in = k < 3 ? 1 : k < 5 ? 2 : 3, n_out = 1 + (int)(r.below(6) == 0);
    std::vector<uint16_t> fins, fouts;
    for (int i = 0; i < n_in; ++i)
      fins.push_back(f.tensor(random_shape(r, &base), r.below(10) == 0 ? kDtypes[r.below(sizeof(kDtypes))] : dtype));
    for (int i = 0; i < n_out; ++i)
      fouts.push_back(f.tensor(random_shape(r, &base), r.below(6) == 0 ? kDtypes[r.below(sizeof(kDtypes))] : dtype));
    uint16_t fo = f.op(type, fins, fouts);
    tigris_op_t& fr = f.o(fo);
    tigris_spatial_t& sp = fr.spatial;
    if (r.below(2)) {
      sp.kernel_h = (uint8_t)r.below(4), sp.kernel_w = (uint8_t)r.below(4);
      sp.stride_h = (uint8_t)r.below(3), sp.stride_w = (uint8_t)r.below(3);
      sp.pad_top = (uint16_t)r.below(2), sp.pad_bottom = (uint16_t)r.below(2);
      sp.pad_left = (uint16_t)r.below(2), sp.pad_right = (uint16_t)r.below(2);
      sp.dilation_h = (uint16_t)r.below(3), sp.dilation_w = (uint16_t)r.below(3);
      sp.group = (uint16_t)r.below(4);
    }
    uint32_t rank = (uint32_t)base.size();
    if (r.below(4) == 0) {
      std::vector<uint8_t> w(4u * (1 + r.below(64)));
      for (uint8_t& x : w) x = (uint8_t)r.below(5);
      fr.weight_idx = f.weight_bytes(w.data(), w.size());
    }
    if (r.below(8) == 0) {
      std::vector<uint8_t> w(4u * (1 + r.below(8)));
      fr.bias_idx = f.weight_bytes(w.data(), w.size());
    }
    fr.fused_act = (uint8_t)(r.below(8) == 0 ? r.below(3) : 0);
    for (int a = r.below(3) == 0 ? 1 + (int)r.below(2) : 0; a > 0; --a) {
      uint8_t kind = (uint8_t)(1 + r.below(TIGRIS_ATTR_KIND_COUNT - 1));
      f.attr(fo, kind, random_payload(r, kind, rank));
    }
    tigris_error_t e = tigris_rt::check_operator(f.plan(), fo);
    ASSERT_TRUE(e == TIGRIS_OK || e == TIGRIS_ERR_BAD_OPERATOR) << "op " << int(type);
    if (e != TIGRIS_OK) continue;
    ++accepted;
    seen[type] = true;
    tigris_mem_t* m = f.mem();
    for (uint16_t t : fins) {
      std::vector<uint8_t> v(f.t(t).size_bytes);
      for (uint8_t& x : v) x = (uint8_t)r.below(3);
      f.set(t, v);
    }
    const tigris_plan_t* plan = f.plan();
    ran += tigris_dispatch_kernel(plan, &plan->ops[fo], fo, m, nullptr) == 0;
  }
  // The generator must reach the kernels for this test to mean something.
  EXPECT_GT(accepted, 1000);
  EXPECT_GT(ran, 500);
  int kinds = 0;
  for (bool b : seen) kinds += b;
  EXPECT_GT(kinds, 40);  // accepted plans cover most op types
  std::printf("accepted %d, ran %d, op types %d\n", accepted, ran, kinds);
}

}  // namespace
