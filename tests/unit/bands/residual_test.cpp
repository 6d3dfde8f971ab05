// Residual operands: a tensor a stage (or a chain's head) loads, read again in a later row
// space (a residual Add after a conv in a stripe or a 2-D tile; MobileNetV2's inverted
// residual block as a chain, with and without line buffers; a residual in the middle of a
// chain). Each space gets its own band of it; outputs equal the whole plan's, the fast peak
// equals the cost model's.
#include "bands_fixture.h"

using namespace bandtest;

namespace {

// x -> conv 3x3 s1 p1 (C -> C) -> y -> add(y, x) -> z [-> relu -> r], one banded stage.
PlanDesc conv_add(std::vector<int32_t> in, bool int8, const tigris_tile_plan_v11_t& rec) {
  SpatialCase c;
  c.in = in;
  c.sp = window(3, 3, 1, 1, 1, 1, 1, 1);
  c.oc = in.back();
  c.int8 = int8;
  c.relu_after = false;
  PlanDesc p = spatial_plan(c, rec);  // x (0) -> y
  const uint16_t x = 0, y = (uint16_t)(p.tensors.size() - 1);
  p.tensors[y].flags = 0;
  const uint16_t z = add_tensor(p, "z", in, TIGRIS_TENSOR_MODEL_OUTPUT, p.tensors[y].dtype,
                                int8 ? add_quant(p, 0.1f, -2) : TIGRIS_NONE);
  p.stages[0].ops.push_back(add_op(p, TIGRIS_OP_ADD, {y, x}, {z}));
  p.stages[0].outputs = {z};
  p.model_outputs = {z};
  p.tile_plans.clear();
  tile_stage(p, 0, rec);
  return p;
}

TEST(Residual, CostModelCountsOneBandPerSpace) {
  // x [1,8,4,2] floats, band [2,4): x at the conv's rows [1,5) (128 B), y (64 B), x again
  // at rows [2,4) (64 B), z (64 B). Line buffers: x's first band and y, z at their most
  // rows, plus the per-band reload of x.
  const PlanDesc p = conv_add({1, 8, 4, 2}, false, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  Loaded f;
  load(p, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  tigris_rt::PlanCostCtx ctx;
  tigris_rt::CostSource src;
  ASSERT_TRUE(tigris_rt::plan_cost_source(&f.plan, 0, TIGRIS_BAND_KIND_STRIPE, &ctx, &src));
  tigris_rt::CostSpace sp[2];
  ASSERT_EQ(tigris_rt::cost_spaces(src, sp, 2), 2u);
  ASSERT_TRUE(tigris_rt::cost_band_ranges(src, sp, 2, 2, 4, 0, 0));
  EXPECT_EQ(tigris_rt::cost_band_bytes(src, sp, 2, 32), 128u + 64u + 64u + 64u);
  EXPECT_EQ(tigris_rt::cost_reload_bytes(src, sp, 2, 32), 64u);
  tigris_rt::CostPeak pk;
  ASSERT_TRUE(tigris_rt::cost_banded_peak(src, sp, 2, 2, 0, true, 32, &pk));
  EXPECT_EQ(tigris_rt::cost_line_buffer_bytes(src, sp, 2, 32), 128u + 64u + 64u);
  EXPECT_EQ(pk.peak, 128u + 64u + 64u + 64u);
}

TEST(Residual, StripeAndTileReadTheInputAgainAtTheOutputRows) {
  for (bool int8 : {false, true}) {
    for (uint32_t b : {1u, 2u, 3u, 7u}) {
      const PlanDesc p = conv_add({2, 7, 5, 3}, int8, record(TIGRIS_TILE_AXIS_HEIGHT, b, TIGRIS_BAND_KIND_STRIPE));
      const RunResult r = expect_banded_equals_whole(p, inputs_for(p), "stripe residual " + std::to_string(b));
      // x is loaded twice: with its halo for the conv, at the output rows for the add.
      EXPECT_GT(r.stats.loads_bytes, 2u * 7 * 5 * 3 * (int8 ? 1 : 4) - 1);
    }
    for (auto [h, w] : {std::pair<uint32_t, uint16_t>{1, 1}, {2, 3}, {7, 5}}) {
      const PlanDesc p = conv_add({1, 7, 5, 3}, int8, record(TIGRIS_TILE_AXIS_HW, h, TIGRIS_BAND_KIND_HW, w));
      expect_banded_equals_whole(p, inputs_for(p), "hw residual");
    }
  }
}

// MobileNetV2 inverted residual: x -> 1x1 expand (6C) -> relu6 -> dw 3x3 s1 -> relu6 ->
// 1x1 project (C) -> add(., x) [-> conv 3x3 (C) as a third member]. Members: {expand, relu6},
// {dw, relu6, project, add} [, {conv}].
PlanDesc inverted_residual(std::vector<int32_t> in, bool int8, bool third, uint16_t tile_h, bool lb) {
  PlanDesc p;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  const int32_t C = in[3], E = 6 * C;
  auto q = [&](bool conv_like, int32_t oc) -> uint16_t {
    if (!int8) return TIGRIS_NONE;
    return conv_like ? add_conv_quant(p, 0.05f, std::vector<float>((size_t)oc, 0.02f), 0.05f, 1)
                     : add_quant(p, 0.05f, 1);
  };
  std::vector<int32_t> wide = in;
  wide[3] = E;
  const uint16_t x = add_tensor(p, "x", in, TIGRIS_TENSOR_MODEL_INPUT, dt, q(false, 0));
  const uint16_t e = add_tensor(p, "e", wide, 0, dt, q(true, E));
  const uint16_t e6 = add_tensor(p, "e6", wide, 0, dt, q(false, 0));
  const uint16_t d = add_tensor(p, "d", wide, 0, dt, q(true, E));
  const uint16_t d6 = add_tensor(p, "d6", wide, 0, dt, q(false, 0));
  const uint16_t pr = add_tensor(p, "pr", in, 0, dt, q(true, C));
  const uint16_t s = add_tensor(p, "s", in, third ? 0 : TIGRIS_TENSOR_MODEL_OUTPUT, dt, q(false, 0));
  auto conv_op = [&](uint8_t type, uint16_t a, uint16_t b, tigris_spatial_t sp, size_t n, uint32_t seed) {
    const uint16_t o = add_op(p, type, {a}, {b});
    p.ops[o].spatial = sp;
    if (int8) {
      p.ops[o].weight = add_weight_bytes(p, pattern_s8(n, seed, -40, 40));
    } else {
      p.ops[o].weight = add_weight(p, pattern(n, 9, 0.125f, (int)seed));
    }
    return o;
  };
  conv_op(TIGRIS_OP_CONV, x, e, window(1, 1, 1, 1, 0, 0, 0, 0), (size_t)E * C, 3);
  add_op(p, TIGRIS_OP_RELU6, {e}, {e6});
  conv_op(TIGRIS_OP_DEPTHWISE, e6, d, window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, (uint16_t)E), (size_t)9 * E, 5);
  add_op(p, TIGRIS_OP_RELU6, {d}, {d6});
  conv_op(TIGRIS_OP_CONV, d6, pr, window(1, 1, 1, 1, 0, 0, 0, 0), (size_t)C * E, 7);
  add_op(p, TIGRIS_OP_ADD, {pr, x}, {s});
  add_stage(p, {0, 1}, {x}, {e6});
  add_stage(p, {2, 3, 4, 5}, {e6, x}, {s});
  uint16_t out = s;
  if (third) {
    out = add_tensor(p, "c", in, TIGRIS_TENSOR_MODEL_OUTPUT, dt, q(true, C));
    conv_op(TIGRIS_OP_CONV, s, out, window(3, 3, 1, 1, 1, 1, 1, 1), (size_t)9 * C * C, 11);
    add_stage(p, {6}, {s}, {out});
  }
  p.model_inputs = {x};
  p.model_outputs = {out};
  chain_stages(p, 0, (uint16_t)p.stages.size(), tile_h, lb);
  return p;
}

TEST(Residual, InvertedResidualChain) {
  for (bool int8 : {false, true})
    for (bool lb : {false, true})
      for (uint16_t h : {1, 2, 3, 9}) {
        const std::string what = std::string(int8 ? "s8" : "f32") + (lb ? " lb" : "") + " h" + std::to_string(h);
        const PlanDesc p = inverted_residual({2, 9, 5, 4}, int8, false, h, lb);
        const RunResult r = expect_banded_equals_whole(p, inputs_for(p), what);
        EXPECT_EQ(r.stats.stages_chain, 2u) << what;
        EXPECT_EQ(r.stats.spills_bytes, (uint32_t)r.outputs[0].size()) << what;
      }
}

TEST(Residual, ResidualInTheMiddleOfAChain) {
  for (bool int8 : {false, true})
    for (bool lb : {false, true})
      for (uint16_t h : {1, 2, 4}) {
        const PlanDesc p = inverted_residual({1, 10, 4, 3}, int8, true, h, lb);
        const RunResult r = expect_banded_equals_whole(p, inputs_for(p),
                                                       std::string("middle ") + (lb ? "lb " : "") + std::to_string(h));
        EXPECT_EQ(r.stats.stages_chain, 3u);
      }
}

}  // namespace
