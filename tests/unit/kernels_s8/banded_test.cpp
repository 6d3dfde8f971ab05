// Banded calls give the same bytes as whole calls, for every int8 kernel class: window
// ops in row stripes and 2-D tiles (with junk rows before the band in both buffers),
// pointwise ops in row bands (banded, broadcast and constant operands), row-tiled
// matrices, by-input reductions, resize bands, transpose tiles and reshape bands.
#include <gtest/gtest.h>

#include <cstring>

#include "banding.h"
#include "s8_fixture.h"

using namespace s8test;

namespace {

Bytes run_whole(PlanFixture& f, uint16_t op, const std::vector<uint16_t>& ins, std::vector<Bytes> xs, uint16_t out,
                size_t out_bytes) {
  Bytes y(out_bytes, 77);
  for (size_t i = 0; i < ins.size(); i++) f.bind(ins[i], xs[i].data());
  f.bind(out, y.data());
  EXPECT_EQ(f.run(op), 0);
  return y;
}

// A window op on random data: whole vs stripes of several heights and 2-D tiles.
void check_window_op(uint8_t type, std::vector<int32_t> in_shape, std::vector<int32_t> out_shape, int k, int stride,
                     int dil, int pad_a, int pad_b, int oc_weights, uint32_t seed) {
  PlanFixture f;
  const int32_t oc = out_shape.back();
  std::vector<int32_t> m(oc), s(oc);
  for (int32_t c = 0; c < oc; c++) {
    m[c] = 1073741824 + c * 12345679;
    s[c] = -7 - (c % 3);
  }
  const uint16_t in = f.tensor(in_shape, TIGRIS_DTYPE_INT8, f.quant(0.05f, -3));
  const uint16_t out = f.tensor(out_shape, TIGRIS_DTYPE_INT8,
                                type == TIGRIS_OP_CONV || type == TIGRIS_OP_DEPTHWISE || type == TIGRIS_OP_CONV1D
                                    ? f.quant_channels(0.1f, 5, m, s)
                                    : f.quant(0.05f, -3));
  const uint16_t op = f.op(type, {in}, {out});
  tigris_op_t& o = f.op_record(op);
  const bool rank4 = in_shape.size() == 4;
  o.spatial.kernel_h = (uint8_t)k;
  o.spatial.kernel_w = (uint8_t)(rank4 ? k : 1);
  o.spatial.stride_h = (uint8_t)stride;
  o.spatial.stride_w = (uint8_t)(rank4 ? stride : 1);
  o.spatial.dilation_h = (uint16_t)dil;
  o.spatial.dilation_w = (uint16_t)(rank4 ? dil : 1);
  o.spatial.pad_top = (uint16_t)pad_a;
  o.spatial.pad_bottom = (uint16_t)pad_b;
  o.spatial.pad_left = (uint16_t)(rank4 ? pad_a : 0);
  o.spatial.pad_right = (uint16_t)(rank4 ? pad_b : 0);
  if (oc_weights > 0) {
    o.weight_idx = f.weight_i8(random_bytes((size_t)oc_weights, seed + 1));
    std::vector<int32_t> bias(oc);
    for (int32_t c = 0; c < oc; c++) bias[c] = (int32_t)(c * 997) - 3000;
    o.bias_idx = f.weight_i32(bias);
  }
  o.act_min = -100;
  o.act_max = 120;
  f.finalize();
  size_t in_n = 1, out_n = 1;
  for (int32_t d : in_shape) in_n *= (size_t)d;
  for (int32_t d : out_shape) out_n *= (size_t)d;
  const Bytes x = random_bytes(in_n, seed);
  const Bytes whole = run_whole(f, op, {in}, {x}, out, out_n);
  const BandOptions variants[] = {{1, 0, 0, 0}, {2, 0, 3, 2}, {3, 0, 1, 0}, {100, 0, 0, 1}, {2, 2, 1, 1}, {1, 3, 0, 0}};
  for (const BandOptions& b : variants) {
    Bytes y;
    ASSERT_TRUE(run_spatial_banded(f, op, in, x, out, b, &y)) << "band " << b.band_h << "x" << b.band_w;
    EXPECT_EQ(y, whole) << "type " << (int)type << " band " << b.band_h << "x" << b.band_w;
  }
}

}  // namespace

