// FULLY_CONNECTED, pools and elementwise ops through each adapter against the int8 reference
// kernels, byte for byte, with the route each must take (docs/backends.md §2): FC per-tensor,
// per-channel, row bands; AVG_POOL at borders, full map, count_include_pad, quantization
// change, tiled; GLOBAL_AVG (CMSIS-NN, AVERAGE_POOL rounding only); MUL whole, banded,
// broadcast, constant, BINARY_REQUANT; MAXIMUM / MINIMUM (CMSIS-NN); ADD (CMSIS-NN: whole,
// stripe band, BINARY_REQUANT, saturating activations; broadcast, constant, positive shifts
// fall back); SOFTMAX stays with the reference kernels.
#include "op_cases.h"

using namespace backtest;

namespace {

size_t elements(const std::vector<int32_t>& s) {
  size_t n = 1;
  for (int32_t d : s) n *= (size_t)d;
  return n;
}

void check(const OpPlan& p, Route route, const std::string& what, const tigris_tile_ctx_t& tile = {},
           const std::vector<Bytes>* bufs = nullptr) {
  for (const Backend& b : backends()) {
    const Compared r = compare_op(p.plan, p.op, bufs ? *bufs : p.bufs, b, tile);
    expect_identical(r, native_for(route, b), std::string(b.name) + " " + what);
  }
}

// FULLY_CONNECTED [rows, in_c] -> [rows, out_c].
OpPlan fc_plan(int32_t rows, int32_t in_c, int32_t out_c, bool per_channel, bool bias) {
  OpPlan p;
  s8test::PlanFixture& f = *p.f;
  std::vector<float> ws = {0.015f};
  if (per_channel) {
    ws.clear();
    for (int32_t i = 0; i < out_c; i++) ws.push_back(0.002f * (float)(1 + i % 9) + (i % 4 == 3 ? 1.5f : 0.0f));
  }
  const uint16_t x = f.tensor({rows, in_c}, TIGRIS_DTYPE_INT8, f.quant(0.04f, -7));
  const uint16_t y = f.tensor({rows, out_c}, TIGRIS_DTYPE_INT8, f.conv_quant(0.04f, ws, 0.08f, 9, true));
  p.op = f.op(TIGRIS_OP_FULLY_CONN, {x}, {y});
  f.op_record(p.op).weight_idx = f.weight_i8(bytes((size_t)in_c * out_c, 5, -127, 127));
  if (bias) {
    std::vector<int32_t> b((size_t)out_c);
    for (int32_t i = 0; i < out_c; i++) b[(size_t)i] = (i * 7919) % 6000 - 3000;
    f.op_record(p.op).bias_idx = f.weight_i32(b);
  }
  p.plan = f.finalize();
  p.bufs = {bytes((size_t)rows * in_c, 3), Bytes((size_t)rows * out_c, 0x55)};
  p.out_shape = {rows, out_c};
  return p;
}

// A pool of `type` over in (NHWC) with the given window; POOL_ROUNDING flags when nonzero.
OpPlan pool_plan(uint8_t type, std::vector<int32_t> in, tigris_spatial_t sp, uint8_t flags, float out_scale = 0.05f) {
  OpPlan p;
  s8test::PlanFixture& f = *p.f;
  std::vector<int32_t> out = in;
  if (type == TIGRIS_OP_GLOBAL_AVG) {
    out[1] = 1;
    if (out.size() == 4) out[2] = 1;
  } else {
    out[1] = window_out(in[1], sp.kernel_h, sp.stride_h, 1, sp.pad_top, sp.pad_bottom);
    out[2] = window_out(in[2], sp.kernel_w, sp.stride_w, 1, sp.pad_left, sp.pad_right);
  }
  const uint16_t x = f.tensor(in, TIGRIS_DTYPE_INT8, f.quant(0.05f, 4));
  const uint16_t y = f.tensor(out, TIGRIS_DTYPE_INT8, f.quant(out_scale, 4));
  p.op = f.op(type, {x}, {y});
  f.op_record(p.op).spatial = sp;
  f.op_record(p.op).act_min = -100;
  f.op_record(p.op).act_max = 120;
  if (flags) f.attr(p.op, TIGRIS_ATTR_POOL_ROUNDING, {flags});
  p.plan = f.finalize();
  p.bufs = {bytes(elements(in), 8), Bytes(elements(out), 0x55)};
  p.out_shape = out;
  return p;
}

tigris_spatial_t window(uint8_t k, uint8_t s, uint16_t pt, uint16_t pb, uint16_t pl, uint16_t pr) {
  tigris_spatial_t sp{};
  sp.kernel_h = sp.kernel_w = k;
  sp.stride_h = sp.stride_w = s;
  sp.pad_top = pt, sp.pad_bottom = pb, sp.pad_left = pl, sp.pad_right = pr;
  return sp;
}

// A binary op a (shape_a) op b (shape_b) -> out; b may be a constant (weight).
struct BinaryCase {
  uint8_t type = TIGRIS_OP_MUL;
  std::vector<int32_t> a, b;
  bool b_constant = false, requant_attr = false;
  std::vector<int32_t> requant = {0, 0, 0, 0, 1518500250, -6};  // BINARY_REQUANT when requant_attr
  int32_t act_min = -110, act_max = 100;
  bool a_conv_output = false;  // a's quant param carries per-channel factors (a convolution wrote it)
  float sa = 0.03f, sb = 0.02f, sy = 0.011f;
  int32_t za = 5, zb = -3, zy = 2;
};

// The stripe band `t` of a [2, 6, 4, 3] binary op narrowed to the 2-D tile of columns [1, 3):
// band buffers two columns wide (the buffers sized for the stripe are larger, which is fine).
const tigris_tile_ctx_t& two_d_tile(tigris_tile_ctx_t* t) {
  t->width_tiled = 1, t->in_w = t->out_w = 2, t->in_col0 = t->out_col0 = 1;
  return *t;
}

OpPlan binary_plan(const BinaryCase& c) {
  OpPlan p;
  s8test::PlanFixture& f = *p.f;
  std::vector<float> w_scales((size_t)c.a.back());
  for (size_t i = 0; i < w_scales.size(); i++) w_scales[i] = 0.01f + 0.003f * (float)i;
  const uint16_t qa = c.a_conv_output ? f.conv_quant(0.05f, w_scales, c.sa, c.za) : f.quant(c.sa, c.za);
  const uint16_t a = f.tensor(c.a, TIGRIS_DTYPE_INT8, qa);
  uint16_t b = TIGRIS_NONE;
  if (!c.b_constant) b = f.tensor(c.b, TIGRIS_DTYPE_INT8, f.quant(c.sb, c.zb));
  const uint16_t y = f.tensor(c.a, TIGRIS_DTYPE_INT8, f.quant(c.sy, c.zy));
  if (c.b_constant) {
    p.op = f.op(c.type, {a}, {y});
    f.op_record(p.op).weight_idx = f.weight_i8(bytes(elements(c.b), 17));
    const uint16_t qb = f.quant(c.sb, c.zb);
    std::vector<uint8_t> attr = {1, (uint8_t)c.b.size(), (uint8_t)(qb & 0xFF), (uint8_t)(qb >> 8)};
    for (int32_t d : c.b)
      for (int k = 0; k < 4; k++) attr.push_back((uint8_t)((uint32_t)d >> (8 * k)));
    f.attr(p.op, TIGRIS_ATTR_CONSTANT_OPERAND, attr);
  } else {
    p.op = f.op(c.type, {a, b}, {y});
  }
  f.op_record(p.op).act_min = c.act_min;
  f.op_record(p.op).act_max = c.act_max;
  if (c.requant_attr) f.attr_i32(p.op, TIGRIS_ATTR_BINARY_REQUANT, c.requant);
  p.plan = f.finalize();
  p.bufs.resize(c.b_constant ? 2 : 3);
  p.bufs[a] = bytes(elements(c.a), 21);
  if (!c.b_constant) p.bufs[b] = bytes(elements(c.b), 22);
  p.bufs[y] = Bytes(elements(c.a), 0x55);
  p.out_shape = c.a;
  return p;
}

}  // namespace

