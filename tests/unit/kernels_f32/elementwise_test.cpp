// Binary ops (broadcasting, constant operands, integer semantics, bool outputs, Select, AddN),
// unary ops and Cast against hand values and <cmath> per element; banded pointwise calls.
#include <cstring>

#include "unit/kernels_f32/kernel_test_util.h"

namespace {

using fixture::Plan;

std::vector<uint8_t> constant_operand(uint8_t index, std::vector<int32_t> dims) {
  std::vector<uint8_t> b = {index, (uint8_t)dims.size(), 0xFF, 0xFF};
  for (int32_t d : dims)
    for (int k = 0; k < 4; ++k) b.push_back((uint8_t)((uint32_t)d >> (8 * k)));
  return b;
}

TEST(Binary, AddBroadcastsBothOperands) {
  Plan p;
  uint16_t a = p.tensor({2, 3, 1}), b = p.tensor({3, 4}), out = p.tensor({2, 3, 4});
  uint16_t op = p.op(TIGRIS_OP_ADD, {a, b}, {out});
  auto av = kt::values(6, 71), bv = kt::values(12, 72);
  tigris_mem_t* m = p.mem();
  p.set(a, av);
  p.set(b, bv);
  ASSERT_EQ(kt::run(p, op, m), 0);
  std::vector<float> want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k) want.push_back(av[i * 3 + j] + bv[j * 4 + k]);
  kt::expect_near(p.get<float>(out), want);
}

TEST(Binary, ConstantOperandsShortAndLongForm) {
  {  // Mul by a per-channel constant (short form, operand 1).
    Plan p;
    uint16_t a = p.tensor({1, 2, 2, 2}), out = p.tensor({1, 2, 2, 2});
    uint16_t op = p.op(TIGRIS_OP_MUL, {a}, {out});
    p.o(op).weight_idx = p.weight({10, -1});
    tigris_mem_t* m = p.mem();
    p.set<float>(a, {1, 2, 3, 4, 5, 6, 7, 8});
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), {10, -2, 30, -4, 50, -6, 70, -8});
  }
  {  // Sub with a [2,1] constant as operand 0: c - x.
    Plan p;
    uint16_t a = p.tensor({2, 3}), out = p.tensor({2, 3});
    uint16_t op = p.op(TIGRIS_OP_SUB, {a}, {out});
    p.o(op).weight_idx = p.weight({100, 200});
    p.attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, constant_operand(0, {2, 1}));
    tigris_mem_t* m = p.mem();
    p.set<float>(a, {1, 2, 3, 4, 5, 6});
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), {99, 98, 97, 196, 195, 194});
  }
}

TEST(Binary, FloatDivModMaxMinPreluFusedRelu) {
  struct Case {
    uint8_t op;
    std::vector<float> want;
  };
  std::vector<float> av = {-7.5f, 7.5f, 3.0f, -2.0f}, bv = {2.0f, -2.0f, NAN, 0.5f};
  for (const Case& c :
       {Case{TIGRIS_OP_DIV, {-3.75f, -3.75f, NAN, -4.0f}}, Case{TIGRIS_OP_FLOOR_DIV, {-4, -4, NAN, -4}},
        Case{TIGRIS_OP_FLOOR_MOD, {0.5f, -0.5f, NAN, 0.0f}}, Case{TIGRIS_OP_MAXIMUM, {2, 7.5f, NAN, 0.5f}},
        Case{TIGRIS_OP_MINIMUM, {-7.5f, -2, NAN, -2}}, Case{TIGRIS_OP_SQUARED_DIFFERENCE, {90.25f, 90.25f, NAN, 6.25f}},
        Case{TIGRIS_OP_PRELU, {-15, 7.5f, 3, -1}}}) {
    Plan p;
    uint16_t a = p.tensor({4}), b = p.tensor({4}), out = p.tensor({4});
    uint16_t op = p.op(c.op, {a, b}, {out});
    tigris_mem_t* m = p.mem();
    p.set(a, av);
    p.set(b, bv);
    ASSERT_EQ(kt::run(p, op, m), 0) << int(c.op);
    auto got = p.get<float>(out);
    for (int i = 0; i < 4; ++i) {
      if (std::isnan(c.want[i]))
        EXPECT_TRUE(std::isnan(got[i])) << int(c.op) << " " << i;
      else
        EXPECT_FLOAT_EQ(got[i], c.want[i]) << int(c.op) << " " << i;
    }
  }
  Plan p;
  uint16_t a = p.tensor({3}), b = p.tensor({1}), out = p.tensor({3});
  uint16_t op = p.op(TIGRIS_OP_ADD, {a, b}, {out});
  p.o(op).fused_act = TIGRIS_ACT_RELU6;
  tigris_mem_t* m = p.mem();
  p.set<float>(a, {-5, 2, 9});
  p.set<float>(b, {1});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {0, 3, 6});
}

