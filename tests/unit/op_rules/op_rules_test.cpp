// Operator semantic checks (docs/operators.md): each rule accepts a well-formed op and
// refuses it once one fact is broken.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/src/kernels/kernel_set.h"
#include "runtime/src/plan/op_rules.h"
#include "unit/kernels_f32/plan_fixture.h"

namespace {

using fixture::Plan;

tigris_error_t check(Plan& p, uint16_t op = 0) { return tigris_rt::check_operator(p.plan(), op); }
constexpr tigris_error_t kOk = TIGRIS_OK;
constexpr tigris_error_t kBad = TIGRIS_ERR_BAD_OPERATOR;

std::vector<float> zeros(size_t n) { return std::vector<float>(n, 0.0f); }

// CONSTANT_OPERAND payload: operand index, rank, quant index, dims.
std::vector<uint8_t> constant_operand(uint8_t index, std::vector<int32_t> dims, uint16_t quant = TIGRIS_NONE) {
  std::vector<uint8_t> b = {index, (uint8_t)dims.size(), (uint8_t)(quant & 0xFF), (uint8_t)(quant >> 8)};
  for (int32_t d : dims)
    for (int k = 0; k < 4; ++k) b.push_back((uint8_t)((uint32_t)d >> (8 * k)));
  return b;
}

// Conv 1x5x5x3 -> 1x3x3x4, kernel 3x3, stride 2, pads 1, dilation 1.
struct ConvCase {
  Plan p;
  uint16_t op;
  ConvCase() {
    uint16_t in = p.tensor({1, 5, 5, 3}), out = p.tensor({1, 3, 3, 4});
    op = p.op(TIGRIS_OP_CONV, {in}, {out});
    auto& o = p.o(op);
    o.spatial.kernel_h = o.spatial.kernel_w = 3;
    o.spatial.stride_h = o.spatial.stride_w = 2;
    o.spatial.pad_top = o.spatial.pad_bottom = o.spatial.pad_left = o.spatial.pad_right = 1;
    o.spatial.group = 1;
    o.weight_idx = p.weight(zeros(4 * 3 * 3 * 3));
    o.bias_idx = p.weight(zeros(4));
  }
};

TEST(OpRulesConv, AcceptsOutputSizeRule) {
  ConvCase c;
  EXPECT_EQ(check(c.p), kOk);
}

TEST(OpRulesConv, RefusesWrongOutputHeight) {
  ConvCase c;
  c.p.o(0).spatial.pad_bottom = 2;  // (5+1+2-3)/2+1 = 3 still; pad_top 2 as well gives 4
  c.p.o(0).spatial.pad_top = 2;
  EXPECT_EQ(check(c.p), kBad);
}

TEST(OpRulesConv, RefusesWeightSize) {
  ConvCase c;
  c.p.o(0).weight_idx = c.p.weight(zeros(4 * 3 * 3 * 3 - 1));
  EXPECT_EQ(check(c.p), kBad);
}

TEST(OpRulesConv, RefusesBiasSizeAndMissingWeight) {
  ConvCase c;
  c.p.o(0).bias_idx = c.p.weight(zeros(3));
  EXPECT_EQ(check(c.p), kBad);
  ConvCase d;
  d.p.o(0).weight_idx = TIGRIS_NONE;
  EXPECT_EQ(check(d.p), kBad);
}

TEST(OpRulesConv, GroupedWeightIsIcOverGroup) {
  Plan p;
  uint16_t in = p.tensor({1, 4, 4, 4}), out = p.tensor({1, 4, 4, 6});
  uint16_t op = p.op(TIGRIS_OP_CONV, {in}, {out});
  auto& o = p.o(op);
  o.spatial.kernel_h = o.spatial.kernel_w = 1;
  o.spatial.stride_h = o.spatial.stride_w = 1;
  o.spatial.group = 2;
  o.weight_idx = p.weight(zeros(6 * 2));
  EXPECT_EQ(check(p), kOk);
  p.o(op).spatial.group = 3;  // 4 % 3 != 0
  p.o(op).weight_idx = p.weight(zeros(6 * 4 / 3));
  EXPECT_EQ(check(p), kBad);
}

TEST(OpRulesConv, CommonFieldChecks) {
  ConvCase a;
  a.p.o(0).reserved = 1;
  EXPECT_EQ(check(a.p), kBad);
  ConvCase b;
  b.p.o(0).fused_act = 3;
  EXPECT_EQ(check(b.p), kBad);
  ConvCase c;
  c.p.o(0).fused_act = TIGRIS_ACT_RELU6;
  EXPECT_EQ(check(c.p), kOk);
  ConvCase d;
  d.p.attr(0, TIGRIS_ATTR_ALPHA, {0, 0, 0, 0});  // not a Conv attribute
  EXPECT_EQ(check(d.p), kBad);
  ConvCase e;
  e.p.t(0).flags = TIGRIS_TENSOR_LINEAR;
  EXPECT_EQ(check(e.p), kBad);
}

TEST(OpRulesConv, DepthwiseMultiplier) {
  Plan p;
  uint16_t in = p.tensor({1, 3, 3, 2}), out = p.tensor({1, 3, 3, 6});
  uint16_t op = p.op(TIGRIS_OP_DEPTHWISE, {in}, {out});
  auto& o = p.o(op);
  o.spatial.kernel_h = o.spatial.kernel_w = 3;
  o.spatial.stride_h = o.spatial.stride_w = 1;
  o.spatial.pad_top = o.spatial.pad_bottom = o.spatial.pad_left = o.spatial.pad_right = 1;
  o.spatial.group = 2;
  o.weight_idx = p.weight(zeros(3 * 3 * 6));
  EXPECT_EQ(check(p), kOk);
  p.o(op).spatial.group = 1;
  EXPECT_EQ(check(p), kBad);
}

TEST(OpRulesConv, Conv1DUsesHeightFields) {
  Plan p;
  uint16_t in = p.tensor({1, 10, 3}), out = p.tensor({1, 4, 2});
  uint16_t op = p.op(TIGRIS_OP_CONV1D, {in}, {out});
  auto& o = p.o(op);
  o.spatial.kernel_h = 3;
  o.spatial.kernel_w = 1;
  o.spatial.stride_h = 2;
  o.spatial.stride_w = 1;
  o.spatial.dilation_h = 2;  // ek = 5: (10-5)/2+1 = 3 ... with pad_bottom 2 -> 4
  o.spatial.pad_bottom = 2;
  o.weight_idx = p.weight(zeros(2 * 3 * 3));
  EXPECT_EQ(check(p), kOk);
  p.o(op).spatial.pad_left = 1;
  EXPECT_EQ(check(p), kBad);
}

TEST(OpRulesConv, ConvTransposeOutputPadding) {
  Plan p;
  uint16_t in = p.tensor({1, 3, 3, 1}), out = p.tensor({1, 6, 5, 2});
  uint16_t op = p.op(TIGRIS_OP_CONV_TRANSPOSE, {in}, {out});
  auto& o = p.o(op);
  o.spatial.kernel_h = o.spatial.kernel_w = 3;
  o.spatial.stride_h = o.spatial.stride_w = 2;
  o.spatial.pad_top = o.spatial.pad_bottom = o.spatial.pad_left = o.spatial.pad_right = 1;
  o.weight_idx = p.weight(zeros(2 * 3 * 3 * 1));
  // base = (3-1)*2 - 2 + 2 + 1 = 5; H: 6 (output padding 1), W: 5.
  EXPECT_EQ(check(p), kOk);
  p.t(out) = p.t(p.tensor({1, 7, 5, 2}));  // extra 2 >= stride
  EXPECT_EQ(check(p), kBad);
}

TEST(OpRulesMatrix, FullyConnectedFlattensInput) {
  Plan p;
  uint16_t in = p.tensor({2, 2, 2, 3}), out = p.tensor({2, 5});
  uint16_t op = p.op(TIGRIS_OP_FULLY_CONN, {in}, {out});
  p.o(op).weight_idx = p.weight(zeros(5 * 12));
  p.o(op).fused_act = TIGRIS_ACT_RELU;
  EXPECT_EQ(check(p), kOk);
  p.o(op).weight_idx = p.weight(zeros(5 * 24));
  EXPECT_EQ(check(p), kBad);
}

TEST(OpRulesMatrix, MatMulBroadcastsBatchAndTakesConstant) {
  Plan p;
  uint16_t a = p.tensor({2, 1, 3, 4}), b = p.tensor({3, 4, 5}), out = p.tensor({2, 3, 3, 5});
  p.op(TIGRIS_OP_MATMUL, {a, b}, {out});
  EXPECT_EQ(check(p), kOk);
  Plan q;
  uint16_t a2 = q.tensor({2, 3, 4}), o2 = q.tensor({2, 3, 5});
  uint16_t op = q.op(TIGRIS_OP_MATMUL, {a2}, {o2});
  q.o(op).weight_idx = q.weight(zeros(20));
  q.attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, constant_operand(1, {4, 5}));
  EXPECT_EQ(check(q), kOk);
  Plan r;
  uint16_t a3 = r.tensor({2, 3, 4}), b3 = r.tensor({2, 5, 5}), o3 = r.tensor({2, 3, 5});
  r.op(TIGRIS_OP_MATMUL, {a3, b3}, {o3});  // K mismatch
  EXPECT_EQ(check(r), kBad);
}

