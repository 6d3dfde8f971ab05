// Input-channel bands of a KxK Conv (CHANNELS mode INPUT, rank-4 form): a block of output rows
// is kept in fast memory while bands of input channels of the input rows it reads (halo
// included) are loaded one after another and their products added; the block is spilled after
// its last band. The float Conv sums channels in aligned blocks of TIGRIS_CONV_CHANNEL_BLOCK
// (taps inside), so bands of whole blocks give the whole op's floats: banded equals whole bit
// for bit, and both match a double-precision reference. Peaks, loads and tile counts are
// hand-derived; records that break the identity or state other facts are refused.
#include <algorithm>
#include <cmath>

#include "bands_fixture.h"

using namespace bandtest;

namespace chaninconv {

tigris_tile_plan_v11_t in_chans(uint32_t rows, uint16_t channels) {
  return record(TIGRIS_TILE_AXIS_HEIGHT, rows, TIGRIS_BAND_KIND_CHANNELS, channels, 0, TIGRIS_CHANNELS_MODE_INPUT);
}

struct Case {
  std::vector<int32_t> in;  // NHWC
  int32_t oc;
  tigris_spatial_t sp;
};

int32_t out_extent(int32_t in, uint32_t k, uint32_t s, uint32_t d, uint32_t pa, uint32_t pb) {
  return spatial_out(TIGRIS_OP_CONV, in, k, s, d, pa, pb);
}

// x -> Conv (OC, fused activation) -> y, one stage stated by `rec`; weights and bias whose
// products round, so a sum in another order differs in its last bits.
PlanDesc conv_plan(const Case& c, const tigris_tile_plan_v11_t& rec, uint8_t act) {
  PlanDesc p = spatial_plan(SpatialCase{c.in, TIGRIS_OP_CONV, c.sp, c.oc, false, false, false}, rec);
  p.ops[0].fused_act = act;
  const int32_t icg = c.in.back() / (c.sp.group ? c.sp.group : 1);
  std::vector<float> w((size_t)c.oc * c.sp.kernel_h * c.sp.kernel_w * icg), b((size_t)c.oc);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::sin(0.37f * (float)i + 0.1f) * 0.731f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = std::cos(0.9f * (float)i) * 0.413f;
  p.ops[0].weight = add_weight(p, w);
  p.ops[0].bias = add_weight(p, b);
  return p;
}

std::vector<float> input_values(const std::vector<int32_t>& in) {
  size_t n = 1;
  for (int32_t v : in) n *= (size_t)v;
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = std::cos(1.3f * (float)i) * 2.17f - 0.3f;
  return v;
}

// The Conv in double precision, straight from the ONNX definition (NHWC, OHWI weights).
std::vector<double> reference(const Case& c, uint8_t act) {
  const int32_t N = c.in[0], H = c.in[1], W = c.in[2], C = c.in[3];
  const tigris_spatial_t& s = c.sp;
  const int32_t dh = s.dilation_h ? s.dilation_h : 1, dw = s.dilation_w ? s.dilation_w : 1;
  const int32_t OH = out_extent(H, s.kernel_h, s.stride_h, dh, s.pad_top, s.pad_bottom);
  const int32_t OW = out_extent(W, s.kernel_w, s.stride_w, dw, s.pad_left, s.pad_right);
  const std::vector<float> x = input_values(c.in);
  std::vector<double> y((size_t)N * OH * OW * c.oc);
  for (int32_t n = 0; n < N; ++n)
    for (int32_t oy = 0; oy < OH; ++oy)
      for (int32_t ox = 0; ox < OW; ++ox)
        for (int32_t o = 0; o < c.oc; ++o) {
          double acc = (double)(std::cos(0.9f * (float)o) * 0.413f);
          for (int32_t ky = 0; ky < s.kernel_h; ++ky)
            for (int32_t kx = 0; kx < s.kernel_w; ++kx) {
              const int32_t iy = oy * s.stride_h - s.pad_top + ky * dh, ix = ox * s.stride_w - s.pad_left + kx * dw;
              if (iy < 0 || iy >= H || ix < 0 || ix >= W) continue;
              for (int32_t ch = 0; ch < C; ++ch) {
                const size_t wi = (((size_t)o * s.kernel_h + ky) * s.kernel_w + kx) * C + ch;
                const float w = std::sin(0.37f * (float)wi + 0.1f) * 0.731f;
                acc += (double)x[(((size_t)n * H + iy) * W + ix) * C + ch] * (double)w;
              }
            }
          if (act == TIGRIS_ACT_RELU) acc = std::max(acc, 0.0);
          if (act == TIGRIS_ACT_RELU6) acc = std::min(std::max(acc, 0.0), 6.0);
          y[(((size_t)n * OH + oy) * OW + ox) * c.oc + o] = acc;
        }
  return y;
}

// Input bytes the bands load: for each block of `rows` output rows, the input rows its windows
// read (clipped to [0, H)) x W x C floats x N, every channel once per block.
uint64_t loaded_bytes(const Case& c, uint32_t rows) {
  const tigris_spatial_t& s = c.sp;
  const int32_t dh = s.dilation_h ? s.dilation_h : 1, H = c.in[1];
  const int32_t OH = out_extent(H, s.kernel_h, s.stride_h, dh, s.pad_top, s.pad_bottom);
  uint64_t total = 0;
  for (int32_t o0 = 0; o0 < OH; o0 += (int32_t)rows) {
    const int32_t o1 = std::min<int32_t>(o0 + (int32_t)rows, OH);
    const int32_t i0 = std::max(0, o0 * s.stride_h - s.pad_top);
    const int32_t i1 = std::min(H, (o1 - 1) * s.stride_h - s.pad_top + (s.kernel_h - 1) * dh + 1);
    total += (uint64_t)(i1 - i0) * c.in[0] * c.in[2] * c.in[3] * 4;
  }
  return total;
}

void check_case(const Case& c, uint32_t rows, uint16_t cols, uint8_t act, const std::string& what) {
  const PlanDesc p = conv_plan(c, in_chans(rows, cols), act);
  const tigris_tile_facts_t& f = p.tile_plans[0].facts;
  const tigris_spatial_t& s = c.sp;
  const int32_t dh = s.dilation_h ? s.dilation_h : 1, dw = s.dilation_w ? s.dilation_w : 1;
  const int32_t OH = out_extent(c.in[1], s.kernel_h, s.stride_h, dh, s.pad_top, s.pad_bottom);
  const int32_t OW = out_extent(c.in[2], s.kernel_w, s.stride_w, dw, s.pad_left, s.pad_right);
  const int32_t C = c.in[3], eff = (s.kernel_h - 1) * dh + 1;
  ASSERT_EQ(f.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT)) << what;
  EXPECT_EQ(f.band_axis, 1u) << what;
  EXPECT_EQ(f.original_extent, (uint32_t)OH) << what;
  EXPECT_EQ(f.halo, (uint32_t)std::max(0, eff - s.stride_h)) << what;
  const uint32_t r = std::min<uint32_t>(rows, OH), w = std::min<uint32_t>(cols, C);
  const uint32_t tiles = ((OH + r - 1) / r) * ((C + w - 1) / w);
  EXPECT_EQ(f.num_tiles, tiles) << what;
  const RunResult res = expect_banded_equals_whole(p, {float_bytes(input_values(c.in))}, what);
  ASSERT_EQ(res.rc, TIGRIS_EXEC_OK) << what;
  EXPECT_EQ(stage_paths(res), std::vector<uint8_t>{TIGRIS_PATH_CHANNELS}) << what;
  EXPECT_EQ(res.stats.total_tiles, tiles) << what;
  EXPECT_EQ(res.stats.loads_bytes, loaded_bytes(c, r)) << what;
  EXPECT_EQ(res.stats.spills_bytes, (uint64_t)c.in[0] * OH * OW * c.oc * 4) << what;  // each output once
  const std::vector<float> got = as_floats(res.outputs[0]);
  const std::vector<double> want = reference(c, act);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    ASSERT_NEAR(got[i], want[i], 1e-5 * (1.0 + std::fabs(want[i]))) << what << " element " << i;
}

