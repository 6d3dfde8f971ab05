// int8 LSTM (TFLite Micro's integer UNIDIRECTIONAL_SEQUENCE_LSTM) against values worked out
// from TFLite Micro's formulas (lstm_eval.h, reference_integer_ops FullyConnected, Logistic,
// Tanh, MulElementwise): a one-step case by hand, and a test-local reference written straight
// from those formulas in 64-bit arithmetic for several steps, batch- and time-major, with
// clipping and non-zero zero points. The sigmoid table is the test's own (any table the plan
// carries is the one both sides read; the compiler's table is checked by its own tests).
// Also the loader rule of the int8 form, and the 16x8 form against the same formulas.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "kernels/s8/s8_lstm.h"
#include "plan/op_rules.h"
#include "s8_fixture.h"

using namespace s8test;

namespace {

std::vector<uint8_t> u16s(const std::vector<uint16_t>& v) {
  std::vector<uint8_t> b;
  for (uint16_t x : v) b.push_back((uint8_t)(x & 0xFF)), b.push_back((uint8_t)(x >> 8));
  return b;
}

// round(65536 sigmoid(i / 24)), the last entry 65535 (the shape of TFLite's table).
std::vector<uint16_t> test_table() {
  std::vector<uint16_t> t(256);
  for (int i = 0; i < 256; ++i) t[i] = (uint16_t)std::min(65535.0, std::round(65536.0 / (1.0 + std::exp(-i / 24.0))));
  return t;
}

// ---- TFLite's integer formulas, written out in 64-bit arithmetic ----
int64_t srdhm(int64_t a, int64_t b) {  // SaturatingRoundingDoublingHighMul
  if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
  const int64_t ab = a * b;
  const int64_t nudge = ab >= 0 ? (1ll << 30) : 1 - (1ll << 30);
  return (ab + nudge) / (1ll << 31);  // C division truncates toward zero, as gemmlowp's
}
int64_t rdbpot(int64_t x, int e) {  // RoundingDivideByPOT: round half away from zero
  const int64_t mask = (1ll << e) - 1, rem = x & mask, threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> e) + (rem > threshold ? 1 : 0);
}
int64_t mbqm(int64_t x, int32_t m, int s) { return rdbpot(srdhm(x * (1ll << (s > 0 ? s : 0)), m), s > 0 ? 0 : -s); }
int64_t sat(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }
// TFLite's MultiplyByQuantizedMultiplier(int64 x, m, shift): m rounded to 16 bits, one rounding.
int64_t mbqm64(int64_t x, int32_t m, int s) {
  const int64_t reduced = m < 0x7FFF0000 ? (m + (1 << 15)) >> 16 : 0x7FFF;
  const int total = 15 - s;
  return (int32_t)((x * reduced + (1ll << (total - 1))) >> total);
}

int64_t ref_sigmoid(const std::vector<uint16_t>& t, int64_t v) {
  const int64_t x = v * 3, ax = x < 0 ? -x : x, uh = ax >> 9;
  int64_t r = uh >= 255 ? (0x7FFFll << 10) : ((int64_t)t[uh] << 9) + (ax & 0x1FF) * ((int64_t)t[uh + 1] - t[uh]);
  r = x >= 0 ? r + 512 : (1ll << 25) - r + 512 - 1;
  return r >> 10;
}
int64_t ref_tanh(const std::vector<uint16_t>& t, int64_t mult, int shift, int64_t v) {
  const int64_t x = (v * mult + (shift > 0 ? 1ll << (shift - 1) : 0)) >> shift, ax = x < 0 ? -x : x, uh = ax >> 8;
  int64_t r = uh >= 255 ? (0xFFFFll << 8) : ((int64_t)t[uh] << 8) + (ax & 0xFF) * ((int64_t)t[uh + 1] - t[uh]);
  r = x >= 0 ? r - (1 << 23) + (1 << 7) : -r + (1 << 23) + (1 << 7) - 1;
  return r >> 8;
}

struct Case {
  int T, B, I, H;
  bool time_major;
  float clip;      // float cell clip
  float c_scale;   // 2^p
  float h_scale;   // h's (and y's) scale
  int32_t zx, zh;  // zero points of x and h
  uint32_t seed;
  bool int16 = false;  // 16x8: int16 x, h and y, int64 biases
};

