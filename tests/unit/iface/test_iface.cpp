// Model interface: bytes at the boundary, every conversion (rounding ties, clamping, zero
// points), placement of inputs, and every error code. Expected values are derived by hand
// from the conversion rules: q = clamp(round_half_away(x / scale) + zp), x = (q - zp) * scale.
#include "unit/exec/exec_fixture.h"

using namespace exectest;
using tigris::plan::QuantDesc;

namespace {

const std::vector<int32_t> kShape = {1, 1, 2, 4};  // 8 elements

// Boundary tensors of every interface kind, each input reshaped (a byte copy) into an output:
//   0 xf: int8 stored, float32 declared (scale 0.5, zp -3)   -> 1 yf (same)
//   2 xu: int8 stored, uint8 declared (zp -128 moved)        -> 3 yu (same)
//   4 xi: float32 identity                                    -> 5 yi
PlanDesc boundary_plan() {
  PlanDesc p;
  p.model_name = "iface";
  QuantDesc q;
  q.scale = 0.5f;
  q.zero_point = -3;
  q.multipliers = {1073741824};
  q.shifts = {1};
  QuantDesc qu;
  qu.scale = 0.25f;
  qu.zero_point = -128;
  qu.multipliers = {1073741824};
  qu.shifts = {1};
  p.quant = {q, qu};
  auto quant_tensor = [&](const char* name, uint8_t flags, uint16_t quant, uint8_t declared) {
    uint16_t t = add_tensor(p, name, kShape, flags, TIGRIS_DTYPE_INT8);
    p.tensors[t].quant = quant;
    p.tensors[t].iface_dtype = declared;
    return t;
  };
  uint16_t xf = quant_tensor("xf", TIGRIS_TENSOR_MODEL_INPUT, 0, TIGRIS_DTYPE_FLOAT32);
  uint16_t yf = quant_tensor("yf", TIGRIS_TENSOR_MODEL_OUTPUT, 0, TIGRIS_DTYPE_FLOAT32);
  uint16_t xu = quant_tensor("xu", TIGRIS_TENSOR_MODEL_INPUT, 1, TIGRIS_DTYPE_UINT8);
  uint16_t yu = quant_tensor("yu", TIGRIS_TENSOR_MODEL_OUTPUT, 1, TIGRIS_DTYPE_UINT8);
  uint16_t xi = add_tensor(p, "xi", kShape, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t yi = add_tensor(p, "yi", kShape, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(p, TIGRIS_OP_RESHAPE, {xf}, {yf});  // byte movement: enabled for int8 by default
  add_op(p, TIGRIS_OP_RESHAPE, {xu}, {yu});
  add_op(p, TIGRIS_OP_RESHAPE, {xi}, {yi});
  add_stage(p, {0}, {xf}, {yf});
  add_stage(p, {1}, {xu}, {yu});
  add_stage(p, {2}, {xi}, {yi});
  p.model_inputs = {xf, xu, xi};
  p.model_outputs = {yf, yu, yi};
  p.scheduled_peak = 64;
  return p;
}

struct Iface : ::testing::Test {
  Loaded f;
  Arena fast{1024}, slow{1024};
  tigris_mem_t mem{};
  void* ptrs[6]{};
  void SetUp() override {
    ASSERT_EQ(load(boundary_plan(), &f), TIGRIS_OK);
    ASSERT_EQ(tigris_mem_init(&mem, ptrs, 6, fast.p, 1024, slow.p, 1024), TIGRIS_MEM_OK);
  }
  const tigris_plan_t* plan() const { return &f.plan; }
  // Loaded tensors live in our buffer: tests may alter one to build an unsupported interface.
  tigris_tensor_t* tensor(uint16_t t) { return (tigris_tensor_t*)&f.plan.tensors[t]; }
};

TEST_F(Iface, BoundaryBytes) {
  EXPECT_EQ(tigris_iface_bytes(plan(), 0), 32u);  // 8 int8 stored, float32 declared
  EXPECT_EQ(tigris_iface_bytes(plan(), 1), 32u);
  EXPECT_EQ(tigris_iface_bytes(plan(), 2), 8u);
  EXPECT_EQ(tigris_iface_bytes(plan(), 3), 8u);
  EXPECT_EQ(tigris_iface_bytes(plan(), 4), 32u);
  EXPECT_EQ(tigris_iface_bytes(plan(), 6), 0u);  // out of range
  EXPECT_EQ(tigris_iface_bytes(nullptr, 0), 0u);
}

TEST_F(Iface, FloatToInt8RoundsHalfAwayAndClamps) {
  // x / 0.5 = 2x; + zp (-3).
  const float x[8] = {0.25f, -0.25f, 0.75f, -0.75f, 63.9f, -70.0f, 1e30f, NAN};
  // 0.5 -> 1 -> -2 | -0.5 -> -1 -> -4 | 1.5 -> 2 -> -1 | -1.5 -> -2 -> -5 |
  // 127.8 -> 128 -> 125 | -140 -> -143 -> -128 | huge -> 127 | NaN reads as 0 -> -3
  const int8_t expect[8] = {-2, -4, -1, -5, 125, -128, 127, -3};
  ASSERT_EQ(tigris_input_write(plan(), &mem, 0, x, 32), TIGRIS_OK);
  ASSERT_NE(ptrs[0], nullptr);
  EXPECT_EQ(memcmp(ptrs[0], expect, 8), 0);
  const float top[8] = {65.0f, 65.24f, 65.25f, -62.25f, -62.26f, 0.0f, -0.0f, -INFINITY};
  // 130 -> 127 | 130.48 -> 130 -> 127 | 130.5 -> 131 -> 127 (clamped high) |
  // -124.5 -> -125 -> -128 | -124.52 -> -125 -> -128 | 0 -> -3 | -0 -> -3 | -inf -> -128
  const int8_t expect_top[8] = {127, 127, 127, -128, -128, -3, -3, -128};
  ASSERT_EQ(tigris_input_write(plan(), &mem, 0, top, 32), TIGRIS_OK);
  EXPECT_EQ(memcmp(ptrs[0], expect_top, 8), 0);
  const float edge[8] = {64.75f, 64.74f, -62.75f, -62.74f, 1.25f, -1.25f, 0.2499f, -0.2501f};
  // 129.5-3: round(129.5)=130 -> 127 | 129.48 -> 129 -> 126 | -125.5 -> -126 -> -129 -> -128 |
  // -125.48 -> -125 -> -128 | 2.5 -> 3 -> 0 | -2.5 -> -3 -> -6 | 0.4998 -> 0 -> -3 | -0.5002 -> -1 -> -4
  const int8_t expect_edge[8] = {127, 126, -128, -128, 0, -6, -3, -4};
  ASSERT_EQ(tigris_input_write(plan(), &mem, 0, edge, 32), TIGRIS_OK);
  EXPECT_EQ(memcmp(ptrs[0], expect_edge, 8), 0);
  // The compiler's formula in float: 2x = 0.5 - 2^-25 gives 2x + 0.5 = 1.0 (the sum rounds to
  // even), floor 1 -> -2, where the exact quotient would round to 0; its negative -> -1 -> -4.
  // Beyond 2^23: already integers (clamped). -0.1 -> -0.2 -> -0.7 -> -0 -> -3.
  const float sum[8] = {0x1.fffffep-3f, -0x1.fffffep-3f, 4194304.5f, -4194304.5f, -0.1f, 0.1f, 1.0f, -1.0f};
  const int8_t expect_sum[8] = {-2, -4, 127, -128, -3, -3, -1, -5};
  ASSERT_EQ(tigris_input_write(plan(), &mem, 0, sum, 32), TIGRIS_OK);
  EXPECT_EQ(memcmp(ptrs[0], expect_sum, 8), 0);
}

TEST_F(Iface, Int8ToFloatOnRead) {
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 1, 8), TIGRIS_MEM_OK);
  const int8_t q[8] = {-128, -3, -2, 0, 1, 127, -4, 5};
  memcpy(ptrs[1], q, 8);
  float y[8];
  ASSERT_EQ(tigris_output_read(plan(), &mem, 1, y, 32), TIGRIS_OK);
  const float expect[8] = {-62.5f, 0.0f, 0.5f, 1.5f, 2.0f, 65.0f, -0.5f, 4.0f};
  for (int i = 0; i < 8; ++i) EXPECT_EQ(y[i], expect[i]) << i;
}

TEST_F(Iface, Uint8MovesTheZeroPointBy128) {
  const uint8_t u[8] = {0, 1, 127, 128, 129, 200, 254, 255};
  ASSERT_EQ(tigris_input_write(plan(), &mem, 2, u, 8), TIGRIS_OK);
  const int8_t expect[8] = {-128, -127, -1, 0, 1, 72, 126, 127};
  EXPECT_EQ(memcmp(ptrs[2], expect, 8), 0);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 3, 8), TIGRIS_MEM_OK);
  memcpy(ptrs[3], expect, 8);
  uint8_t back[8];
  ASSERT_EQ(tigris_output_read(plan(), &mem, 3, back, 8), TIGRIS_OK);
  EXPECT_EQ(memcmp(back, u, 8), 0);
}