TEST(Binary, IntegerDivisionModAndOverflowSemantics) {
  struct Case {
    uint8_t op;
    std::vector<int32_t> want;
  };
  std::vector<int32_t> av = {-7, 7, -7, INT32_MIN, INT32_MAX}, bv = {2, -3, -2, -1, 1};
  for (const Case& c :
       {Case{TIGRIS_OP_DIV, {-3, -2, 3, INT32_MIN, INT32_MAX}},
        Case{TIGRIS_OP_FLOOR_DIV, {-4, -3, 3, INT32_MIN, INT32_MAX}}, Case{TIGRIS_OP_FLOOR_MOD, {1, -2, -1, 0, 0}},
        Case{TIGRIS_OP_ADD, {-5, 4, -9, INT32_MAX, INT32_MIN}},
        Case{TIGRIS_OP_MUL, {-14, -21, 14, INT32_MIN, INT32_MAX}}}) {
    Plan p;
    uint16_t a = p.tensor({5}, TIGRIS_DTYPE_INT32), b = p.tensor({5}, TIGRIS_DTYPE_INT32),
             out = p.tensor({5}, TIGRIS_DTYPE_INT32);
    uint16_t op = p.op(c.op, {a, b}, {out});
    tigris_mem_t* m = p.mem();
    p.set(a, av);
    p.set(b, bv);
    ASSERT_EQ(kt::run(p, op, m), 0) << int(c.op);
    EXPECT_EQ(p.get<int32_t>(out), c.want) << int(c.op);
  }
  Plan p;  // division by zero fails the call
  uint16_t a = p.tensor({1}, TIGRIS_DTYPE_INT64), b = p.tensor({1}, TIGRIS_DTYPE_INT64),
           out = p.tensor({1}, TIGRIS_DTYPE_INT64);
  uint16_t op = p.op(TIGRIS_OP_DIV, {a, b}, {out});
  tigris_mem_t* m = p.mem();
  p.set<int64_t>(a, {5});
  p.set<int64_t>(b, {0});
  EXPECT_EQ(kt::run(p, op, m), -1);
}

