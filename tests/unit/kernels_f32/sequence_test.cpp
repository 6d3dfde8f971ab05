// SVDF and LSTM against hand values and an independent double-precision loop; their
// operator rules (CONSTANTS sizes, attributes).
#include <cmath>

#include "runtime/src/plan/op_rules.h"
#include "unit/kernels_f32/kernel_test_util.h"

namespace {

using fixture::Plan;

std::vector<uint8_t> u16s(std::vector<uint16_t> v) {
  std::vector<uint8_t> b;
  for (uint16_t x : v) b.push_back((uint8_t)(x & 0xFF)), b.push_back((uint8_t)(x >> 8));
  return b;
}

TEST(Svdf, HandValuesRankOneAndTwo) {
  for (int rank : {1, 2}) {
    Plan p;
    int units = 2 / rank;
    uint16_t x = p.tensor({1, 2}), st = p.tensor({1, 6}, TIGRIS_DTYPE_FLOAT32, TIGRIS_TENSOR_STATE),
             y = p.tensor({1, units}), st2 = p.tensor({1, 6});
    uint16_t op = p.op(TIGRIS_OP_SVDF, {x, st}, {y, st2});
    uint16_t wf = p.weight({1, 0, 0.5f, 0.5f}), wt = p.weight({1, 1, 1, 1, 0, -1});
    uint16_t wb = rank == 1 ? p.weight({0.5f, -0.5f}) : p.weight({0.5f});
    p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({wf, wt, wb}));
    p.attr_i32(op, TIGRIS_ATTR_SVDF, {rank});
    ASSERT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
    tigris_mem_t* m = p.mem();
    p.set<float>(x, {1, 2});
    p.set<float>(st, {1, 2, 3, 4, 5, 6});
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(st2), {2, 3, 1, 5, 6, 1.5f});
    if (rank == 1)
      kt::expect_near(p.get<float>(y), {6.5f, 3.0f});
    else
      kt::expect_near(p.get<float>(y), {10.0f});
    // In place (state output aliasing the input) gives the same.
    p.bind(st2, p.ptrs()[st]);
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(st), {2, 3, 1, 5, 6, 1.5f});
  }
}

TEST(Svdf, RuleChecksConstantSizes) {
  Plan p;
  uint16_t x = p.tensor({1, 2}), st = p.tensor({1, 6}), y = p.tensor({1, 2}), st2 = p.tensor({1, 6});
  uint16_t op = p.op(TIGRIS_OP_SVDF, {x, st}, {y, st2});
  uint16_t wf = p.weight({1, 0, 0.5f, 0.5f}), wt = p.weight({1, 1, 1, 1, 0, -1});
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({wf, wt, TIGRIS_NONE}));
  p.attr_i32(op, TIGRIS_ATTR_SVDF, {1});
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({wf, wf, TIGRIS_NONE}));  // time of the wrong size
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({wf, wt, 99}));  // no such weight
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
}

// int8 SVDF (docs/operators.md §5.3): int8 x and y, an int16 (or int8) state with time weights
// of its size, int32 bias, and the 20-byte attribute (rank, then two factors).
TEST(Svdf, Int8RuleChecksTypesSizesAndFactors) {
  for (uint8_t sd : {TIGRIS_DTYPE_INT16, TIGRIS_DTYPE_INT8}) {
    Plan p;
    uint16_t x = p.tensor({1, 3}, TIGRIS_DTYPE_INT8), st = p.tensor({1, 8}, sd),
             y = p.tensor({1, 2}, TIGRIS_DTYPE_INT8), st2 = p.tensor({1, 8}, sd);
    p.t(x).quant_param_idx = p.quant(0.05f, 1);
    p.t(st).quant_param_idx = p.quant(0.01f, 0);
    p.t(st2).quant_param_idx = p.quant(0.01f, 0);
    p.t(y).quant_param_idx = p.quant(0.1f, -3);
    uint16_t op = p.op(TIGRIS_OP_SVDF, {x, st}, {y, st2});
    const size_t es = sd == TIGRIS_DTYPE_INT16 ? 2 : 1;
    std::vector<uint8_t> feature(4 * 3, 1), time(4 * 2 * es, 1);
    uint16_t wf = p.weight_bytes(feature.data(), feature.size()), wt = p.weight_bytes(time.data(), time.size());
    uint16_t wb = p.weight_i32({5, -5}), wshort = p.weight_bytes(time.data(), 4 * 2 * (3 - es));
    p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({wf, wt, wb}));
    p.attr_i32(op, TIGRIS_ATTR_SVDF, {2, 1 << 30, -3, 1 << 30, -5});
    EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
    p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({wf, wshort, wb}));  // time weights of the other type's size
    EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
    p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({wf, wt, TIGRIS_NONE}));  // bias optional
    EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
    p.attr_i32(op, TIGRIS_ATTR_SVDF, {2});  // the factors missing
    EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
    p.attr_i32(op, TIGRIS_ATTR_SVDF, {2, 1 << 30, 40, 1 << 30, -5});  // a shift the helpers do not take
    EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
    p.attr_i32(op, TIGRIS_ATTR_SVDF, {2, 1 << 30, -3, 1 << 30, -5});
    p.o(op).fused_act = TIGRIS_ACT_RELU;  // TFLM's integer SVDF has none
    EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
    p.o(op).fused_act = TIGRIS_ACT_NONE;
    p.t(st2).dtype = sd == TIGRIS_DTYPE_INT16 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_INT16;  // state types differ
    EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
  }
}