// Widths the identity allows on C = 10 (4, 8: whole blocks; 10 and wider: every channel) and on
// C = 3 (3 = C, 4), row blocks of 1, 2, 3 and all, strides 1 and 2, padding (asymmetric),
// dilation, a strided 1x1 and a padded 2x2 window, two batches; with and without an activation.
TEST(ChannelInConv, KxKBandsEqualWholeAndTheReference) {
  const std::vector<Case> cases = {
      {{1, 7, 6, 10}, 5, window(3, 3, 1, 1, 1, 1, 1, 1)},       {{1, 9, 7, 10}, 6, window(3, 3, 2, 2, 1, 0, 0, 1)},
      {{1, 8, 8, 10}, 4, window(3, 3, 1, 1, 2, 2, 2, 2, 2, 2)}, {{1, 9, 6, 10}, 3, window(5, 3, 2, 1, 2, 1, 1, 1)},
      {{1, 7, 7, 10}, 5, window(1, 1, 2, 2, 0, 0, 0, 0)},       {{1, 5, 5, 10}, 5, window(2, 2, 1, 1, 1, 1, 1, 1)},
      {{2, 6, 5, 10}, 7, window(3, 2, 1, 1, 1, 1, 0, 1)},
  };
  for (size_t k = 0; k < cases.size(); ++k)
    for (uint8_t act : {TIGRIS_ACT_NONE, TIGRIS_ACT_RELU6})
      for (uint32_t rows : {1u, 2u, 3u, 64u})
        for (uint16_t cols : {4, 8, 10, 16}) {
          const std::string what = "case " + std::to_string(k) + ", " + std::to_string(rows) + " rows x " +
                                   std::to_string(cols) + " input channels" + (act ? " relu6" : "");
          check_case(cases[k], rows, cols, act, what);
        }
  // Three input channels: one block, bands of 3 (every channel) or 4.
  for (uint16_t cols : {3, 4})
    check_case({{1, 6, 6, 3}, 8, window(3, 3, 2, 2, 1, 1, 1, 1)}, 2, cols, TIGRIS_ACT_RELU, "3 channels");
  // Without a bias: the first band starts from zero.
  PlanDesc nb = conv_plan(cases[0], in_chans(2, 4), TIGRIS_ACT_NONE);
  nb.ops[0].bias = TIGRIS_NONE;
  expect_banded_equals_whole(nb, {float_bytes(input_values(cases[0].in))}, "no bias");
}