TEST(FullyConnected, PerTensorOneRow) {
  BACKENDS_OR_SKIP();
  check(fc_plan(1, 37, 10, false, true), kNativeBoth, "fc per-tensor");
}

TEST(FullyConnected, PerChannelRowsNoBias) {
  BACKENDS_OR_SKIP();
  check(fc_plan(3, 300, 17, true, false), kNativeBoth, "fc per-channel 3 rows");
}

TEST(FullyConnected, RowBand) {
  BACKENDS_OR_SKIP();
  const OpPlan p = fc_plan(5, 24, 6, true, true);
  // Rows [1, 4) of the output: input band buffer with 2 junk rows, output with 1.
  tigris_tile_ctx_t t{};
  t.active = 1, t.row_tiled = 1, t.out_h = 3, t.in_h = 3, t.in_row_start = 2, t.out_row_start = 1;
  t.in_row0 = t.out_row0 = 1;
  Bytes in = bytes((size_t)5 * 24, 77);
  for (size_t i = 0; i < (size_t)3 * 24; i++) in[2 * 24 + i] = p.bufs[0][1 * 24 + i];
  const std::vector<Bytes> bufs = {in, Bytes((size_t)4 * 6, 0x55)};
  check(p, kNativeBoth, "fc row band", t, &bufs);
}

