// Conv, Depthwise, Conv1D and ConvTranspose against hand values and against independent
// NCHW reference loops (weights OIHW / IOHW as ONNX stores them), whole and banded.
#include "unit/kernels_f32/kernel_test_util.h"

namespace {

using fixture::Plan;

struct ConvSpec {
  int n, c, h, w;  // input (NCHW terms)
  int oc, kh, kw;
  int sh, sw, dh, dw;
  int pt, pb, pl, pr;
  int group;
  int oh() const { return (h + pt + pb - ((kh - 1) * dh + 1)) / sh + 1; }
  int ow() const { return (w + pl + pr - ((kw - 1) * dw + 1)) / sw + 1; }
};

// NCHW x OIHW(I = C/group) reference.
std::vector<float> conv_nchw(const ConvSpec& s, const std::vector<float>& x, const std::vector<float>& wt,
                             const std::vector<float>& b) {
  int oh = s.oh(), ow = s.ow(), icg = s.c / s.group, ocg = s.oc / s.group;
  std::vector<float> y((size_t)s.n * s.oc * oh * ow);
  for (int n = 0; n < s.n; ++n)
    for (int o = 0; o < s.oc; ++o)
      for (int yy = 0; yy < oh; ++yy)
        for (int xx = 0; xx < ow; ++xx) {
          double acc = b.empty() ? 0.0 : b[o];
          for (int ci = 0; ci < icg; ++ci)
            for (int a = 0; a < s.kh; ++a)
              for (int bb = 0; bb < s.kw; ++bb) {
                int iy = yy * s.sh - s.pt + a * s.dh, ix = xx * s.sw - s.pl + bb * s.dw;
                if (iy < 0 || iy >= s.h || ix < 0 || ix >= s.w) continue;
                int c = (o / ocg) * icg + ci;
                acc += (double)x[(((size_t)n * s.c + c) * s.h + iy) * s.w + ix] *
                       wt[(((size_t)o * icg + ci) * s.kh + a) * s.kw + bb];
              }
          y[(((size_t)n * s.oc + o) * oh + yy) * ow + xx] = (float)acc;
        }
  return y;
}

// NCHW <-> NHWC for rank-4 data.
std::vector<float> to_nhwc(const std::vector<float>& v, int n, int c, int h, int w) {
  std::vector<float> r(v.size());
  for (int b = 0; b < n; ++b)
    for (int k = 0; k < c; ++k)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) r[(((size_t)b * h + y) * w + x) * c + k] = v[(((size_t)b * c + k) * h + y) * w + x];
  return r;
}

// OIHW -> OHWI.
std::vector<float> to_ohwi(const std::vector<float>& v, int o, int i, int h, int w) { return to_nhwc(v, o, i, h, w); }

uint16_t add_conv(Plan& p, uint8_t type, const ConvSpec& s, const std::vector<float>& w_stored,
                  const std::vector<float>& bias, uint16_t* in, uint16_t* out) {
  *in = p.tensor({s.n, s.h, s.w, s.c});
  *out = p.tensor({s.n, s.oh(), s.ow(), s.oc});
  uint16_t op = p.op(type, {*in}, {*out});
  tigris_spatial_t& sp = p.o(op).spatial;
  sp.kernel_h = (uint8_t)s.kh, sp.kernel_w = (uint8_t)s.kw, sp.stride_h = (uint8_t)s.sh, sp.stride_w = (uint8_t)s.sw;
  sp.dilation_h = (uint16_t)s.dh, sp.dilation_w = (uint16_t)s.dw;
  sp.pad_top = (uint16_t)s.pt, sp.pad_bottom = (uint16_t)s.pb, sp.pad_left = (uint16_t)s.pl,
  sp.pad_right = (uint16_t)s.pr;
  sp.group = (uint16_t)s.group;
  p.o(op).weight_idx = p.weight(w_stored);
  if (!bias.empty()) p.o(op).bias_idx = p.weight(bias);
  return op;
}

