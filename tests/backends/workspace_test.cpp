// The adapters' workspace contracts (docs/runtime-api "Accelerated int8 backends"):
// CMSIS-NN's exact reservation and fast-arena figures (hand-derived from CMSIS-NN's buffer
// formulas for a plain C build), prepare carving the reservation off the top of the fast
// buffer and deinit restoring it, their -1 cases; ESP-NN's prepare codes (-1 invalid or
// overflowing metadata, -2 misaligned weights), optional workspace missing -> reference
// kernels with the same bytes, and every allocation released.
#include <cstdlib>
#include <cstring>

#include "backends/common/accel_routes.h"
#include "op_cases.h"
#include "tigris_kernels_cmsis_nn.h"
#include "tigris_kernels_esp_nn.h"

#ifdef TIGRIS_HAS_ESP_NN
#include "backends/esp_nn/esp_nn_alloc.h"
#endif

using namespace backtest;

namespace {

// x -> conv A (3x3, 8 -> 16, per-tensor) ; x -> conv B (5x5, 5 -> 40 on its own input,
// per-channel): vendor scratch of B, expansion of A.
struct TwoConvs {
  s8test::PlanFixture f;
  const tigris_plan_t* plan = nullptr;
  uint16_t a = 0, b = 0;
  TwoConvs() {
    const uint16_t qi = f.quant(0.05f, 1);
    const uint16_t xa = f.tensor({1, 8, 8, 8}, TIGRIS_DTYPE_INT8, qi);
    const uint16_t ya = f.tensor({1, 8, 8, 16}, TIGRIS_DTYPE_INT8, f.conv_quant(0.05f, {0.02f}, 0.1f, 0));
    const uint16_t xb = f.tensor({1, 9, 9, 5}, TIGRIS_DTYPE_INT8, qi);
    const uint16_t yb =
        f.tensor({1, 5, 5, 40}, TIGRIS_DTYPE_INT8, f.conv_quant(0.05f, std::vector<float>(40, 0.01f), 0.1f, 0));
    a = f.op(TIGRIS_OP_CONV, {xa}, {ya});
    f.op_record(a).spatial = tigris_spatial_t{3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    f.op_record(a).weight_idx = f.weight_i8(bytes(16 * 9 * 8, 1));
    b = f.op(TIGRIS_OP_CONV, {xb}, {yb});
    f.op_record(b).spatial = tigris_spatial_t{5, 5, 1, 1, 0, 0, 0, 0, 1, 1, 1};
    f.op_record(b).weight_idx = f.weight_i8(bytes(40 * 25 * 5, 2));
    plan = f.finalize();
  }
};

#ifdef TIGRIS_HAS_CMSIS_NN
bool plain_c_cmsis() {
#if defined(__ARM_FEATURE_DSP) || defined(__ARM_FEATURE_MVE)
  return false;
#else
  return true;
#endif
}

// CMSIS-NN's plain C im2col buffer of arm_convolve_s8: 2 x 2 bytes per column, columns
// (kernel taps x input channels) rounded up to 4.
uint32_t im2col_bytes(uint32_t taps_by_channels) { return 4u * ((taps_by_channels + 3u) / 4u * 4u); }
#endif

}  // namespace

#ifdef TIGRIS_HAS_CMSIS_NN

TEST(CmsisWorkspace, ScratchAndArenaFigures) {
  if (!plain_c_cmsis()) GTEST_SKIP() << "figures derived for CMSIS-NN's plain C kernels";
  TwoConvs p;
  // Vendor scratch: max(conv A 3*3*8 = 72 columns, conv B 5*5*5 = 125 -> 128) -> 512 bytes;
  // expansion: conv A's 16 channels x (multiplier + shift) = 128 bytes.
  const uint32_t vendor = im2col_bytes(125), expand = 16u * 8u;
  ASSERT_EQ(vendor, 512u);
  EXPECT_EQ(tigris_cmsis_nn_scratch_required(p.plan), vendor + expand);
  tigris_plan_t plan = *p.plan;
  plan.scheduled_peak = 1000;  // core 1000 -> 8 bytes to the next 16-aligned address
  EXPECT_EQ(tigris_fast_arena_required(&plan), 1000u);
  EXPECT_EQ(tigris_cmsis_nn_fast_arena_required(&plan), 1000u + 8u + 640u);
  plan.scheduled_peak = 1008;
  EXPECT_EQ(tigris_cmsis_nn_fast_arena_required(&plan), 1008u + 640u);
  plan.scheduled_peak = UINT32_MAX - 100;
  EXPECT_EQ(tigris_cmsis_nn_fast_arena_required(&plan), UINT32_MAX);
}

// What codegen declares for the adapter (the larger of CMSIS-NN's DSP and MVE buffers) covers
// what this build's adapter reserves, for convolutions of every shape class the wrapper
// dispatches on (1x1, 1xN, general, grouped) and for depthwise convolutions.
TEST(CmsisWorkspace, CodegenReserveCoversTheAdapter) {
  TwoConvs two;
  EXPECT_LE(tigris_cmsis_nn_scratch_required(two.plan), tigris_accel::cmsis_nn_reserve_bound(two.plan));
  auto conv = [](std::vector<int32_t> in, int32_t oc, uint8_t k_h, uint8_t k_w, uint8_t stride, uint16_t group,
                 bool depthwise) {
    ConvCase c;
    c.in = std::move(in);
    c.oc = oc;
    c.kh = k_h, c.kw = k_w, c.sh = c.sw = stride;
    c.pt = c.pb = c.pl = c.pr = k_h > 1 ? 1 : 0;
    c.group = group;
    c.depthwise = depthwise;
    return c;
  };
  const std::vector<ConvCase> cases = {
      conv({1, 8, 8, 16}, 32, 1, 1, 1, 1, false),   conv({1, 1, 12, 7}, 9, 1, 5, 1, 1, false),
      conv({1, 9, 9, 5}, 40, 5, 5, 2, 1, false),    conv({1, 8, 8, 8}, 8, 3, 3, 1, 2, false),
      conv({1, 10, 10, 24}, 24, 3, 3, 1, 24, true), conv({1, 10, 10, 8}, 16, 3, 3, 2, 8, true),
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    const OpPlan p = conv_plan(cases[i], 7u + (uint32_t)i);
    EXPECT_LE(tigris_cmsis_nn_scratch_required(p.plan), tigris_accel::cmsis_nn_reserve_bound(p.plan)) << "case " << i;
  }
}

TEST(CmsisWorkspace, PlansThatNeedNothing) {
  // A 1x1 convolution with per-channel factors and an FC need no reservation.
  s8test::PlanFixture f;
  const uint16_t x = f.tensor({1, 4, 4, 8}, TIGRIS_DTYPE_INT8, f.quant(0.05f, 0));
  const uint16_t y = f.tensor({1, 4, 4, 3}, TIGRIS_DTYPE_INT8, f.conv_quant(0.05f, {0.01f, 0.02f, 0.03f}, 0.1f, 0));
  const uint16_t op = f.op(TIGRIS_OP_CONV, {x}, {y});
  f.op_record(op).spatial = tigris_spatial_t{1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1};
  f.op_record(op).weight_idx = f.weight_i8(bytes(24, 3));
  const tigris_plan_t* plan = f.finalize();
  EXPECT_EQ(tigris_cmsis_nn_scratch_required(plan), 0u);
  tigris_plan_t copy = *plan;
  copy.scheduled_peak = 1000;
  EXPECT_EQ(tigris_cmsis_nn_fast_arena_required(&copy), 1000u);  // no reservation, no gap
}

TEST(CmsisWorkspace, InvalidInput) {
  EXPECT_EQ(tigris_cmsis_nn_scratch_required(nullptr), UINT32_MAX);
  EXPECT_EQ(tigris_cmsis_nn_fast_arena_required(nullptr), UINT32_MAX);
  tigris_plan_t empty{};
  EXPECT_EQ(tigris_cmsis_nn_scratch_required(&empty), UINT32_MAX);
  EXPECT_EQ(tigris_cmsis_nn_fast_arena_required(&empty), UINT32_MAX);
}

namespace {

struct Arena {
  std::vector<uint8_t> storage;
  std::vector<void*> ptrs;
  tigris_mem_t mem{};
  Arena(const tigris_plan_t* plan, uint32_t size) : storage(size + 64), ptrs(plan->header->num_tensors) {
    uint8_t* base = (uint8_t*)(((uintptr_t)storage.data() + 63u) & ~(uintptr_t)63u);
    EXPECT_EQ(tigris_mem_init(&mem, ptrs.data(), (uint16_t)ptrs.size(), base, size, nullptr, 0), TIGRIS_MEM_OK);
  }
};

}  // namespace

TEST(CmsisWorkspace, PrepareCarvesTheTopAndDeinitRestores) {
  TwoConvs p;
  tigris_plan_t plan = *p.plan;
  plan.scheduled_peak = 1000;
  const uint32_t required = tigris_cmsis_nn_fast_arena_required(&plan);
  const uint32_t scratch = tigris_cmsis_nn_scratch_required(&plan);
  ASSERT_GT(scratch, 0u);
  Arena a(&plan, required);
  ASSERT_EQ(tigris_cmsis_nn_prepare(&plan, &a.mem), 0);
  EXPECT_GE(a.mem.fast_size, 1000u);  // the core requirement still fits
  EXPECT_EQ(a.mem.fast_size + scratch, required);
  EXPECT_EQ(((uintptr_t)a.mem.fast_base + a.mem.fast_size) % 16u, 0u) << "reservation not 16-aligned";
  // Preparing again starts from the whole buffer: the same carve.
  const uint32_t carved = a.mem.fast_size;
  ASSERT_EQ(tigris_cmsis_nn_prepare(&plan, &a.mem), 0);
  EXPECT_EQ(a.mem.fast_size, carved);
  EXPECT_EQ(tigris_cmsis_nn_deinit(&a.mem), 0);
  EXPECT_EQ(a.mem.fast_size, required);
  EXPECT_EQ(tigris_cmsis_nn_deinit(&a.mem), 0);  // nothing prepared: no change
  EXPECT_EQ(a.mem.fast_size, required);
}

TEST(CmsisWorkspace, PrepareRefusesInsufficientCapacity) {
  TwoConvs p;
  tigris_plan_t plan = *p.plan;
  plan.scheduled_peak = 1000;
  const uint32_t required = tigris_cmsis_nn_fast_arena_required(&plan);
  Arena small(&plan, required - 1);
  EXPECT_EQ(tigris_cmsis_nn_prepare(&plan, &small.mem), -1);
  EXPECT_EQ(small.mem.fast_size, required - 1) << "a refused prepare changed the arena";
  // Room for the reservation but not above what is already in use.
  Arena used(&plan, required);
  used.mem.fast_used = 1100;
  EXPECT_EQ(tigris_cmsis_nn_prepare(&plan, &used.mem), -1);
  EXPECT_EQ(used.mem.fast_size, required);
  Arena tiny(&plan, 100);
  EXPECT_EQ(tigris_cmsis_nn_prepare(&plan, &tiny.mem), -1);
}

TEST(CmsisWorkspace, InvalidArgumentsAndOneContext) {
  TwoConvs p;
  Arena a(p.plan, 1u << 16), b(p.plan, 1u << 16);
  EXPECT_EQ(tigris_cmsis_nn_prepare(nullptr, &a.mem), -1);
  EXPECT_EQ(tigris_cmsis_nn_prepare(p.plan, nullptr), -1);
  EXPECT_EQ(tigris_cmsis_nn_deinit(nullptr), -1);
  ASSERT_EQ(tigris_cmsis_nn_prepare(p.plan, &a.mem), 0);
  EXPECT_EQ(tigris_cmsis_nn_prepare(p.plan, &b.mem), -1) << "one process-global context";
  EXPECT_EQ(tigris_cmsis_nn_deinit(&b.mem), -1);
  EXPECT_EQ(b.mem.fast_size, 1u << 16);
  EXPECT_EQ(tigris_cmsis_nn_deinit(&a.mem), 0);
  EXPECT_EQ(a.mem.fast_size, 1u << 16);
}

TEST(CmsisWorkspace, UnpreparedMemRunsOnlyWhatNeedsNoWorkspace) {
  if (!plain_c_cmsis()) GTEST_SKIP() << "buffer needs derived for CMSIS-NN's plain C kernels";
  const Backend* cmsis = nullptr;
  for (const Backend& b : backends())
    if (b.cmsis) cmsis = &b;
  ASSERT_NE(cmsis, nullptr);
  ConvCase c3;  // 3x3: im2col scratch needed
  c3.in = {1, 6, 6, 4}, c3.oc = 5, c3.pt = c3.pb = c3.pl = c3.pr = 1;
  ConvCase c1 = c3;  // 1x1 per-channel: none
  c1.kh = c1.kw = 1, c1.pt = c1.pb = c1.pl = c1.pr = 0;
  for (const auto& [c, native] : {std::pair{c3, false}, std::pair{c1, true}}) {
    OpPlan p = conv_plan(c, 5);
    Backend unprepared = *cmsis;
    unprepared.prepare = [](const tigris_plan_t*, tigris_mem_t*) { return 0; };
    unprepared.release = [](tigris_mem_t*) {};
    expect_identical(compare_op(p.plan, p.op, p.bufs, unprepared), native, native ? "1x1" : "3x3");
  }
}

#endif  // TIGRIS_HAS_CMSIS_NN

#ifdef TIGRIS_HAS_ESP_NN

namespace {

int g_fail_allocs = 0, g_allocs = 0, g_frees = 0;

struct FailingAllocator {
  FailingAllocator() { g_fail_allocs = 1; }
  ~FailingAllocator() { g_fail_allocs = 0; }
};

}  // namespace

// The test binary's platform allocator (replaces the adapter's weak default).
extern "C" void* tigris_esp_nn_platform_alloc(uint32_t alignment, uint32_t size) {
  if (g_fail_allocs) return nullptr;
  ++g_allocs;
  return aligned_alloc(alignment, ((size_t)size + alignment - 1) / alignment * alignment);
}

extern "C" void tigris_esp_nn_platform_free(void* ptr) {
  ++g_frees;
  free(ptr);
}

namespace {

const Backend& esp() {
  for (const Backend& b : backends())
    if (!b.cmsis) return b;
  return backends().front();
}

}  // namespace

TEST(EspWorkspace, InvalidArguments) {
  TwoConvs p;
  tigris_mem_t mem{};
  EXPECT_EQ(tigris_esp_nn_prepare(nullptr, &mem), -1);
  EXPECT_EQ(tigris_esp_nn_prepare(p.plan, nullptr), -1);
  tigris_plan_t empty{};
  EXPECT_EQ(tigris_esp_nn_prepare(&empty, &mem), -1);
}

TEST(EspWorkspace, MisalignedConvWeights) {
  TwoConvs p;
  // The same plan with its weight blob one byte off a 16-byte boundary.
  uint32_t blob = 0;
  for (uint16_t i = 0; i < p.plan->header->num_weights; i++)
    blob = std::max(blob, p.plan->weight_entries[i].offset + p.plan->weight_entries[i].size_bytes);
  std::vector<uint8_t> copy(blob + 32);
  uint8_t* odd = (uint8_t*)(((uintptr_t)copy.data() + 15u) & ~(uintptr_t)15u) + 1;
  std::memcpy(odd, p.plan->weight_blob, blob);
  tigris_plan_t plan = *p.plan;
  plan.weight_blob = odd;
  tigris_mem_t mem{};
  EXPECT_EQ(tigris_esp_nn_prepare(&plan, &mem), -2);
  EXPECT_EQ(tigris_esp_nn_prepare(p.plan, &mem), 0);
  tigris_esp_nn_deinit();
}

TEST(EspWorkspace, OverflowingMetadata) {
  // A padded conv over 30000 x 30000 x 16: its padded-image copy exceeds 4 GiB.
  s8test::PlanFixture f;
  const uint16_t x = f.tensor({1, 30000, 30000, 16}, TIGRIS_DTYPE_INT8, f.quant(0.05f, 0));
  const uint16_t y = f.tensor({1, 30000, 30000, 4}, TIGRIS_DTYPE_INT8, f.conv_quant(0.05f, {0.01f}, 0.1f, 0));
  const uint16_t op = f.op(TIGRIS_OP_CONV, {x}, {y});
  f.op_record(op).spatial = tigris_spatial_t{3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  f.op_record(op).weight_idx = f.weight_i8(bytes(4 * 9 * 16, 4));
  tigris_mem_t mem{};
  EXPECT_EQ(tigris_esp_nn_prepare(f.finalize(), &mem), -1);
}

TEST(EspWorkspace, OptionalWorkspaceMissingRunsTheReference) {
  ConvCase per_tensor;  // needs the expanded factors
  per_tensor.in = {1, 6, 6, 4}, per_tensor.oc = 5, per_tensor.per_tensor = true;
  per_tensor.pt = per_tensor.pb = per_tensor.pl = per_tensor.pr = 1;
  ConvCase prepadded;  // padding after > before: needs the padded-image copy
  prepadded.in = {1, 9, 8, 5}, prepadded.oc = 6, prepadded.kh = prepadded.kw = 5;
  prepadded.pt = prepadded.pl = 1, prepadded.pb = prepadded.pr = 3;
  for (const ConvCase& c : {per_tensor, prepadded}) {
    const OpPlan p = conv_plan(c, 9);
    expect_identical(compare_op(p.plan, p.op, p.bufs, esp()), true, "workspace available");
    FailingAllocator no_heap;
    expect_identical(compare_op(p.plan, p.op, p.bufs, esp()), false, "workspace missing");
  }
}

TEST(EspWorkspace, EveryAllocationIsReleased) {
  const ConvCase c = [] {
    ConvCase k;
    k.in = {1, 9, 8, 5}, k.oc = 6, k.kh = k.kw = 5, k.per_tensor = true;
    k.pt = k.pl = 1, k.pb = k.pr = 3;
    return k;
  }();
  const OpPlan p = conv_plan(c, 3);
  const int allocs = g_allocs, frees = g_frees;
  tigris_mem_t mem{};
  ASSERT_EQ(tigris_esp_nn_prepare(p.plan, &mem), 0);
  EXPECT_EQ(g_allocs - allocs, 2) << "expanded factors and padded image";
  ASSERT_EQ(tigris_esp_nn_prepare(p.plan, &mem), 0);  // a second prepare releases the first
  EXPECT_EQ(g_frees - frees, 2);
  tigris_esp_nn_deinit();
  tigris_esp_nn_deinit();
  EXPECT_EQ(g_allocs - allocs, g_frees - frees);
}

#endif  // TIGRIS_HAS_ESP_NN
