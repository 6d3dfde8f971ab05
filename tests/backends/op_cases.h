// Single-op int8 plans for the backend tests (built with the int8 kernel tests' PlanFixture)
// and their buffers: convolutions and depthwise convolutions described by a ConvCase, and
// hand-made bands of them (the tile context the executor would pass for a row / column band).
#pragma once

#include <memory>

#include "backend_harness.h"
#include "unit/kernels_s8/s8_fixture.h"

namespace backtest {

struct ConvCase {
  std::vector<int32_t> in;  // NHWC
  int32_t oc = 0;           // output channels (depthwise: C * multiplier)
  uint8_t kh = 3, kw = 3, sh = 1, sw = 1;
  uint16_t pt = 0, pb = 0, pl = 0, pr = 0, dh = 1, dw = 1, group = 1;
  bool depthwise = false, per_tensor = false, bias = true;
  int32_t in_zp = 3, out_zp = -5;
  int8_t act_min = -128, act_max = 127;
  std::vector<float> w_scales;  // empty: a spread of per-channel scales (some shifts > 0)
};

// A built single-op plan with full-size buffers (inputs random, outputs a sentinel).
struct OpPlan {
  std::unique_ptr<s8test::PlanFixture> f = std::make_unique<s8test::PlanFixture>();
  const tigris_plan_t* plan = nullptr;
  uint16_t op = 0;
  std::vector<Bytes> bufs;  // by tensor
  std::vector<int32_t> out_shape;
};

// Output extent of a window axis (floor rule).
int32_t window_out(int32_t in, int32_t k, int32_t s, int32_t d, int32_t pa, int32_t pb);

OpPlan conv_plan(const ConvCase& c, uint32_t seed);

// A band of a conv plan's output: rows [r0, r1) (and, with c1 > c0, columns [c0, c1)),
// its input window copied into a band buffer preceded by `in_row_start` junk rows (plus
// `slack` unread input rows after the window, where the input has them), the output band
// buffer preceded by `out_row_start` rows.
struct BandSpec {
  int32_t r0, r1, c0 = 0, c1 = 0;
  int32_t in_row_start = 0, out_row_start = 0, slack = 0;
};
struct BandRun {
  tigris_tile_ctx_t tile{};
  std::vector<Bytes> bufs;  // by tensor: the band buffers
};
BandRun band_of(const OpPlan& p, const ConvCase& c, const BandSpec& b);

// The output rows / columns of band `b` cut from a full (untiled) output buffer, and the
// same region of the band's output buffer.
Bytes full_region(const OpPlan& p, const Bytes& full_out, const BandSpec& b);
Bytes band_region(const OpPlan& p, const BandRun& r, const Bytes& band_out, const BandSpec& b);

}  // namespace backtest
