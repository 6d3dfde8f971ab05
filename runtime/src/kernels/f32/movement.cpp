// Byte movement of any dtype: Concat/Split on any axis (pointwise bands on other axes),
// Transpose with any permutation (or a transposed tile), Reshape/Flatten/Squeeze/Unsqueeze.
#include <string.h>

#include "kernels/common/lanes.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

int axis_attr(const Call &c, int rank)
{
    uint8_t len = 0;
    const uint8_t *a = c.attr(TIGRIS_ATTR_AXES, &len);
    return a != nullptr && len == 1 ? a[0] : rank - 1;
}

// The slice [offset, offset + extent) of `v` along `axis`.
kern::View slice_along(kern::View v, int axis, int32_t offset, int32_t extent)
{
    v.data += (int64_t)offset * v.stride[axis] * v.elem;
    v.shape[axis] = extent;
    return v;
}

// A band of `rows` units along `axis` of a tensor of shape `s`, packed at `data`.
kern::View band_along(const void *data, const int32_t *s, uint8_t rank, uint8_t e, int axis, int32_t rows)
{
    int32_t shape[kern::kMaxRank];
    for (uint8_t d = 0; d < rank; ++d) shape[d] = s[d];
    shape[axis] = rows;
    return kern::whole_view(data, shape, rank, e);
}

// A Concat banded along its own axis (concat_tiled): each input's piece into its units of
// the output band.
int concat_band(const Call &c, int axis, uint8_t e)
{
    const tigris_tile_ctx_t &t = c.tile();
    const tigris_tensor_t &out = c.out(0);
    const int32_t *os = c.shape(out);
    if (out.ndim > kern::kMaxRank || t.out_row0 < 0 || t.out_h < 1 || t.out_row0 + t.out_h > os[axis] ||
        c.out_ptr(0) == nullptr)
        return -1;
    // Mode BLOCKS (t_outer > 0): the buffers hold t_outer blocks of the axes before the
    // concat axis, seen as [t_outer, units, cell].
    int32_t cell = 1;
    for (int d = axis + 1; d < out.ndim; ++d) cell *= os[d];
    const int32_t s3[3] = {t.t_outer, 1, cell};
    const bool blocks = t.t_outer > 0;
    const int ax = blocks ? 1 : axis;
    const uint8_t rank = blocks ? 3 : out.ndim;
    const kern::View ov = band_along(c.out_ptr(0), blocks ? s3 : os, rank, e, ax, t.out_h);
    int32_t offset = 0;
    for (uint8_t k = 0; k < c.op->num_inputs; ++k) {
        const tigris_tensor_t &in = c.in(k);
        const int32_t *s = c.shape(in);
        if (in.ndim != out.ndim) return -1;
        const kern::ConcatPiece p = kern::concat_piece(t, offset, s[axis]);
        offset += s[axis];
        if (p.hi <= p.lo) continue;
        if (c.in_ptr(k) == nullptr) return -1;
        const kern::View part = band_along(c.in_ptr(k), blocks ? s3 : s, rank, e, ax, p.hi - p.lo);
        if (kern::copy_view(slice_along(ov, ax, p.lo - t.out_row0, p.hi - p.lo), part) != 0) return -1;
    }
    return offset == os[axis] ? 0 : -1;
}

}  // namespace

