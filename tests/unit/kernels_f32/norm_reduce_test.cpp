// Softmax/LogSoftmax, normalizations, reductions, ArgMax/ArgMin and CumSum against hand
// values and straightforward loops; banded and by-input calls.
#include <cstring>

#include "unit/kernels_f32/kernel_test_util.h"

namespace {

using fixture::Plan;

TEST(Softmax, HandValuesLastAxisAndBeta) {
  Plan p;
  uint16_t in = p.tensor({2, 3}), sm = p.tensor({2, 3}), lsm = p.tensor({2, 3});
  uint16_t o1 = p.op(TIGRIS_OP_SOFTMAX, {in}, {sm});
  uint16_t o2 = p.op(TIGRIS_OP_LOG_SOFTMAX, {in}, {lsm});
  tigris_mem_t* m = p.mem();
  p.set<float>(in, {1, 2, 3, 1000, 1000, 1000});
  ASSERT_EQ(kt::run(p, o1, m), 0);
  ASSERT_EQ(kt::run(p, o2, m), 0);
  kt::expect_near(p.get<float>(sm), {0.09003057f, 0.24472847f, 0.66524096f, 1 / 3.0f, 1 / 3.0f, 1 / 3.0f});
  kt::expect_near(p.get<float>(lsm),
                  {-2.40760596f, -1.40760596f, -0.40760596f, -1.09861229f, -1.09861229f, -1.09861229f});
  p.attr_f32(o1, TIGRIS_ATTR_ALPHA, {2.0f});  // beta 2: softmax of [2, 4, 6]
  ASSERT_EQ(kt::run(p, o1, m), 0);
  auto got = p.get<float>(sm);
  EXPECT_NEAR(got[0], 0.01587624f, 1e-6f);
  EXPECT_NEAR(got[2], 0.86681333f, 1e-6f);
}

TEST(Softmax, OverAxisBlockAndMiddleAxisUnderBand) {
  // [2,3,2] softmax over axes {1,2} (flattened 6) vs a loop.
  Plan p;
  uint16_t in = p.tensor({2, 3, 2}), out = p.tensor({2, 3, 2});
  uint16_t op = p.op(TIGRIS_OP_SOFTMAX, {in}, {out});
  p.attr(op, TIGRIS_ATTR_AXES, {1, 2});
  auto x = kt::values(12, 91, -3, 3);
  tigris_mem_t* m = p.mem();
  p.set(in, x);
  ASSERT_EQ(kt::run(p, op, m), 0);
  std::vector<float> want(12);
  for (int b = 0; b < 2; ++b) {
    double s = 0, mx = -1e9;
    for (int i = 0; i < 6; ++i) mx = std::max(mx, (double)x[b * 6 + i]);
    for (int i = 0; i < 6; ++i) s += std::exp(x[b * 6 + i] - mx);
    for (int i = 0; i < 6; ++i) want[b * 6 + i] = (float)(std::exp(x[b * 6 + i] - mx) / s);
  }
  kt::expect_near(p.get<float>(out), want);
  // Channel softmax (last axis) of an NHWC stripe: band rows [1,3) of H.
  Plan q;
  uint16_t i2 = q.tensor({1, 4, 2, 3}), o2 = q.tensor({1, 4, 2, 3});
  uint16_t op2 = q.op(TIGRIS_OP_SOFTMAX, {i2}, {o2});
  auto xv = kt::values(24, 92);
  tigris_mem_t* mq = q.mem();
  q.set(i2, xv);
  ASSERT_EQ(kt::run(q, op2, mq), 0);
  auto whole = q.get<float>(o2);
  auto ib = kt::rows(xv, 1, 4, 6, 1, 3);
  std::vector<float> ob(12);
  q.bind(i2, ib.data());
  q.bind(o2, ob.data());
  mq->tile = tigris_tile_ctx_t{};
  mq->tile.active = 1, mq->tile.out_h = 2, mq->tile.out_row0 = 1;
  ASSERT_EQ(kt::run(q, op2, mq), 0);
  kt::expect_near(ob, kt::rows(whole, 1, 4, 6, 1, 3));
  q.attr(op2, TIGRIS_ATTR_AXES, {1});  // a softmax along the banded axis cannot run banded
  EXPECT_EQ(kt::run(q, op2, mq), -1);
}

TEST(Norm, LayerNormInstanceNormBatchNormL2) {
  {
    Plan p;
    uint16_t in = p.tensor({2, 4}), out = p.tensor({2, 4});
    uint16_t op = p.op(TIGRIS_OP_LAYER_NORM, {in}, {out});
    p.o(op).weight_idx = p.weight({1, 2, 1, 1});
    p.o(op).bias_idx = p.weight({0, 0, 0, 10});
    p.attr_f32(op, TIGRIS_ATTR_EPSILON, {0.0f});
    tigris_mem_t* m = p.mem();
    p.set<float>(in, {1, 2, 3, 4, 0, 0, 0, 4});
    ASSERT_EQ(kt::run(p, op, m), 0);
    float s = 1.0f / std::sqrt(1.25f), t = 1.0f / std::sqrt(3.0f);  // (mean, var) = (2.5, 1.25), (1, 3)
    kt::expect_near(p.get<float>(out), {-1.5f * s, -1.0f * s, 0.5f * s, 1.5f * s + 10, -t, -2 * t, -t, 3 * t + 10});
  }
  {  // InstanceNorm on NHWC [1,2,2,2] per channel over H,W.
    Plan p;
    uint16_t in = p.tensor({1, 2, 2, 2}), out = p.tensor({1, 2, 2, 2});
    uint16_t op = p.op(TIGRIS_OP_INST_NORM, {in}, {out});
    p.o(op).weight_idx = p.weight({1, 2});
    p.o(op).bias_idx = p.weight({0, 1});
    p.attr_f32(op, TIGRIS_ATTR_EPSILON, {0.0f});
    tigris_mem_t* m = p.mem();
    p.set<float>(in, {1, 10, 2, 10, 3, 20, 4, 20});  // ch0: 1,2,3,4  ch1: 10,10,20,20
    ASSERT_EQ(kt::run(p, op, m), 0);
    float s = 1.0f / std::sqrt(1.25f);
    kt::expect_near(p.get<float>(out), {-1.5f * s, -1, -0.5f * s, -1, 0.5f * s, 3, 1.5f * s, 3});
  }
  {  // BatchNorm folded multiplier/offset on channel axis 1 of a LINEAR [2,2,2] tensor.
    Plan p;
    uint16_t in = p.tensor({2, 2, 2}), out = p.tensor({2, 2, 2});
    uint16_t op = p.op(TIGRIS_OP_BATCH_NORM, {in}, {out});
    p.o(op).weight_idx = p.weight({2, -1});
    p.o(op).bias_idx = p.weight({1, 0});
    p.attr(op, TIGRIS_ATTR_AXES, {1});
    tigris_mem_t* m = p.mem();
    p.set<float>(in, {1, 2, 3, 4, 5, 6, 7, 8});
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), {3, 5, -3, -4, 11, 13, -7, -8});
  }
  {
    Plan p;
    uint16_t in = p.tensor({2, 2}), out = p.tensor({2, 2});
    uint16_t op = p.op(TIGRIS_OP_L2_NORMALIZATION, {in}, {out});
    tigris_mem_t* m = p.mem();
    p.set<float>(in, {3, 4, 0, 0});
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), {0.6f, 0.8f, 0, 0});
  }
}