TEST(Conv, HandDerived2x2OnesKernel) {
  Plan p;
  ConvSpec s{1, 1, 3, 3, 1, 2, 2, 1, 1, 1, 1, 0, 0, 0, 0, 1};
  uint16_t in, out;
  uint16_t op = add_conv(p, TIGRIS_OP_CONV, s, {1, 1, 1, 1}, {0.5f}, &in, &out);
  ASSERT_EQ(kt::run(p, op, nullptr), -1);  // NULL mem refused
  tigris_mem_t* m = p.mem();
  p.set<float>(in, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {12.5f, 16.5f, 24.5f, 28.5f});
}

void check_conv(const ConvSpec& s, uint8_t act) {
  auto x = kt::values((size_t)s.n * s.c * s.h * s.w, 1);
  auto wt = kt::values((size_t)s.oc * (s.c / s.group) * s.kh * s.kw, 2);
  auto b = kt::values((size_t)s.oc, 3);
  auto ref = conv_nchw(s, x, wt, b);
  for (float& v : ref)
    if (act == TIGRIS_ACT_RELU && v < 0) v = 0;
  Plan p;
  uint16_t in, out;
  uint16_t op = add_conv(p, TIGRIS_OP_CONV, s, to_ohwi(wt, s.oc, s.c / s.group, s.kh, s.kw), b, &in, &out);
  p.o(op).fused_act = act;
  tigris_mem_t* m = p.mem();
  p.set(in, to_nhwc(x, s.n, s.c, s.h, s.w));
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), to_nhwc(ref, s.n, s.oc, s.oh(), s.ow()));
}

TEST(Conv, StrideDilationAsymmetricPadsReluMatchReference) {
  check_conv({2, 3, 6, 7, 4, 3, 2, 2, 1, 1, 2, 1, 0, 0, 1, 1}, TIGRIS_ACT_RELU);
}

TEST(Conv, GroupedMatchesReference) { check_conv({1, 4, 5, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2}, 0); }

TEST(Conv, DepthwiseMultiplierMatchesReference) {
  ConvSpec s{1, 3, 5, 4, 6, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 3};  // group = C: depthwise, multiplier 2
  auto x = kt::values(60, 4);
  auto wt = kt::values(6 * 9, 5);  // OIHW with I = 1
  auto b = kt::values(6, 6);
  auto ref = conv_nchw(s, x, wt, b);
  // Depthwise stores [KH, KW, C*mult]: element (kh, kw, o) = wt[o][0][kh][kw].
  std::vector<float> dw(wt.size());
  for (int o = 0; o < 6; ++o)
    for (int k = 0; k < 9; ++k) dw[(size_t)k * 6 + o] = wt[(size_t)o * 9 + k];
  Plan p;
  uint16_t in, out;
  uint16_t op = add_conv(p, TIGRIS_OP_DEPTHWISE, s, dw, b, &in, &out);
  tigris_mem_t* m = p.mem();
  p.set(in, to_nhwc(x, 1, 3, 5, 4));
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), to_nhwc(ref, 1, 6, s.oh(), s.ow()));
}

TEST(Conv, Conv1DGroupedDilatedMatchesReference) {
  ConvSpec s{2, 4, 9, 1, 2, 3, 1, 2, 1, 2, 1, 1, 2, 0, 0, 2};  // length axis in H
  auto x = kt::values(2 * 4 * 9, 7);
  auto wt = kt::values(2 * 2 * 3, 8);
  auto ref = conv_nchw(s, x, wt, {});
  Plan p;
  uint16_t in = p.tensor({2, 9, 4}), out = p.tensor({2, s.oh(), 2});
  uint16_t op = p.op(TIGRIS_OP_CONV1D, {in}, {out});
  tigris_spatial_t& sp = p.o(op).spatial;
  sp.kernel_h = 3, sp.kernel_w = 1, sp.stride_h = 2, sp.stride_w = 1, sp.dilation_h = 2;
  sp.pad_top = 1, sp.pad_bottom = 2, sp.group = 2;
  p.o(op).weight_idx = p.weight(to_ohwi(wt, 2, 2, 3, 1));
  tigris_mem_t* m = p.mem();
  p.set(in, to_nhwc(x, 2, 4, 9, 1));
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), to_nhwc(ref, 2, 2, s.oh(), 1));
}