TEST(FullyConnected, TiledWithoutRowBandFallsBack) {
  BACKENDS_OR_SKIP();
  const OpPlan p = fc_plan(2, 8, 4, false, true);
  for (const Backend& b : backends()) {
    tigris_tile_ctx_t t{};
    t.active = 1, t.out_h = 1, t.in_h = 1;
    const Compared r = compare_op(p.plan, p.op, p.bufs, b, t);
    EXPECT_EQ(r.rc_ref, -1) << b.name;  // the reference refuses it too
    EXPECT_EQ(r.rc_acc, -1) << b.name;
    EXPECT_EQ(r.native, 0u) << b.name;
  }
}

// An output-channel band (chan_tiled + chan_mix + row_tiled): columns [chan0, chan0 + chans)
// of rows [1, 4) (or of every row), packed, from every input column. CMSIS-NN runs it
// on the band's contiguous weight rows, bias and factors (ESP-NN falls back) at band widths
// 1, 2, 3, 7 and the whole layer, and the band equals those columns of the whole run.
TEST(FullyConnected, OutputChannelBandRunsInCmsisNn) {
  BACKENDS_OR_SKIP();
  constexpr int32_t kOutC = 11, kInC = 24;
  for (bool per_channel : {true, false}) {
    const OpPlan p = fc_plan(5, kInC, kOutC, per_channel, true);
    for (bool row_band : {true, false}) {
      const int32_t row0 = row_band ? 1 : 0, rows = row_band ? 3 : 5;
      for (int32_t chans : {1, 2, 3, 7, kOutC}) {
        for (int32_t chan0 : {0, kOutC - chans, (kOutC - chans) / 2}) {
          tigris_tile_ctx_t t{};
          t.active = 1, t.row_tiled = 1, t.out_h = rows, t.in_h = rows;
          t.in_row0 = t.out_row0 = row0;
          t.chan_tiled = 1, t.chan_mix = 1, t.chan0 = chan0, t.chans = chans;
          const Bytes in(p.bufs[0].begin() + row0 * kInC, p.bufs[0].begin() + (row0 + rows) * kInC);
          const std::vector<Bytes> bufs = {in, Bytes((size_t)rows * chans, 0x55)};
          for (const Backend& b : backends()) {
            const std::string name = std::string(b.name) + (per_channel ? " per-channel" : " per-tensor") +
                                     (row_band ? " rows 1-3" : " all rows") + " fc output-channel band " + std::to_string(chan0) +
                                     "+" + std::to_string(chans);
            const Compared whole = compare_op(p.plan, p.op, p.bufs, b);
            const Compared r = compare_op(p.plan, p.op, bufs, b, t);
            expect_identical(r, b.cmsis, name);
            ASSERT_EQ(r.acc.size(), 1u);
            for (int32_t row = 0; row < rows; ++row)
              for (int32_t k = 0; k < chans; ++k)
                ASSERT_EQ(r.acc[0][(size_t)(row * chans + k)],
                          whole.ref[0][(size_t)((row0 + row) * kOutC + chan0 + k)])
                    << name;
          }
        }
      }
    }
  }
}

