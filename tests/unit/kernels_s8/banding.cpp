#include "banding.h"

#include <algorithm>

namespace s8test {
namespace {

constexpr int8_t kJunk = 0x5A;  // fills buffer rows a kernel must neither read nor write

struct Dims4 {
  int32_t n, h, w, c;
};

Dims4 nhwc(const tigris_plan_t* p, uint16_t t) {
  const tigris_tensor_t& r = p->tensors[t];
  const int32_t* s = tigris_tensor_shape(p, &r);
  if (r.ndim == 4) return {s[0], s[1], s[2], s[3]};
  if (r.ndim == 3) return {s[0], s[1], 1, s[2]};
  return {1, s[0], 1, r.ndim == 2 ? s[1] : 1};  // rank 2: [rows, cols]
}

// Copy rows [r0, r1) x cols [c0, c1) of every batch of `src` (dims sd) into `dst`
// (rows dst_rows, cols dst_cols) starting at dst row `dr`, col 0.
void gather(const Bytes& src, Dims4 sd, int32_t r0, int32_t r1, int32_t c0, int32_t c1, Bytes* dst, int32_t dst_rows,
            int32_t dst_cols, int32_t dr) {
  for (int32_t n = 0; n < sd.n; n++)
    for (int32_t r = r0; r < r1; r++)
      for (int32_t c = c0; c < c1; c++)
        for (int32_t ch = 0; ch < sd.c; ch++)
          (*dst)[(((size_t)n * dst_rows + dr + r - r0) * dst_cols + (c - c0)) * sd.c + ch] =
              src[(((size_t)n * sd.h + r) * sd.w + c) * sd.c + ch];
}

// The reverse: rows [sr, sr + (r1 - r0)) of `src` into rows [r0, r1), cols [c0, c1) of `dst`.
void scatter(const Bytes& src, int32_t src_rows, int32_t src_cols, int32_t sr, Bytes* dst, Dims4 dd, int32_t r0,
             int32_t r1, int32_t c0, int32_t c1) {
  for (int32_t n = 0; n < dd.n; n++)
    for (int32_t r = r0; r < r1; r++)
      for (int32_t c = c0; c < c1; c++)
        for (int32_t ch = 0; ch < dd.c; ch++)
          (*dst)[(((size_t)n * dd.h + r) * dd.w + c) * dd.c + ch] =
              src[(((size_t)n * src_rows + sr + r - r0) * src_cols + (c - c0)) * dd.c + ch];
}

// Input extent [i0, i1) of output range [o0, o1) on one axis, clamped, with paddings.
struct AxisBand {
  int32_t lo, hi, pad_a, pad_b;
};
AxisBand input_band(int32_t o0, int32_t o1, int32_t stride, int32_t pad, int32_t ek, int32_t size) {
  const int32_t i0 = o0 * stride - pad, i1 = (o1 - 1) * stride - pad + ek;
  AxisBand b;
  b.lo = std::max(i0, 0);
  b.hi = std::min(i1, size);
  b.pad_a = b.lo - i0;
  b.pad_b = i1 - b.hi;
  return b;
}

}  // namespace

bool run_spatial_banded(PlanFixture& f, uint16_t op, uint16_t in, const Bytes& x, uint16_t out, const BandOptions& o,
                        Bytes* y) {
  const tigris_plan_t* p = f.plan();
  const tigris_spatial_t& s = p->ops[op].spatial;
  const Dims4 id = nhwc(p, in), od = nhwc(p, out);
  const bool rank4 = p->tensors[in].ndim == 4;
  const int32_t ek_h = (s.kernel_h - 1) * (s.dilation_h ? s.dilation_h : 1) + 1;
  const int32_t ek_w = rank4 ? (s.kernel_w - 1) * (s.dilation_w ? s.dilation_w : 1) + 1 : 1;
  const int32_t sw = rank4 ? s.stride_w : 1;
  const bool width_tiled = o.band_w > 0 && rank4;
  const int32_t step_w = width_tiled ? o.band_w : od.w;
  y->assign((size_t)od.n * od.h * od.w * od.c, 0);
  for (int32_t o0 = 0; o0 < od.h; o0 += o.band_h) {
    const int32_t o1 = std::min(o0 + o.band_h, od.h);
    const AxisBand rb = input_band(o0, o1, s.stride_h, s.pad_top, ek_h, id.h);
    for (int32_t q0 = 0; q0 < od.w; q0 += step_w) {
      const int32_t q1 = std::min(q0 + step_w, od.w);
      AxisBand cb{0, id.w, 0, 0};
      if (width_tiled) cb = input_band(q0, q1, sw, s.pad_left, ek_w, id.w);
      const int32_t in_h = rb.hi - rb.lo, in_w = cb.hi - cb.lo, out_h = o1 - o0, out_w = q1 - q0;
      const int32_t in_rows = o.in_row_start + in_h, out_rows = o.out_row_start + out_h;
      Bytes ib((size_t)id.n * in_rows * in_w * id.c + 1, kJunk);
      Bytes ob((size_t)od.n * out_rows * out_w * od.c + 1, kJunk);
      gather(x, id, rb.lo, rb.hi, cb.lo, cb.hi, &ib, in_rows, in_w, o.in_row_start);
      tigris_tile_ctx_t t{};
      t.active = 1;
      t.width_tiled = width_tiled;
      t.in_h = in_h;
      t.out_h = out_h;
      t.in_w = in_w;
      t.out_w = out_w;
      t.pad_top = rb.pad_a;
      t.pad_bottom = rb.pad_b;
      t.pad_left = cb.pad_a;
      t.pad_right = cb.pad_b;
      t.in_row_start = o.in_row_start;
      t.out_row_start = o.out_row_start;
      t.out_row0 = o0;
      t.out_col0 = q0;
      t.in_row0 = rb.lo;
      t.in_col0 = cb.lo;
      f.bind(in, ib.data());
      f.bind(out, ob.data());
      if (f.run(op, t) != 0) return false;
      if (ob.back() != kJunk) return false;  // wrote past its buffer
      scatter(ob, out_rows, out_w, o.out_row_start, y, od, o0, o1, q0, q1);
    }
  }
  return true;
}

bool run_pointwise_banded(PlanFixture& f, uint16_t op, const std::vector<uint16_t>& in_tensors,
                          const std::vector<Bytes>& inputs, uint16_t out, const BandOptions& o, Bytes* y) {
  const tigris_plan_t* p = f.plan();
  const Dims4 od = nhwc(p, out);
  const bool row_tiled = p->tensors[out].ndim == 2;
  y->assign((size_t)od.n * od.h * od.w * od.c, 0);
  for (int32_t o0 = 0; o0 < od.h; o0 += o.band_h) {
    const int32_t o1 = std::min(o0 + o.band_h, od.h), out_h = o1 - o0;
    std::vector<Bytes> bufs(in_tensors.size());
    for (size_t i = 0; i < in_tensors.size(); i++) {
      const Dims4 id = nhwc(p, in_tensors[i]);
      const bool banded = p->tensors[in_tensors[i]].ndim == p->tensors[out].ndim && id.h == od.h && od.h > 1;
      if (!banded) {
        bufs[i] = inputs[i];
      } else {
        const int32_t rows = o.in_row_start + out_h;
        bufs[i].assign((size_t)id.n * rows * id.w * id.c, kJunk);
        gather(inputs[i], id, o0, o1, 0, id.w, &bufs[i], rows, id.w, o.in_row_start);
      }
      f.bind(in_tensors[i], bufs[i].data());
    }
    const int32_t out_rows = o.out_row_start + out_h;
    Bytes ob((size_t)od.n * out_rows * od.w * od.c + 1, kJunk);
    f.bind(out, ob.data());
    tigris_tile_ctx_t t{};
    t.active = 1;
    t.row_tiled = row_tiled;
    t.in_h = out_h;
    t.out_h = out_h;
    t.in_w = t.out_w = od.w;
    t.in_row_start = o.in_row_start;
    t.out_row_start = o.out_row_start;
    t.out_row0 = o0;
    t.in_row0 = o0;
    if (f.run(op, t) != 0) return false;
    if (ob.back() != kJunk) return false;
    scatter(ob, out_rows, od.w, o.out_row_start, y, od, o0, o1, 0, od.w);
  }
  return true;
}

bool run_reduce_banded(PlanFixture& f, uint16_t op, uint16_t in, const Bytes& x, uint16_t out, int32_t band_in_h,
                       Bytes* y) {
  const tigris_plan_t* p = f.plan();
  const Dims4 id = nhwc(p, in);
  std::vector<int32_t> acc((size_t)id.n * id.c, 0x12345678);
  y->assign(p->tensors[out].size_bytes, kJunk);
  f.bind(out, y->data());
  for (int32_t i0 = 0; i0 < id.h; i0 += band_in_h) {
    const int32_t i1 = std::min(i0 + band_in_h, id.h);
    Bytes ib((size_t)id.n * (i1 - i0) * id.w * id.c, kJunk);
    gather(x, id, i0, i1, 0, id.w, &ib, i1 - i0, id.w, 0);
    f.bind(in, ib.data());
    tigris_tile_ctx_t t{};
    t.active = 1;
    t.in_h = i1 - i0;
    t.out_h = 1;
    t.in_w = t.out_w = id.w;
    t.reduce_first = i0 == 0;
    t.reduce_last = i1 == id.h;
    t.reduce_acc = acc.data();
    if (f.run(op, t) != 0) return false;
  }
  return true;
}

}  // namespace s8test