TEST(Binary, ComparisonsLogicalAndSelect) {
  std::vector<float> av = {1, 2, 3}, bv = {2, 2, 2};
  struct Case {
    uint8_t op;
    std::vector<uint8_t> want;
  };
  for (const Case& c :
       {Case{TIGRIS_OP_EQUAL, {0, 1, 0}}, Case{TIGRIS_OP_LESS, {1, 0, 0}}, Case{TIGRIS_OP_LESS_EQUAL, {1, 1, 0}},
        Case{TIGRIS_OP_GREATER, {0, 0, 1}}, Case{TIGRIS_OP_GREATER_EQUAL, {0, 1, 1}}}) {
    Plan p;
    uint16_t a = p.tensor({3}), b = p.tensor({3}), out = p.tensor({3}, TIGRIS_DTYPE_BOOL);
    uint16_t op = p.op(c.op, {a, b}, {out});
    tigris_mem_t* m = p.mem();
    p.set(a, av);
    p.set(b, bv);
    ASSERT_EQ(kt::run(p, op, m), 0);
    EXPECT_EQ(p.get<uint8_t>(out), c.want) << int(c.op);
  }
  Plan p;
  uint16_t x = p.tensor({2, 2}, TIGRIS_DTYPE_BOOL), y = p.tensor({2}, TIGRIS_DTYPE_BOOL),
           o_and = p.tensor({2, 2}, TIGRIS_DTYPE_BOOL), o_or = p.tensor({2, 2}, TIGRIS_DTYPE_BOOL),
           o_not = p.tensor({2, 2}, TIGRIS_DTYPE_BOOL);
  uint16_t a1 = p.op(TIGRIS_OP_LOGICAL_AND, {x, y}, {o_and});
  uint16_t a2 = p.op(TIGRIS_OP_LOGICAL_OR, {x, y}, {o_or});
  uint16_t a3 = p.op(TIGRIS_OP_LOGICAL_NOT, {x}, {o_not});
  tigris_mem_t* m = p.mem();
  p.set<uint8_t>(x, {0, 1, 1, 1});
  p.set<uint8_t>(y, {1, 0});
  ASSERT_EQ(kt::run(p, a1, m), 0);
  ASSERT_EQ(kt::run(p, a2, m), 0);
  ASSERT_EQ(kt::run(p, a3, m), 0);
  EXPECT_EQ(p.get<uint8_t>(o_and), (std::vector<uint8_t>{0, 0, 1, 0}));
  EXPECT_EQ(p.get<uint8_t>(o_or), (std::vector<uint8_t>{1, 1, 1, 1}));
  EXPECT_EQ(p.get<uint8_t>(o_not), (std::vector<uint8_t>{1, 0, 0, 0}));
  Plan q;  // Select: cond [2,1], x scalar constant (operand 1), y [2,3] int64
  uint16_t cond = q.tensor({2, 1}, TIGRIS_DTYPE_BOOL), yv = q.tensor({2, 3}, TIGRIS_DTYPE_INT64),
           out = q.tensor({2, 3}, TIGRIS_DTYPE_INT64);
  uint16_t op = q.op(TIGRIS_OP_SELECT_V2, {cond, yv}, {out});
  int64_t seven = 7;
  q.o(op).weight_idx = q.weight_bytes(&seven, 8);
  q.attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, constant_operand(1, {1}));
  tigris_mem_t* mq = q.mem();
  q.set<uint8_t>(cond, {1, 0});
  q.set<int64_t>(yv, {1, 2, 3, 4, 5, 6});
  ASSERT_EQ(kt::run(q, op, mq), 0);
  EXPECT_EQ(q.get<int64_t>(out), (std::vector<int64_t>{7, 7, 7, 4, 5, 6}));
}

TEST(Binary, AddNBroadcastsEveryInput) {
  Plan p;
  uint16_t a = p.tensor({2, 2}), b = p.tensor({2}), c = p.tensor({2, 1}), out = p.tensor({2, 2});
  uint16_t op = p.op(TIGRIS_OP_ADD_N, {a, b, c}, {out});
  tigris_mem_t* m = p.mem();
  p.set<float>(a, {1, 2, 3, 4});
  p.set<float>(b, {10, 20});
  p.set<float>(c, {100, 200});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {111, 122, 213, 224});
  Plan q;  // a single input expands
  uint16_t s = q.tensor({1, 3}), o = q.tensor({2, 3});
  uint16_t op2 = q.op(TIGRIS_OP_ADD_N, {s}, {o});
  tigris_mem_t* mq = q.mem();
  q.set<float>(s, {1, 2, 3});
  ASSERT_EQ(kt::run(q, op2, mq), 0);
  kt::expect_near(q.get<float>(o), {1, 2, 3, 1, 2, 3});
}