TEST(OpRulesPool, AvgPoolWindowsAndFlags) {
  Plan p;
  uint16_t in = p.tensor({1, 4, 4, 2}), out = p.tensor({1, 2, 2, 2});
  uint16_t op = p.op(TIGRIS_OP_AVG_POOL, {in}, {out});
  auto& o = p.o(op);
  o.spatial.kernel_h = o.spatial.kernel_w = 3;
  o.spatial.stride_h = o.spatial.stride_w = 2;
  o.spatial.pad_bottom = o.spatial.pad_right = 1;  // ceil mode
  p.attr(op, TIGRIS_ATTR_POOL_ROUNDING, {2});
  EXPECT_EQ(check(p), kOk);
  p.o(op).spatial.dilation_h = 2;
  EXPECT_EQ(check(p), kBad);
}

TEST(OpRulesPool, RefusesWindowWithoutTaps) {
  Plan p;
  uint16_t in = p.tensor({1, 3, 3, 1}), out = p.tensor({1, 2, 2, 1});
  uint16_t op = p.op(TIGRIS_OP_MAX_POOL, {in}, {out});
  auto& o = p.o(op);
  o.spatial.kernel_h = o.spatial.kernel_w = 1;
  o.spatial.stride_h = o.spatial.stride_w = 3;
  o.spatial.pad_bottom = o.spatial.pad_right = 1;  // second window sits in the pad only
  EXPECT_EQ(check(p), kBad);
}

