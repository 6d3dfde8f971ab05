// Pools (hand values, independent NCHW loops, banded calls, by-input global pooling) and
// FullyConnected / MatMul (hand values, independent loops, row-tiled bands).
#include "unit/kernels_f32/kernel_test_util.h"

namespace {

using fixture::Plan;

uint16_t add_pool(Plan& p, uint8_t type, std::initializer_list<int32_t> in_shape,
                  std::initializer_list<int32_t> out_shape, int k, int s, int pt, int pb, int pl, int pr, uint16_t* in,
                  uint16_t* out) {
  *in = p.tensor(in_shape);
  *out = p.tensor(out_shape);
  uint16_t op = p.op(type, {*in}, {*out});
  tigris_spatial_t& sp = p.o(op).spatial;
  sp.kernel_h = sp.kernel_w = (uint8_t)k;
  sp.stride_h = sp.stride_w = (uint8_t)s;
  sp.pad_top = (uint16_t)pt, sp.pad_bottom = (uint16_t)pb, sp.pad_left = (uint16_t)pl, sp.pad_right = (uint16_t)pr;
  return op;
}

TEST(Pool, MaxPoolHand) {
  Plan p;
  uint16_t in, out;
  uint16_t op = add_pool(p, TIGRIS_OP_MAX_POOL, {1, 4, 4, 1}, {1, 2, 2, 1}, 2, 2, 0, 0, 0, 0, &in, &out);
  tigris_mem_t* m = p.mem();
  p.set<float>(in, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {6, 8, 14, 16});
}

TEST(Pool, AvgPoolDividesByValidTapsOrPaddedTaps) {
  for (bool include_pad : {false, true}) {
    Plan p;
    uint16_t in, out;
    uint16_t op = add_pool(p, TIGRIS_OP_AVG_POOL, {1, 3, 3, 1}, {1, 2, 2, 1}, 3, 2, 1, 1, 1, 1, &in, &out);
    if (include_pad) p.attr(op, TIGRIS_ATTR_POOL_ROUNDING, {2});
    tigris_mem_t* m = p.mem();
    p.set<float>(in, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    ASSERT_EQ(kt::run(p, op, m), 0);
    if (include_pad)
      kt::expect_near(p.get<float>(out), {12.0f / 9, 16.0f / 9, 24.0f / 9, 28.0f / 9});
    else
      kt::expect_near(p.get<float>(out), {3, 4, 6, 7});
  }
}

TEST(Pool, L2PoolAveragesOrNot) {
  for (bool plain : {false, true}) {
    Plan p;
    uint16_t in, out;
    uint16_t op = add_pool(p, TIGRIS_OP_L2_POOL, {1, 2, 2, 1}, {1, 1, 1, 1}, 2, 2, 0, 0, 0, 0, &in, &out);
    if (plain) p.attr(op, TIGRIS_ATTR_POOL_ROUNDING, {4});
    tigris_mem_t* m = p.mem();
    p.set<float>(in, {3, 4, 0, 0});
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), {plain ? 5.0f : 2.5f});
  }
}

// NCHW max/avg pool reference with dilation (avg: valid taps).
std::vector<float> pool_ref(bool is_max, const std::vector<float>& x, int n, int c, int h, int w, int k, int s, int d,
                            int pt, int pl, int oh, int ow) {
  std::vector<float> y((size_t)n * c * oh * ow);
  for (int b = 0; b < n; ++b)
    for (int ch = 0; ch < c; ++ch)
      for (int yy = 0; yy < oh; ++yy)
        for (int xx = 0; xx < ow; ++xx) {
          float acc = is_max ? -1e30f : 0.0f;
          int cnt = 0;
          for (int a = 0; a < k; ++a)
            for (int bb = 0; bb < k; ++bb) {
              int iy = yy * s - pt + a * d, ix = xx * s - pl + bb * d;
              if (iy < 0 || iy >= h || ix < 0 || ix >= w) continue;
              float v = x[(((size_t)b * c + ch) * h + iy) * w + ix];
              acc = is_max ? std::max(acc, v) : acc + v;
              ++cnt;
            }
          y[(((size_t)b * c + ch) * oh + yy) * ow + xx] = is_max ? acc : acc / cnt;
        }
  return y;
}

std::vector<float> nchw_to_nhwc(const std::vector<float>& v, int n, int c, int h, int w) {
  std::vector<float> r(v.size());
  for (int b = 0; b < n; ++b)
    for (int k = 0; k < c; ++k)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) r[(((size_t)b * h + y) * w + x) * c + k] = v[(((size_t)b * c + k) * h + y) * w + x];
  return r;
}