TEST(Binary, BandedStripeWithFullSizeConstantAndBroadcastTensor) {
  // out[n,h,w,c] = x[n,h,w,c] + k[h,w,c] (constant, read at global rows) ; band rows [1,3).
  Plan p;
  uint16_t x = p.tensor({1, 4, 2, 2}), out = p.tensor({1, 4, 2, 2});
  uint16_t op = p.op(TIGRIS_OP_ADD, {x}, {out});
  auto kv = kt::values(16, 81);
  p.o(op).weight_idx = p.weight(kv);
  p.attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, constant_operand(1, {4, 2, 2}));
  auto xv = kt::values(16, 82);
  tigris_mem_t* m = p.mem();
  auto xb = kt::rows(xv, 1, 4, 4, 1, 3, 2);  // two junk rows, then rows 1..2
  std::vector<float> ob(4 * 3, -9.0f);       // one junk row, then the band
  p.bind(x, xb.data());
  p.bind(out, ob.data());
  m->tile = tigris_tile_ctx_t{};
  m->tile.active = 1, m->tile.out_h = 2, m->tile.in_row_start = 2, m->tile.out_row_start = 1, m->tile.out_row0 = 1;
  ASSERT_EQ(kt::run(p, op, m), 0);
  std::vector<float> want(4, -9.0f);
  for (int i = 4; i < 12; ++i) want.push_back(xv[i] + kv[i]);
  kt::expect_near(ob, want);
}

TEST(Unary, FloatFunctionsMatchCmath) {
  std::vector<float> xs = {-3.5f, -1.0f, -0.25f, 0.0f, 0.3f, 1.0f, 2.5f, 7.0f};
  struct Case {
    uint8_t op;
    float (*f)(float);
  };
  const Case cases[] = {
      {TIGRIS_OP_RELU, [](float x) { return x > 0 ? x : 0.0f; }},
      {TIGRIS_OP_RELU6, [](float x) { return std::min(std::max(x, 0.0f), 6.0f); }},
      {TIGRIS_OP_SIGMOID, [](float x) { return (float)(1.0 / (1.0 + std::exp(-(double)x))); }},
      {TIGRIS_OP_TANH, [](float x) { return (float)std::tanh((double)x); }},
      {TIGRIS_OP_HARDSWISH, [](float x) { return x * std::min(std::max(x + 3.0f, 0.0f), 6.0f) / 6.0f; }},
      {TIGRIS_OP_SILU, [](float x) { return (float)((double)x / (1.0 + std::exp(-(double)x))); }},
      {TIGRIS_OP_ERF, [](float x) { return (float)std::erf((double)x); }},
      {TIGRIS_OP_ELU, [](float x) { return x < 0 ? (float)std::expm1((double)x) : x; }},
      {TIGRIS_OP_LEAKY_RELU, [](float x) { return x < 0 ? 0.01f * x : x; }},
      {TIGRIS_OP_ABS, [](float x) { return std::fabs(x); }},
      {TIGRIS_OP_NEG, [](float x) { return -x; }},
      {TIGRIS_OP_EXP, [](float x) { return (float)std::exp((double)x); }},
      {TIGRIS_OP_SQUARE, [](float x) { return x * x; }},
      {TIGRIS_OP_FLOOR, [](float x) { return std::floor(x); }},
      {TIGRIS_OP_CEIL, [](float x) { return std::ceil(x); }},
      {TIGRIS_OP_SIN, [](float x) { return (float)std::sin((double)x); }},
      {TIGRIS_OP_COS, [](float x) { return (float)std::cos((double)x); }},
  };
  for (const Case& c : cases) {
    Plan p;
    uint16_t in = p.tensor({8}), out = p.tensor({8});
    uint16_t op = p.op(c.op, {in}, {out});
    tigris_mem_t* m = p.mem();
    p.set(in, xs);
    ASSERT_EQ(kt::run(p, op, m), 0) << int(c.op);
    auto got = p.get<float>(out);
    for (size_t i = 0; i < xs.size(); ++i)
      EXPECT_NEAR(got[i], c.f(xs[i]), 2e-6f * (1 + std::fabs(got[i]))) << int(c.op);
  }
  // Positive-domain functions.
  std::vector<float> pos = {0.25f, 1.0f, 4.0f, 10.0f};
  const Case pcases[] = {{TIGRIS_OP_LOG, [](float x) { return (float)std::log((double)x); }},
                         {TIGRIS_OP_SQRT, [](float x) { return (float)std::sqrt((double)x); }},
                         {TIGRIS_OP_RSQRT, [](float x) { return (float)(1.0 / std::sqrt((double)x)); }}};
  for (const Case& c : pcases) {
    Plan p;
    uint16_t in = p.tensor({4}), out = p.tensor({4});
    uint16_t op = p.op(c.op, {in}, {out});
    tigris_mem_t* m = p.mem();
    p.set(in, pos);
    ASSERT_EQ(kt::run(p, op, m), 0);
    auto got = p.get<float>(out);
    for (size_t i = 0; i < pos.size(); ++i) EXPECT_NEAR(got[i], c.f(pos[i]), 2e-6f * (1 + std::fabs(got[i])));
  }
}