TEST(OpRulesPool, GlobalAvgShapes) {
  Plan p;
  uint16_t in = p.tensor({1, 4, 4, 8}), out = p.tensor({1, 1, 1, 8});
  p.op(TIGRIS_OP_GLOBAL_AVG, {in}, {out});
  EXPECT_EQ(check(p), kOk);
  Plan q;
  uint16_t i2 = q.tensor({1, 4, 4, 8}), o2 = q.tensor({1, 1, 1, 4});
  q.op(TIGRIS_OP_GLOBAL_AVG, {i2}, {o2});
  EXPECT_EQ(check(q), kBad);
}

TEST(OpRulesResize, NearestFactorsAndScales) {
  Plan p;
  uint16_t in = p.tensor({1, 2, 3, 4}), out = p.tensor({1, 4, 9, 4});
  uint16_t op = p.op(TIGRIS_OP_RESIZE, {in}, {out});
  p.o(op).spatial.stride_h = 2;
  p.o(op).spatial.stride_w = 3;
  EXPECT_EQ(check(p), kOk);
  p.o(op).spatial.stride_w = 2;
  EXPECT_EQ(check(p), kBad);
  p.attr(op, TIGRIS_ATTR_RESIZE_SCALES, {0, 0, 0, 64, 0, 0, 64, 64, 1, 2, 0, 0});  // 2.0, 3.0, modes
  EXPECT_EQ(check(p), kOk);
  Plan q;
  uint16_t i2 = q.tensor({1, 2, 3, 4}), o2 = q.tensor({1, 4, 9, 4});
  uint16_t op2 = q.op(TIGRIS_OP_RESIZE_LINEAR, {i2}, {o2});
  q.attr(op2, TIGRIS_ATTR_RESIZE_SCALES, {0, 0, 0, 64, 0, 0, 64, 64, 7, 0, 0, 0});  // bad mode
  EXPECT_EQ(check(q), kBad);
}