TEST(Pool, DilatedMaxAndCeilModeAvgMatchReference) {
  // Max: 1x2x7x6, k3 s2 d2 pads 2/1 -> out (7+3-5)/2+1 = 3, (6+3-5)/2+1 = 3.
  auto x = kt::values(2 * 7 * 6, 51);
  {
    Plan p;
    uint16_t in, out;
    uint16_t op = add_pool(p, TIGRIS_OP_MAX_POOL, {1, 7, 6, 2}, {1, 3, 3, 2}, 3, 2, 2, 1, 2, 1, &in, &out);
    p.o(op).spatial.dilation_h = p.o(op).spatial.dilation_w = 2;
    tigris_mem_t* m = p.mem();
    p.set(in, nchw_to_nhwc(x, 1, 2, 7, 6));
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), nchw_to_nhwc(pool_ref(true, x, 1, 2, 7, 6, 3, 2, 2, 2, 2, 3, 3), 1, 2, 3, 3));
  }
  {  // Avg ceil mode: 7x6, k3 s2 no pads -> floor 3x2, ceil 3x3 via pad_right 1.
    Plan p;
    uint16_t in, out;
    uint16_t op = add_pool(p, TIGRIS_OP_AVG_POOL, {1, 7, 6, 2}, {1, 3, 3, 2}, 3, 2, 0, 0, 0, 1, &in, &out);
    tigris_mem_t* m = p.mem();
    p.set(in, nchw_to_nhwc(x, 1, 2, 7, 6));
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), nchw_to_nhwc(pool_ref(false, x, 1, 2, 7, 6, 3, 2, 1, 0, 0, 3, 3), 1, 2, 3, 3));
  }
}

TEST(Pool, BandedStripesEqualWholeCall) {
  Plan p;
  uint16_t in, out;
  uint16_t op = add_pool(p, TIGRIS_OP_AVG_POOL, {2, 9, 4, 3}, {2, 5, 2, 3}, 3, 2, 1, 1, 1, 0, &in, &out);
  auto x = kt::values(2 * 9 * 4 * 3, 52);
  tigris_mem_t* m = p.mem();
  p.set(in, x);
  ASSERT_EQ(kt::run(p, op, m), 0);
  auto whole = p.get<float>(out);
  for (int o0 = 0; o0 < 5; o0 += 2) {
    int o1 = std::min(o0 + 2, 5);
    kt::Window w = kt::window(o0, o1, 2, 3, 1, 9);
    auto ib = kt::rows(x, 2, 9, 12, w.i0, w.i1, 1);
    std::vector<float> ob((size_t)2 * (o1 - o0) * 6);
    p.bind(in, ib.data());
    p.bind(out, ob.data());
    m->tile = tigris_tile_ctx_t{};
    m->tile.active = 1, m->tile.in_h = w.i1 - w.i0, m->tile.out_h = o1 - o0;
    m->tile.pad_top = w.pad_top, m->tile.pad_bottom = w.pad_bottom, m->tile.in_row_start = 1;
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(ob, kt::rows(whole, 2, 5, 6, o0, o1));
  }
}

TEST(GlobalPool, AvgAndMaxWholeAndByInputBands) {
  for (uint8_t type : {TIGRIS_OP_GLOBAL_AVG, TIGRIS_OP_GLOBAL_MAX}) {
    Plan p;
    uint16_t in = p.tensor({2, 5, 3, 4}), out = p.tensor({2, 1, 1, 4});
    uint16_t op = p.op(type, {in}, {out});
    auto x = kt::values(2 * 5 * 3 * 4, 53);
    std::vector<float> want(8);
    for (int b = 0; b < 2; ++b)
      for (int c = 0; c < 4; ++c) {
        double acc = type == TIGRIS_OP_GLOBAL_MAX ? -1e30 : 0.0;
        for (int i = 0; i < 15; ++i) {
          float v = x[((size_t)b * 15 + i) * 4 + c];
          acc = type == TIGRIS_OP_GLOBAL_MAX ? std::max(acc, (double)v) : acc + v;
        }
        want[(size_t)b * 4 + c] = (float)(type == TIGRIS_OP_GLOBAL_MAX ? acc : acc / 15);
      }
    tigris_mem_t* m = p.mem();
    p.set(in, x);
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), want);
    // By-input: bands of rows [0,2), [2,4), [4,5) accumulate in reduce_acc.
    std::vector<float> acc(8, 123.0f), ob(8, 0.0f);
    p.bind(out, ob.data());
    for (int r0 = 0; r0 < 5; r0 += 2) {
      int r1 = std::min(r0 + 2, 5);
      auto ib = kt::rows(x, 2, 5, 12, r0, r1);
      p.bind(in, ib.data());
      m->tile = tigris_tile_ctx_t{};
      m->tile.active = 1, m->tile.in_h = r1 - r0, m->tile.reduce_acc = acc.data();
      m->tile.reduce_first = r0 == 0, m->tile.reduce_last = r1 == 5;
      ASSERT_EQ(kt::run(p, op, m), 0);
      if (r1 < 5) {
        EXPECT_EQ(ob[0], 0.0f);  // output written on the last band only
      }
    }
    kt::expect_near(ob, want);
  }
}