TEST(S8Banded, ConvStridesDilationPadding) {
  check_window_op(TIGRIS_OP_CONV, {2, 9, 7, 3}, {2, 5, 4, 4}, 3, 2, 1, 1, 1, 4 * 3 * 3 * 3, 1);
  check_window_op(TIGRIS_OP_CONV, {1, 11, 10, 2}, {1, 7, 6, 3}, 3, 1, 2, 0, 0, 3 * 3 * 3 * 2, 2);
  check_window_op(TIGRIS_OP_CONV1D, {1, 13, 4}, {1, 7, 5}, 3, 2, 1, 1, 1, 5 * 3 * 4, 3);
}

TEST(S8Banded, DepthwiseAndPools) {
  check_window_op(TIGRIS_OP_DEPTHWISE, {1, 10, 9, 4}, {1, 5, 5, 4}, 3, 2, 1, 1, 1, 3 * 3 * 4, 4);
  check_window_op(TIGRIS_OP_AVG_POOL, {1, 9, 9, 3}, {1, 5, 5, 3}, 3, 2, 1, 1, 1, 0, 5);
  check_window_op(TIGRIS_OP_MAX_POOL, {2, 8, 8, 2}, {2, 4, 4, 2}, 2, 2, 1, 0, 0, 0, 6);
}

namespace {

// A pointwise op: `make` adds the op to f given the output tensor; whole vs row bands.
void check_pointwise(PlanFixture& f, uint16_t op, const std::vector<uint16_t>& ins, const std::vector<Bytes>& xs,
                     uint16_t out) {
  const size_t out_n = f.plan()->tensors[out].size_bytes;
  const Bytes whole = run_whole(f, op, ins, xs, out, out_n);
  for (const BandOptions& b : {BandOptions{1, 0, 0, 0}, BandOptions{2, 0, 2, 1}, BandOptions{3, 0, 0, 3}}) {
    Bytes y;
    ASSERT_TRUE(run_pointwise_banded(f, op, ins, xs, out, b, &y)) << "op type " << (int)f.plan()->ops[op].op_type;
    EXPECT_EQ(y, whole) << "op type " << (int)f.plan()->ops[op].op_type << " band " << b.band_h;
  }
}

}  // namespace

TEST(S8Banded, BinaryWithBandedBroadcastAndConstantOperands) {
  for (uint8_t type : {TIGRIS_OP_ADD, TIGRIS_OP_SUB, TIGRIS_OP_MUL, TIGRIS_OP_MAXIMUM}) {
    // Tensor operand broadcast along rows ([1,1,5,3]) and a full banded one.
    PlanFixture f;
    const uint16_t a = f.tensor({2, 7, 5, 3}, TIGRIS_DTYPE_INT8, f.quant(0.1f, 4));
    const uint16_t b = f.tensor({1, 1, 5, 3}, TIGRIS_DTYPE_INT8, f.quant(0.07f, -9));
    const uint16_t y = f.tensor({2, 7, 5, 3}, TIGRIS_DTYPE_INT8, f.quant(0.12f, 2));
    const uint16_t op = f.op(type, {a, b}, {y});
    f.finalize();
    check_pointwise(f, op, {a, b}, {random_bytes(210, 11), random_bytes(15, 12)}, y);
  }
  // A full-size constant read at the band's global rows (out_row0).
  PlanFixture f;
  const uint16_t qc = f.quant(0.2f, 1);
  const uint16_t a = f.tensor({1, 6, 4, 2}, TIGRIS_DTYPE_INT8, f.quant(0.1f, 0));
  const uint16_t y = f.tensor({1, 6, 4, 2}, TIGRIS_DTYPE_INT8, f.quant(0.15f, -1));
  const uint16_t op = f.op(TIGRIS_OP_ADD, {a}, {y});
  f.op_record(op).weight_idx = f.weight_i8(random_bytes(48, 13));
  f.attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, {0, 0, (uint8_t)qc, (uint8_t)(qc >> 8)});
  f.finalize();
  check_pointwise(f, op, {a}, {random_bytes(48, 14)}, y);
}