struct Lstm {
  PlanFixture f;
  uint16_t x, h0, c0, y, h, c, op;
};

std::vector<uint8_t> attr_bytes(const Case& k, const std::vector<Mult>& fc) {
  std::vector<uint8_t> a(8);
  const int32_t tm = k.time_major ? 1 : 0;
  std::memcpy(a.data(), &tm, 4);
  std::memcpy(a.data() + 4, &k.clip, 4);
  for (const Mult& m : fc) {
    const int32_t s = m.s;
    a.insert(a.end(), (const uint8_t*)&m.m, (const uint8_t*)&m.m + 4);
    a.insert(a.end(), (const uint8_t*)&s, (const uint8_t*)&s + 4);
  }
  return a;
}

// Builds the op; W, R int8, biases int32 (int64 for 16x8), the FC factors and the table as given.
void build(Lstm& L, const Case& k, const std::vector<Bytes>& w, const std::vector<std::vector<int32_t>>& b,
           const std::vector<Mult>& fc, const std::vector<uint16_t>& table) {
  PlanFixture& f = L.f;
  const uint8_t act = k.int16 ? TIGRIS_DTYPE_INT16 : TIGRIS_DTYPE_INT8;
  std::vector<int32_t> xs = k.time_major ? std::vector<int32_t>{k.T, k.B, k.I} : std::vector<int32_t>{k.B, k.T, k.I};
  L.x = f.tensor(xs, act, f.quant(0.05f, k.zx));
  L.h0 = f.tensor({k.B, k.H}, act, f.quant(k.h_scale, k.zh));
  L.c0 = f.tensor({k.B, k.H}, TIGRIS_DTYPE_INT16, f.quant(k.c_scale, 0));
  L.y = f.tensor({xs[0], xs[1], k.H}, act, f.quant(k.h_scale, k.zh));
  L.h = f.tensor({k.B, k.H}, act, f.quant(k.h_scale, k.zh));
  L.c = f.tensor({k.B, k.H}, TIGRIS_DTYPE_INT16, f.quant(k.c_scale, 0));
  L.op = f.op(TIGRIS_OP_LSTM, {L.x, L.h0, L.c0}, {L.y, L.h, L.c});
  std::vector<uint16_t> idx;
  for (const Bytes& m : w) idx.push_back(f.weight_i8(m));
  for (const auto& v : b) {
    if (v.empty()) {
      idx.push_back(TIGRIS_NONE);
    } else if (k.int16) {
      std::vector<int64_t> wide(v.begin(), v.end());
      idx.push_back(f.weight(wide.data(), wide.size() * 8));
    } else {
      idx.push_back(f.weight_i32(v));
    }
  }
  idx.push_back(f.weight(table.data(), table.size() * 2));
  f.attr(L.op, TIGRIS_ATTR_CONSTANTS, u16s(idx));
  f.attr(L.op, TIGRIS_ATTR_LSTM, attr_bytes(k, fc));
}

TEST(S8Lstm, OneStepByHand) {
  // H = I = T = B = 1, all weights and biases 0: every gate pre-activation is 0.
  //   i = f = o = sigmoid16(0) = (table[0] << 9 + 2^9) >> 10 = 32768 / 2 = 16384 (0.5)
  //   g = tanh16(0) = ((table[0] << 8) - 2^23 + 2^7) >> 8 = 0
  //   c: s_c = 2^-11, f·c ⊗ m(2^-15) = 16384 · 1000 / 2^15 = 500; i·g = 0 -> c = 500
  //   tanh(c): p = -11, input multiplier 3 · 2^(12 - 11) = 6: x = 3000, uh = 11, frac = 184
  //   h = z_h + tanh(c) · 16384 ⊗ m(2^-30 / 2^-7) = z_h + round(tanh(c) / 512)
  const std::vector<uint16_t> t = test_table();
  const Case k{1, 1, 1, 1, false, 0.0f, 1.0f / 2048, 1.0f / 128, 0, 3, 1};
  Lstm L;
  build(L, k, std::vector<Bytes>(8, Bytes{0}), std::vector<std::vector<int32_t>>(4, std::vector<int32_t>{0}),
        std::vector<Mult>(8, Mult{1 << 30, 0}), t);
  L.f.finalize();
  ASSERT_EQ(tigris_rt::check_operator(L.f.plan(), L.op), TIGRIS_OK);
  int8_t x = 17, h0 = 3, y = 0, h = 0;
  int16_t c0 = 1000, c = 0;
  L.f.bind(L.x, &x), L.f.bind(L.h0, &h0), L.f.bind(L.c0, &c0), L.f.bind(L.y, &y), L.f.bind(L.h, &h), L.f.bind(L.c, &c);
  ASSERT_EQ(L.f.run(L.op), 0);
  EXPECT_EQ(c, 500);
  const int64_t tanh_c = (((int64_t)t[11] << 8) + 184 * ((int64_t)t[12] - t[11]) - (1 << 23) + (1 << 7)) >> 8;
  // tanh_c · 16384 / 2^23 = tanh_c / 512, rounded half away from zero (tanh_c > 0).
  EXPECT_GT(tanh_c, 0);
  EXPECT_EQ(h, (int8_t)(3 + (tanh_c + 256) / 512));
  EXPECT_EQ(y, h);
}