// An int8 input-channel band (chan_tiled + chan_partial: partial sums over input columns into
// the int32 accumulator at reduce_acc) is the reference kernel's: neither adapter runs it
// natively, both fall back and give the reference's bytes. Without an accumulator the
// reference refuses it.
TEST(FullyConnected, InputChannelBandFallsBack) {
  BACKENDS_OR_SKIP();
  const OpPlan p = fc_plan(2, 8, 4, true, true);
  std::vector<int32_t> acc(2 * 4, 0);
  for (const Backend& b : backends()) {
    tigris_tile_ctx_t t{};
    t.active = 1, t.row_tiled = 1, t.out_h = t.in_h = 2;
    t.chan_tiled = 1, t.chan_partial = 1, t.chan0 = 2, t.chans = 3;
    t.reduce_first = 1, t.reduce_last = 1;
    t.reduce_acc = acc.data();
    const Compared r = compare_op(p.plan, p.op, p.bufs, b, t);
    EXPECT_EQ(r.rc_ref, 0) << b.name;
    EXPECT_EQ(r.rc_acc, 0) << b.name;
    EXPECT_EQ(r.native, 0u) << b.name;
    for (size_t i = 0; i < r.ref.size() && i < r.acc.size(); i++) EXPECT_TRUE(r.ref[i] == r.acc[i]) << b.name;
    t.reduce_acc = nullptr;
    const Compared none = compare_op(p.plan, p.op, p.bufs, b, t);
    EXPECT_EQ(none.rc_ref, -1) << b.name;
    EXPECT_EQ(none.native, 0u) << b.name;
  }
}

TEST(AvgPool, PaddedBordersStrideTwo) {
  BACKENDS_OR_SKIP();
  check(pool_plan(TIGRIS_OP_AVG_POOL, {2, 9, 8, 5}, window(3, 2, 1, 1, 1, 1), 0), kNativeBoth, "avg 3x3 s2 pad 1");
}

TEST(AvgPool, WholeMap) {
  BACKENDS_OR_SKIP();
  check(pool_plan(TIGRIS_OP_AVG_POOL, {1, 6, 6, 12}, window(6, 1, 0, 0, 0, 0), 0), kNativeBoth, "avg whole map");
}

TEST(AvgPool, CountIncludePad) {
  BACKENDS_OR_SKIP();
  check(pool_plan(TIGRIS_OP_AVG_POOL, {1, 7, 7, 3}, window(3, 2, 1, 1, 1, 1), 0x2), kFallbackBoth,
        "count_include_pad, padded");
  check(pool_plan(TIGRIS_OP_AVG_POOL, {1, 7, 7, 3}, window(3, 2, 0, 0, 0, 0), 0x2), kNativeBoth,
        "count_include_pad, unpadded");
}

TEST(AvgPool, QuantizationChangeFallsBack) {
  BACKENDS_OR_SKIP();
  check(pool_plan(TIGRIS_OP_AVG_POOL, {1, 6, 6, 4}, window(2, 2, 0, 0, 0, 0), 0, 0.07f), kFallbackBoth,
        "avg requantizing");
}

TEST(AvgPool, TiledFallsBack) {
  BACKENDS_OR_SKIP();
  const OpPlan p = pool_plan(TIGRIS_OP_AVG_POOL, {1, 8, 6, 4}, window(2, 2, 0, 0, 0, 0), 0);
  tigris_tile_ctx_t t{};
  t.active = 1, t.in_h = 4, t.out_h = 2;
  check(p, kFallbackBoth, "avg banded", t);
}

TEST(AvgPool, LargeWindowIsCmsisOnly) {
  BACKENDS_OR_SKIP();
  check(pool_plan(TIGRIS_OP_AVG_POOL, {1, 17, 17, 4}, window(17, 1, 0, 0, 0, 0), 0), kCmsisOnly,
        "289-tap window (esp-nn's ESP32-S3 pools sum in int16)");
}

TEST(GlobalAvg, AveragePoolRoundingIsCmsisOnly) {
  BACKENDS_OR_SKIP();
  check(pool_plan(TIGRIS_OP_GLOBAL_AVG, {2, 5, 7, 6}, tigris_spatial_t{}, 0x1), kCmsisOnly, "global avg bit0");
  check(pool_plan(TIGRIS_OP_GLOBAL_AVG, {1, 9, 5}, tigris_spatial_t{}, 0x1), kCmsisOnly, "global avg rank 3");
}

