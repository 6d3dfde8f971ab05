// CONV and DEPTHWISE through each adapter against the int8 reference kernels, byte for byte:
// per-channel and per-tensor factors, padding (symmetric, asymmetric, after > before, on 1x1),
// strides, unread columns, batches, activation clamps, channel multipliers, groups; whole
// tensors and hand-made bands (row bands with junk rows before the window and unread rows
// after it, 2-D tiles, batch strides). Each case also states whether the adapter must run it
// natively (docs/backends.md §2) — a fallback produces the same bytes but is a routing error.
#include "backends/common/accel_layers.h"
#include "op_cases.h"

using namespace backtest;

namespace {

void check_whole(const ConvCase& c, Route route, const char* what) {
  BACKENDS_OR_SKIP();
  const OpPlan p = conv_plan(c, 11);
  for (const Backend& b : backends()) {
    const Compared r = compare_op(p.plan, p.op, p.bufs, b);
    expect_identical(r, native_for(route, b), std::string(b.name) + " " + what);
  }
}

void check_band(const ConvCase& c, const BandSpec& s, Route route, const char* what) {
  BACKENDS_OR_SKIP();
  const OpPlan p = conv_plan(c, 23);
  const BandRun band = band_of(p, c, s);
  for (const Backend& b : backends()) {
    const std::string name = std::string(b.name) + " " + what;
    const Compared whole = compare_op(p.plan, p.op, p.bufs, b);
    const Compared r = compare_op(p.plan, p.op, band.bufs, b, band.tile);
    expect_identical(r, native_for(route, b), name);
    ASSERT_EQ(r.acc.size(), 1u);
    // The band holds exactly the whole run's rows (the hand-made tile context is right).
    EXPECT_TRUE(band_region(p, band, r.acc[0], s) == full_region(p, whole.ref[0], s)) << name;
  }
}

ConvCase conv(std::vector<int32_t> in, int32_t oc, uint8_t k, uint8_t s, uint16_t pt, uint16_t pb, uint16_t pl,
              uint16_t pr) {
  ConvCase c;
  c.in = std::move(in);
  c.oc = oc;
  c.kh = c.kw = k;
  c.sh = c.sw = s;
  c.pt = pt, c.pb = pb, c.pl = pl, c.pr = pr;
  return c;
}

ConvCase dwise(std::vector<int32_t> in, int32_t mult, uint8_t k, uint8_t s, uint16_t pt, uint16_t pb, uint16_t pl,
               uint16_t pr) {
  ConvCase c = conv(in, in[3] * mult, k, s, pt, pb, pl, pr);
  c.depthwise = true;
  return c;
}

// An output-channel band of a convolution (chan_mix: every input channel in, channels
// [chan0, chan0 + chans) of the layer out, packed): CMSIS-NN runs it with the band's
// contiguous weights, bias and factors (ESP-NN falls back), at band widths 1, 2, 3, 7 and
// the whole layer, and the band equals those channels of the whole run.
void check_output_channel_bands(const ConvCase& c, const char* what) {
  BACKENDS_OR_SKIP();
  const OpPlan p = conv_plan(c, 37);
  const int32_t out_h = (c.in[1] + c.pt + c.pb - c.kh) / c.sh + 1, out_w = (c.in[2] + c.pl + c.pr - c.kw) / c.sw + 1;
  const int32_t pixels = out_h * out_w, out_c = c.oc;
  for (int32_t chans : {1, 2, 3, 7, out_c}) {
    for (int32_t chan0 : {0, out_c - chans, (out_c - chans) / 2}) {
      const std::vector<Bytes> bufs = {p.bufs[0], Bytes((size_t)pixels * chans, 0x55)};
      tigris_tile_ctx_t t{};
      t.active = 1;
      t.chan_tiled = 1;
      t.chan_mix = 1;
      t.chan0 = chan0;
      t.chans = chans;
      t.in_h = c.in[1];
      t.out_h = out_h;
      t.pad_top = c.pt, t.pad_bottom = c.pb;
      for (const Backend& b : backends()) {
        const std::string name = std::string(b.name) + " " + what + " output-channel band " + std::to_string(chan0) +
                                 "+" + std::to_string(chans);
        const Compared whole = compare_op(p.plan, p.op, p.bufs, b);
        const Compared r = compare_op(p.plan, p.op, bufs, b, t);
        expect_identical(r, b.cmsis, name);
        ASSERT_EQ(r.acc.size(), 1u);
        for (int32_t px = 0; px < pixels; ++px)
          for (int32_t k = 0; k < chans; ++k)
            ASSERT_EQ(r.acc[0][(size_t)(px * chans + k)], whole.ref[0][(size_t)(px * out_c + chan0 + k)]) << name;
      }
    }
  }
}

}  // namespace