TEST(S8Banded, UnaryActivationsSoftmaxCastConcatMean) {
  for (uint8_t type :
       {TIGRIS_OP_RELU, TIGRIS_OP_SIGMOID, TIGRIS_OP_TANH, TIGRIS_OP_HARDSWISH, TIGRIS_OP_SOFTMAX, TIGRIS_OP_CAST}) {
    PlanFixture f;
    const uint16_t x = f.tensor({2, 5, 3, 4}, TIGRIS_DTYPE_INT8, f.quant(0.08f, 3));
    const float sy = type == TIGRIS_OP_SOFTMAX || type == TIGRIS_OP_SIGMOID ? 1.0f / 256 : 0.05f;
    const uint16_t y = f.tensor({2, 5, 3, 4}, TIGRIS_DTYPE_INT8, f.quant(sy, type == TIGRIS_OP_SOFTMAX ? -128 : -2));
    const uint16_t op = f.op(type, {x}, {y});
    f.finalize();
    check_pointwise(f, op, {x}, {random_bytes(120, 20 + type)}, y);
  }
  {  // concat on channels
    PlanFixture f;
    const uint16_t a = f.tensor({1, 6, 2, 3}, TIGRIS_DTYPE_INT8, f.quant(0.1f, 0));
    const uint16_t b = f.tensor({1, 6, 2, 2}, TIGRIS_DTYPE_INT8, f.quant(0.3f, 5));
    const uint16_t y = f.tensor({1, 6, 2, 5}, TIGRIS_DTYPE_INT8, f.quant(0.1f, 0));
    const uint16_t op = f.op(TIGRIS_OP_CONCAT, {a, b}, {y});
    f.finalize();
    check_pointwise(f, op, {a, b}, {random_bytes(36, 31), random_bytes(24, 32)}, y);
  }
  {  // mean over the channels, rows banded
    PlanFixture f;
    const uint16_t a = f.tensor({1, 6, 2, 5}, TIGRIS_DTYPE_INT8, f.quant(0.1f, 2));
    const uint16_t y = f.tensor({1, 6, 2, 1}, TIGRIS_DTYPE_INT8, f.quant(0.05f, -4));
    const uint16_t op = f.op(TIGRIS_OP_REDUCE_MEAN, {a}, {y});
    f.attr(op, TIGRIS_ATTR_AXES, {3});
    f.finalize();
    check_pointwise(f, op, {a}, {random_bytes(60, 33)}, y);
  }
}

TEST(S8Banded, FullyConnectedRowTiled) {
  PlanFixture f;
  const uint16_t x = f.tensor({7, 6}, TIGRIS_DTYPE_INT8, f.quant(0.1f, 3));
  const uint16_t y = f.tensor({7, 4}, TIGRIS_DTYPE_INT8, f.conv_quant(0.1f, {0.01f, 0.02f, 0.03f, 0.04f}, 0.2f, -5));
  const uint16_t op = f.op(TIGRIS_OP_FULLY_CONN, {x}, {y});
  f.op_record(op).weight_idx = f.weight_i8(random_bytes(24, 40));
  f.finalize();
  check_pointwise(f, op, {x}, {random_bytes(42, 41)}, y);
}

TEST(S8Banded, GlobalReductionsByInput) {
  for (uint8_t type : {TIGRIS_OP_GLOBAL_AVG, TIGRIS_OP_GLOBAL_MAX}) {
    PlanFixture f;
    const uint16_t x = f.tensor({2, 7, 3, 4}, TIGRIS_DTYPE_INT8, f.quant(0.1f, 3));
    const uint16_t y = f.tensor({2, 1, 1, 4}, TIGRIS_DTYPE_INT8, f.quant(0.07f, -1));
    const uint16_t op = f.op(type, {x}, {y});
    f.finalize();
    const Bytes in = random_bytes(168, 50 + type);
    const Bytes whole = run_whole(f, op, {x}, {in}, y, 8);
    for (int32_t band : {1, 2, 3, 7}) {
      Bytes yb;
      ASSERT_TRUE(run_reduce_banded(f, op, x, in, y, band, &yb));
      EXPECT_EQ(yb, whole) << "type " << (int)type << " band " << band;
    }
  }
}