// The reference: TFLM's step for one batch row, from the formulas.
void reference(const Case& k, const std::vector<Bytes>& w, const std::vector<std::vector<int32_t>>& b,
               const std::vector<Mult>& fc, const std::vector<uint16_t>& t, const std::vector<int32_t>& x,
               std::vector<int32_t>& h, std::vector<int16_t>& c, std::vector<int32_t>& y) {
  const int64_t lo = k.int16 ? -32768 : -128, hi = k.int16 ? 32767 : 127;
  auto fc_scale = [&](int64_t acc, const Mult& m) { return k.int16 ? mbqm64(acc, m.m, m.s) : mbqm(acc, m.m, m.s); };
  const Mult fm = qm(std::ldexp(1.0, -15) * k.c_scale / k.c_scale), im = qm(std::ldexp(1.0, -30) / k.c_scale),
             om = qm(std::ldexp(1.0, -30) / k.h_scale);
  const int p = (int)std::lround(std::log2((double)k.c_scale));
  const int left = 12 + p;
  const int64_t tmult = left >= 0 ? 3ll << left : 3;
  const int tshift = left >= 0 ? 0 : -left;
  const int16_t qclip = (int16_t)std::min(32767.0, (double)k.clip / k.c_scale);
  for (int tt = 0; tt < k.T; ++tt)
    for (int bb = 0; bb < k.B; ++bb) {
      const size_t row = k.time_major ? (size_t)tt * k.B + bb : (size_t)bb * k.T + tt;
      std::vector<int64_t> gate[4];
      for (int g = 0; g < 4; ++g)
        for (int j = 0; j < k.H; ++j) {
          int64_t ax = 0, ah = 0;
          for (int i = 0; i < k.I; ++i) ax += (int64_t)w[g][(size_t)j * k.I + i] * (x[row * k.I + i] - k.zx);
          if (!b[g].empty()) ax += b[g][j];
          for (int i = 0; i < k.H; ++i) ah += (int64_t)w[4 + g][(size_t)j * k.H + i] * (h[(size_t)bb * k.H + i] - k.zh);
          const int64_t fx = sat(fc_scale(ax, fc[g]), -32768, 32767);
          const int64_t fh = sat(fc_scale(ah, fc[4 + g]), -32768, 32767);
          const int64_t z = sat(fx + fh, -32768, 32767);
          gate[g].push_back(g == 2 ? ref_tanh(t, 3, 0, z) : ref_sigmoid(t, z));
        }
      for (int j = 0; j < k.H; ++j) {
        int16_t& cj = c[(size_t)bb * k.H + j];
        const int64_t kept = sat(mbqm(gate[1][j] * cj, fm.m, fm.s), -32768, 32767);
        const int64_t added = sat(mbqm(gate[0][j] * gate[2][j], im.m, im.s), -32768, 32767);
        int64_t cn = sat(kept + added, -32768, 32767);
        if (k.clip > 0) cn = sat(cn, -qclip, qclip);
        cj = (int16_t)cn;
        const int64_t tc = ref_tanh(t, tmult, tshift, cn);
        y[row * k.H + j] = (int32_t)sat(k.zh + mbqm(tc * gate[3][j], om.m, om.s), lo, hi);
      }
      for (int j = 0; j < k.H; ++j) h[(size_t)bb * k.H + j] = y[row * k.H + j];
    }
}

