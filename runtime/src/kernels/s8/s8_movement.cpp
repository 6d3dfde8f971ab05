// int8 data movement: RESHAPE / FLATTEN / SQUEEZE / UNSQUEEZE (copy), CONCATENATION,
// PAD / PADV2, TRANSPOSE and STRIDED_SLICE. TFLite moves bytes and requires equal
// quantization on both sides; where a plan's quantizations differ we requantize each
// value with MBQM(x - zx, m, s) + zy (m, s of sx/sy), TFLite's Requantize formula.
#include <string.h>

#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_s8 {
namespace {

// The value map from one operand's quantization to the output's.
struct Requantizer {
    bool active = false;
    int32_t zx = 0, zy = 0, m = 0;
    int shift = 0;
    int8_t operator()(int8_t x) const
    {
        if (!active) return x;
        return clamp_s8(wrap_add(multiply_by_quantized_multiplier(x - zx, m, shift), zy));
    }
};

Requantizer requantizer(const Operand &from, const Operand &to)
{
    Requantizer r;
    if (!from.quantized || !to.quantized || same_quant(from, to)) return r;
    r.active = true;
    r.zx = from.zero_point;
    r.zy = to.zero_point;
    rescale_multiplier(from.scale, to.scale, &r.m, &r.shift);
    return r;
}

// dst <- src (src broadcast against dst's coordinates) through r.
int copy_through(const kern::View &dst, const kern::View &src, const Requantizer &r)
{
    if (!r.active) return kern::copy_view(dst, src);
    return kern::for_each_position(dst, src, [&](uint8_t *o, uint8_t *i) { *(int8_t *)o = r(*(const int8_t *)i); });
}

bool int8_io(const Operand &in, const Operand &out)
{
    return in.dtype == TIGRIS_DTYPE_INT8 && out.dtype == TIGRIS_DTYPE_INT8;
}

// A sub-block of `v`: `count` elements of axis a from local index `first`.
void narrow(kern::View *v, int a, int32_t first, int32_t count)
{
    v->data += (int64_t)first * v->stride[a] * v->elem;
    v->shape[a] = count;
}

}  // namespace

// RESHAPE / FLATTEN / SQUEEZE / UNSQUEEZE: the bytes in order. A banded call copies
// out_h * t_block bytes from byte in_row_start * t_block to byte out_row_start * t_block.
int copy(const Call &c)
{
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    if (!int8_io(in, out) || in.elements != out.elements) return kError;
    const Requantizer r = requantizer(in, out);
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    uint32_t n = out.elements;
    const tigris_tile_ctx_t &tile = c.tile();
    if (c.tiled()) {
        if (tile.out_h < 0 || tile.t_block <= 0 || tile.in_row_start < 0 || tile.out_row_start < 0) return kError;
        x += (int64_t)tile.in_row_start * tile.t_block;
        y += (int64_t)tile.out_row_start * tile.t_block;
        n = (uint32_t)tile.out_h * (uint32_t)tile.t_block;
    }
    if (!r.active) {
        if (x != y) memmove(y, x, n);
        return 0;
    }
    for (uint32_t i = 0; i < n; i++) y[i] = r(x[i]);
    return 0;
}

namespace {

// A band of `rows` units along `axis` of an operand, packed at its buffer; with `blocks` > 0
// (CONCAT mode BLOCKS) only that many blocks of the axes before it: [blocks, rows, cell].
kern::View band_along(const Operand &o, int axis, int32_t rows, int32_t blocks = 0)
{
    if (blocks > 0) {
        int32_t cell = 1;
        for (int d = axis + 1; d < o.rank; d++) cell *= o.shape[d];
        const int32_t s3[3] = {blocks, rows, cell};
        return kern::whole_view(o.data, s3, 3, 1);
    }
    int32_t shape[kMaxRank];
    for (int d = 0; d < o.rank; d++) shape[d] = o.shape[d];
    shape[axis] = rows;
    return kern::whole_view(o.data, shape, o.rank, 1);
}

// CONCATENATION banded along its own axis (concat_tiled): each input's piece, requantized
// to the output's parameters where they differ, into its units of the output band.
int concat_band(const Call &c, const Operand &out, int axis)
{
    const tigris_tile_ctx_t &t = c.tile();
    if (out.rank > kMaxRank || t.out_row0 < 0 || t.out_h < 1 || t.out_row0 + t.out_h > out.shape[axis]) return kError;
    const kern::View vo = band_along(out, axis, t.out_h, t.t_outer);
    const int ax = t.t_outer > 0 ? 1 : axis;  // the concat axis of the views
    int32_t offset = 0;
    for (int i = 0; i < c.op->num_inputs; i++) {
        Operand in;
        if (input_operand(c, i, &in) || in.dtype != TIGRIS_DTYPE_INT8 || in.rank != out.rank) return kError;
        const kern::ConcatPiece p = kern::concat_piece(t, offset, in.shape[axis]);
        offset += in.shape[axis];
        if (p.hi <= p.lo) continue;
        kern::View dst = vo;
        narrow(&dst, ax, p.lo - t.out_row0, p.hi - p.lo);
        if (copy_through(dst, band_along(in, axis, p.hi - p.lo, t.t_outer), requantizer(in, out))) return kError;
    }
    return offset == out.shape[axis] ? 0 : kError;
}

}  // namespace