// Bands of `band` output rows (with junk prefix rows before each band's data) give the rows of
// the whole call.
void check_banded(uint8_t type, const ConvSpec& s, int band, int in_prefix, int out_prefix) {
  int icg = type == TIGRIS_OP_DEPTHWISE ? 1 : s.c / s.group;
  auto x = kt::values((size_t)s.n * s.h * s.w * s.c, 11);
  auto w = kt::values((size_t)s.oc * icg * s.kh * s.kw, 12);
  Plan p;
  uint16_t in, out;
  uint16_t op = add_conv(p, type, s, w, kt::values(s.oc, 13), &in, &out);
  tigris_mem_t* m = p.mem();
  p.set(in, x);
  ASSERT_EQ(kt::run(p, op, m), 0);
  auto whole = p.get<float>(out);
  int oh = s.oh(), ow = s.ow(), ek = (s.kh - 1) * s.dh + 1;
  for (int o0 = 0; o0 < oh; o0 += band) {
    int o1 = o0 + band < oh ? o0 + band : oh;
    kt::Window win = kt::window(o0, o1, s.sh, ek, s.pt, s.h);
    auto in_band = kt::rows(x, s.n, s.h, s.w * s.c, win.i0, win.i1, in_prefix);
    std::vector<float> out_band((size_t)s.n * (out_prefix + o1 - o0) * ow * s.oc, -5.0f);
    p.bind(in, in_band.data());
    p.bind(out, out_band.data());
    m->tile = tigris_tile_ctx_t{};
    m->tile.active = 1;
    m->tile.in_h = win.i1 - win.i0, m->tile.out_h = o1 - o0;
    m->tile.pad_top = win.pad_top, m->tile.pad_bottom = win.pad_bottom;
    m->tile.in_row_start = in_prefix, m->tile.out_row_start = out_prefix;
    m->tile.out_row0 = o0, m->tile.in_row0 = win.i0;
    ASSERT_EQ(kt::run(p, op, m), 0);
    auto want = kt::rows(whole, s.n, oh, ow * s.oc, o0, o1);
    auto got = kt::rows(out_band, s.n, out_prefix + o1 - o0, ow * s.oc, out_prefix, out_prefix + o1 - o0);
    kt::expect_near(got, want);
  }
}

TEST(ConvBanded, StripesEqualWholeCall) {
  check_banded(TIGRIS_OP_CONV, {2, 3, 9, 5, 4, 3, 3, 2, 1, 1, 1, 1, 2, 1, 1, 1}, 2, 0, 0);
  check_banded(TIGRIS_OP_CONV, {1, 2, 8, 4, 2, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1, 1}, 3, 2, 1);
  check_banded(TIGRIS_OP_DEPTHWISE, {1, 3, 7, 6, 6, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1, 3}, 2, 1, 3);
}