void check(const Case& k) {
  SCOPED_TRACE("T=" + std::to_string(k.T) + " B=" + std::to_string(k.B) +
               " time_major=" + std::to_string(k.time_major) + " clip=" + std::to_string(k.clip));
  const std::vector<uint16_t> t = test_table();
  std::vector<Bytes> w;
  for (int g = 0; g < 8; ++g) w.push_back(random_bytes((size_t)k.H * (g < 4 ? k.I : k.H), k.seed + g));
  std::vector<std::vector<int32_t>> b(4);
  for (int g = 0; g < 4; ++g) {
    if (g == 1 && k.seed % 2) continue;  // one bias absent
    for (int j = 0; j < k.H; ++j) b[g].push_back((int32_t)(random_bytes(1, k.seed * 7 + g * 13 + j)[0]) * 97);
  }
  // FC factors of s_x · s_W / 2^-12 (s_x 0.05, 16x8: 0.0001, so its FCs do not saturate) for a
  // few weight scales, as the compiler forms them.
  std::vector<Mult> fc;
  for (int g = 0; g < 8; ++g) {
    int32_t m;
    int s;
    tigris_s8::layer_multiplier(g < 4 ? (k.int16 ? 0.0001f : 0.05f) : k.h_scale, 0.004f + 0.001f * g, 1.0f / 4096, true,
                                &m, &s);
    fc.push_back({m, s});
  }
  Lstm L;
  build(L, k, w, b, fc, t);
  L.f.finalize();
  ASSERT_EQ(tigris_rt::check_operator(L.f.plan(), L.op), TIGRIS_OK);
  // Values of x and h0 (int16: spread over the int16 range), and their bytes.
  auto values = [&](size_t n, uint32_t seed) {
    std::vector<int32_t> v;
    for (int8_t q : random_bytes(n, seed)) v.push_back(k.int16 ? q * 251 + (q & 7) : q);
    return v;
  };
  const size_t es = k.int16 ? 2 : 1;
  auto to_bytes = [&](const std::vector<int32_t>& v) {
    std::vector<uint8_t> out(v.size() * es);
    for (size_t i = 0; i < v.size(); ++i) {
      if (k.int16) {
        const int16_t q = (int16_t)v[i];
        std::memcpy(&out[2 * i], &q, 2);
      } else {
        out[i] = (uint8_t)(int8_t)v[i];
      }
    }
    return out;
  };
  const std::vector<int32_t> xv = values((size_t)k.T * k.B * k.I, k.seed + 100),
                             h0v = values((size_t)k.B * k.H, k.seed + 101);
  std::vector<uint8_t> x = to_bytes(xv), h0 = to_bytes(h0v);
  std::vector<int16_t> c0;
  for (int8_t v : random_bytes((size_t)k.B * k.H, k.seed + 102)) c0.push_back((int16_t)(v * 211));
  std::vector<uint8_t> y((size_t)k.T * k.B * k.H * es, 0), h(h0.size(), 0);
  std::vector<int16_t> c(c0.size(), 0);
  L.f.bind(L.x, x.data()), L.f.bind(L.h0, h0.data()), L.f.bind(L.c0, c0.data()), L.f.bind(L.y, y.data()),
      L.f.bind(L.h, h.data()), L.f.bind(L.c, c.data());
  ASSERT_EQ(L.f.run(L.op), 0);
  std::vector<int32_t> yr((size_t)k.T * k.B * k.H, 0), hr = h0v;
  std::vector<int16_t> cr = c0;
  reference(k, w, b, fc, t, xv, hr, cr, yr);
  EXPECT_EQ(y, to_bytes(yr));
  EXPECT_EQ(h, to_bytes(hr));
  EXPECT_EQ(c, cr);
  // The state outputs aliasing the state inputs (in place) give the same.
  std::vector<uint8_t> h2 = h0;
  std::vector<int16_t> c2 = c0;
  L.f.bind(L.h0, h2.data()), L.f.bind(L.h, h2.data()), L.f.bind(L.c0, c2.data()), L.f.bind(L.c, c2.data());
  ASSERT_EQ(L.f.run(L.op), 0);
  EXPECT_EQ(h2, to_bytes(hr));
  EXPECT_EQ(c2, cr);
}