// CONCATENATION along the AXES attribute's axis (default: the last axis).
int concat(const Call &c)
{
    Operand out;
    if (output_operand(c, 0, &out) || out.dtype != TIGRIS_DTYPE_INT8 || out.rank == 0) return kError;
    uint8_t len = 0;
    const uint8_t *axes = c.attr(TIGRIS_ATTR_AXES, &len);
    const int axis = axes != nullptr && len >= 1 ? axes[0] : out.rank - 1;
    if (c.tiled() && c.tile().concat_tiled) return axis < out.rank ? concat_band(c, out, axis) : kError;
    const kern::Band band = kern::pointwise_band(c.mem);
    if (axis >= out.rank || kern::band_cuts_axis(band, axis)) return kError;
    const kern::View vo = kern::output_view(band, out.data, out.shape, out.rank, 1);
    int32_t offset = 0;
    for (int i = 0; i < c.op->num_inputs; i++) {
        Operand in;
        if (input_operand(c, i, &in) || in.dtype != TIGRIS_DTYPE_INT8 || in.rank != out.rank) return kError;
        for (int d = 0; d < out.rank; d++) {
            if (d != axis && in.shape[d] != out.shape[d]) return kError;
        }
        if (offset + in.shape[axis] > out.shape[axis]) return kError;
        const kern::View vi = kern::input_view(band, in.data, in.shape, in.rank, 1, out.shape, out.rank);
        kern::View dst = vo;  // the slab of the output this input fills
        narrow(&dst, axis, offset, in.shape[axis]);
        if (copy_through(dst, vi, requantizer(in, out))) return kError;
        offset += in.shape[axis];
    }
    return offset == out.shape[axis] ? 0 : kError;
}

// PAD / PADV2 with the PADS attribute (i32 leading pads of every axis, then trailing;
// negative pads crop). The fill is ALPHA quantized with the output's parameters (PADV2's
// constant value), else the output's zero point (TFLite PAD).
int pad(const Call &c)
{
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    if (!int8_io(in, out) || in.rank != out.rank || c.tiled()) return kError;
    uint8_t len = 0;
    const uint8_t *pads = c.attr(TIGRIS_ATTR_PADS, &len);
    if (pads == nullptr || len < 8 * in.rank) return kError;
    const uint8_t *alpha = c.attr(TIGRIS_ATTR_ALPHA, &len);
    const int8_t fill = alpha != nullptr && len >= 4 ? quantize_value(rd_f32(alpha), out.scale, out.zero_point)
                                                     : clamp_s8(out.zero_point);
    memset(out.data, (uint8_t)fill, out.elements);
    kern::View dst = kern::whole_view(out.data, out.shape, out.rank, 1);  // the part the input lands in
    kern::View src = kern::whole_view(in.data, in.shape, in.rank, 1);
    for (int d = 0; d < in.rank; d++) {
        const int32_t lead = rd_i32(pads + 4 * d);
        const int32_t trail = rd_i32(pads + 4 * (in.rank + d));
        if ((int64_t)in.shape[d] + lead + trail != out.shape[d]) return kError;
        const int32_t lo = lead > 0 ? lead : 0;
        const int32_t hi = lead + in.shape[d] < out.shape[d] ? lead + in.shape[d] : out.shape[d];
        if (hi <= lo) return 0;  // everything cropped: all fill
        narrow(&dst, d, lo, hi - lo);
        narrow(&src, d, lo - lead, hi - lo);
    }
    return copy_through(dst, src, requantizer(in, out));
}