struct LstmCase {
  int T, B, I, H;
  bool time_major;
  float clip;
};

double sig(double v) { return 1.0 / (1.0 + std::exp(-v)); }

void check_lstm(const LstmCase& k) {
  Plan p;
  std::vector<int32_t> xs = k.time_major ? std::vector<int32_t>{k.T, k.B, k.I} : std::vector<int32_t>{k.B, k.T, k.I};
  std::vector<int32_t> ys = {xs[0], xs[1], k.H};
  uint16_t x = p.tensor(xs), h0 = p.tensor({k.B, k.H}), c0 = p.tensor({k.B, k.H}), y = p.tensor(ys),
           hT = p.tensor({k.B, k.H}), cT = p.tensor({k.B, k.H});
  uint16_t op = p.op(TIGRIS_OP_LSTM, {x, h0, c0}, {y, hT, cT});
  std::vector<std::vector<float>> w(12);
  std::vector<uint16_t> idx;
  for (int g = 0; g < 12; ++g) {
    size_t n = g < 4 ? (size_t)k.H * k.I : g < 8 ? (size_t)k.H * k.H : (size_t)k.H;
    w[g] = kt::values(n, 200 + g);
    idx.push_back(g == 9 ? TIGRIS_NONE : p.weight(w[g]));  // forget bias absent
  }
  w[9].assign(k.H, 0.0f);
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s(idx));
  std::vector<uint8_t> la(8, 0);
  la[0] = k.time_major;
  std::memcpy(la.data() + 4, &k.clip, 4);
  p.attr(op, TIGRIS_ATTR_LSTM, la);
  ASSERT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
  auto xv = kt::values((size_t)k.T * k.B * k.I, 300), hv = kt::values((size_t)k.B * k.H, 301),
       cv = kt::values((size_t)k.B * k.H, 302, -3, 3);
  tigris_mem_t* m = p.mem();
  p.set(x, xv), p.set(h0, hv), p.set(c0, cv);
  ASSERT_EQ(kt::run(p, op, m), 0);
  // Reference: whole gate vectors per step, batch by batch, in double.
  std::vector<float> yref((size_t)k.T * k.B * k.H);
  for (int b = 0; b < k.B; ++b) {
    std::vector<double> h(hv.begin() + b * k.H, hv.begin() + (b + 1) * k.H),
        c(cv.begin() + b * k.H, cv.begin() + (b + 1) * k.H);
    for (int t = 0; t < k.T; ++t) {
      size_t row = k.time_major ? (size_t)t * k.B + b : (size_t)b * k.T + t;
      std::vector<double> z[4];
      for (int g = 0; g < 4; ++g) {
        z[g].assign(k.H, 0.0);
        for (int j = 0; j < k.H; ++j) {
          z[g][j] = w[8 + g][j];
          for (int i = 0; i < k.I; ++i) z[g][j] += (double)w[g][(size_t)j * k.I + i] * xv[row * k.I + i];
          for (int i = 0; i < k.H; ++i) z[g][j] += (double)w[4 + g][(size_t)j * k.H + i] * h[i];
        }
      }
      for (int j = 0; j < k.H; ++j) {
        c[j] = sig(z[1][j]) * c[j] + sig(z[0][j]) * std::tanh(z[2][j]);
        if (k.clip > 0) c[j] = std::max(-(double)k.clip, std::min((double)k.clip, c[j]));
        h[j] = sig(z[3][j]) * std::tanh(c[j]);
        yref[row * k.H + j] = (float)h[j];
      }
    }
    for (int j = 0; j < k.H; ++j) {
      EXPECT_NEAR(p.get<float>(hT)[(size_t)b * k.H + j], h[j], 1e-5);
      EXPECT_NEAR(p.get<float>(cT)[(size_t)b * k.H + j], c[j], 1e-5);
    }
  }
  kt::expect_near(p.get<float>(y), yref, 1e-5f);
}