TEST(OpRulesResize, LongFormCubicAndCrop) {
  // 2.0, 3.0, tf_crop_and_resize, cubic, exclude_outside, A -0.75, roi 0 1 0 1, extrapolation 0.
  std::vector<uint8_t> a = {0, 0, 0, 64, 0, 0, 64, 64, 5, 0, 1, 1, 0, 0, 64, 191, 0, 0, 0, 0,
                            0, 0, 128, 63, 0, 0, 0, 0, 0, 0, 128, 63, 0, 0, 0, 0};
  auto verdict = [&](uint8_t type, uint8_t dtype, std::vector<uint8_t> attr) {
    Plan p;
    uint16_t in = p.tensor({1, 2, 3, 4}, dtype), out = p.tensor({1, 4, 9, 4}, dtype);
    uint16_t op = p.op(type, {in}, {out});
    p.attr(op, TIGRIS_ATTR_RESIZE_SCALES, attr);
    return check(p);
  };
  EXPECT_EQ(verdict(TIGRIS_OP_RESIZE_LINEAR, TIGRIS_DTYPE_FLOAT32, a), kOk);
  EXPECT_EQ(verdict(TIGRIS_OP_RESIZE, TIGRIS_DTYPE_FLOAT32, a), kBad);  // nearest is never cubic
  auto crop_nearest = a;
  crop_nearest[10] = 0;
  EXPECT_EQ(verdict(TIGRIS_OP_RESIZE, TIGRIS_DTYPE_FLOAT32, crop_nearest), kOk);
  EXPECT_EQ(verdict(TIGRIS_OP_RESIZE, TIGRIS_DTYPE_INT32, crop_nearest), kBad);  // float32 only
  auto bad = a;
  bad[8] = 6;  // no coordinate mode 6
  EXPECT_EQ(verdict(TIGRIS_OP_RESIZE_LINEAR, TIGRIS_DTYPE_FLOAT32, bad), kBad);
  bad = a;
  bad[35] = 0x7f, bad[34] = 0x80;  // extrapolation +inf
  EXPECT_EQ(verdict(TIGRIS_OP_RESIZE_LINEAR, TIGRIS_DTYPE_FLOAT32, bad), kBad);
  bad = a;
  bad.pop_back();  // 35 bytes
  EXPECT_EQ(verdict(TIGRIS_OP_RESIZE_LINEAR, TIGRIS_DTYPE_FLOAT32, bad), kBad);
}

TEST(OpRulesBinary, BroadcastTensorsAndConstants) {
  Plan p;
  uint16_t a = p.tensor({2, 3, 4}), b = p.tensor({3, 1}), out = p.tensor({2, 3, 4});
  p.op(TIGRIS_OP_ADD, {a, b}, {out});
  EXPECT_EQ(check(p), kOk);
  Plan q;
  uint16_t a2 = q.tensor({2, 3, 4}), b2 = q.tensor({2, 1}), o2 = q.tensor({2, 3, 4});
  q.op(TIGRIS_OP_SUB, {a2, b2}, {o2});
  EXPECT_EQ(check(q), kBad);
  // Output larger than the broadcast of its operands.
  Plan r;
  uint16_t a3 = r.tensor({1, 4}), b3 = r.tensor({1, 4}), o3 = r.tensor({3, 4});
  r.op(TIGRIS_OP_MUL, {a3, b3}, {o3});
  EXPECT_EQ(check(r), kBad);
}

TEST(OpRulesBinary, ConstantOperandForms) {
  Plan p;  // short form: per-channel constant as operand 1
  uint16_t a = p.tensor({1, 2, 2, 3}), out = p.tensor({1, 2, 2, 3});
  uint16_t op = p.op(TIGRIS_OP_ADD, {a}, {out});
  p.o(op).weight_idx = p.weight(zeros(3));
  EXPECT_EQ(check(p), kOk);
  p.o(op).weight_idx = p.weight(zeros(5));
  EXPECT_EQ(check(p), kBad);
  Plan q;  // long form: constant [2,1,1] is operand 0 of Sub
  uint16_t a2 = q.tensor({2, 3, 4}), o2 = q.tensor({2, 3, 4});
  uint16_t op2 = q.op(TIGRIS_OP_SUB, {a2}, {o2});
  q.o(op2).weight_idx = q.weight(zeros(2));
  q.attr(op2, TIGRIS_ATTR_CONSTANT_OPERAND, constant_operand(0, {2, 1, 1}));
  EXPECT_EQ(check(q), kOk);
  q.o(op2).weight_idx = q.weight(zeros(3));
  EXPECT_EQ(check(q), kBad);
}