TEST(Reduce, AxesKeepOrDropAndAllAxes) {
  auto x = kt::values(2 * 3 * 4, 101);
  struct Case {
    uint8_t op;
    std::vector<uint8_t> axes;
    std::vector<int32_t> out_shape;
  };
  for (const Case& c : {Case{TIGRIS_OP_REDUCE_MEAN, {1, 2}, {2, 1, 1}}, Case{TIGRIS_OP_REDUCE_SUM, {0, 2}, {3}},
                        Case{TIGRIS_OP_REDUCE_MAX, {1}, {2, 4}}, Case{TIGRIS_OP_REDUCE_MIN, {}, {}}}) {
    Plan p;
    uint16_t in = p.tensor({2, 3, 4}), out = p.tensor(c.out_shape);
    uint16_t op = p.op(c.op, {in}, {out});
    if (!c.axes.empty()) p.attr(op, TIGRIS_ATTR_AXES, c.axes);
    tigris_mem_t* m = p.mem();
    p.set(in, x);
    ASSERT_EQ(kt::run(p, op, m), 0);
    bool red[3] = {c.axes.empty(), c.axes.empty(), c.axes.empty()};
    for (uint8_t a : c.axes) red[a] = true;
    size_t n_out = p.get<float>(out).size();
    std::vector<double> acc(n_out, c.op == TIGRIS_OP_REDUCE_MAX ? -1e9 : c.op == TIGRIS_OP_REDUCE_MIN ? 1e9 : 0.0);
    std::vector<int> cnt(n_out, 0);
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 4; ++k) {
          int idx[3] = {i, j, k}, dims[3] = {2, 3, 4};
          size_t o = 0;
          for (int a = 0; a < 3; ++a)
            if (!red[a]) o = o * dims[a] + idx[a];
          double v = x[(i * 3 + j) * 4 + k];
          acc[o] = c.op == TIGRIS_OP_REDUCE_MAX   ? std::max(acc[o], v)
                   : c.op == TIGRIS_OP_REDUCE_MIN ? std::min(acc[o], v)
                                                  : acc[o] + v;
          cnt[o]++;
        }
    std::vector<float> want;
    for (size_t o = 0; o < n_out; ++o)
      want.push_back((float)(c.op == TIGRIS_OP_REDUCE_MEAN ? acc[o] / cnt[o] : acc[o]));
    kt::expect_near(p.get<float>(out), want);
  }
}