TEST(GlobalAvg, MeanRoundingFallsBack) {
  BACKENDS_OR_SKIP();
  check(pool_plan(TIGRIS_OP_GLOBAL_AVG, {1, 5, 7, 6}, tigris_spatial_t{}, 0), kFallbackBoth, "global avg (MEAN)");
}

TEST(Mul, SameShapes) {
  BACKENDS_OR_SKIP();
  BinaryCase c;
  c.a = c.b = {2, 5, 4, 7};
  check(binary_plan(c), kNativeBoth, "mul");
  c.requant_attr = true;
  check(binary_plan(c), kNativeBoth, "mul with BINARY_REQUANT");
  c.requant_attr = false;
  c.a_conv_output = true;
  check(binary_plan(c), kNativeBoth, "mul, operand with per-channel factors");
}

TEST(Mul, StripeBand) {
  BACKENDS_OR_SKIP();
  BinaryCase c;
  c.a = c.b = {2, 6, 4, 3};
  const OpPlan p = binary_plan(c);
  // Rows [2, 5) of each image: inputs with 1 junk row before, output with 2.
  tigris_tile_ctx_t t{};
  t.active = 1, t.out_h = 3, t.in_h = 3, t.in_row_start = 1, t.out_row_start = 2, t.in_row0 = t.out_row0 = 2;
  const size_t row = (size_t)4 * 3;
  std::vector<Bytes> bufs = {bytes(2 * 4 * row, 31), bytes(2 * 4 * row, 32), Bytes(2 * 5 * row, 0x55)};
  check(p, kNativeBoth, "mul stripe", t, &bufs);
  check(p, kNativeBoth, "mul 2-D tile", two_d_tile(&t), &bufs);
  t.in_w = 3;  // an input buffer wider than the tile: not one run per image
  check(p, kFallbackBoth, "mul 2-D tile, wider input buffer", t, &bufs);
}

TEST(Mul, BroadcastAndConstantFallBack) {
  BACKENDS_OR_SKIP();
  BinaryCase c;
  c.a = {1, 4, 4, 8};
  c.b = {1, 1, 1, 8};
  check(binary_plan(c), kFallbackBoth, "mul broadcast");
  c.b = {1, 4, 4, 8};
  c.b_constant = true;
  check(binary_plan(c), kFallbackBoth, "mul constant");
}

TEST(MaxMin, SameQuantizationIsCmsisOnly) {
  BACKENDS_OR_SKIP();
  BinaryCase c;
  c.a = c.b = {1, 3, 5, 6};
  c.sa = c.sb = c.sy = 0.02f;
  c.za = c.zb = c.zy = -4;
  c.type = TIGRIS_OP_MAXIMUM;
  check(binary_plan(c), kCmsisOnly, "maximum");
  c.type = TIGRIS_OP_MINIMUM;
  check(binary_plan(c), kCmsisOnly, "minimum");
  c.zb = 3;
  check(binary_plan(c), kFallbackBoth, "minimum, operand quantization differs");
}

TEST(Add, SameShapesIsCmsisOnly) {
  BACKENDS_OR_SKIP();
  BinaryCase c;
  c.type = TIGRIS_OP_ADD;
  c.a = c.b = {2, 5, 4, 7};  // 140 elements per image: the DSP path's 4-wide loop and its tail
  check(binary_plan(c), kCmsisOnly, "add");
  // Operand scales far apart (one multiplier near 1, the other tiny), extreme zero points and
  // an output scale small enough that most sums saturate at the activation bounds.
  c.sa = 0.5f, c.sb = 0.0007f, c.sy = 0.004f, c.za = -128, c.zb = 127, c.zy = -60;
  check(binary_plan(c), kCmsisOnly, "add, scales far apart");
  c.sa = c.sb = 0.02f, c.sy = 0.04f, c.za = c.zb = 0, c.zy = 0;
  check(binary_plan(c), kCmsisOnly, "add, equal scales");
  c.a = c.b = {1, 1, 1, 3};
  check(binary_plan(c), kCmsisOnly, "add, 3 elements");
  c.a = c.b = {1, 4, 4, 6};
  c.a_conv_output = true;  // resnet8's residual ADDs: operands are per-channel convolutions' outputs
  check(binary_plan(c), kCmsisOnly, "add, operand with per-channel factors");
}