// BINARY_REQUANT: six int32 values, three (multiplier, shift) pairs the fixed-point helpers take.
TEST(OpRulesBinary, BinaryRequantFactorsInRange) {
  auto verdict = [](std::vector<int32_t> requant) {
    Plan p;
    uint16_t a = p.tensor({2, 3}), b = p.tensor({2, 3}), out = p.tensor({2, 3});
    uint16_t op = p.op(TIGRIS_OP_ADD, {a, b}, {out});
    p.attr_i32(op, TIGRIS_ATTR_BINARY_REQUANT, requant);
    return check(p);
  };
  const int32_t m = 1 << 30;
  EXPECT_EQ(verdict({m, -1, m, -1, m, -20}), kOk);
  EXPECT_EQ(verdict({m, 31, m, -31, 0, 0}), kOk);
  for (int k = 0; k < 3; ++k) {
    std::vector<int32_t> r = {m, -1, m, -1, m, -20};
    r[2 * k + 1] = 32;  // would shift an int32 by its width
    EXPECT_EQ(verdict(r), kBad) << "pair " << k;
    r[2 * k + 1] = -32;
    EXPECT_EQ(verdict(r), kBad) << "pair " << k;
    r[2 * k + 1] = -1;
    r[2 * k] = -5;  // negative multiplier
    EXPECT_EQ(verdict(r), kBad) << "pair " << k;
  }
  EXPECT_EQ(verdict({m, -1, m, -1, m}), kBad);  // five values
}

TEST(OpRulesBinary, ComparisonOutputsBoolAndSelectTakesBoolCondition) {
  Plan p;
  uint16_t a = p.tensor({4}), b = p.tensor({4}), out = p.tensor({4}, TIGRIS_DTYPE_BOOL);
  p.op(TIGRIS_OP_LESS, {a, b}, {out});
  EXPECT_EQ(check(p), kOk);
  p.t(out).dtype = TIGRIS_DTYPE_FLOAT32;
  EXPECT_EQ(check(p), kBad);
  Plan q;
  uint16_t c = q.tensor({4}, TIGRIS_DTYPE_BOOL), x = q.tensor({1}), y = q.tensor({4}), o = q.tensor({4});
  q.op(TIGRIS_OP_SELECT_V2, {c, x, y}, {o});
  EXPECT_EQ(check(q), kOk);
  q.t(c).dtype = TIGRIS_DTYPE_FLOAT32;
  EXPECT_EQ(check(q), kBad);
}

TEST(OpRulesUnary, ShapesDtypesAndAttributes) {
  Plan p;
  uint16_t in = p.tensor({2, 3}), out = p.tensor({2, 3});
  uint16_t op = p.op(TIGRIS_OP_CLIP, {in}, {out});
  EXPECT_EQ(check(p), kBad);  // CLIP_BOUNDS required
  p.attr_f32(op, TIGRIS_ATTR_CLIP_BOUNDS, {-1.0f, INFINITY});
  EXPECT_EQ(check(p), kOk);
  Plan q;
  uint16_t i2 = q.tensor({2, 3}, TIGRIS_DTYPE_INT32), o2 = q.tensor({2, 3}, TIGRIS_DTYPE_INT32);
  q.op(TIGRIS_OP_EXP, {i2}, {o2});
  EXPECT_EQ(check(q), kBad);  // Exp is float only
  q.o(0).op_type = TIGRIS_OP_NEG;
  EXPECT_EQ(check(q), kOk);
  Plan r;
  uint16_t i3 = r.tensor({2, 3}), o3 = r.tensor({2, 3});
  r.op(TIGRIS_OP_RELU, {i3}, {o3});
  EXPECT_EQ(check(r), kOk);
  r.o(0).fused_act = TIGRIS_ACT_RELU;  // fused activation only on conv/FC/Add
  EXPECT_EQ(check(r), kBad);
  r.o(0).fused_act = 0;
  r.t(o3) = r.t(r.tensor({3, 2}));
  EXPECT_EQ(check(r), kBad);
}

TEST(OpRulesUnary, CastAcceptsAnyPairOfSizedDtypes) {
  Plan p;
  uint16_t in = p.tensor({3}, TIGRIS_DTYPE_INT64), out = p.tensor({3}, TIGRIS_DTYPE_BOOL);
  p.op(TIGRIS_OP_CAST, {in}, {out});
  EXPECT_EQ(check(p), kOk);
  p.t(out).dtype = 10;  // float16: no size
  EXPECT_EQ(check(p), kBad);
}

