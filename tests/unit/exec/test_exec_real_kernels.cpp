// The executor with the float reference dispatcher: a conv whose weights and bias come from
// an LZ4 block, then a ReLU in the next stage, at a budget that forces spills. The expected
// output is a direct convolution computed here in double precision.
#include "exec_fixture.h"
#include "tigris_kernels.h"

using namespace exectest;

namespace {

constexpr int H = 5, W = 5, IC = 2, OC = 3, K = 3;

std::vector<float> reference(const std::vector<float>& x, const std::vector<float>& w, const std::vector<float>& b) {
  std::vector<float> z((size_t)H * W * OC);
  for (int oy = 0; oy < H; ++oy)
    for (int ox = 0; ox < W; ++ox)
      for (int oc = 0; oc < OC; ++oc) {
        double acc = b[(size_t)oc];
        for (int ky = 0; ky < K; ++ky)
          for (int kx = 0; kx < K; ++kx) {
            int iy = oy + ky - 1, ix = ox + kx - 1;
            if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
            for (int ic = 0; ic < IC; ++ic)  // OHWI weights, NHWC input
              acc += (double)w[(size_t)(((oc * K + ky) * K + kx) * IC + ic)] * x[(size_t)((iy * W + ix) * IC + ic)];
          }
        z[(size_t)((oy * W + ox) * OC + oc)] = acc > 0 ? (float)acc : 0.0f;
      }
  return z;
}

TEST(ExecRealKernels, CompressedConvThenReluMatchesDirectConvolution) {
  PlanDesc p;
  uint16_t x = add_tensor(p, "x", {1, H, W, IC}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(p, "y", {1, H, W, OC});
  uint16_t z = add_tensor(p, "z", {1, H, W, OC}, TIGRIS_TENSOR_MODEL_OUTPUT);
  std::vector<float> wv((size_t)OC * K * K * IC), bv = {0.5f, -1.0f, 0.25f};
  for (size_t i = 0; i < wv.size(); ++i) wv[i] = (float)((int)(i * 7 % 11) - 5) * 0.125f;
  uint16_t w = add_weight(p, wv);
  uint16_t b = add_weight(p, bv);
  uint16_t conv = add_op(p, TIGRIS_OP_CONV, {x}, {y}, w);
  p.ops[conv].bias = b;
  tigris_spatial_t& s = p.ops[conv].spatial;
  s.kernel_h = s.kernel_w = K;
  s.stride_h = s.stride_w = 1;
  s.pad_top = s.pad_bottom = s.pad_left = s.pad_right = 1;
  s.dilation_h = s.dilation_w = s.group = 1;
  add_op(p, TIGRIS_OP_RELU, {y}, {z});
  add_stage(p, {0}, {x}, {y});
  add_stage(p, {1}, {y}, {z});
  p.model_inputs = {x};
  p.model_outputs = {z};
  p.compression = TIGRIS_COMPRESSION_LZ4;
  p.weight_blocks = {{0, 0, 2}};
  p.scheduled_peak = 2 * 304;  // y and z: 300 bytes each, aligned
  Loaded f;
  ASSERT_EQ(load(p, &f), TIGRIS_OK);
  const uint32_t fast_bytes = tigris_fast_arena_required(&f.plan) + 32;
  Arena fast(fast_bytes), slow(2048);
  tigris_mem_t mem;
  void* ptrs[3];
  ASSERT_EQ(tigris_mem_init(&mem, ptrs, 3, fast.p, fast_bytes, slow.p, 2048), TIGRIS_MEM_OK);
  std::vector<float> xv((size_t)H * W * IC);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = (float)((int)(i * 5 % 13) - 6) * 0.25f;
  ASSERT_EQ(tigris_input_write(&f.plan, &mem, x, xv.data(), (uint32_t)(xv.size() * 4)), TIGRIS_OK);
  tigris_exec_stats_t stats;
  ASSERT_EQ(tigris_run(&f.plan, &mem, tigris_dispatch_kernel, nullptr, &stats), TIGRIS_EXEC_OK);
  std::vector<float> out((size_t)H * W * OC);
  ASSERT_EQ(tigris_output_read(&f.plan, &mem, z, out.data(), (uint32_t)(out.size() * 4)), TIGRIS_OK);
  const std::vector<float> expect = reference(xv, wv, bv);
  for (size_t i = 0; i < out.size(); ++i) EXPECT_NEAR(out[i], expect[i], 1e-5) << i;
  EXPECT_EQ(stats.weight_bytes, f.plan.weight_blocks[0].uncompressed_size);
  EXPECT_EQ(stats.stages_normal, 2u);
  EXPECT_EQ(stats.spills_bytes, 2u * 300u);
  EXPECT_LE(mem.fast_peak, fast_bytes);
}

}  // namespace
