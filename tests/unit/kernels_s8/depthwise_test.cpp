// DEPTHWISE of channel multiplier 1 (the blocked path of kernels/s8/s8_depthwise.cpp) against
// TFLite's reference formula written out plainly below: for every output (n, y, x, c)
//   acc = bias[c] + sum over taps inside the input of w[ky][kx][c] * (x - in_zp)
//   y   = clamp(MultiplyByQuantizedMultiplier(acc, m[c], shift[c]) + out_zp, act_min, act_max)
// over shapes that reach every branch of the blocked path: channel counts that leave 2- and
// 1-channel blocks, 3x3 windows (unrolled interior) and others, strides, dilations, asymmetric
// padding, windows larger than the input, per-tensor and per-channel factors with left shifts,
// with and without bias; and channel bands (chan_tiled) that read the global channels' weights.
#include <gtest/gtest.h>

#include <random>

#include "kernels/s8/s8_fixed_point.h"
#include "s8_fixture.h"

using namespace s8test;

namespace {

struct DwCase {
  int32_t n, h, w, c, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr;
  bool per_channel, with_bias;
};

int32_t out_extent(int32_t in, int32_t k, int32_t s, int32_t d, int32_t p0, int32_t p1) {
  return (in + p0 + p1 - ((k - 1) * d + 1)) / s + 1;
}

struct DwData {
  Bytes x, w;
  std::vector<int32_t> bias, mult, shift;
  int32_t in_zp, out_zp, act_min, act_max;
};

DwData make_data(const DwCase& k, std::mt19937& rng) {
  std::uniform_int_distribution<int> byte(-128, 127), zp(-128, 127), mult(1 << 29, (1 << 30) + (1 << 29)),
      shift(-12, 2), bias(-30000, 30000);
  DwData d;
  d.x.resize((size_t)k.n * k.h * k.w * k.c);
  for (auto& v : d.x) v = (int8_t)byte(rng);
  d.w.resize((size_t)k.kh * k.kw * k.c);
  for (auto& v : d.w) v = (int8_t)byte(rng);
  const int32_t channels = k.per_channel ? k.c : 1;
  for (int32_t i = 0; i < channels; i++) {
    d.mult.push_back(mult(rng));
    d.shift.push_back(shift(rng));
  }
  if (k.with_bias)
    for (int32_t i = 0; i < k.c; i++) d.bias.push_back(bias(rng));
  d.in_zp = zp(rng);
  d.out_zp = zp(rng);
  d.act_min = -128 + (int32_t)(rng() % 20);
  d.act_max = 127 - (int32_t)(rng() % 20);
  return d;
}

// TFLite's reference depthwise (multiplier 1), output [n, oh, ow, c].
Bytes formula(const DwCase& k, const DwData& d) {
  const int32_t oh = out_extent(k.h, k.kh, k.sh, k.dh, k.pt, k.pb), ow = out_extent(k.w, k.kw, k.sw, k.dw, k.pl, k.pr);
  Bytes y((size_t)k.n * oh * ow * k.c);
  for (int32_t n = 0; n < k.n; n++)
    for (int32_t oy = 0; oy < oh; oy++)
      for (int32_t ox = 0; ox < ow; ox++)
        for (int32_t c = 0; c < k.c; c++) {
          int64_t acc = k.with_bias ? d.bias[c] : 0;
          for (int32_t ky = 0; ky < k.kh; ky++)
            for (int32_t kx = 0; kx < k.kw; kx++) {
              const int32_t iy = oy * k.sh - k.pt + ky * k.dh, ix = ox * k.sw - k.pl + kx * k.dw;
              if (iy < 0 || iy >= k.h || ix < 0 || ix >= k.w) continue;
              const int32_t xv = d.x[(((size_t)n * k.h + iy) * k.w + ix) * k.c + c];
              acc += (int64_t)d.w[((size_t)ky * k.kw + kx) * k.c + c] * (xv - d.in_zp);
            }
          const size_t q = k.per_channel ? (size_t)c : 0;
          int32_t v = tigris_s8::multiply_by_quantized_multiplier((int32_t)acc, d.mult[q], d.shift[q]) + d.out_zp;
          v = v < d.act_min ? d.act_min : (v > d.act_max ? d.act_max : v);
          y[(((size_t)n * oh + oy) * ow + ox) * k.c + c] = (int8_t)v;
        }
  return y;
}

void spatial(tigris_op_t& op, const DwCase& k) {
  op.spatial.kernel_h = (uint8_t)k.kh;
  op.spatial.kernel_w = (uint8_t)k.kw;
  op.spatial.stride_h = (uint8_t)k.sh;
  op.spatial.stride_w = (uint8_t)k.sw;
  op.spatial.dilation_h = (uint8_t)k.dh;
  op.spatial.dilation_w = (uint8_t)k.dw;
  op.spatial.pad_top = (uint16_t)k.pt;
  op.spatial.pad_bottom = (uint16_t)k.pb;
  op.spatial.pad_left = (uint16_t)k.pl;
  op.spatial.pad_right = (uint16_t)k.pr;
  op.spatial.group = 1;
}

// The op of case k on data d; `band` != 0: run channels [chan0, chan0 + chans) as a channel
// band (packed band buffers, weights/bias/factors of the global channels).
struct Built {
  PlanFixture f;
  uint16_t in = 0, out = 0, op = 0;
};

void build(const DwCase& k, const DwData& d, Built* b) {
  const int32_t oh = out_extent(k.h, k.kh, k.sh, k.dh, k.pt, k.pb), ow = out_extent(k.w, k.kw, k.sw, k.dw, k.pl, k.pr);
  PlanFixture& f = b->f;
  b->in = f.tensor({k.n, k.h, k.w, k.c}, TIGRIS_DTYPE_INT8, f.quant(0.5f, d.in_zp));
  b->out = f.tensor({k.n, oh, ow, k.c}, TIGRIS_DTYPE_INT8, f.quant_channels(0.25f, d.out_zp, d.mult, d.shift));
  b->op = f.op(TIGRIS_OP_DEPTHWISE, {b->in}, {b->out});
  tigris_op_t& o = f.op_record(b->op);
  spatial(o, k);
  o.weight_idx = f.weight_i8(d.w);
  if (k.with_bias) o.bias_idx = f.weight_i32(d.bias);
  o.act_min = (int8_t)d.act_min;
  o.act_max = (int8_t)d.act_max;
  f.finalize();
}

std::string describe(const DwCase& k) {
  char s[200];
  snprintf(s, sizeof s, "n%d %dx%dx%d k%dx%d s%d,%d d%d,%d pad %d,%d,%d,%d %s%s", k.n, k.h, k.w, k.c, k.kh, k.kw, k.sh,
           k.sw, k.dh, k.dw, k.pt, k.pb, k.pl, k.pr, k.per_channel ? "per-channel" : "per-tensor",
           k.with_bias ? " bias" : "");
  return s;
}

const DwCase kCases[] = {
    {1, 5, 5, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},    // DS-CNN / MobileNet s1
    {1, 6, 7, 12, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, true, true},   // MobileNet s2 (TF SAME)
    {1, 7, 6, 7, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, false, true},   // 4 + 2 + 1 channel blocks
    {2, 4, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, false},   // batch 2, 4 + 2, no bias
    {1, 3, 9, 5, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1, true, true},    // dilation on H
    {1, 7, 8, 4, 3, 3, 1, 1, 2, 2, 2, 2, 1, 1, true, true},    // dilation 2, shifted edge reads
    {1, 5, 5, 4, 3, 3, 1, 1, 2, 2, 1, 1, 1, 1, true, true},    // dilation 2, extent too short to shift
    {1, 3, 3, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},    // 3x3 map: every pixel shifted
    {1, 8, 3, 4, 5, 3, 1, 1, 1, 1, 2, 2, 1, 1, true, true},    // 5x3 window
    {1, 10, 1, 9, 5, 1, 2, 1, 1, 1, 2, 2, 0, 0, true, true},   // 5x1 over a column
    {1, 2, 2, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},    // every pixel an edge pixel
    {1, 1, 1, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, false, false},  // window larger than the input
    {1, 9, 9, 16, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, true, true},   // 5x5, 25 taps
    {1, 6, 6, 4, 2, 2, 2, 2, 1, 1, 0, 0, 0, 0, true, true},    // 2x2 stride 2, unpadded
    {1, 5, 8, 3, 1, 1, 1, 2, 1, 1, 0, 0, 0, 0, true, true},    // 1x1, column stride
    {1, 25, 5, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},  // kws_ref_model's layers
    {1, 12, 21, 20, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, true, true}, // runs of inner columns, s2
    {1, 9, 11, 8, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, true, false},  // unpadded: no edge pixel
    {1, 6, 10, 6, 3, 3, 1, 1, 1, 1, 2, 2, 2, 2, true, true},   // pad 2: two taps outside (clipped)
    {1, 11, 13, 5, 3, 3, 1, 1, 3, 3, 3, 3, 3, 3, true, true},  // dilation 3 with its padding
    {1, 8, 9, 3, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, false, true},   // 3 channels (2 + 1), column stride
    {2, 13, 20, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},  // 4 + 2: narrow rows in chunks
    {1, 15, 17, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, true},  // 4 + 1, stride 2, chunks
    {1, 5, 60, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},   // 3 channels, rows too wide for the copy
    {1, 9, 7, 2, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, true, true},    // 2 channels, dilation 2
    {1, 2, 47, 7, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, true, true},   // few pixels, the copy in two chunks
    {1, 9, 23, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},   // one channel: inner pixels in pairs, odd run
    {2, 8, 24, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, false, false}, // one channel unpadded, even run
    {1, 12, 18, 1, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1, true, true},  // one channel, dilation on H only
    {1, 11, 21, 1, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, true, true},  // one channel, stride 2 (no pairs)
    {1, 10, 19, 1, 3, 3, 1, 1, 1, 2, 1, 1, 2, 2, true, true},  // one channel, dilation on W (no pairs)
    {1, 25, 5, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true},   // one channel, narrow (kws at 320 B): in pairs
    {1, 9, 8, 1, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1, false, true},   // one channel, narrow, stride 2 (TF SAME)
    {2, 6, 8, 1, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, true, false},   // one channel, narrow, unpadded
};

}  // namespace