// x [1, 8, 8, 16] -> 3x3 Conv (stride 1, pads 1; 8 output channels), blocks of 2 output rows,
// bands of 4 input channels. A block keeps 2 x 8 x 8 floats (512 B); its band is the input rows
// its windows read x 8 columns x 4 channels: 3 rows at the edges (128 B per row), 4 inside:
// peak al(512) + al(512) = 1024 B (whole: x 4096 + y 2048). Loads: 3 + 4 + 4 + 3 = 14 rows of
// 8 x 16 floats = 7168 B; 4 blocks x 4 bands = 16 tiles.
TEST(ChannelInConv, PeakIsAnOutputRowBlockAndOneBandOfItsInputRows) {
  const Case c{{1, 8, 8, 16}, 8, window(3, 3, 1, 1, 1, 1, 1, 1)};
  PlanDesc p = conv_plan(c, in_chans(2, 4), TIGRIS_ACT_RELU);
  set_scheduled_peak(p);
  EXPECT_EQ(p.scheduled_peak, al(2 * 8 * 8 * 4) + al(4 * 8 * 4 * 4));
  EXPECT_EQ(p.scheduled_peak, 1024u);
  const std::vector<Bytes> in = {float_bytes(input_values(c.in))};
  const RunResult r = run_plan(p, in);
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(r.fast_peak, p.scheduled_peak);
  EXPECT_EQ(r.stats.total_tiles, 16u);
  EXPECT_EQ(r.stats.loads_bytes, 14u * 8 * 16 * 4);
  EXPECT_EQ(r.stats.spills_bytes, 8u * 8 * 8 * 4);
  RunOptions tight;
  tight.fast = (uint32_t)p.scheduled_peak - 1;
  EXPECT_NE(run_plan(p, in, tight).rc, TIGRIS_EXEC_OK);
  // Stride 2, one output row (4 x 8 floats = 128 B) and one block of 4 channels: output row o
  // reads input rows 2o - 1 .. 2o + 1 (2 rows at the top, else 3): peak al(128) + al(3 x 8 x 4
  // x 4 = 384) = 512 B.
  const Case s2{{1, 8, 8, 16}, 8, window(3, 3, 2, 2, 1, 1, 1, 1)};
  PlanDesc q = conv_plan(s2, in_chans(1, 4), TIGRIS_ACT_NONE);
  set_scheduled_peak(q);
  EXPECT_EQ(q.scheduled_peak, al(4 * 8 * 4) + al(3 * 8 * 4 * 4));
  const RunResult rq = run_plan(q, in);
  ASSERT_EQ(rq.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(rq.fast_peak, q.scheduled_peak);
  EXPECT_EQ(rq.stats.total_tiles, 4u * 4u);
  EXPECT_EQ(rq.stats.loads_bytes, (2u + 3 + 3 + 3) * 8 * 16 * 4);
}

// Records the loader refuses (TILE_FACTS): widths that cut a channel block (1, 2, 3, C - 1 =
// 9 on C = 10), the pixel-matrix facts of a 1x1, a wrong extent, halo or tile count, a grouped
// Conv, an int8 Conv, a window with an output row of padding only.
TEST(ChannelInConv, RecordsThatBreakTheIdentityOrStateOtherFactsAreRefused) {
  Loaded f;
  const Case c{{1, 6, 5, 10}, 4, window(3, 3, 1, 1, 1, 1, 1, 1)};
  const PlanDesc ok = conv_plan(c, in_chans(2, 4), TIGRIS_ACT_NONE);
  load(ok, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  for (uint16_t cols : {1, 2, 3, 5, 9}) {
    PlanDesc p = ok;
    p.tile_plans[0].choices.tile_width = cols;
    p.tile_plans[0].facts.num_tiles = 3u * ((10u + cols - 1) / cols);  // what the count would be
    load(p, &f);
    EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS) << cols << " channels";
  }
  PlanDesc wrong = ok;
  wrong.tile_plans[0].facts.original_extent = 30;  // pixels: the 1x1 form's extent
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  wrong = ok;
  wrong.tile_plans[0].facts.band_axis = 0;
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  wrong = ok;
  wrong.tile_plans[0].facts.halo = 0;
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  wrong = ok;
  wrong.tile_plans[0].facts.num_tiles = 3;  // row blocks only
  load(wrong, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // Grouped (2 groups of 5 channels): the stated facts of the one-group Conv.
  PlanDesc g = ok;
  g.ops[0].spatial.group = 2;
  g.ops[0].weight = add_weight(g, std::vector<float>(4 * 9 * 5, 0.125f));
  load(g, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // int8: stated with the float Conv's facts.
  PlanDesc q =
      spatial_plan(SpatialCase{c.in, TIGRIS_OP_CONV, c.sp, c.oc, false, false, true},
                   record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_CHANNELS, 4, 0, TIGRIS_CHANNELS_MODE_OUTPUT));
  load(q, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  q.tile_plans[0] = ok.tile_plans[0];
  load(q, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // Pads of 3 on a 3x3 window: output row 0 reads padding only.
  const Case pad{{1, 4, 4, 4}, 4, window(3, 3, 1, 1, 3, 3, 1, 1)};
  PlanDesc pp =
      conv_plan(pad, record(TIGRIS_TILE_AXIS_HEIGHT, 1, TIGRIS_BAND_KIND_CHANNELS, 4, 0, TIGRIS_CHANNELS_MODE_OUTPUT),
                TIGRIS_ACT_NONE);
  load(pp, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  pp.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CHANNELS, TIGRIS_CHANNELS_MODE_INPUT);
  pp.tile_plans[0].facts.num_tiles = 8;  // 8 output rows x one band of the 4 input channels
  load(pp, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
}

// The access rule of mode INPUT (TILE_BAND): the Conv reads its input in boxes, so that input
// must be a stage input (loaded from slow memory), not one the stage does not list.
TEST(ChannelInConv, AnInputTheStageDoesNotLoadIsRefused) {
  Loaded f;
  const Case c{{1, 6, 5, 8}, 4, window(3, 3, 1, 1, 1, 1, 1, 1)};
  PlanDesc p = conv_plan(c, in_chans(2, 4), TIGRIS_ACT_NONE);
  load(p, &f);
  ASSERT_EQ(f.err, TIGRIS_OK);
  const uint16_t z = add_tensor(p, "z", {1, 6, 5, 8}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_FLOAT32);
  p.model_inputs.push_back(z);
  p.stages[0].inputs = {z};
  load(p, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_BAND);
}

}  // namespace chaninconv