TEST(Lstm, MatchesReferenceBatchMajorTimeMajorAndClip) {
  check_lstm({4, 2, 3, 5, false, 0.0f});
  check_lstm({3, 2, 2, 4, true, 0.0f});
  check_lstm({5, 1, 3, 3, false, 0.5f});
}

// TensorFlow Lite Micro's float LSTM bit for bit: each gate is the input FC (sum from 0 in
// input order, then + bias) plus the recurrent FC (sum + 0); TFLite's sigmoid (1 above
// 16.619..., exp(x) below -9); c = f·c + i·g, h = tanh(c)·o. Written here in float32 from
// lstm_eval.h's order of operations; a kernel that accumulated in another order (bias first,
// both FCs in one sum) differs in the last bits for these sizes.
TEST(Lstm, FloatIsTflmsOrderOfOperations) {
  const int T = 3, I = 19, H = 6;
  Plan p;
  uint16_t x = p.tensor({1, T, I}), h0 = p.tensor({1, H}), c0 = p.tensor({1, H}), y = p.tensor({1, T, H}),
           hT = p.tensor({1, H}), cT = p.tensor({1, H});
  uint16_t op = p.op(TIGRIS_OP_LSTM, {x, h0, c0}, {y, hT, cT});
  std::vector<std::vector<float>> w(12);
  std::vector<uint16_t> idx;
  for (int g = 0; g < 12; ++g) {
    w[g] = kt::values(g < 4 ? (size_t)H * I : g < 8 ? (size_t)H * H : (size_t)H, 400 + g);
    if (g == 9) w[g][0] = 30.0f, w[g][1] = -40.0f;  // forget gate beyond both sigmoid cutoffs
    idx.push_back(p.weight(w[g]));
  }
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s(idx));
  p.attr(op, TIGRIS_ATTR_LSTM, std::vector<uint8_t>(8, 0));
  auto xv = kt::values((size_t)T * I, 500), hv = kt::values(H, 501), cv = kt::values(H, 502, -2, 2);
  tigris_mem_t* m = p.mem();
  p.set(x, xv), p.set(h0, hv), p.set(c0, cv);
  ASSERT_EQ(kt::run(p, op, m), 0);
  auto sigmoid = [](float v) { return v > 16.619047164916992188f ? 1.0f : v < -9.0f ? std::exp(v) : 1.0f / (1.0f + std::exp(-v)); };
  std::vector<float> h = hv, c = cv, yref;
  for (int t = 0; t < T; ++t) {
    std::vector<float> gate[4];
    for (int g = 0; g < 4; ++g)
      for (int j = 0; j < H; ++j) {
        float a = 0.0f, r = 0.0f;
        for (int k = 0; k < I; ++k) a += xv[(size_t)t * I + k] * w[g][(size_t)j * I + k];
        for (int k = 0; k < H; ++k) r += h[k] * w[4 + g][(size_t)j * H + k];
        const float z = (a + w[8 + g][j]) + (r + 0.0f);
        gate[g].push_back(g == 2 ? std::tanh(z) : sigmoid(z));
      }
    for (int j = 0; j < H; ++j) {
      c[j] = gate[1][j] * c[j];
      c[j] = c[j] + gate[0][j] * gate[2][j];
      yref.push_back(std::tanh(c[j]) * gate[3][j]);
    }
    h.assign(yref.end() - H, yref.end());
  }
  const std::vector<float> got = p.get<float>(y);
  ASSERT_EQ(got.size(), yref.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], yref[i]) << "y element " << i;
  EXPECT_EQ(p.get<float>(cT), c);
  EXPECT_EQ(p.get<float>(hT), h);
}

TEST(Lstm, HandValueOneStep) {
  Plan p;
  uint16_t x = p.tensor({1, 1, 1}), h0 = p.tensor({1, 1}), c0 = p.tensor({1, 1}), y = p.tensor({1, 1, 1}),
           hT = p.tensor({1, 1}), cT = p.tensor({1, 1});
  uint16_t op = p.op(TIGRIS_OP_LSTM, {x, h0, c0}, {y, hT, cT});
  uint16_t z = p.weight({0.0f});
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({z, z, z, z, z, z, z, z, TIGRIS_NONE, TIGRIS_NONE, TIGRIS_NONE, TIGRIS_NONE}));
  p.attr(op, TIGRIS_ATTR_LSTM, std::vector<uint8_t>(8, 0));
  tigris_mem_t* m = p.mem();
  p.set<float>(x, {3}), p.set<float>(h0, {7}), p.set<float>(c0, {1});
  ASSERT_EQ(kt::run(p, op, m), 0);
  // All gates 0.5 (sigmoid(0)), g = tanh(0) = 0: c = 0.5, h = 0.5 * tanh(0.5).
  kt::expect_near(p.get<float>(cT), {0.5f});
  kt::expect_near(p.get<float>(y), {0.23105858f});
}

}  // namespace