TEST(Unary, RoundHalfToEvenClipAlphaAndIntegers) {
  Plan p;
  uint16_t in = p.tensor({6}), r = p.tensor({6}), cl = p.tensor({6}), lr = p.tensor({6});
  uint16_t o1 = p.op(TIGRIS_OP_ROUND, {in}, {r});
  uint16_t o2 = p.op(TIGRIS_OP_CLIP, {in}, {cl});
  p.attr_f32(o2, TIGRIS_ATTR_CLIP_BOUNDS, {-1.0f, 1.0f});
  uint16_t o3 = p.op(TIGRIS_OP_LEAKY_RELU, {in}, {lr});
  p.attr_f32(o3, TIGRIS_ATTR_ALPHA, {0.5f});
  tigris_mem_t* m = p.mem();
  p.set<float>(in, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.6f});
  for (uint16_t o : {o1, o2, o3}) ASSERT_EQ(kt::run(p, o, m), 0);
  kt::expect_near(p.get<float>(r), {0, 2, 2, 0, -2, -3});
  kt::expect_near(p.get<float>(cl), {0.5f, 1, 1, -0.5f, -1, -1});
  kt::expect_near(p.get<float>(lr), {0.5f, 1.5f, 2.5f, -0.25f, -0.75f, -1.3f});
  Plan q;
  uint16_t i2 = q.tensor({3}, TIGRIS_DTYPE_INT32), a = q.tensor({3}, TIGRIS_DTYPE_INT32),
           n = q.tensor({3}, TIGRIS_DTYPE_INT32);
  uint16_t oa = q.op(TIGRIS_OP_ABS, {i2}, {a}), on = q.op(TIGRIS_OP_NEG, {i2}, {n});
  tigris_mem_t* mq = q.mem();
  q.set<int32_t>(i2, {-5, 0, INT32_MIN});
  ASSERT_EQ(kt::run(q, oa, mq), 0);
  ASSERT_EQ(kt::run(q, on, mq), 0);
  EXPECT_EQ(q.get<int32_t>(a), (std::vector<int32_t>{5, 0, INT32_MIN}));
  EXPECT_EQ(q.get<int32_t>(n), (std::vector<int32_t>{5, 0, INT32_MIN}));
  // Float-only functions refuse integers at run time too.
  q.o(oa).op_type = TIGRIS_OP_EXP;
  EXPECT_EQ(kt::run(q, oa, mq), -1);
}