TEST_F(Iface, IdentityCopiesBytes) {
  const float x[8] = {1.5f, -2.25f, 3, 4, 5, 6, 7, -0.0f};
  ASSERT_EQ(tigris_input_write(plan(), &mem, 4, x, 32), TIGRIS_OK);
  EXPECT_EQ(memcmp(ptrs[4], x, 32), 0);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 5, 32), TIGRIS_MEM_OK);
  memcpy(ptrs[5], x, 32);
  float y[8];
  ASSERT_EQ(tigris_output_read(plan(), &mem, 5, y, 32), TIGRIS_OK);
  EXPECT_EQ(memcmp(y, x, 32), 0);
}

TEST_F(Iface, EndToEndThroughARun) {
  // The test kernel copies bytes, as the reshapes do.
  auto copy_kernel = [](const tigris_plan_t* p, const tigris_op_t* op, uint16_t, tigris_mem_t* m, void*) {
    const uint16_t in = tigris_op_inputs(p, op)[0], out = tigris_op_outputs(p, op)[0];
    memcpy(m->tensor_ptrs[out], m->tensor_ptrs[in], p->tensors[out].size_bytes);
    return 0;
  };
  const float xf[8] = {1, -1, 2.5f, -2.5f, 0, 10, -10, 0.25f};
  const uint8_t xu[8] = {0, 50, 100, 150, 200, 250, 128, 127};
  const float xi[8] = {9, 8, 7, 6, 5, 4, 3, 2};
  ASSERT_EQ(tigris_input_write(plan(), &mem, 0, xf, 32), TIGRIS_OK);
  ASSERT_EQ(tigris_input_write(plan(), &mem, 2, xu, 8), TIGRIS_OK);
  ASSERT_EQ(tigris_input_write(plan(), &mem, 4, xi, 32), TIGRIS_OK);
  ASSERT_EQ(tigris_run(plan(), &mem, copy_kernel, nullptr, nullptr), TIGRIS_EXEC_OK);
  float yf[8];
  uint8_t yu[8];
  float yi[8];
  ASSERT_EQ(tigris_output_read(plan(), &mem, 1, yf, 32), TIGRIS_OK);
  ASSERT_EQ(tigris_output_read(plan(), &mem, 3, yu, 8), TIGRIS_OK);
  ASSERT_EQ(tigris_output_read(plan(), &mem, 5, yi, 32), TIGRIS_OK);
  const float expect_f[8] = {1, -1, 2.5f, -2.5f, 0, 10, -10, 0.5f};  // 0.25/0.5 = 0.5 rounds to 1
  for (int i = 0; i < 8; ++i) EXPECT_EQ(yf[i], expect_f[i]) << i;
  EXPECT_EQ(memcmp(yu, xu, 8), 0);
  EXPECT_EQ(memcmp(yi, xi, 32), 0);
}

