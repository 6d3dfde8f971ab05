// Resize nearest/bilinear against the ONNX operator documentation's examples and hand values;
// banded calls through global rows.
#include <array>
#include <cstring>

#include "unit/kernels_f32/kernel_test_util.h"

namespace {

using fixture::Plan;

std::vector<uint8_t> scales(float h, float w, int coord = -1, int nearest = 0) {
  std::vector<uint8_t> b(coord < 0 ? 8 : 12, 0);
  std::memcpy(b.data(), &h, 4);
  std::memcpy(b.data() + 4, &w, 4);
  if (coord >= 0) b[8] = (uint8_t)coord, b[9] = (uint8_t)nearest;
  return b;
}

// The long form: interpolation (1 = cubic), exclude_outside, A, roi h0 h1 w0 w1, extrapolation.
std::vector<uint8_t> long_form(float h, float w, int coord, int nearest, int cubic, int exclude, float a,
                               std::array<float, 4> roi = {0, 1, 0, 1}, float extrapolation = 0) {
  std::vector<uint8_t> b = scales(h, w, coord, nearest);
  b[10] = (uint8_t)cubic, b[11] = (uint8_t)exclude;
  float f[6] = {a, roi[0], roi[1], roi[2], roi[3], extrapolation};
  b.resize(36);
  std::memcpy(b.data() + 12, f, sizeof f);
  return b;
}

std::vector<float> run_resize(uint8_t type, std::initializer_list<int32_t> in_shape,
                              std::initializer_list<int32_t> out_shape, const std::vector<float>& x,
                              const std::vector<uint8_t>& attr, int fh = 0, int fw = 0) {
  Plan p;
  uint16_t in = p.tensor(in_shape), out = p.tensor(out_shape);
  uint16_t op = p.op(type, {in}, {out});
  if (!attr.empty()) p.attr(op, TIGRIS_ATTR_RESIZE_SCALES, attr);
  p.o(op).spatial.stride_h = (uint8_t)fh, p.o(op).spatial.stride_w = (uint8_t)fw;
  tigris_mem_t* m = p.mem();
  p.set(in, x);
  EXPECT_EQ(kt::run(p, op, m), 0);
  return p.get<float>(out);
}

TEST(Resize, NearestIntegerFactors) {
  auto got = run_resize(TIGRIS_OP_RESIZE, {1, 2, 2, 1}, {1, 4, 6, 1}, {1, 2, 3, 4}, {}, 2, 3);
  kt::expect_near(got, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
}

TEST(Resize, OnnxNearestExamples) {
  // resize_upsample_scales_nearest: half_pixel, round_prefer_floor, scales 2 x 3.
  auto up = run_resize(TIGRIS_OP_RESIZE, {1, 2, 2, 1}, {1, 4, 6, 1}, {1, 2, 3, 4}, scales(2, 3, 1, 1));
  kt::expect_near(up, {1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3, 4, 4, 4});
  // resize_downsample_scales_nearest: [[1,2,3,4],[5,6,7,8]] scales 0.6 -> [[1,3]].
  auto down =
      run_resize(TIGRIS_OP_RESIZE, {1, 2, 4, 1}, {1, 1, 2, 1}, {1, 2, 3, 4, 5, 6, 7, 8}, scales(0.6f, 0.6f, 1, 1));
  kt::expect_near(down, {1, 3});
  // Modes on a 1-D row of 4 -> 8 (W only): asymmetric floor, align_corners round_prefer_ceil,
  // tf_half_pixel_for_nearest floor, half_pixel ceil.
  std::vector<float> row = {10, 20, 30, 40};
  kt::expect_near(run_resize(TIGRIS_OP_RESIZE, {1, 1, 4, 1}, {1, 1, 8, 1}, row, scales(1, 2, 0, 0)),
                  {10, 10, 20, 20, 30, 30, 40, 40});
  kt::expect_near(run_resize(TIGRIS_OP_RESIZE, {1, 1, 4, 1}, {1, 1, 8, 1}, row, scales(1, 2, 3, 2)),
                  {10, 10, 20, 20, 30, 30, 40, 40});  // o*3/7: 0,.43,.86,1.29,1.71,2.14,2.57,3
  kt::expect_near(run_resize(TIGRIS_OP_RESIZE, {1, 1, 4, 1}, {1, 1, 8, 1}, row, scales(1, 2, 4, 0)),
                  {10, 10, 20, 20, 30, 30, 40, 40});
  kt::expect_near(run_resize(TIGRIS_OP_RESIZE, {1, 1, 4, 1}, {1, 1, 8, 1}, row, scales(1, 2, 1, 3)),
                  {10, 20, 20, 30, 30, 40, 40, 40});  // (o+.5)/2-.5: -.25,.25,.75,1.25,... ceil
}

TEST(Resize, OnnxLinearExamples) {
  // resize_upsample_scales_linear (half_pixel).
  auto hp = run_resize(TIGRIS_OP_RESIZE_LINEAR, {1, 2, 2, 1}, {1, 4, 4, 1}, {1, 2, 3, 4}, scales(2, 2, 1));
  kt::expect_near(hp, {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f, 3.75f, 4});
  // resize_upsample_scales_linear_align_corners.
  auto ac = run_resize(TIGRIS_OP_RESIZE_LINEAR, {1, 2, 2, 1}, {1, 4, 4, 1}, {1, 2, 3, 4}, scales(2, 2, 3));
  float t = 1.0f / 3;
  kt::expect_near(
      ac, {1, 1 + t, 1 + 2 * t, 2, 1 + 2 * t, 2, 2 + t, 2 + 2 * t, 2 + t, 2 + 2 * t, 3, 3 + t, 3, 3 + t, 3 + 2 * t, 4});
  // Without RESIZE_SCALES: asymmetric with s = out/in; two channels interpolate independently.
  auto asym = run_resize(TIGRIS_OP_RESIZE_LINEAR, {1, 1, 2, 2}, {1, 1, 4, 2}, {0, 10, 4, 20}, {});
  kt::expect_near(asym, {0, 10, 2, 15, 4, 20, 4, 20});
}

TEST(Resize, CubicHandDerived) {
  // Keys' kernel, A = -0.75, at r = 0.5: taps at distance 1.5 weigh -0.09375, at 0.5 0.59375.
  // Asymmetric, scale 2 over W: output o reads x = o / 2; an impulse at 2 shows each weight.
  auto got = run_resize(TIGRIS_OP_RESIZE_LINEAR, {1, 1, 5, 1}, {1, 1, 10, 1}, {0, 0, 1, 0, 0},
                        long_form(1, 2, 0, 0, 1, 0, -0.75f));
  kt::expect_near(got, {0, -0.09375f, 0, 0.59375f, 1, 0.59375f, 0, -0.09375f, 0, 0});
  // A = -0.5 at the left edge (x = 0.5, taps -1..2 weigh -0.0625, 0.5625, 0.5625, -0.0625):
  // clamped, tap -1 reads element 0 (4 * 0.5); exclude_outside drops it and renormalizes
  // (4 * 0.5625 / 1.0625).
  std::vector<float> edge = {4, 0, 0, 0};
  auto clamped = run_resize(TIGRIS_OP_RESIZE_LINEAR, {1, 1, 4, 1}, {1, 1, 8, 1}, edge, long_form(1, 2, 0, 0, 1, 0, -0.5f));
  auto excluded = run_resize(TIGRIS_OP_RESIZE_LINEAR, {1, 1, 4, 1}, {1, 1, 8, 1}, edge, long_form(1, 2, 0, 0, 1, 1, -0.5f));
  EXPECT_FLOAT_EQ(clamped[1], 2.0f);
  EXPECT_FLOAT_EQ(excluded[1], 4 * 0.5625f / 1.0625f);
  EXPECT_FLOAT_EQ(clamped[0], 4.0f);
  EXPECT_FLOAT_EQ(excluded[0], 4.0f);
}

TEST(Resize, CropAndResizeExtrapolates) {
  // tf_crop_and_resize over W, roi [0.5, 1.5] of a row of 4 into 3: x = 1.5 + 1.5 o -> 1.5, 3, 4.5
  // (outside: the extrapolation value -1).
  std::vector<float> row = {10, 20, 30, 40};
  auto linear = run_resize(TIGRIS_OP_RESIZE_LINEAR, {1, 1, 4, 1}, {1, 1, 3, 1}, row,
                           long_form(1, 0.75f, 5, 0, 0, 0, -0.75f, {0, 1, 0.5f, 1.5f}, -1));
  kt::expect_near(linear, {25, 40, -1});
  auto nearest = run_resize(TIGRIS_OP_RESIZE, {1, 1, 4, 1}, {1, 1, 3, 1}, row,
                            long_form(1, 0.75f, 5, 1, 0, 0, -0.75f, {0, 1, 0.5f, 1.5f}, -1));
  kt::expect_near(nearest, {20, 40, -1});  // round_prefer_floor: 1.5 -> 1
}

TEST(Resize, BandsMapThroughGlobalRows) {
  for (uint8_t type : {TIGRIS_OP_RESIZE, TIGRIS_OP_RESIZE_LINEAR}) {
    Plan p;
    uint16_t in = p.tensor({1, 5, 3, 2}), out = p.tensor({1, 10, 6, 2});
    uint16_t op = p.op(type, {in}, {out});
    p.attr(op, TIGRIS_ATTR_RESIZE_SCALES, scales(2, 2, 1, 1));
    auto x = kt::values(30, 111);
    tigris_mem_t* m = p.mem();
    p.set(in, x);
    ASSERT_EQ(kt::run(p, op, m), 0);
    auto whole = p.get<float>(out);
    // Output rows [3, 7) read input rows within [1, 4) under half_pixel.
    auto ib = kt::rows(x, 1, 5, 6, 1, 4, 1);
    std::vector<float> ob(4 * 12);
    p.bind(in, ib.data());
    p.bind(out, ob.data());
    m->tile = tigris_tile_ctx_t{};
    m->tile.active = 1, m->tile.out_row0 = 3, m->tile.out_h = 4, m->tile.in_row0 = 1, m->tile.in_h = 3;
    m->tile.in_row_start = 1;
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(ob, kt::rows(whole, 1, 10, 12, 3, 7));
    m->tile.in_row0 = 2, m->tile.in_h = 2;  // window without row 1: refused
    EXPECT_EQ(kt::run(p, op, m), -1);
  }
}

}  // namespace