TEST(ConvBanded, TwoDimensionalTileEqualsWholeCall) {
  ConvSpec s{1, 2, 6, 7, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  auto x = kt::values(6 * 7 * 2, 21);
  Plan p;
  uint16_t in, out;
  uint16_t op = add_conv(p, TIGRIS_OP_CONV, s, kt::values(3 * 2 * 9, 22), {}, &in, &out);
  tigris_mem_t* m = p.mem();
  p.set(in, x);
  ASSERT_EQ(kt::run(p, op, m), 0);
  auto whole = p.get<float>(out);
  // Output rectangle rows [2,5), cols [3,7): input rows [1,6), cols [2,7) with right pad 1.
  std::vector<float> rect;
  for (int y = 1; y < 6; ++y)
    for (int xx = 2; xx < 7; ++xx)
      for (int c = 0; c < 2; ++c) rect.push_back(x[((size_t)y * 7 + xx) * 2 + c]);
  std::vector<float> ob(3 * 4 * 3);
  p.bind(in, rect.data());
  p.bind(out, ob.data());
  m->tile = tigris_tile_ctx_t{};
  m->tile.active = 1, m->tile.width_tiled = 1;
  m->tile.in_h = 5, m->tile.out_h = 3, m->tile.in_w = 5, m->tile.out_w = 4;
  m->tile.pad_right = 1;
  ASSERT_EQ(kt::run(p, op, m), 0);
  for (int y = 0; y < 3; ++y)
    for (int xx = 0; xx < 4; ++xx)
      for (int c = 0; c < 3; ++c)
        EXPECT_NEAR(ob[((size_t)y * 4 + xx) * 3 + c], whole[((size_t)(y + 2) * 7 + xx + 3) * 3 + c], 1e-5f);
}

// ---- ConvTranspose -------------------------------------------------------------------------

struct ConvTSpec {
  int n, c, h, w, oc, kh, kw, sh, sw, dh, dw, pt, pb, pl, pr, oph, opw;
  int oh() const { return (h - 1) * sh - pt - pb + (kh - 1) * dh + 1 + oph; }
  int ow() const { return (w - 1) * sw - pl - pr + (kw - 1) * dw + 1 + opw; }
};

// Scatter form in NCHW with IOHW weights (ONNX layout).
std::vector<float> convt_nchw(const ConvTSpec& s, const std::vector<float>& x, const std::vector<float>& w,
                              const std::vector<float>& b) {
  int oh = s.oh(), ow = s.ow();
  std::vector<double> y((size_t)s.n * s.oc * oh * ow, 0.0);
  for (int n = 0; n < s.n; ++n)
    for (int c = 0; c < s.c; ++c)
      for (int iy = 0; iy < s.h; ++iy)
        for (int ix = 0; ix < s.w; ++ix)
          for (int o = 0; o < s.oc; ++o)
            for (int a = 0; a < s.kh; ++a)
              for (int bb = 0; bb < s.kw; ++bb) {
                int yy = iy * s.sh - s.pt + a * s.dh, xx = ix * s.sw - s.pl + bb * s.dw;
                if (yy < 0 || yy >= oh || xx < 0 || xx >= ow) continue;
                y[(((size_t)n * s.oc + o) * oh + yy) * ow + xx] +=
                    (double)x[(((size_t)n * s.c + c) * s.h + iy) * s.w + ix] *
                    w[(((size_t)c * s.oc + o) * s.kh + a) * s.kw + bb];
              }
  std::vector<float> r(y.size());
  for (size_t i = 0; i < y.size(); ++i) r[i] = (float)(y[i] + (b.empty() ? 0.0 : b[(i / ((size_t)oh * ow)) % s.oc]));
  return r;
}

// IOHW -> OHWI.
std::vector<float> iohw_to_ohwi(const std::vector<float>& w, int i, int o, int h, int kw) {
  std::vector<float> r(w.size());
  for (int c = 0; c < i; ++c)
    for (int k = 0; k < o; ++k)
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < kw; ++x)
          r[(((size_t)k * h + y) * kw + x) * i + c] = w[(((size_t)c * o + k) * h + y) * kw + x];
  return r;
}

uint16_t add_convt(Plan& p, const ConvTSpec& s, const std::vector<float>& w, const std::vector<float>& b, uint16_t* in,
                   uint16_t* out) {
  *in = p.tensor({s.n, s.h, s.w, s.c});
  *out = p.tensor({s.n, s.oh(), s.ow(), s.oc});
  uint16_t op = p.op(TIGRIS_OP_CONV_TRANSPOSE, {*in}, {*out});
  tigris_spatial_t& sp = p.o(op).spatial;
  sp.kernel_h = (uint8_t)s.kh, sp.kernel_w = (uint8_t)s.kw, sp.stride_h = (uint8_t)s.sh, sp.stride_w = (uint8_t)s.sw;
  sp.dilation_h = (uint16_t)s.dh, sp.dilation_w = (uint16_t)s.dw;
  sp.pad_top = (uint16_t)s.pt, sp.pad_bottom = (uint16_t)s.pb, sp.pad_left = (uint16_t)s.pl,
  sp.pad_right = (uint16_t)s.pr;
  sp.group = 1;
  p.o(op).weight_idx = p.weight(iohw_to_ohwi(w, s.c, s.oc, s.kh, s.kw));
  if (!b.empty()) p.o(op).bias_idx = p.weight(b);
  return op;
}