// Resize bands: output rows [o0, o1) from an input window of generous rows [w0, w1).
TEST(S8Banded, ResizeRowBands) {
  for (uint8_t type : {TIGRIS_OP_RESIZE, TIGRIS_OP_RESIZE_LINEAR}) {
    PlanFixture f;
    const uint16_t q = f.quant(0.1f, 0);
    const uint16_t x = f.tensor({1, 5, 3, 2}, TIGRIS_DTYPE_INT8, q);
    const uint16_t y = f.tensor({1, 10, 6, 2}, TIGRIS_DTYPE_INT8, q);
    const uint16_t op = f.op(type, {x}, {y});
    f.op_record(op).spatial.stride_h = f.op_record(op).spatial.stride_w = 2;
    if (type == TIGRIS_OP_RESIZE_LINEAR) {
      std::vector<uint8_t> a(12, 0);
      const float s[2] = {2.0f, 2.0f};
      std::memcpy(a.data(), s, 8);
      a[8] = 1;  // half_pixel
      f.attr(op, TIGRIS_ATTR_RESIZE_SCALES, a);
    }
    f.finalize();
    const Bytes in = random_bytes(30, 60 + type);
    const Bytes whole = run_whole(f, op, {x}, {in}, y, 120);
    Bytes banded(120, 0);
    for (int32_t o0 = 0; o0 < 10; o0 += 3) {
      const int32_t o1 = std::min(o0 + 3, 10), w0 = std::max(0, o0 / 2 - 1), w1 = std::min(5, (o1 - 1) / 2 + 2);
      const int32_t in_start = 2, out_start = 1;
      Bytes ib((size_t)(in_start + w1 - w0) * 6, 0x5A), ob((size_t)(out_start + o1 - o0) * 12, 0x5A);
      std::memcpy(ib.data() + in_start * 6, in.data() + w0 * 6, (size_t)(w1 - w0) * 6);
      tigris_tile_ctx_t t{};
      t.active = 1;
      t.out_h = o1 - o0;
      t.in_h = w1 - w0;
      t.out_row0 = o0;
      t.in_row0 = w0;
      t.in_row_start = in_start;
      t.out_row_start = out_start;
      t.in_w = 3;
      t.out_w = 6;
      f.bind(x, ib.data());
      f.bind(y, ob.data());
      ASSERT_EQ(f.run(op, t), 0);
      std::memcpy(banded.data() + o0 * 12, ob.data() + out_start * 12, (size_t)(o1 - o0) * 12);
    }
    EXPECT_EQ(banded, whole) << "type " << (int)type;
  }
}

// Transpose [1, R, C] -> [1, C, R] in bands of input rows (a packed [rows, C] block
// becomes [C, rows]); reshape copies in t_block units.
TEST(S8Banded, TransposeTilesAndReshapeBands) {
  PlanFixture f;
  const uint16_t q = f.quant(0.1f, 0);
  const uint16_t x = f.tensor({1, 6, 4}, TIGRIS_DTYPE_INT8, q);
  const uint16_t y = f.tensor({1, 4, 6}, TIGRIS_DTYPE_INT8, q);
  const uint16_t r = f.tensor({2, 12}, TIGRIS_DTYPE_INT8, q);
  const uint16_t tr = f.op(TIGRIS_OP_TRANSPOSE, {x}, {y});
  const uint16_t rs = f.op(TIGRIS_OP_RESHAPE, {x}, {r});
  f.attr(tr, TIGRIS_ATTR_TRANSPOSE_PERM, {0, 2, 1});
  f.finalize();
  const Bytes in = random_bytes(24, 70);
  const Bytes whole = run_whole(f, tr, {x}, {in}, y, 24);
  Bytes banded(24, 0);
  for (int32_t r0 = 0; r0 < 6; r0 += 4) {
    const int32_t rows = std::min(4, 6 - r0);
    Bytes ib(in.begin() + r0 * 4, in.begin() + (r0 + rows) * 4), ob((size_t)rows * 4);
    tigris_tile_ctx_t t{};
    t.active = 1;
    t.transposed_tile = 1;
    t.t_outer = 1;
    t.t_rows = rows;
    t.t_cols = 4;
    t.t_block = 1;
    f.bind(x, ib.data());
    f.bind(y, ob.data());
    ASSERT_EQ(f.run(tr, t), 0);
    for (int32_t c = 0; c < 4; c++)
      for (int32_t i = 0; i < rows; i++) banded[c * 6 + r0 + i] = ob[c * rows + i];
  }
  EXPECT_EQ(banded, whole);

  Bytes reshaped(24, 0), src = in;
  for (int32_t b0 = 0; b0 < 24; b0 += 5) {
    tigris_tile_ctx_t t{};
    t.active = 1;
    t.out_h = std::min(5, 24 - b0);
    t.t_block = 1;
    t.in_row_start = b0;
    t.out_row_start = b0;
    f.bind(x, src.data());
    f.bind(r, reshaped.data());
    ASSERT_EQ(f.run(rs, t), 0);
  }
  EXPECT_EQ(reshaped, in);
}