TEST(Cast, ConversionsAndQuantization) {
  Plan p;
  uint16_t f = p.tensor({6}), i32 = p.tensor({6}, TIGRIS_DTYPE_INT32), b = p.tensor({6}, TIGRIS_DTYPE_BOOL),
           u8 = p.tensor({6}, TIGRIS_DTYPE_UINT8), f2 = p.tensor({6});
  uint16_t c1 = p.op(TIGRIS_OP_CAST, {f}, {i32});
  uint16_t c2 = p.op(TIGRIS_OP_CAST, {f}, {b});
  uint16_t c3 = p.op(TIGRIS_OP_CAST, {i32}, {u8});
  uint16_t c4 = p.op(TIGRIS_OP_CAST, {b}, {f2});
  tigris_mem_t* m = p.mem();
  p.set<float>(f, {-2.7f, 2.7f, 0.0f, 3e10f, -3e10f, NAN});
  for (uint16_t o : {c1, c2, c3, c4}) ASSERT_EQ(kt::run(p, o, m), 0);
  EXPECT_EQ(p.get<int32_t>(i32), (std::vector<int32_t>{-2, 2, 0, INT32_MAX, INT32_MIN, 0}));
  EXPECT_EQ(p.get<uint8_t>(b), (std::vector<uint8_t>{1, 1, 0, 1, 1, 1}));
  EXPECT_EQ(p.get<uint8_t>(u8), (std::vector<uint8_t>{254, 2, 0, 255, 0, 0}));  // wraps
  kt::expect_near(p.get<float>(f2), {1, 1, 0, 1, 1, 1});
  // int8 with scale 0.5, zero point -3: quantize rounds half away from zero and saturates.
  Plan q;
  uint16_t x = q.tensor({5}), qv = q.tensor({5}, TIGRIS_DTYPE_INT8), back = q.tensor({5});
  q.t(qv).quant_param_idx = q.quant(0.5f, -3);
  uint16_t k1 = q.op(TIGRIS_OP_CAST, {x}, {qv}), k2 = q.op(TIGRIS_OP_CAST, {qv}, {back});
  tigris_mem_t* mq = q.mem();
  q.set<float>(x, {1.25f, -1.25f, 0.2f, 100.0f, -100.0f});
  ASSERT_EQ(kt::run(q, k1, mq), 0);
  ASSERT_EQ(kt::run(q, k2, mq), 0);
  EXPECT_EQ(q.get<int8_t>(qv), (std::vector<int8_t>{0, -6, -3, 127, -128}));
  kt::expect_near(q.get<float>(back), {1.5f, -1.5f, 0.0f, 65.0f, -62.5f});
}

}  // namespace

namespace {

TEST(Binary, WidthTiledRectangleReadsConstantAtGlobalColumns) {
  // out = x + k with k [H,W,C] constant; rectangle rows [1,3), cols [2,4) of a 4x5x1 map.
  Plan p;
  uint16_t x = p.tensor({1, 4, 5, 1}), out = p.tensor({1, 4, 5, 1});
  uint16_t op = p.op(TIGRIS_OP_ADD, {x}, {out});
  std::vector<float> k(20);
  for (int i = 0; i < 20; ++i) k[i] = 100.0f * (i / 5) + (float)(i % 5);  // 100*row + col
  p.o(op).weight_idx = p.weight(k);
  p.attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, constant_operand(1, {4, 5, 1}));
  tigris_mem_t* m = p.mem();
  std::vector<float> xb = {1, 2, 3, 4}, ob(4, 0.0f);  // packed 2x2 rectangles
  p.bind(x, xb.data());
  p.bind(out, ob.data());
  m->tile = tigris_tile_ctx_t{};
  m->tile.active = 1, m->tile.width_tiled = 1, m->tile.out_h = 2, m->tile.out_w = 2, m->tile.in_w = 2;
  m->tile.out_row0 = 1, m->tile.out_col0 = 2;
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(ob, {103, 105, 205, 207});
}

TEST(Binary, RowTiledMatrixBandWithBroadcastBias) {
  Plan p;  // [4,3] + bias [3], band rows [2,4) stored after one junk row
  uint16_t x = p.tensor({4, 3}), out = p.tensor({4, 3});
  uint16_t op = p.op(TIGRIS_OP_ADD, {x}, {out});
  p.o(op).weight_idx = p.weight({10, 20, 30});
  tigris_mem_t* m = p.mem();
  std::vector<float> xb = {-1, -1, -1, 1, 2, 3, 4, 5, 6}, ob(6, 0.0f);
  p.bind(x, xb.data());
  p.bind(out, ob.data());
  m->tile = tigris_tile_ctx_t{};
  m->tile.active = 1, m->tile.row_tiled = 1, m->tile.out_h = 2, m->tile.in_row_start = 1, m->tile.out_row0 = 2;
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(ob, {11, 22, 33, 14, 25, 36});
}

}  // namespace
