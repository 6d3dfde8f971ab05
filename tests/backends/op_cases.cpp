// Single-op conv plans and hand-made bands (op_cases.h).
#include "op_cases.h"

#include <algorithm>
#include <cstring>

namespace backtest {

int32_t window_out(int32_t in, int32_t k, int32_t s, int32_t d, int32_t pa, int32_t pb) {
  const int32_t eff = (k - 1) * (d ? d : 1) + 1;
  return (in + pa + pb - eff) / s + 1;
}

namespace {

std::vector<float> weight_scales(const ConvCase& c) {
  if (!c.w_scales.empty()) return c.w_scales;
  if (c.per_tensor) return {0.02f};
  std::vector<float> s;
  for (int32_t i = 0; i < c.oc; i++) s.push_back(i % 5 == 4 ? 3.0f + 0.1f * (float)i : 0.004f * (float)(1 + i % 7));
  return s;
}

std::vector<int32_t> bias_values(int32_t n, uint32_t seed) {
  std::vector<int32_t> b((size_t)n);
  const Bytes r = bytes((size_t)n * 2, seed);
  for (int32_t i = 0; i < n; i++) b[(size_t)i] = (int32_t)r[(size_t)(2 * i)] * 40 + r[(size_t)(2 * i + 1)];
  return b;
}

}  // namespace

OpPlan conv_plan(const ConvCase& c, uint32_t seed) {
  OpPlan p;
  s8test::PlanFixture& f = *p.f;
  const int32_t n = c.in[0], h = c.in[1], w = c.in[2], ic = c.in[3];
  const int32_t oh = window_out(h, c.kh, c.sh, c.dh, c.pt, c.pb), ow = window_out(w, c.kw, c.sw, c.dw, c.pl, c.pr);
  p.out_shape = {n, oh, ow, c.oc};
  const float in_scale = 0.05f, out_scale = 0.1f;
  const uint16_t qi = f.quant(in_scale, c.in_zp);
  const uint16_t qo = f.conv_quant(in_scale, weight_scales(c), out_scale, c.out_zp);
  const uint16_t x = f.tensor(c.in, TIGRIS_DTYPE_INT8, qi), y = f.tensor(p.out_shape, TIGRIS_DTYPE_INT8, qo);
  p.op = f.op(c.depthwise ? TIGRIS_OP_DEPTHWISE : TIGRIS_OP_CONV, {x}, {y});
  tigris_op_t& o = f.op_record(p.op);
  o.spatial = tigris_spatial_t{
      c.kh, c.kw, c.sh, c.sw, c.pt, c.pb, c.pl, c.pr, c.dh, c.dw, c.depthwise ? (uint16_t)ic : c.group};
  o.act_min = c.act_min;
  o.act_max = c.act_max;
  const size_t taps = (size_t)c.kh * c.kw;
  const size_t wn = c.depthwise ? taps * (size_t)c.oc : taps * (size_t)c.oc * (size_t)(ic / c.group);
  o.weight_idx = f.weight_i8(bytes(wn, seed, -127, 127));
  if (c.bias) o.bias_idx = f.weight_i32(bias_values(c.oc, seed + 7));
  p.plan = f.finalize();
  p.bufs.resize(2);
  p.bufs[x] = bytes((size_t)n * h * w * ic, seed + 1);
  p.bufs[y] = Bytes((size_t)n * oh * ow * c.oc, 0x55);
  return p;
}

namespace {

// One axis of a band: input window [i0, i1) of an input of `in` for outputs [o0, o1).
struct AxisBand {
  int32_t i0, i1, pad_before, pad_after;
};

AxisBand axis_band(int32_t in, int32_t o0, int32_t o1, int32_t k, int32_t s, int32_t d, int32_t pad, int32_t slack) {
  const int32_t eff = (k - 1) * d + 1;
  const int32_t first = o0 * s - pad, end = (o1 - 1) * s - pad + eff;
  AxisBand a;
  a.i0 = std::max(0, first);
  a.i1 = std::min(in, std::min(in, end) + slack);
  a.pad_before = a.i0 - first;
  a.pad_after = std::max(0, end - a.i1);
  return a;
}

}  // namespace

BandRun band_of(const OpPlan& p, const ConvCase& c, const BandSpec& b) {
  const int32_t n = c.in[0], h = c.in[1], w = c.in[2], ic = c.in[3], ow = p.out_shape[2], oc = c.oc;
  const bool wide = b.c1 > b.c0;
  const AxisBand rows = axis_band(h, b.r0, b.r1, c.kh, c.sh, c.dh, c.pt, b.slack);
  const AxisBand cols = wide ? axis_band(w, b.c0, b.c1, c.kw, c.sw, c.dw, c.pl, 0) : AxisBand{0, w, c.pl, c.pr};
  BandRun r;
  tigris_tile_ctx_t& t = r.tile;
  t.active = 1;
  t.width_tiled = wide ? 1 : 0;
  t.in_h = rows.i1 - rows.i0, t.in_w = cols.i1 - cols.i0;
  t.out_h = b.r1 - b.r0, t.out_w = wide ? b.c1 - b.c0 : ow;
  t.pad_top = rows.pad_before, t.pad_bottom = rows.pad_after;
  t.pad_left = cols.pad_before, t.pad_right = cols.pad_after;
  t.in_row_start = b.in_row_start, t.out_row_start = b.out_row_start;
  t.in_row0 = rows.i0, t.in_col0 = cols.i0, t.out_row0 = b.r0, t.out_col0 = wide ? b.c0 : 0;
  const int32_t in_rows = b.in_row_start + t.in_h, out_rows = b.out_row_start + t.out_h;
  Bytes in = bytes((size_t)n * in_rows * t.in_w * ic, 99);  // junk rows stay junk
  const Bytes& full = p.bufs[0];
  for (int32_t bn = 0; bn < n; bn++)
    for (int32_t r = 0; r < t.in_h; r++)
      std::memcpy(&in[(((size_t)bn * in_rows + b.in_row_start + r) * t.in_w) * ic],
                  &full[(((size_t)bn * h + rows.i0 + r) * w + cols.i0) * ic], (size_t)t.in_w * ic);
  r.bufs = {in, Bytes((size_t)n * out_rows * t.out_w * oc, 0x55)};
  return r;
}

Bytes full_region(const OpPlan& p, const Bytes& full_out, const BandSpec& b) {
  const int32_t n = p.out_shape[0], oh = p.out_shape[1], ow = p.out_shape[2], oc = p.out_shape[3];
  const int32_t c0 = b.c1 > b.c0 ? b.c0 : 0, c1 = b.c1 > b.c0 ? b.c1 : ow;
  Bytes v;
  for (int32_t bn = 0; bn < n; bn++)
    for (int32_t r = b.r0; r < b.r1; r++) {
      const size_t at = (((size_t)bn * oh + r) * ow + c0) * oc;
      v.insert(v.end(), full_out.begin() + (long)at, full_out.begin() + (long)(at + (size_t)(c1 - c0) * oc));
    }
  return v;
}

Bytes band_region(const OpPlan& p, const BandRun& r, const Bytes& band_out, const BandSpec& b) {
  const int32_t n = p.out_shape[0], oc = p.out_shape[3];
  const int32_t rows = r.tile.out_row_start + r.tile.out_h;
  const size_t row = (size_t)r.tile.out_w * oc;
  Bytes v;
  for (int32_t bn = 0; bn < n; bn++)
    for (int32_t k = 0; k < r.tile.out_h; k++) {
      const size_t at = ((size_t)bn * rows + b.out_row_start + k) * row;
      v.insert(v.end(), band_out.begin() + (long)at, band_out.begin() + (long)(at + row));
    }
  return v;
}

}  // namespace backtest