TEST(S8DepthwiseBlocks, EqualsTheReferenceFormula) {
  std::mt19937 rng(1234);
  for (const DwCase& k : kCases) {
    for (int rep = 0; rep < 3; rep++) {
      const DwData d = make_data(k, rng);
      Built b;
      build(k, d, &b);
      const Bytes expected = formula(k, d);
      Bytes x = d.x, y(expected.size(), 0);
      b.f.bind(b.in, x.data());
      b.f.bind(b.out, y.data());
      ASSERT_EQ(b.f.run(b.op), 0) << describe(k);
      EXPECT_EQ(y, expected) << describe(k);
    }
  }
}

// Large accumulators: 127 * 255 per tap plus a bias near the int32 range, left shifts that
// wrap; the factors' right shifts up to 31.
TEST(S8DepthwiseBlocks, ExtremeAccumulatorsAndShifts) {
  const DwCase k{1, 4, 4, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true};
  DwData d;
  d.x.assign(4 * 4 * 6, -128);
  d.w.assign(9 * 6, 127);
  for (size_t i = 0; i < d.w.size(); i += 5) d.w[i] = -128;
  d.bias = {INT32_MAX - 1000, INT32_MIN + 1000, 0, 1 << 30, -(1 << 30), 12345};
  d.mult = {INT32_MAX, 1 << 30, 1, 1518500250, 1 << 30, 1 << 29};
  d.shift = {-31, 31, 0, 1, -1, 5};
  d.in_zp = 127;
  d.out_zp = -3;
  d.act_min = -128;
  d.act_max = 127;
  Built b;
  build(k, d, &b);
  const Bytes expected = formula(k, d);
  Bytes x = d.x, y(expected.size(), 0);
  b.f.bind(b.in, x.data());
  b.f.bind(b.out, y.data());
  ASSERT_EQ(b.f.run(b.op), 0);
  EXPECT_EQ(y, expected);
}