TEST(ConvTranspose, OnnxDocExample) {
  // ONNX ConvTranspose example: 3x3 input 0..8, two 3x3 all-ones filters, stride 1.
  ConvTSpec s{1, 1, 3, 3, 2, 3, 3, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0};
  Plan p;
  uint16_t in, out;
  uint16_t op = add_convt(p, s, std::vector<float>(18, 1.0f), {}, &in, &out);
  tigris_mem_t* m = p.mem();
  p.set<float>(in, {0, 1, 2, 3, 4, 5, 6, 7, 8});
  ASSERT_EQ(kt::run(p, op, m), 0);
  std::vector<float> plane = {0, 1, 3, 3, 2, 3, 8, 15, 12, 7, 9, 21, 36, 27, 15, 9, 20, 33, 24, 13, 6, 13, 21, 15, 8};
  auto got = p.get<float>(out);
  for (int i = 0; i < 25; ++i) {
    EXPECT_EQ(got[(size_t)i * 2], plane[i]);
    EXPECT_EQ(got[(size_t)i * 2 + 1], plane[i]);
  }
}

TEST(ConvTranspose, StridesPadsDilationOutputPaddingMatchScatterReference) {
  for (const ConvTSpec& s : {ConvTSpec{2, 3, 4, 3, 2, 3, 2, 2, 3, 1, 1, 1, 0, 0, 1, 1, 2},
                             ConvTSpec{1, 2, 3, 4, 3, 2, 3, 2, 2, 2, 1, 0, 1, 1, 0, 0, 1}}) {
    auto x = kt::values((size_t)s.n * s.c * s.h * s.w, 31);
    auto w = kt::values((size_t)s.c * s.oc * s.kh * s.kw, 32);
    auto b = kt::values((size_t)s.oc, 33);
    auto ref = convt_nchw(s, x, w, b);
    Plan p;
    uint16_t in, out;
    uint16_t op = add_convt(p, s, w, b, &in, &out);
    tigris_mem_t* m = p.mem();
    p.set(in, to_nhwc(x, s.n, s.c, s.h, s.w));
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), to_nhwc(ref, s.n, s.oc, s.oh(), s.ow()));
  }
}

TEST(ConvTranspose, BandThroughGlobalRowsEqualsWholeCall) {
  ConvTSpec s{1, 2, 5, 4, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1};
  auto x = kt::values(5 * 4 * 2, 41);
  auto w = kt::values(2 * 3 * 9, 42);
  Plan p;
  uint16_t in, out;
  uint16_t op = add_convt(p, s, w, {}, &in, &out);
  tigris_mem_t* m = p.mem();
  p.set(in, to_nhwc(x, 1, 2, 5, 4));
  ASSERT_EQ(kt::run(p, op, m), 0);
  auto whole = p.get<float>(out);
  int oh = s.oh(), ow = s.ow(), row = ow * 3;
  // Output rows [3, 7): y + 1 - kh = 2*iy -> iy in [1, 3]; give the window rows [1, 4).
  auto in_band = kt::rows(to_nhwc(x, 1, 2, 5, 4), 1, 5, 4 * 2, 1, 4, 1);
  std::vector<float> ob((size_t)(2 + 4) * row, 0.0f);
  p.bind(in, in_band.data());
  p.bind(out, ob.data());
  m->tile = tigris_tile_ctx_t{};
  m->tile.active = 1;
  m->tile.out_row0 = 3, m->tile.out_h = 4, m->tile.in_row0 = 1, m->tile.in_h = 3;
  m->tile.in_row_start = 1, m->tile.out_row_start = 2;
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(kt::rows(ob, 1, 6, row, 2, 6), kt::rows(whole, 1, oh, row, 3, 7));
  // A window missing a contributing row fails instead of reading outside it.
  m->tile.in_h = 2;
  EXPECT_EQ(kt::run(p, op, m), -1);
}

}  // namespace