TEST(Conv, SamePaddingPerChannel) {
  check_whole(conv({1, 10, 9, 8}, 16, 3, 1, 1, 1, 1, 1), kNativeBoth, "3x3 s1 same");
}

TEST(Conv, StrideTwoAsymmetricPadding) {
  check_whole(conv({1, 10, 10, 3}, 8, 3, 2, 0, 1, 0, 1), kNativeBoth, "3x3 s2 pads (0,1,0,1)");
}

TEST(Conv, PaddingAfterLargerThanBefore) {
  check_whole(conv({1, 9, 8, 5}, 6, 5, 1, 1, 3, 1, 3), kNativeBoth, "5x5 pads (1,3,1,3)");
}

TEST(Conv, PointwisePerTensorTwoImages) {
  ConvCase c = conv({2, 6, 5, 12}, 7, 1, 1, 0, 0, 0, 0);
  c.per_tensor = true;
  check_whole(c, kNativeBoth, "1x1 per-tensor batch 2");
}

TEST(Conv, PointwiseStrideTwo) { check_whole(conv({1, 7, 7, 4}, 4, 1, 2, 0, 0, 0, 0), kNativeBoth, "1x1 s2"); }

// Padded 1x1: the border outputs read padding only (bias alone), which no vendor kernel is given.
TEST(Conv, WindowsOfPaddingOnlyFallBack) {
  check_whole(conv({1, 5, 4, 6}, 5, 1, 1, 1, 1, 1, 1), kFallbackBoth, "1x1 padded");
}

TEST(Conv, ValidWithUnreadRowsAndColumns) {
  check_whole(conv({1, 8, 8, 5}, 3, 3, 2, 0, 0, 0, 0), kNativeBoth, "3x3 s2 valid, last row/col unread");
}

TEST(Conv, RectangularKernelStridesAndClamp) {
  ConvCase c = conv({1, 11, 7, 3}, 9, 3, 1, 2, 1, 1, 1);
  c.kh = 5, c.sh = 2;
  c.in_zp = -128, c.out_zp = 100, c.act_min = -20, c.act_max = 110;
  check_whole(c, kNativeBoth, "5x3 s(2,1) clamp");
}

TEST(Conv, WithoutBias) {
  ConvCase c = conv({1, 6, 6, 4}, 4, 3, 1, 1, 1, 1, 1);
  c.bias = false;
  check_whole(c, kNativeBoth, "no bias");
}

TEST(Conv, GroupedIsCmsisOnly) {
  ConvCase c = conv({1, 6, 6, 8}, 6, 3, 1, 1, 1, 1, 1);
  c.group = 2;
  check_whole(c, kCmsisOnly, "groups 2");
}

TEST(Conv, DilationFallsBack) {
  ConvCase c = conv({1, 9, 9, 4}, 4, 3, 1, 2, 2, 2, 2);
  c.dh = c.dw = 2;
  check_whole(c, kFallbackBoth, "dilation 2");
}

TEST(Depthwise, ThreeByThreeSame) { check_whole(dwise({1, 9, 10, 16}, 1, 3, 1, 1, 1, 1, 1), kNativeBoth, "dw 3x3"); }

TEST(Depthwise, StrideTwoAsymmetric) { check_whole(dwise({1, 10, 10, 8}, 1, 3, 2, 0, 1, 0, 1), kNativeBoth, "dw s2"); }

TEST(Depthwise, FiveByFiveOddChannels) {
  check_whole(dwise({1, 8, 7, 6}, 1, 5, 1, 2, 2, 2, 2), kNativeBoth, "dw 5x5 c6");
}

TEST(Depthwise, PaddingTwoOnThreeByThree) {
  check_whole(dwise({1, 6, 6, 4}, 1, 3, 1, 2, 2, 2, 2), kNativeBoth, "dw 3x3 pad 2");
}