TEST(S8Lstm, MatchesTflmFormulasOverStepsAndBatches) {
  check({2, 1, 3, 2, false, 0.0f, 1.0f / 2048, 1.0f / 128, -5, 3, 11});  // hidden 2, input 3, 2 steps
  check({4, 2, 3, 5, false, 0.0f, 1.0f / 4096, 0.0123f, 7, -128, 12});   // batch-major, p = -12
  check({3, 2, 2, 4, true, 0.0f, 1.0f / 32768, 0.02f, 0, 10, 13});       // time-major, p = -15 (right shift)
  check({5, 1, 3, 3, false, 0.1f, 1.0f / 1024, 1.0f / 256, 2, -1, 14});  // cell clip
}

// 16x8 (TFLM's EvalLstm<int16_t, int8_t, int16_t, int64_t>): int64 accumulators and biases,
// the 64-bit MBQM, h clamped to int16; run by the int16 kernels.
TEST(S16Lstm, MatchesTflmFormulasOverStepsAndBatches) {
  check({2, 1, 3, 2, false, 0.0f, 1.0f / 2048, 1.0f / 32768, 0, 0, 21, true});
  check({4, 2, 3, 5, false, 0.0f, 1.0f / 4096, 1.0f / 16384, 3, -7, 22, true});  // zero points applied
  check({3, 2, 2, 4, true, 0.05f, 1.0f / 32768, 1.0f / 32768, 0, 0, 23, true});  // time-major, clip
}

TEST(S8Lstm, RuleRefusesWhatTheKernelCannotRun) {
  const std::vector<uint16_t> t = test_table();
  auto rule = [&](float c_scale, int c_zp, size_t attr_len, bool with_table) {
    Case k{1, 1, 2, 2, false, 0.0f, c_scale, 1.0f / 128, 0, 0, 1};
    Lstm L;
    PlanFixture& f = L.f;
    L.x = f.tensor({1, 1, 2}, TIGRIS_DTYPE_INT8, f.quant(0.05f, 0));
    L.h0 = f.tensor({1, 2}, TIGRIS_DTYPE_INT8, f.quant(1.0f / 128, 0));
    L.c0 = f.tensor({1, 2}, TIGRIS_DTYPE_INT16, f.quant(c_scale, c_zp));
    L.y = f.tensor({1, 1, 2}, TIGRIS_DTYPE_INT8, f.quant(1.0f / 128, 0));
    L.h = f.tensor({1, 2}, TIGRIS_DTYPE_INT8, f.quant(1.0f / 128, 0));
    L.c = f.tensor({1, 2}, TIGRIS_DTYPE_INT16, f.quant(c_scale, c_zp));
    L.op = f.op(TIGRIS_OP_LSTM, {L.x, L.h0, L.c0}, {L.y, L.h, L.c});
    std::vector<uint16_t> idx;
    for (int g = 0; g < 8; ++g) idx.push_back(f.weight_i8(Bytes(4, 1)));
    for (int g = 0; g < 4; ++g) idx.push_back(TIGRIS_NONE);
    if (with_table) idx.push_back(f.weight(t.data(), t.size() * 2));
    f.attr(L.op, TIGRIS_ATTR_CONSTANTS, u16s(idx));
    std::vector<uint8_t> a = attr_bytes(k, std::vector<Mult>(8, Mult{1 << 30, -3}));
    a.resize(attr_len);
    f.attr(L.op, TIGRIS_ATTR_LSTM, a);
    return tigris_rt::check_operator(f.finalize(), L.op);
  };
  EXPECT_EQ(rule(1.0f / 2048, 0, tigris_s8::kLstmInt8AttrBytes, true), TIGRIS_OK);
  EXPECT_EQ(rule(1.0f / 2048, 3, tigris_s8::kLstmInt8AttrBytes, true), TIGRIS_ERR_BAD_OPERATOR);  // cell zero point
  EXPECT_EQ(rule(1.0f / 2048, 0, 8, true), TIGRIS_ERR_BAD_OPERATOR);  // float-form attribute
  EXPECT_EQ(rule(1.0f / 2048, 0, tigris_s8::kLstmInt8AttrBytes, false), TIGRIS_ERR_BAD_OPERATOR);  // no table
  EXPECT_EQ(rule(16.0f, 0, tigris_s8::kLstmInt8AttrBytes, true), TIGRIS_ERR_BAD_OPERATOR);         // cell scale 2^4
}

}  // namespace