int concat_split(const Call &c)
{
    bool split = c.op->op_type == TIGRIS_OP_SPLIT;
    const tigris_tensor_t &whole = split ? c.in(0) : c.out(0);
    int axis = axis_attr(c, whole.ndim);
    if (c.tiled() && c.tile().concat_tiled) {
        if (split || axis >= whole.ndim) return -1;
        return concat_band(c, axis, (uint8_t)tigris_dtype_size(whole.dtype));
    }
    kern::Band band = kern::pointwise_band(c.mem);
    if (whole.ndim == 0 || kern::band_cuts_axis(band, axis)) return -1;
    uint8_t e = (uint8_t)tigris_dtype_size(whole.dtype);
    const int32_t *ws = c.shape(whole);
    const uint8_t *wp = split ? c.in_ptr(0) : c.out_ptr(0);
    if (wp == nullptr) return -1;
    kern::View wv = split ? kern::input_view(band, wp, ws, whole.ndim, e, ws, whole.ndim)
                          : kern::output_view(band, wp, ws, whole.ndim, e);
    uint8_t parts = split ? c.op->num_outputs : c.op->num_inputs;
    int32_t offset = 0;
    for (uint8_t k = 0; k < parts; ++k) {
        const tigris_tensor_t &t = split ? c.out(k) : c.in(k);
        const uint8_t *p = split ? c.out_ptr(k) : c.in_ptr(k);
        if (p == nullptr) return -1;
        const int32_t *s = c.shape(t);
        kern::View part =
            split ? kern::output_view(band, p, s, t.ndim, e) : kern::input_view(band, p, s, t.ndim, e, ws, whole.ndim);
        kern::View sub = slice_along(wv, axis, offset, s[axis]);
        if ((split ? kern::copy_view(part, sub) : kern::copy_view(sub, part)) != 0) return -1;
        offset += s[axis];
    }
    return 0;
}

int transpose(const Call &c)
{
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    const uint8_t *src = c.in_ptr(0);
    uint8_t *dst = c.out_ptr(0);
    uint32_t e = tigris_dtype_size(in.dtype);
    if (src == nullptr || dst == nullptr || e == 0) return -1;
    const tigris_tile_ctx_t &t = c.tile();
    if (t.active) {
        if (!t.transposed_tile || t.t_outer < 0 || t.t_rows < 0 || t.t_cols < 0 || t.t_block < 1) return -1;
        uint64_t item = (uint64_t)e * (uint32_t)t.t_block;
        for (int32_t o = 0; o < t.t_outer; ++o)
            for (int32_t r = 0; r < t.t_rows; ++r)
                for (int32_t k = 0; k < t.t_cols; ++k)
                    memcpy(dst + (((uint64_t)o * t.t_cols + k) * t.t_rows + r) * item,
                           src + (((uint64_t)o * t.t_rows + r) * t.t_cols + k) * item, item);
        return 0;
    }
    uint8_t len = 0;
    const uint8_t *perm = c.attr(TIGRIS_ATTR_TRANSPOSE_PERM, &len);
    if (perm == nullptr || len != in.ndim || src == dst) return -1;
    kern::View iv = kern::whole_view(src, c.shape(in), in.ndim, (uint8_t)e);
    kern::View pv = iv;  // the input read in output axis order
    for (int i = 0; i < in.ndim; ++i) {
        pv.shape[i] = iv.shape[perm[i]];
        pv.stride[i] = iv.stride[perm[i]];
    }
    return kern::copy_view(kern::whole_view(dst, c.shape(out), out.ndim, (uint8_t)e), pv);
}

int reshape(const Call &c)
{
    const uint8_t *src = c.in_ptr(0);
    uint8_t *dst = c.out_ptr(0);
    if (src == nullptr || dst == nullptr) return -1;
    const tigris_tile_ctx_t &t = c.tile();
    if (t.active) {
        if (t.t_block < 1 || t.out_h < 0 || t.in_row_start < 0 || t.out_row_start < 0) return -1;
        uint64_t unit = (uint64_t)t.t_block;
        memmove(dst + unit * (uint32_t)t.out_row_start, src + unit * (uint32_t)t.in_row_start,
                unit * (uint32_t)t.out_h);
        return 0;
    }
    if (src != dst) memmove(dst, src, c.out(0).size_bytes);
    return 0;
}

int constant(const Call &c)
{
    const void *src = c.weight();
    uint8_t *dst = c.out_ptr(0);
    if (src == nullptr || dst == nullptr || c.tiled() || c.weight_bytes() != c.out(0).size_bytes) return -1;
    memcpy(dst, src, c.out(0).size_bytes);
    return 0;
}

}  // namespace f32
}  // namespace tigris_rt