TEST_F(Iface, UnsupportedInterfacesAreRefused) {
  const float x[8] = {};
  // float32 declared over a float32... stored int32: no conversion.
  tensor(4)->dtype = TIGRIS_DTYPE_INT32;
  tensor(4)->iface_dtype = TIGRIS_DTYPE_FLOAT32;
  EXPECT_EQ(tigris_iface_bytes(plan(), 4), 0u);
  EXPECT_EQ(tigris_input_write(plan(), &mem, 4, x, 32), TIGRIS_ERR_BAD_INTERFACE);
  EXPECT_EQ(ptrs[4], nullptr);  // refused before placement
  // int32 declared over int8 stored.
  tensor(0)->iface_dtype = TIGRIS_DTYPE_INT32;
  EXPECT_EQ(tigris_iface_bytes(plan(), 0), 0u);
  EXPECT_EQ(tigris_input_write(plan(), &mem, 0, x, 32), TIGRIS_ERR_BAD_INTERFACE);
  // float32 declared over int8 stored without quantization.
  tensor(0)->iface_dtype = TIGRIS_DTYPE_FLOAT32;
  tensor(0)->quant_param_idx = TIGRIS_NONE;
  EXPECT_EQ(tigris_iface_bytes(plan(), 0), 0u);
  EXPECT_EQ(tigris_input_write(plan(), &mem, 0, x, 32), TIGRIS_ERR_BAD_INTERFACE);
  // A declared dtype with no size.
  tensor(1)->iface_dtype = 4;  // uint16: not a plan dtype
  float y[8];
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 1, 8), TIGRIS_MEM_OK);
  EXPECT_EQ(tigris_output_read(plan(), &mem, 1, y, 16), TIGRIS_ERR_BAD_INTERFACE);
  // uint8 declared over a float32 tensor.
  tensor(5)->iface_dtype = TIGRIS_DTYPE_UINT8;
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 5, 32), TIGRIS_MEM_OK);
  EXPECT_EQ(tigris_output_read(plan(), &mem, 5, y, 8), TIGRIS_ERR_BAD_INTERFACE);
}