TEST(Depthwise, PerTensorFactors) {
  ConvCase c = dwise({1, 7, 7, 5}, 1, 3, 1, 1, 1, 1, 1);
  c.per_tensor = true;
  check_whole(c, kNativeBoth, "dw per-tensor");
}

TEST(Depthwise, ChannelMultiplier) { check_whole(dwise({1, 6, 7, 3}, 2, 3, 1, 1, 1, 1, 1), kNativeBoth, "dw mult 2"); }

TEST(Depthwise, MultiplierWithBatchIsCmsisOnly) {
  check_whole(dwise({2, 5, 5, 2}, 3, 3, 1, 1, 1, 1, 1), kCmsisOnly, "dw mult 3 batch 2");
}

TEST(Depthwise, DilationFallsBack) {
  ConvCase c = dwise({1, 9, 9, 4}, 1, 3, 1, 2, 2, 2, 2);
  c.dh = c.dw = 2;
  check_whole(c, kFallbackBoth, "dw dilation 2");
}

TEST(ConvBands, RowBandsWithJunkAndSlack) {
  const ConvCase c = conv({1, 12, 9, 6}, 8, 3, 1, 1, 1, 1, 1);
  check_band(c, BandSpec{0, 4, 0, 0, 2, 1, 1}, kNativeBoth, "first band");
  check_band(c, BandSpec{4, 8, 0, 0, 3, 0, 1}, kNativeBoth, "middle band");
  check_band(c, BandSpec{8, 12, 0, 0, 1, 2, 0}, kNativeBoth, "last band");
}

TEST(ConvBands, StrideTwoBands) {
  const ConvCase c = conv({1, 13, 10, 4}, 5, 3, 2, 1, 1, 1, 1);
  check_band(c, BandSpec{0, 3, 0, 0, 1, 0, 0}, kNativeBoth, "s2 first");
  check_band(c, BandSpec{3, 7, 0, 0, 0, 1, 1}, kNativeBoth, "s2 last");
}

TEST(ConvBands, LastBandPaddedOnlyAfter) {
  const ConvCase c = conv({1, 10, 8, 3}, 4, 5, 1, 2, 2, 2, 2);
  check_band(c, BandSpec{7, 10, 0, 0, 1, 0, 0}, kNativeBoth, "5x5 last band");
}

TEST(ConvBands, TwoImagesBanded) {
  ConvCase c = conv({2, 8, 6, 4}, 3, 3, 1, 1, 1, 1, 1);
  c.per_tensor = true;
  check_band(c, BandSpec{2, 6, 0, 0, 2, 1, 1}, kNativeBoth, "batch 2 band");
}

TEST(ConvBands, TwoDimensionalTiles) {
  const ConvCase c = conv({1, 10, 11, 4}, 6, 3, 1, 1, 1, 1, 1);
  check_band(c, BandSpec{0, 4, 0, 5, 1, 0, 0}, kNativeBoth, "top-left tile");
  check_band(c, BandSpec{4, 10, 5, 11, 0, 2, 0}, kNativeBoth, "bottom-right tile");
  check_band(c, BandSpec{3, 7, 3, 8, 0, 0, 0}, kNativeBoth, "inner tile");
}

TEST(DepthwiseBands, RowBandsAndTiles) {
  const ConvCase c = dwise({1, 11, 9, 8}, 1, 3, 1, 1, 1, 1, 1);
  check_band(c, BandSpec{0, 5, 0, 0, 1, 1, 1}, kNativeBoth, "dw first band");
  check_band(c, BandSpec{5, 11, 0, 0, 2, 0, 0}, kNativeBoth, "dw last band");
  check_band(c, BandSpec{2, 6, 4, 9, 0, 0, 0}, kNativeBoth, "dw tile");
}

TEST(DepthwiseBands, MultiplierStrideTwo) {
  const ConvCase c = dwise({1, 12, 8, 3}, 2, 3, 2, 1, 1, 1, 1);
  check_band(c, BandSpec{0, 2, 0, 0, 0, 0, 0}, kNativeBoth, "dw mult s2 first");
  check_band(c, BandSpec{2, 6, 0, 0, 1, 1, 1}, kNativeBoth, "dw mult s2 last");
}