// Channel bands: channels [chan0, chan0 + chans) of input and output packed in the band
// buffers; the kernel must read the weights, biases and factors of the global channels.
TEST(S8DepthwiseBlocks, ChannelBandsReadGlobalChannels) {
  std::mt19937 rng(99);
  const DwCase k{1, 5, 4, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, true, true};
  const DwData d = make_data(k, rng);
  Built b;
  build(k, d, &b);
  const Bytes expected = formula(k, d);
  const int32_t oh = 5, ow = 4;
  for (int32_t chans : {1, 2, 3, 4, 5, 7}) {
    for (int32_t chan0 = 0; chan0 + chans <= k.c; chan0 += chans) {
      Bytes xb((size_t)k.h * k.w * chans), yb((size_t)oh * ow * chans, 0);
      for (int32_t p = 0; p < k.h * k.w; p++)
        for (int32_t c = 0; c < chans; c++) xb[(size_t)p * chans + c] = d.x[(size_t)p * k.c + chan0 + c];
      tigris_tile_ctx_t t{};
      t.active = 1;
      t.chan_tiled = 1;
      t.chan0 = chan0;
      t.chans = chans;
      t.in_h = k.h;
      t.in_w = k.w;
      t.out_h = oh;
      t.out_w = ow;
      t.pad_top = k.pt;
      t.pad_bottom = k.pb;
      t.pad_left = k.pl;
      t.pad_right = k.pr;
      b.f.bind(b.in, xb.data());
      b.f.bind(b.out, yb.data());
      ASSERT_EQ(b.f.run(b.op, t), 0) << "chan0 " << chan0 << " chans " << chans;
      for (int32_t p = 0; p < oh * ow; p++)
        for (int32_t c = 0; c < chans; c++)
          ASSERT_EQ(yb[(size_t)p * chans + c], expected[(size_t)p * k.c + chan0 + c])
              << "chan0 " << chan0 << " chans " << chans << " pixel " << p << " channel " << c;
    }
  }
}