TEST(OpRulesShape, SoftmaxAxesContiguous) {
  Plan p;
  uint16_t in = p.tensor({2, 3, 4}), out = p.tensor({2, 3, 4});
  uint16_t op = p.op(TIGRIS_OP_SOFTMAX, {in}, {out});
  p.attr(op, TIGRIS_ATTR_AXES, {1, 2});
  EXPECT_EQ(check(p), kOk);
  Plan q;
  uint16_t i2 = q.tensor({2, 3, 4}), o2 = q.tensor({2, 3, 4});
  uint16_t op2 = q.op(TIGRIS_OP_SOFTMAX, {i2}, {o2});
  q.attr(op2, TIGRIS_ATTR_AXES, {0, 2});
  EXPECT_EQ(check(q), kBad);
}

TEST(OpRulesShape, ReductionKeepOrDropDims) {
  Plan p;
  uint16_t in = p.tensor({2, 3, 4}), out = p.tensor({2, 1, 1});
  uint16_t op = p.op(TIGRIS_OP_REDUCE_MEAN, {in}, {out});
  p.attr(op, TIGRIS_ATTR_AXES, {1, 2});
  EXPECT_EQ(check(p), kOk);
  p.t(out) = p.t(p.tensor({2}));
  EXPECT_EQ(check(p), kOk);
  p.t(out) = p.t(p.tensor({3}));
  EXPECT_EQ(check(p), kBad);
  Plan q;  // no AXES: all axes, scalar output
  uint16_t i2 = q.tensor({2, 3}), o2 = q.tensor({});
  q.op(TIGRIS_OP_REDUCE_MAX, {i2}, {o2});
  EXPECT_EQ(check(q), kOk);
}

TEST(OpRulesShape, ArgMaxNeedsAxisAndIndexOutput) {
  Plan p;
  uint16_t in = p.tensor({2, 3}), out = p.tensor({2, 1}, TIGRIS_DTYPE_INT64);
  uint16_t op = p.op(TIGRIS_OP_ARG_MAX, {in}, {out});
  EXPECT_EQ(check(p), kBad);
  p.attr(op, TIGRIS_ATTR_AXES, {1});
  EXPECT_EQ(check(p), kOk);
  p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {2});
  EXPECT_EQ(check(p), kBad);
}

TEST(OpRulesShape, NormWeights) {
  Plan p;
  uint16_t in = p.tensor({2, 5, 6}), out = p.tensor({2, 5, 6});
  uint16_t op = p.op(TIGRIS_OP_LAYER_NORM, {in}, {out});
  p.o(op).weight_idx = p.weight(zeros(30));
  p.attr(op, TIGRIS_ATTR_AXES, {1, 2});
  EXPECT_EQ(check(p), kOk);
  p.o(op).weight_idx = p.weight(zeros(6));
  EXPECT_EQ(check(p), kBad);
  Plan q;
  uint16_t i2 = q.tensor({1, 4, 4, 3}), o2 = q.tensor({1, 4, 4, 3});
  uint16_t op2 = q.op(TIGRIS_OP_INST_NORM, {i2}, {o2});
  q.o(op2).weight_idx = q.weight(zeros(3));
  EXPECT_EQ(check(q), kBad);  // bias required
  q.o(op2).bias_idx = q.weight(zeros(3));
  EXPECT_EQ(check(q), kOk);
}

TEST(OpRulesMovement, ConcatAndSplitOnAxis) {
  Plan p;
  uint16_t a = p.tensor({1, 2, 3}), b = p.tensor({1, 5, 3}), out = p.tensor({1, 7, 3});
  uint16_t op = p.op(TIGRIS_OP_CONCAT, {a, b}, {out});
  EXPECT_EQ(check(p), kBad);  // default axis is the last
  p.attr(op, TIGRIS_ATTR_AXES, {1});
  EXPECT_EQ(check(p), kOk);
  Plan q;
  uint16_t in = q.tensor({4, 6}), o1 = q.tensor({4, 2}), o2 = q.tensor({4, 4});
  q.op(TIGRIS_OP_SPLIT, {in}, {o1, o2});
  EXPECT_EQ(check(q), kOk);
  q.t(o2) = q.t(q.tensor({4, 3}));
  EXPECT_EQ(check(q), kBad);
}