// Unread input rows after a 1x1 window must not reach CMSIS-NN's 1x1 kernel, which derives
// its pixel count from the input extent.
TEST(ConvBands, PointwiseBandWithUnreadRows) {
  const ConvCase c = conv({1, 9, 5, 8}, 6, 1, 1, 0, 0, 0, 0);
  check_band(c, BandSpec{2, 5, 0, 0, 1, 1, 3}, kNativeBoth, "1x1 band, 3 unread rows");
}

// A 1x1 convolution over at most four pixels per image runs in CMSIS-NN's vector-matrix
// kernel (docs/backends.md §2), more runs in its 1x1 convolution: tiles of 1, 2, 3 and 4
// pixels, a 5-pixel row on each side of the limit, whole maps of 4 pixels (two images of
// two), per-tensor factors, an activation clamp and output-channel bands of a one-pixel map.
TEST(ConvBands, FewPixelPointwiseTiles) {
  ConvCase c = conv({1, 5, 6, 16}, 24, 1, 1, 0, 0, 0, 0);
  for (bool per_tensor : {false, true}) {
    c.per_tensor = per_tensor;
    const std::string f = per_tensor ? " per-tensor" : " per-channel";
    check_band(c, BandSpec{2, 3, 1, 2}, kNativeBoth, ("1x1 tile of 1 pixel" + f).c_str());
    check_band(c, BandSpec{0, 1, 4, 6, 1, 1}, kNativeBoth, ("1x1 tile of 2 pixels" + f).c_str());
    check_band(c, BandSpec{4, 5, 0, 3}, kNativeBoth, ("1x1 tile of 3 pixels" + f).c_str());
    check_band(c, BandSpec{1, 3, 2, 4}, kNativeBoth, ("1x1 tile of 2x2 pixels" + f).c_str());
    check_band(c, BandSpec{3, 4, 0, 5}, kNativeBoth, ("1x1 tile of 5 pixels" + f).c_str());
  }
  ConvCase small = conv({2, 1, 2, 8}, 12, 1, 1, 0, 0, 0, 0);
  small.act_min = -20, small.act_max = 40;
  check_whole(small, kNativeBoth, "1x1 two images of 2 pixels, clamped");
  check_whole(conv({1, 2, 2, 7}, 5, 1, 1, 0, 0, 0, 0), kNativeBoth, "1x1 map of 4 pixels");
  check_output_channel_bands(conv({1, 1, 1, 8}, 12, 1, 1, 0, 0, 0, 0), "1x1 one pixel");
}

// A shift of 31 (a channel whose factor is 2^30 or more) is valid for the reference kernels
// but not for the vendors: the adapters check every output channel, per call or — CMSIS-NN,
// for the plan it prepared — once at preparation (plan_factors_in_range), and fall back.
TEST(ConvFactors, ShiftOf31FallsBackWhetherCheckedPerCallOrAtPrepare) {
  BACKENDS_OR_SKIP();
  ConvCase c = conv({1, 6, 5, 3}, 4, 3, 1, 1, 1, 1, 1);
  c.w_scales = {0.01f, 3e9f, 0.02f, 0.03f};  // 0.05 x 3e9 / 0.1 = 1.5e9: a factor in [2^30, 2^31)
  OpPlan p = conv_plan(c, 5);
  const tigris_quant_param_t* q = tigris_tensor_quant(p.plan, &p.plan->tensors[tigris_op_outputs(p.plan, &p.plan->ops[p.op])[0]]);
  ASSERT_NE(q, nullptr);
  ASSERT_EQ(tigris_quant_shifts(p.plan, q)[1], 31) << "the case must hold a shift of 31";
  EXPECT_FALSE(tigris_accel::plan_factors_in_range(p.plan));
  for (const Backend& b : backends()) {
    expect_identical(compare_op(p.plan, p.op, p.bufs, b), false, std::string(b.name) + " shift 31, prepared");
  }
  c.w_scales = {0.01f, 0.5f, 0.02f, 0.03f};
  EXPECT_TRUE(tigris_accel::plan_factors_in_range(conv_plan(c, 5).plan));
}


TEST(ConvBands, OutputChannelBandsRunInCmsisNn) {
  ConvCase c = conv({1, 6, 5, 4}, 9, 3, 1, 1, 1, 1, 1);
  check_output_channel_bands(c, "3x3 per-channel");
  c.per_tensor = true;
  check_output_channel_bands(c, "3x3 per-tensor");
  check_output_channel_bands(conv({1, 5, 4, 8}, 12, 1, 1, 0, 0, 0, 0), "1x1 per-channel");
}