TEST(Reduce, AllOnBoolAndMeanByInputBands) {
  Plan p;
  uint16_t in = p.tensor({2, 3}, TIGRIS_DTYPE_BOOL), out = p.tensor({2}, TIGRIS_DTYPE_BOOL);
  uint16_t op = p.op(TIGRIS_OP_REDUCE_ALL, {in}, {out});
  p.attr(op, TIGRIS_ATTR_AXES, {1});
  tigris_mem_t* m = p.mem();
  p.set<uint8_t>(in, {1, 1, 1, 1, 0, 1});
  ASSERT_EQ(kt::run(p, op, m), 0);
  EXPECT_EQ(p.get<uint8_t>(out), (std::vector<uint8_t>{1, 0}));
  // ReduceMean over H,W of NHWC [1,5,2,3] in bands of 2 input rows.
  Plan q;
  uint16_t i2 = q.tensor({1, 5, 2, 3}), o2 = q.tensor({1, 1, 1, 3});
  uint16_t op2 = q.op(TIGRIS_OP_REDUCE_MEAN, {i2}, {o2});
  q.attr(op2, TIGRIS_ATTR_AXES, {1, 2});
  auto x = kt::values(30, 102);
  tigris_mem_t* mq = q.mem();
  q.set(i2, x);
  ASSERT_EQ(kt::run(q, op2, mq), 0);
  auto whole = q.get<float>(o2);
  std::vector<float> acc(3), ob(3, -1.0f);
  q.bind(o2, ob.data());
  for (int r0 = 0; r0 < 5; r0 += 2) {
    int r1 = std::min(r0 + 2, 5);
    auto ib = kt::rows(x, 1, 5, 6, r0, r1, 1);
    q.bind(i2, ib.data());
    mq->tile = tigris_tile_ctx_t{};
    mq->tile.active = 1, mq->tile.in_h = r1 - r0, mq->tile.in_row_start = 1, mq->tile.reduce_acc = acc.data();
    mq->tile.reduce_first = r0 == 0, mq->tile.reduce_last = r1 == 5;
    ASSERT_EQ(kt::run(q, op2, mq), 0);
  }
  kt::expect_near(ob, whole);
  double s = 0;
  for (int i = 0; i < 10; ++i) s += x[i * 3 + 1];
  EXPECT_NEAR(whole[1], s / 10, 1e-6);
}

TEST(ArgReduce, FirstOrLastIndexOfTies) {
  for (bool last : {false, true}) {
    Plan p;
    uint16_t in = p.tensor({2, 4}), amax = p.tensor({2, 1}, TIGRIS_DTYPE_INT64),
             amin = p.tensor({2}, TIGRIS_DTYPE_INT32);
    uint16_t o1 = p.op(TIGRIS_OP_ARG_MAX, {in}, {amax});
    uint16_t o2 = p.op(TIGRIS_OP_ARG_MIN, {in}, {amin});
    for (uint16_t o : {o1, o2}) {
      p.attr(o, TIGRIS_ATTR_AXES, {1});
      if (last) p.attr_i32(o, TIGRIS_ATTR_MOVEMENT, {1});
    }
    tigris_mem_t* m = p.mem();
    p.set<float>(in, {2, 5, 5, 1, -1, -3, 0, -3});
    ASSERT_EQ(kt::run(p, o1, m), 0);
    ASSERT_EQ(kt::run(p, o2, m), 0);
    EXPECT_EQ(p.get<int64_t>(amax), last ? (std::vector<int64_t>{2, 2}) : (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(p.get<int32_t>(amin), last ? (std::vector<int32_t>{3, 3}) : (std::vector<int32_t>{3, 1}));
  }
}

TEST(CumSum, OnnxExampleModes) {
  struct Case {
    uint8_t exclusive, reverse;
    std::vector<float> want;
  };
  for (const Case& c : {Case{0, 0, {1, 3, 6, 10, 15}}, Case{1, 0, {0, 1, 3, 6, 10}}, Case{0, 1, {15, 14, 12, 9, 5}},
                        Case{1, 1, {14, 12, 9, 5, 0}}}) {
    Plan p;
    uint16_t in = p.tensor({5}), out = p.tensor({5});
    uint16_t op = p.op(TIGRIS_OP_CUMSUM, {in}, {out});
    p.attr(op, TIGRIS_ATTR_AXES, {0});
    p.attr(op, TIGRIS_ATTR_CUMSUM_OPTIONS, {c.exclusive, c.reverse});
    tigris_mem_t* m = p.mem();
    p.set<float>(in, {1, 2, 3, 4, 5});
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), c.want);
  }
  Plan p;  // int32 along axis 0 of [2,3]
  uint16_t in = p.tensor({2, 3}, TIGRIS_DTYPE_INT32), out = p.tensor({2, 3}, TIGRIS_DTYPE_INT32);
  uint16_t op = p.op(TIGRIS_OP_CUMSUM, {in}, {out});
  p.attr(op, TIGRIS_ATTR_AXES, {0});
  tigris_mem_t* m = p.mem();
  p.set<int32_t>(in, {1, 2, 3, 4, 5, 6});
  ASSERT_EQ(kt::run(p, op, m), 0);
  EXPECT_EQ(p.get<int32_t>(out), (std::vector<int32_t>{1, 2, 3, 5, 7, 9}));
}

}  // namespace