TEST(FullyConnected, HandValuesWithBiasAndRelu) {
  Plan p;
  uint16_t in = p.tensor({2, 3}), out = p.tensor({2, 2});
  uint16_t op = p.op(TIGRIS_OP_FULLY_CONN, {in}, {out});
  p.o(op).weight_idx = p.weight({1, 0, -1, 0.5f, 0.5f, 0.5f});
  p.o(op).bias_idx = p.weight({1, -1});
  tigris_mem_t* m = p.mem();
  p.set<float>(in, {1, 2, 3, 4, 5, 6});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {-1, 2, -1, 6.5f});
  p.o(op).fused_act = TIGRIS_ACT_RELU;
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {0, 2, 0, 6.5f});
  // Row-tiled: the band holds input row 1 only; output row goes to buffer row 1.
  std::vector<float> ib = {4, 5, 6}, ob(4, -1.0f);
  p.bind(in, ib.data());
  p.bind(out, ob.data());
  m->tile = tigris_tile_ctx_t{};
  m->tile.active = 1, m->tile.row_tiled = 1, m->tile.out_h = 1, m->tile.out_row_start = 1;
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(ob, {-1, -1, 0, 6.5f});
}

std::vector<float> matmul_ref(const std::vector<float>& a, const std::vector<int>& as, const std::vector<float>& b,
                              const std::vector<int>& bs, const std::vector<int>& os) {
  // Batch index by output coordinates with size-1 broadcasting (ranks already equal here).
  int r = (int)os.size(), M = os[r - 2], N = os[r - 1], K = as[r - 1];
  size_t batches = 1;
  for (int i = 0; i < r - 2; ++i) batches *= os[i];
  std::vector<float> y(batches * M * N);
  for (size_t bt = 0; bt < batches; ++bt) {
    size_t rem = bt, ab = 0, bb = 0, am = 1, bm = 1;
    for (int i = r - 3; i >= 0; --i) {
      size_t idx = rem % os[i];
      rem /= os[i];
      ab += (as[i] == 1 ? 0 : idx) * am;
      bb += (bs[i] == 1 ? 0 : idx) * bm;
      am *= as[i];
      bm *= bs[i];
    }
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) {
        double acc = 0;
        for (int k = 0; k < K; ++k) acc += (double)a[(ab * M + i) * K + k] * b[(bb * K + k) * N + j];
        y[(bt * M + i) * N + j] = (float)acc;
      }
  }
  return y;
}

TEST(MatMul, BroadcastBatchesMatchReference) {
  Plan p;
  uint16_t a = p.tensor({2, 1, 3, 4}), b = p.tensor({1, 3, 4, 5}), out = p.tensor({2, 3, 3, 5});
  uint16_t op = p.op(TIGRIS_OP_MATMUL, {a, b}, {out});
  auto av = kt::values(24, 61), bv = kt::values(60, 62);
  tigris_mem_t* m = p.mem();
  p.set(a, av);
  p.set(b, bv);
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), matmul_ref(av, {2, 1, 3, 4}, bv, {1, 3, 4, 5}, {2, 3, 3, 5}));
}

TEST(MatMul, ConstantOperandAndRowTiles) {
  Plan p;
  uint16_t a = p.tensor({3, 2}), out = p.tensor({3, 2});
  uint16_t op = p.op(TIGRIS_OP_MATMUL, {a}, {out});
  p.o(op).weight_idx = p.weight({1, 2, 3, 4});
  p.attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, {1, 2, 0xFF, 0xFF, 2, 0, 0, 0, 2, 0, 0, 0});
  tigris_mem_t* m = p.mem();
  p.set<float>(a, {1, 0, 0, 1, 1, 1});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {1, 2, 3, 4, 4, 6});
  std::vector<float> ab = {9, 9, 1, 1}, ob(6, 0.0f);  // one junk row before the band
  p.bind(a, ab.data());
  p.bind(out, ob.data());
  m->tile = tigris_tile_ctx_t{};
  m->tile.active = 1, m->tile.row_tiled = 1, m->tile.out_h = 1, m->tile.in_row_start = 1, m->tile.out_row_start = 2;
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(ob, {0, 0, 0, 0, 4, 6});
}

}  // namespace