TEST(OpRulesMovement, PadAndMirrorPad) {
  Plan p;
  uint16_t in = p.tensor({2, 3}), out = p.tensor({3, 4});
  uint16_t op = p.op(TIGRIS_OP_PAD, {in}, {out});
  p.attr_i32(op, TIGRIS_ATTR_PADS, {1, 2, 0, -1});
  EXPECT_EQ(check(p), kOk);
  Plan q;
  uint16_t i2 = q.tensor({2, 3}), o2 = q.tensor({4, 3});
  uint16_t op2 = q.op(TIGRIS_OP_MIRROR_PAD, {i2}, {o2});
  q.attr_i32(op2, TIGRIS_ATTR_MOVEMENT, {0, 1, 1, 0, 0});
  EXPECT_EQ(check(q), kOk);
  Plan r;
  uint16_t i3 = r.tensor({2, 3}), o3 = r.tensor({6, 3});
  uint16_t op3 = r.op(TIGRIS_OP_MIRROR_PAD, {i3}, {o3});
  r.attr_i32(op3, TIGRIS_ATTR_MOVEMENT, {0, 2, 2, 0, 0});  // reflect pad 2 > dim-1
  EXPECT_EQ(check(r), kBad);
}

TEST(OpRulesMovement, TransposePermAndReshapeSize) {
  Plan p;
  uint16_t in = p.tensor({2, 3, 4}), out = p.tensor({4, 2, 3});
  uint16_t op = p.op(TIGRIS_OP_TRANSPOSE, {in}, {out});
  EXPECT_EQ(check(p), kBad);  // perm required
  p.attr(op, TIGRIS_ATTR_TRANSPOSE_PERM, {2, 0, 1});
  EXPECT_EQ(check(p), kOk);
  Plan q;
  uint16_t i2 = q.tensor({2, 3, 4}), o2 = q.tensor({6, 4});
  q.op(TIGRIS_OP_RESHAPE, {i2}, {o2});
  EXPECT_EQ(check(q), kOk);
  q.t(o2) = q.t(q.tensor({6, 3}));
  EXPECT_EQ(check(q), kBad);
}

// CONSTANT: no input, one output, its weight exactly the output's bytes (any sized dtype).
TEST(OpRulesMovement, ConstantHasNoInputAndAWeightOfTheOutputsSize) {
  Plan p;
  uint16_t out = p.tensor({3}, TIGRIS_DTYPE_INT64);
  const int64_t v[3] = {2, 3, 4};
  uint16_t op = p.op(TIGRIS_OP_CONSTANT, std::vector<uint16_t>{}, std::vector<uint16_t>{out});
  EXPECT_EQ(check(p), kBad);  // no weight
  p.o(op).weight_idx = p.weight_bytes(v, 16);
  EXPECT_EQ(check(p), kBad);  // 16 bytes for a 24-byte output
  p.o(op).weight_idx = p.weight_bytes(v, 24);
  EXPECT_EQ(check(p), kOk);
  p.o(op).bias_idx = p.o(op).weight_idx;
  EXPECT_EQ(check(p), kBad);  // no bias
  Plan q;  // an input is refused
  uint16_t in = q.tensor({3}, TIGRIS_DTYPE_INT64), o2 = q.tensor({3}, TIGRIS_DTYPE_INT64);
  uint16_t op2 = q.op(TIGRIS_OP_CONSTANT, {in}, {o2});
  q.o(op2).weight_idx = q.weight_bytes(v, 24);
  EXPECT_EQ(check(q), kBad);
  Plan r;  // any other opcode still needs an input
  uint16_t o3 = r.tensor({3}, TIGRIS_DTYPE_INT64);
  r.op(TIGRIS_OP_RESHAPE, std::vector<uint16_t>{}, std::vector<uint16_t>{o3});
  EXPECT_EQ(check(r), kBad);
}

TEST(OpRulesMovement, GatherShapes) {
  Plan p;  // data [3,4,5], indices [2,2] on axis 1 -> [3,2,2,5]
  uint16_t d = p.tensor({3, 4, 5}), idx = p.tensor({2, 2}, TIGRIS_DTYPE_INT64), out = p.tensor({3, 2, 2, 5});
  uint16_t op = p.op(TIGRIS_OP_GATHER, {d, idx}, {out});
  p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {1, 0, 2, 2, 2});
  EXPECT_EQ(check(p), kOk);
  Plan q;  // constant indices
  uint16_t d2 = q.tensor({3, 4}), o2 = q.tensor({2, 4});
  uint16_t op2 = q.op(TIGRIS_OP_GATHER, {d2}, {o2});
  q.o(op2).weight_idx = q.weight_i32({2, 0});
  q.attr_i32(op2, TIGRIS_ATTR_MOVEMENT, {0, 0, 1, 2});
  EXPECT_EQ(check(q), kOk);
  q.o(op2).weight_idx = q.weight_i32({2, 0, 1});  // 3 indices, index_shape says 2
  EXPECT_EQ(check(q), kBad);
}

