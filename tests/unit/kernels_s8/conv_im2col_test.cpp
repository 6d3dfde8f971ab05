// The im2col int8 convolution (kernels/s8/s8_conv_im2col.cpp, the CMSIS-NN adapter's KxK path
// on DSP builds without Helium; here its plain-C build, same buffer layout and edge logic)
// against TFLite's reference convolution written out below: for every output (n, y, x, oc)
//   acc = bias[oc] + sum over taps inside the input of w[oc][ky][kx][ic] * (x - in_zp)
//   y   = clamp(MultiplyByQuantizedMultiplier(acc, m[oc], shift[oc]) + out_zp, act_min, act_max)
// over windows whose value count K leaves every remainder mod 4 (the partial last block), 1-channel
// and odd-channel inputs (through the stack row and, for long windows, value by value), odd pixel and output-channel
// counts (the lone pixel / channel), strides, dilations, asymmetric and oversized padding, extreme zero points and
// factors, row bands at buffer offsets and output-channel bands at every channel offset; and the calls it refuses
// (factors channel_q does not take, a short or misaligned buffer) leave the output as is.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "kernels/s8/s8_conv_im2col.h"
#include "kernels/s8/s8_fixed_point.h"

namespace im2col_test {

using tigris_rt::kern::SpatialGeom;
namespace im2col = tigris_s8::im2col;

struct Shape {
  int32_t n, h, w, ic, oc, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr;
};

int32_t extent(int32_t in, int32_t k, int32_t s, int32_t d, int32_t p0, int32_t p1) {
  return (in + p0 + p1 - ((k - 1) * d + 1)) / s + 1;
}

struct Data {
  std::vector<int8_t> x, w;
  std::vector<int32_t> bias, mult, shift;
  int32_t in_zp, out_zp, act_min, act_max;
  bool per_channel, with_bias;
};

Data make_data(const Shape& s, std::mt19937& rng, bool per_channel, bool with_bias, bool extreme) {
  std::uniform_int_distribution<int> byte(-128, 127), zp(-128, 127), mult(1 << 29, (1 << 30) + (1 << 29)),
      shift(-14, 1), bias(-40000, 40000);
  Data d;
  d.per_channel = per_channel;
  d.with_bias = with_bias;
  d.x.resize((size_t)s.n * s.h * s.w * s.ic);
  for (auto& v : d.x) v = (int8_t)byte(rng);
  d.w.resize((size_t)s.oc * s.kh * s.kw * s.ic);
  for (auto& v : d.w) v = (int8_t)byte(rng);
  const int32_t channels = per_channel ? s.oc : 1;
  for (int32_t i = 0; i < channels; i++) {
    if (extreme) {  // the ends of the admitted range: INT32_MAX, tiny multipliers, shifts -31..30
      const int32_t ms[] = {INT32_MAX, 1, 1 << 30, (int32_t)(rng() & 0x7FFFFFFF)};
      const int32_t ss[] = {-31, 30, 0, -1, 7, -20};
      d.mult.push_back(ms[rng() % 4]);
      d.shift.push_back(ss[rng() % 6]);
    } else {
      d.mult.push_back(mult(rng));
      d.shift.push_back(shift(rng));
    }
  }
  if (with_bias)
    for (int32_t i = 0; i < s.oc; i++) d.bias.push_back(extreme ? (int32_t)rng() : bias(rng));
  d.in_zp = extreme ? (rng() % 2 ? -128 : 127) : zp(rng);
  d.out_zp = zp(rng);
  d.act_min = -128 + (int32_t)(rng() % 20);
  d.act_max = 127 - (int32_t)(rng() % 20);
  return d;
}

// TFLite's reference Conv (one group), output [n, oh, ow, oc].
std::vector<int8_t> formula(const Shape& s, const Data& d) {
  const int32_t oh = extent(s.h, s.kh, s.sh, s.dh, s.pt, s.pb), ow = extent(s.w, s.kw, s.sw, s.dw, s.pl, s.pr);
  std::vector<int8_t> y((size_t)s.n * oh * ow * s.oc);
  for (int32_t n = 0; n < s.n; n++)
    for (int32_t oy = 0; oy < oh; oy++)
      for (int32_t ox = 0; ox < ow; ox++)
        for (int32_t oc = 0; oc < s.oc; oc++) {
          uint32_t acc = 0;
          for (int32_t ky = 0; ky < s.kh; ky++)
            for (int32_t kx = 0; kx < s.kw; kx++) {
              const int32_t iy = oy * s.sh - s.pt + ky * s.dh, ix = ox * s.sw - s.pl + kx * s.dw;
              if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
              for (int32_t ic = 0; ic < s.ic; ic++) {
                const int32_t xv = d.x[(((size_t)n * s.h + iy) * s.w + ix) * s.ic + ic];
                const int32_t wv = d.w[(((size_t)oc * s.kh + ky) * s.kw + kx) * s.ic + ic];
                acc += (uint32_t)(wv * (xv - d.in_zp));
              }
            }
          if (d.with_bias) acc += (uint32_t)d.bias[oc];
          const size_t q = d.per_channel ? (size_t)oc : 0;
          int32_t v = tigris_s8::multiply_by_quantized_multiplier((int32_t)acc, d.mult[q], d.shift[q]);
          v += d.out_zp;
          v = v < d.act_min ? d.act_min : (v > d.act_max ? d.act_max : v);
          y[(((size_t)n * oh + oy) * ow + ox) * s.oc + oc] = (int8_t)v;
        }
  return y;
}

// The whole layer's geometry (no band).
SpatialGeom whole(const Shape& s) {
  SpatialGeom g{};
  g.n = s.n, g.c_in = s.ic, g.c_out = s.oc, g.in_h = s.h, g.in_w = s.w;
  g.out_h = extent(s.h, s.kh, s.sh, s.dh, s.pt, s.pb), g.out_w = extent(s.w, s.kw, s.sw, s.dw, s.pl, s.pr);
  g.k_h = s.kh, g.k_w = s.kw, g.s_h = s.sh, g.s_w = s.sw, g.d_h = s.dh, g.d_w = s.dw;
  g.pad_top = s.pt, g.pad_bottom = s.pb, g.pad_left = s.pl, g.pad_right = s.pr;
  g.in_row = (int64_t)s.w * s.ic, g.in_batch = g.in_row * s.h;
  g.out_row = (int64_t)g.out_w * s.oc, g.out_batch = g.out_row * g.out_h;
  return g;
}

im2col::Conv conv_of(const SpatialGeom& g, const Data& d, const int8_t* x, int8_t* y, int32_t ch0, int32_t k) {
  im2col::Conv c{};
  c.g = &g, c.x = x, c.y = y;
  c.w = d.w.data() + (ptrdiff_t)ch0 * k;
  c.bias = d.with_bias ? d.bias.data() + ch0 : nullptr;
  c.factor_step = d.per_channel ? 1 : 0;
  c.mult = d.mult.data() + (d.per_channel ? ch0 : 0);
  c.shift = d.shift.data() + (d.per_channel ? ch0 : 0);
  c.in_offset = -d.in_zp, c.out_offset = d.out_zp, c.act_min = d.act_min, c.act_max = d.act_max;
  return c;
}

// An 8-aligned buffer of exactly buffer_bytes (rounded to whole words).
std::vector<uint64_t> buffer_for(const SpatialGeom& g) {
  return std::vector<uint64_t>((size_t)(im2col::buffer_bytes(g) + 7) / 8);
}

void expect_whole(const Shape& s, const Data& d) {
  const SpatialGeom g = whole(s);
  std::vector<int8_t> y((size_t)g.n * g.out_batch, 0x55);
  auto buf = buffer_for(g);
  ASSERT_EQ(
      im2col::run(conv_of(g, d, d.x.data(), y.data(), 0, s.kh * s.kw * s.ic), buf.data(), im2col::buffer_bytes(g)), 0);
  const std::vector<int8_t> want = formula(s, d);
  EXPECT_EQ(y, want) << "in " << s.h << "x" << s.w << "x" << s.ic << " -> " << s.oc << ", k " << s.kh << "x" << s.kw
                     << " s " << s.sh << "," << s.sw << " d " << s.dh << "," << s.dw;
  // The caller's promise that the factors are in range (the adapter's) skips run()'s own check only.
  std::vector<int8_t> y2((size_t)g.n * g.out_batch, 0x55);
  im2col::Conv c = conv_of(g, d, d.x.data(), y2.data(), 0, s.kh * s.kw * s.ic);
  c.factors_checked = true;
  ASSERT_EQ(im2col::run(c, buf.data(), im2col::buffer_bytes(g)), 0);
  EXPECT_EQ(y2, want);
}

const Shape kShapes[] = {
    // n, h, w, ic, oc, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr
    {1, 8, 8, 16, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},  // resnet8-like, K % 4 == 0
    {1, 9, 7, 3, 8, 3, 3, 2, 2, 1, 1, 0, 1, 0, 1},    // vww's first conv: K = 27
    {1, 13, 6, 1, 7, 10, 4, 2, 2, 1, 1, 4, 5, 1, 2},  // kws's first conv: in_c 1, odd channels
    {2, 6, 5, 5, 5, 3, 2, 1, 1, 1, 1, 1, 1, 0, 1},    // K = 30, batch 2, odd everything
    {1, 5, 9, 2, 3, 1, 3, 1, 2, 1, 1, 0, 0, 1, 1},    // 1x3, K = 6
    {1, 7, 7, 7, 4, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},    // dilation 2, K = 63
    {1, 6, 6, 4, 6, 2, 3, 1, 1, 3, 1, 1, 2, 0, 2},    // dilation in rows only
    {1, 4, 4, 6, 2, 5, 5, 1, 1, 1, 1, 4, 4, 4, 4},    // windows of padding only at the corners
    {1, 3, 3, 1, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},    // one channel in and out, K = 9
    {1, 11, 3, 9, 9, 3, 1, 3, 1, 1, 1, 1, 1, 0, 0},   // 3x1, K = 27, stride 3
    {1, 5, 5, 32, 33, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1},  // odd pixels (9) and channels (33)
    {1, 9, 9, 7, 5, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2},    // K = 175: unaligned runs too long for the stack row
    {1, 12, 10, 3, 4, 7, 7, 2, 1, 1, 1, 3, 3, 3, 3},  // K = 147, likewise
    {1, 9, 9, 3, 5, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2},    // staged windows with dilation
    {1, 3, 3, 73, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},   // K = 657: long rows, nine pixels (a lone last one)
};

TEST(ConvIm2col, MatchesTfliteFormula) {
  std::mt19937 rng(1234);
  for (const Shape& s : kShapes)
    for (int variant = 0; variant < 4; variant++) {
      const Data d = make_data(s, rng, variant & 1, variant & 2, false);
      expect_whole(s, d);
    }
}

TEST(ConvIm2col, ExtremeFactorsAndZeroPoints) {
  std::mt19937 rng(99);
  for (const Shape& s : kShapes)
    for (int rep = 0; rep < 3; rep++) expect_whole(s, make_data(s, rng, rep != 2, true, true));
}

TEST(ConvIm2col, RandomShapes) {
  std::mt19937 rng(7);
  for (int i = 0; i < 150; i++) {
    Shape s{};
    s.n = 1 + (int32_t)(rng() % 2), s.ic = 1 + (int32_t)(rng() % 9), s.oc = 1 + (int32_t)(rng() % 7);
    s.kh = 1 + (int32_t)(rng() % 4), s.kw = 1 + (int32_t)(rng() % 4);
    s.sh = 1 + (int32_t)(rng() % 3), s.sw = 1 + (int32_t)(rng() % 3);
    s.dh = 1 + (int32_t)(rng() % 2), s.dw = 1 + (int32_t)(rng() % 2);
    s.pt = (int32_t)(rng() % (size_t)s.kh), s.pb = (int32_t)(rng() % (size_t)s.kh);
    s.pl = (int32_t)(rng() % (size_t)s.kw), s.pr = (int32_t)(rng() % (size_t)s.kw);
    s.h = (s.kh - 1) * s.dh + 1 + (int32_t)(rng() % 6), s.w = (s.kw - 1) * s.dw + 1 + (int32_t)(rng() % 6);
    expect_whole(s, make_data(s, rng, rng() % 2, rng() % 2, rng() % 4 == 0));
  }
}

// Output rows [r0, r0 + rows) from a band buffer holding only the input rows they read, at
// row offsets of both buffers (in_row_start, out_row_start), as the executor hands a row tile.
TEST(ConvIm2col, RowBandsAtBufferOffsets) {
  std::mt19937 rng(5);
  const Shape shapes[] = {{1, 12, 6, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1},
                          {1, 13, 5, 3, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 0},
                          {1, 11, 4, 2, 4, 3, 2, 1, 1, 2, 1, 2, 2, 0, 1}};
  for (const Shape& s : shapes) {
    const Data d = make_data(s, rng, true, true, false);
    const std::vector<int8_t> ref = formula(s, d);
    const SpatialGeom full = whole(s);
    for (int32_t r0 = 0; r0 < full.out_h; r0++)
      for (int32_t rows = 1; r0 + rows <= full.out_h; rows++) {
        const int32_t g0 = std::max(0, r0 * s.sh - s.pt);
        const int32_t g1 = std::min(s.h, (r0 + rows - 1) * s.sh - s.pt + (s.kh - 1) * s.dh + 1);
        SpatialGeom g = full;
        g.out_h = rows, g.in_h = g1 - g0, g.pad_top = s.pt - r0 * s.sh + g0;
        g.in_row_start = 2, g.out_row_start = 1;  // band rows after unread ones
        std::vector<int8_t> xb((size_t)(g.in_h + 2) * full.in_row, 0x7F);
        for (int32_t r = 0; r < g.in_h; r++)
          for (int64_t i = 0; i < full.in_row; i++)
            xb[(size_t)((r + 2) * full.in_row + i)] = d.x[(size_t)((g0 + r) * full.in_row + i)];
        std::vector<int8_t> yb((size_t)(rows + 1) * full.out_row, 0x55);
        auto buf = buffer_for(g);
        ASSERT_EQ(im2col::run(conv_of(g, d, xb.data(), yb.data(), 0, s.kh * s.kw * s.ic), buf.data(),
                              im2col::buffer_bytes(g)),
                  0);
        const std::vector<int8_t> want(ref.begin() + r0 * full.out_row, ref.begin() + (r0 + rows) * full.out_row);
        EXPECT_EQ(std::vector<int8_t>(yb.begin() + full.out_row, yb.end()), want) << "rows " << r0 << "+" << rows;
        EXPECT_EQ(yb[0], 0x55);  // the unread row before the band stays
      }
  }
}

// Output channels [ch0, ch0 + chans) into a buffer of chans channels per pixel, weights,
// biases and factors from the band's first channel: every offset and width.
TEST(ConvIm2col, ChannelBandsAtEveryOffset) {
  std::mt19937 rng(11);
  const Shape s{1, 6, 5, 6, 7, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1};
  for (int per_channel = 0; per_channel < 2; per_channel++) {
    const Data d = make_data(s, rng, per_channel, true, false);
    const std::vector<int8_t> ref = formula(s, d);
    const SpatialGeom full = whole(s);
    const int32_t pixels = full.out_h * full.out_w;
    for (int32_t ch0 = 0; ch0 < s.oc; ch0++)
      for (int32_t chans = 1; ch0 + chans <= s.oc; chans++) {
        SpatialGeom g = full;
        g.c_out = chans, g.chan0 = ch0, g.out_row = (int64_t)full.out_w * chans;
        g.out_batch = g.out_row * g.out_h;
        std::vector<int8_t> y((size_t)pixels * chans, 0x55);
        auto buf = buffer_for(g);
        ASSERT_EQ(im2col::run(conv_of(g, d, d.x.data(), y.data(), ch0, s.kh * s.kw * s.ic), buf.data(),
                              im2col::buffer_bytes(g)),
                  0);
        std::vector<int8_t> want;
        for (int32_t p = 0; p < pixels; p++)
          for (int32_t c = 0; c < chans; c++) want.push_back(ref[(size_t)p * s.oc + ch0 + c]);
        EXPECT_EQ(y, want) << "band " << ch0 << "+" << chans;
      }
  }
}

TEST(ConvIm2col, RefusesWithoutWriting) {
  std::mt19937 rng(3);
  const Shape s{1, 5, 5, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1};
  Data d = make_data(s, rng, true, true, false);
  const SpatialGeom g = whole(s);
  const int32_t k = s.kh * s.kw * s.ic;
  std::vector<int8_t> y((size_t)g.out_batch, 0x55);
  const std::vector<int8_t> untouched = y;
  auto buf = buffer_for(g);
  // A buffer one byte short, a misaligned one, none.
  EXPECT_EQ(im2col::run(conv_of(g, d, d.x.data(), y.data(), 0, k), buf.data(), im2col::buffer_bytes(g) - 1),
            im2col::kRefused);
  std::vector<uint64_t> big(buf.size() + 1);
  EXPECT_EQ(im2col::run(conv_of(g, d, d.x.data(), y.data(), 0, k), (uint8_t*)big.data() + 4, im2col::buffer_bytes(g)),
            im2col::kRefused);
  EXPECT_EQ(im2col::run(conv_of(g, d, d.x.data(), y.data(), 0, k), nullptr, im2col::buffer_bytes(g)), im2col::kRefused);
  EXPECT_EQ(y, untouched);
  // The saturating multiplier (channel_q's refusal) on the last channel, and a shift out of range.
  d.mult[3] = INT32_MIN;
  EXPECT_EQ(im2col::run(conv_of(g, d, d.x.data(), y.data(), 0, k), buf.data(), im2col::buffer_bytes(g)),
            im2col::kRefused);
  d.mult[3] = 1 << 30;
  d.shift[1] = 32;
  EXPECT_EQ(im2col::run(conv_of(g, d, d.x.data(), y.data(), 0, k), buf.data(), im2col::buffer_bytes(g)),
            im2col::kRefused);
  EXPECT_EQ(y, untouched);
  d.shift[1] = 0;
  EXPECT_EQ(im2col::run(conv_of(g, d, d.x.data(), y.data(), 0, k), buf.data(), im2col::buffer_bytes(g)), 0);
  EXPECT_EQ(y, formula(s, d));
}

}  // namespace im2col_test