TEST(Add, BinaryRequantFactors) {
  BACKENDS_OR_SKIP();
  BinaryCase c;
  c.type = TIGRIS_OP_ADD;
  c.a = c.b = {1, 3, 6, 5};
  c.act_min = -128, c.act_max = 127;
  // The attribute's three pairs replace the factors the scales would give.
  c.requant_attr = true;
  c.requant = {1431655765, -1, 1288490189, -3, 1717986918, -17};
  check(binary_plan(c), kCmsisOnly, "add with BINARY_REQUANT");
  c.requant = {0, 0, 0, 0, 1518500250, -6};  // operand multipliers 0: every sum is 0
  check(binary_plan(c), kCmsisOnly, "add, zero operand factors");
  c.requant = {1431655765, 1, 1288490189, -3, 1717986918, -17};  // a left shift: reference only
  check(binary_plan(c), kFallbackBoth, "add, positive operand shift");
  c.requant = {1431655765, -1, 1288490189, -3, INT32_MIN, -17};
  check(binary_plan(c), kFallbackBoth, "add, INT32_MIN multiplier");
}

TEST(Add, StripeBandIsCmsisOnly) {
  BACKENDS_OR_SKIP();
  BinaryCase c;
  c.type = TIGRIS_OP_ADD;
  c.a = c.b = {2, 6, 4, 3};
  const OpPlan p = binary_plan(c);
  // Rows [2, 5) of each image: inputs with 1 junk row before, output with 2.
  tigris_tile_ctx_t t{};
  t.active = 1, t.out_h = 3, t.in_h = 3, t.in_row_start = 1, t.out_row_start = 2, t.in_row0 = t.out_row0 = 2;
  const size_t row = (size_t)4 * 3;
  std::vector<Bytes> bufs = {bytes(2 * 4 * row, 51), bytes(2 * 4 * row, 52), Bytes(2 * 5 * row, 0x55)};
  check(p, kCmsisOnly, "add stripe", t, &bufs);
  check(p, kCmsisOnly, "add 2-D tile", two_d_tile(&t), &bufs);
  t.in_w = 3;
  check(p, kFallbackBoth, "add 2-D tile, wider input buffer", t, &bufs);
  // A channel band (channels [1, 3) of every row, packed) is not a run of whole rows.
  tigris_tile_ctx_t ch{};
  ch.active = 1, ch.chan_tiled = 1, ch.chan0 = 1, ch.chans = 2, ch.out_h = ch.in_h = 6;
  const std::vector<Bytes> packed = {bytes(2 * 6 * 4 * 2, 53), bytes(2 * 6 * 4 * 2, 54), Bytes(2 * 6 * 4 * 2, 0x55)};
  check(p, kFallbackBoth, "add channel band", ch, &packed);
}

TEST(Add, BroadcastAndConstantFallBack) {
  BACKENDS_OR_SKIP();
  BinaryCase c;
  c.type = TIGRIS_OP_ADD;
  c.a = {1, 4, 4, 8};
  c.b = {1, 1, 1, 8};
  check(binary_plan(c), kFallbackBoth, "add broadcast");
  c.b = {1, 4, 4, 8};
  c.b_constant = true;
  check(binary_plan(c), kFallbackBoth, "add constant");
}

TEST(Softmax, StaysWithTheReference) {
  BACKENDS_OR_SKIP();
  OpPlan p;
  s8test::PlanFixture& f = *p.f;
  const uint16_t x = f.tensor({2, 10}, TIGRIS_DTYPE_INT8, f.quant(0.1f, 3));
  const uint16_t y = f.tensor({2, 10}, TIGRIS_DTYPE_INT8, f.quant(1.0f / 256.0f, -128));
  p.op = f.op(TIGRIS_OP_SOFTMAX, {x}, {y});
  p.plan = f.finalize();
  p.bufs = {bytes(20, 4), Bytes(20, 0x55)};
  check(p, kFallbackBoth, "softmax");
}