TEST(OpRulesMovement, GatherNDAndStridedSlice) {
  Plan p;  // data [2,3,4], indices [5,2] -> [5,4]
  uint16_t d = p.tensor({2, 3, 4}), idx = p.tensor({5, 2}, TIGRIS_DTYPE_INT32), out = p.tensor({5, 4});
  uint16_t op = p.op(TIGRIS_OP_GATHER_ND, {d, idx}, {out});
  p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {2, 5, 2});
  EXPECT_EQ(check(p), kOk);
  Plan q;  // [5,6] -> rows 4,2,0 (step -2), cols 1..5 step 2 -> [3,3]; then shrink nothing
  uint16_t i2 = q.tensor({5, 6}), o2 = q.tensor({3, 3});
  uint16_t op2 = q.op(TIGRIS_OP_STRIDED_SLICE, {i2}, {o2});
  q.attr_i32(op2, TIGRIS_ATTR_MOVEMENT, {4, -1, -2, 1, 6, 2});
  EXPECT_EQ(check(q), kOk);
  Plan r;
  uint16_t i3 = r.tensor({5, 6}), o3 = r.tensor({3});
  uint16_t op3 = r.op(TIGRIS_OP_STRIDED_SLICE, {i3}, {o3});
  r.attr_i32(op3, TIGRIS_ATTR_MOVEMENT, {2, 3, 1, 0, 6, 2, 1});  // shrink axis 0
  EXPECT_EQ(check(r), kOk);
  r.attr_i32(op3, TIGRIS_ATTR_MOVEMENT, {2, 3, 1, 0, 7, 2, 1});
  EXPECT_EQ(check(r), kBad);
}

TEST(OpRulesControlFlow, IfNeedsBoolConditionAndGraphs) {
  Plan p;
  uint16_t c = p.tensor({1}, TIGRIS_DTYPE_BOOL), x = p.tensor({2}), out = p.tensor({2});
  uint16_t op = p.op(TIGRIS_OP_IF, {c, x}, {out});
  EXPECT_EQ(check(p), kBad);
  p.attr(op, TIGRIS_ATTR_SUBGRAPHS, {1, 0, 2, 0});
  EXPECT_EQ(check(p), kOk);
}

TEST(OpRules, UnknownOpcodesAreRefused) {
  for (int t : {0, 89, TIGRIS_OP_TYPE_MAX + 1, 200, 255}) {
    Plan p;
    uint16_t in = p.tensor({2}), out = p.tensor({2});
    p.op(static_cast<uint8_t>(t), {in}, {out});
    EXPECT_EQ(check(p), kBad) << int(t);
  }
}

TEST(KernelSet, FloatTableAndInt8Fallback) {
  EXPECT_TRUE(tigris_rt::kernel_enabled(TIGRIS_OP_CONV, TIGRIS_DTYPE_FLOAT32));
  EXPECT_FALSE(tigris_rt::kernel_enabled(TIGRIS_OP_CONV, TIGRIS_DTYPE_INT32));
  EXPECT_TRUE(tigris_rt::kernel_enabled(TIGRIS_OP_ADD, TIGRIS_DTYPE_INT64));
  EXPECT_TRUE(tigris_rt::kernel_enabled(TIGRIS_OP_TRANSPOSE, TIGRIS_DTYPE_INT8));
  EXPECT_TRUE(tigris_rt::kernel_enabled(TIGRIS_OP_LOGICAL_NOT, TIGRIS_DTYPE_BOOL));
  EXPECT_FALSE(tigris_rt::kernel_enabled(TIGRIS_OP_LOGICAL_NOT, TIGRIS_DTYPE_FLOAT32));
  EXPECT_TRUE(tigris_rt::kernel_enabled(TIGRIS_OP_SVDF, TIGRIS_DTYPE_FLOAT32));
  EXPECT_TRUE(tigris_rt::kernel_enabled(TIGRIS_OP_DETECTION_POSTPROCESS, TIGRIS_DTYPE_FLOAT32));
  EXPECT_FALSE(tigris_rt::kernel_enabled(200, TIGRIS_DTYPE_FLOAT32));
  EXPECT_FALSE(tigris_rt::kernel_enabled(TIGRIS_OP_EXP, 200));
}

}  // namespace