// A depthwise channel band (chan_tiled: channels [chan0, chan0 + chans) of every row and
// column, packed) reads weights, biases and factors at the global channel. CMSIS-NN runs it
// with the band's taps gathered into its scratch when the reservation has room (ESP-NN falls
// back), at band widths 1, 2, 3, 7 and C, per-channel and per-tensor, and the band equals
// those channels of the whole run.
TEST(DepthwiseBands, ChannelBandsRunInCmsisNn) {
  BACKENDS_OR_SKIP();
  for (bool per_tensor : {false, true}) {
    ConvCase c = dwise({1, 6, 5, 8}, 1, 3, 1, 1, 1, 1, 1);
    c.per_tensor = per_tensor;
    const OpPlan p = conv_plan(c, 31);
    constexpr int32_t kPixels = 6 * 5, kC = 8;
    for (int32_t chans : {1, 2, 3, 7, kC}) {
      for (int32_t chan0 : {0, kC - chans, (kC - chans) / 2}) {
        std::vector<Bytes> bufs(2);
        for (int32_t px = 0; px < kPixels; ++px)
          for (int32_t k = 0; k < chans; ++k) bufs[0].push_back(p.bufs[0][(size_t)(px * kC + chan0 + k)]);
        bufs[1] = Bytes((size_t)kPixels * chans, 0x55);
        tigris_tile_ctx_t t{};
        t.active = 1;
        t.chan_tiled = 1;
        t.chan0 = chan0;
        t.chans = chans;
        t.in_h = 6;
        t.out_h = 6;
        t.pad_top = t.pad_bottom = 1;
        for (const Backend& b : backends()) {
          const std::string name = std::string(b.name) + (per_tensor ? " per-tensor" : " per-channel") +
                                   " channel band " + std::to_string(chan0) + "+" + std::to_string(chans);
          const Compared whole = compare_op(p.plan, p.op, p.bufs, b);
          const Compared r = compare_op(p.plan, p.op, bufs, b, t);
          // A whole-width band has dense weights and always runs natively; a narrower one needs
          // room for its gathered taps after the kernel's own scratch in the reservation sized
          // for the whole layer (the DSP build's depthwise buffer leaves it for bands up to
          // about 2/3 of C; the host build, without DSP, reserves none): either route, same bytes.
          if (chans == kC || !b.cmsis) {
            expect_identical(r, b.cmsis, name);
          } else {
            EXPECT_EQ(r.rc_ref, 0) << name;
            EXPECT_EQ(r.rc_acc, 0) << name;
            EXPECT_EQ(r.native + r.fallback, 1u) << name;
            ASSERT_EQ(r.ref.size(), r.acc.size()) << name;
            for (size_t i = 0; i < r.ref.size(); i++) EXPECT_TRUE(r.ref[i] == r.acc[i]) << name;
          }
          ASSERT_EQ(r.acc.size(), 1u);
          for (int32_t px = 0; px < kPixels; ++px)
            for (int32_t k = 0; k < chans; ++k)
              ASSERT_EQ(r.acc[0][(size_t)(px * chans + k)], whole.ref[0][(size_t)(px * kC + chan0 + k)]) << name;
        }
      }
    }
  }
}

// A Conv in a channel band without chan_mix (a separable band) is
// not one the reference takes either: no adapter runs it.
TEST(ConvBands, SeparableBandOfAConvStaysOffTheVendors) {
  BACKENDS_OR_SKIP();
  const OpPlan p = conv_plan(conv({1, 6, 5, 4}, 6, 3, 1, 1, 1, 1, 1), 41);
  tigris_tile_ctx_t t{};
  t.active = 1, t.chan_tiled = 1, t.chan0 = 0, t.chans = 2, t.in_h = 6, t.out_h = 6, t.pad_top = t.pad_bottom = 1;
  const std::vector<Bytes> bufs = {Bytes((size_t)30 * 2, 3), Bytes((size_t)30 * 2, 0x55)};
  for (const Backend& b : backends()) {
    const Compared r = compare_op(p.plan, p.op, bufs, b, t);
    EXPECT_EQ(r.native, 0u) << b.name;
    EXPECT_EQ(r.rc_ref, r.rc_acc) << b.name;
  }
}