TEST_F(Iface, ErrorCodes) {
  const float x[8] = {};
  float y[8];
  // NULL arguments.
  EXPECT_EQ(tigris_input_write(nullptr, &mem, 0, x, 32), TIGRIS_ERR_NULL);
  EXPECT_EQ(tigris_input_write(plan(), nullptr, 0, x, 32), TIGRIS_ERR_NULL);
  EXPECT_EQ(tigris_input_write(plan(), &mem, 0, nullptr, 32), TIGRIS_ERR_NULL);
  EXPECT_EQ(tigris_output_read(plan(), &mem, 1, nullptr, 32), TIGRIS_ERR_NULL);
  EXPECT_EQ(tigris_output_read(plan(), nullptr, 1, y, 32), TIGRIS_ERR_NULL);
  EXPECT_EQ(tigris_output_read(plan(), &mem, 1, y, 32), TIGRIS_ERR_NULL);  // no buffer yet
  // Wrong direction.
  EXPECT_EQ(tigris_input_write(plan(), &mem, 1, x, 32), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(tigris_output_read(plan(), &mem, 0, y, 32), TIGRIS_ERR_BAD_TENSOR);
  EXPECT_EQ(tigris_input_write(plan(), &mem, 99, x, 32), TIGRIS_ERR_BAD_TENSOR);
  // Byte count.
  EXPECT_EQ(tigris_input_write(plan(), &mem, 0, x, 8), TIGRIS_ERR_BAD_SIZE);
  EXPECT_EQ(tigris_input_write(plan(), &mem, 2, x, 32), TIGRIS_ERR_BAD_SIZE);
  ASSERT_EQ(tigris_mem_alloc_slow(&mem, 1, 8), TIGRIS_MEM_OK);
  EXPECT_EQ(tigris_output_read(plan(), &mem, 1, y, 8), TIGRIS_ERR_BAD_SIZE);
  EXPECT_EQ(ptrs[0], nullptr);  // no error placed anything
}

TEST_F(Iface, InputAllocPlacementAndErrors) {
  EXPECT_EQ(tigris_input_alloc(nullptr, &mem, 0), TIGRIS_ERR_NULL);
  EXPECT_EQ(tigris_input_alloc(plan(), nullptr, 0), TIGRIS_ERR_NULL);
  tigris_mem_t no_table = mem;
  no_table.tensor_ptrs = nullptr;
  EXPECT_EQ(tigris_input_alloc(plan(), &no_table, 0), TIGRIS_ERR_NULL);
  EXPECT_EQ(tigris_input_alloc(plan(), &mem, 1), TIGRIS_ERR_BAD_TENSOR);  // an output
  EXPECT_EQ(tigris_input_alloc(plan(), &mem, 200), TIGRIS_ERR_BAD_TENSOR);
  tigris_mem_t few = mem;
  few.num_tensors = 4;
  EXPECT_EQ(tigris_input_alloc(plan(), &few, 4), TIGRIS_ERR_TENSOR_SLOTS);
  EXPECT_EQ(tigris_input_write(plan(), &few, 4, ptrs, 32), TIGRIS_ERR_TENSOR_SLOTS);  // passed through
  // A multi-stage plan's inputs go to slow, one after another.
  ASSERT_EQ(tigris_input_alloc(plan(), &mem, 4), TIGRIS_OK);
  ASSERT_EQ(tigris_input_alloc(plan(), &mem, 0), TIGRIS_OK);
  EXPECT_EQ(ptrs[4], slow.p);
  EXPECT_EQ(ptrs[0], slow.p + aligned(32));
  EXPECT_EQ(mem.fast_used, 0u);
  // An existing buffer is kept, wherever it is.
  uint8_t own[8];
  ptrs[2] = own;
  ASSERT_EQ(tigris_input_alloc(plan(), &mem, 2), TIGRIS_OK);
  EXPECT_EQ(ptrs[2], own);
  const uint8_t u[8] = {128, 128, 128, 128, 128, 128, 128, 129};
  ASSERT_EQ(tigris_input_write(plan(), &mem, 2, u, 8), TIGRIS_OK);
  EXPECT_EQ(own[7], 1);
}

TEST_F(Iface, InputAllocFailureLeavesMemUnchanged) {
  tigris_mem_t small;
  void* p[6];
  Arena f(64), s(40);
  ASSERT_EQ(tigris_mem_init(&small, p, 6, f.p, 64, s.p, 40), TIGRIS_MEM_OK);
  ASSERT_EQ(tigris_input_alloc(plan(), &small, 4), TIGRIS_OK);  // 32 bytes
  const tigris_mem_t before = small;
  EXPECT_EQ(tigris_input_alloc(plan(), &small, 0), TIGRIS_ERR_MEM);  // 8 more do not fit aligned
  EXPECT_EQ(memcmp(&before, &small, sizeof(before)), 0);
  EXPECT_EQ(p[0], nullptr);
  const float x[8] = {};
  EXPECT_EQ(tigris_input_write(plan(), &small, 0, x, 32), TIGRIS_ERR_MEM);
}

// In-place placement failures: the room and the input must both fit above the fill level.
TEST(IfaceInPlace, FastPlacementFailureLeavesMemUnchanged) {
  PlanDesc p;
  uint16_t x = add_tensor(p, "x", {1, 2, 2, 4}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(p, "y", {1, 2, 2, 4}, TIGRIS_TENSOR_MODEL_OUTPUT);
  uint16_t w = add_weight(p, iota(16, 0, 1));
  add_op(p, TIGRIS_OP_ADD, {x}, {y}, w);
  add_stage(p, {0}, {x}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  p.compression = TIGRIS_COMPRESSION_LZ4;
  p.weight_blocks = {{0, 0, 1}};
  p.scheduled_peak = 128;
  Loaded f;
  ASSERT_EQ(load(p, &f), TIGRIS_OK);
  tigris_mem_t mem;
  void* ptrs[2];
  Arena fast(127), slow(1024);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, 127, slow.p, 1024), TIGRIS_MEM_OK);
  const tigris_mem_t before = mem;
  EXPECT_EQ(tigris_input_alloc(&f.plan, &mem, x), TIGRIS_ERR_MEM);  // 64 room + 64 input > 127
  EXPECT_EQ(memcmp(&before, &mem, sizeof(before)), 0);
  EXPECT_EQ(ptrs[x], nullptr);
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 2, fast.p, 128, slow.p, 1024), TIGRIS_MEM_OK);
  EXPECT_EQ(tigris_input_alloc(&f.plan, &mem, x), TIGRIS_OK);
  EXPECT_EQ(ptrs[x], fast.p + 64);
}

}  // namespace