// TRANSPOSE by TRANSPOSE_PERM (out axis d = in axis perm[d]); banded calls with
// transposed_tile swap t_outer blocks of [t_rows, t_cols] items of t_block elements.
int transpose(const Call &c)
{
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    if (!int8_io(in, out) || in.rank != out.rank || in.elements != out.elements) return kError;
    const Requantizer r = requantizer(in, out);
    const tigris_tile_ctx_t &tile = c.tile();
    if (c.tiled()) {
        if (!tile.transposed_tile || tile.t_outer <= 0 || tile.t_rows <= 0 || tile.t_cols <= 0 || tile.t_block <= 0)
            return kError;
        const int8_t *x = (const int8_t *)in.data;
        int8_t *y = (int8_t *)out.data;
        for (int32_t o = 0; o < tile.t_outer; o++) {
            for (int32_t i = 0; i < tile.t_rows; i++) {
                for (int32_t j = 0; j < tile.t_cols; j++) {
                    const int64_t src = (((int64_t)o * tile.t_rows + i) * tile.t_cols + j) * tile.t_block;
                    const int64_t dst = (((int64_t)o * tile.t_cols + j) * tile.t_rows + i) * tile.t_block;
                    for (int32_t k = 0; k < tile.t_block; k++) y[dst + k] = r(x[src + k]);
                }
            }
        }
        return 0;
    }
    uint8_t len = 0;
    const uint8_t *perm = c.attr(TIGRIS_ATTR_TRANSPOSE_PERM, &len);
    if (perm == nullptr || len != in.rank) return kError;
    const kern::View vi = kern::whole_view(in.data, in.shape, in.rank, 1);
    kern::View src = kern::whole_view(out.data, out.shape, out.rank, 1);  // out's shape, in's strides
    src.data = vi.data;
    for (int d = 0; d < in.rank; d++) {
        if (perm[d] >= in.rank || in.shape[perm[d]] != out.shape[d]) return kError;
        src.stride[d] = vi.stride[perm[d]];
    }
    return copy_through(kern::whole_view(out.data, out.shape, out.rank, 1), src, r);
}

// STRIDED_SLICE by MOVEMENT: (start, end, step) per input axis, then an optional
// shrink-axis bit mask; output extents come from the output tensor. Banded (no shrink), the
// band's axes are taken whole: the output band reads the same band of the input.
int strided_slice(const Call &c)
{
    Operand in, out;
    if (input_operand(c, 0, &in) || output_operand(c, 0, &out)) return kError;
    if (!int8_io(in, out) || in.rank == 0) return kError;
    uint8_t len = 0;
    const uint8_t *mv = c.attr(TIGRIS_ATTR_MOVEMENT, &len);
    if (mv == nullptr || len < 12 * in.rank) return kError;
    const int32_t shrink = len >= 12 * in.rank + 4 ? rd_i32(mv + 12 * in.rank) : 0;
    const kern::Band band = kern::pointwise_band(c.mem);
    if (c.tiled() && (shrink != 0 || out.rank != in.rank)) return kError;
    const kern::View vi = kern::input_view(band, in.data, in.shape, in.rank, 1, in.shape, in.rank);
    const kern::View vo = kern::output_view(band, out.data, out.shape, out.rank, 1);
    kern::View src = vo;  // out's shape, stepping through in
    src.data = vi.data;
    int od = 0;
    for (int d = 0; d < in.rank; d++) {
        int32_t start = rd_i32(mv + 12 * d);
        const int32_t step = rd_i32(mv + 12 * d + 8);
        if (kern::band_cuts_axis(band, d)) {  // the loader's band rule: taken whole
            if (start != 0 || step != 1) return kError;
            src.stride[od++] = vi.stride[d];
            continue;
        }
        if (start < 0) start += in.shape[d];
        if (step == 0 || start < 0 || start >= in.shape[d]) return kError;
        src.data += (int64_t)start * vi.stride[d];
        if (shrink & (1 << d)) continue;
        if (od >= out.rank) return kError;
        const int64_t last = start + (int64_t)(out.shape[od] - 1) * step;
        if (last < 0 || last >= in.shape[d]) return kError;
        src.stride[od] = vi.stride[d] * step;
        od++;
    }
    if (od != out.rank) return kError;
    return copy_through(vo, src, requantizer(in, out));
}

}  // namespace tigris_s8
