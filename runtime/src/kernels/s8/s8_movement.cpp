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

// Copy the elements of src (same dims as dst) into dst through r.
void copy_view(const View &src, const View &dst, const Requantizer &r)
{
    const int8_t *x = (const int8_t *)src.base;
    int8_t *y = (int8_t *)dst.base;
    for_each_element(dst, &src, nullptr, [&](int32_t oo, int32_t io, int32_t) { y[oo] = r(x[io]); });
}

bool int8_io(const Operand &in, const Operand &out)
{
    return in.dtype == TIGRIS_DTYPE_INT8 && out.dtype == TIGRIS_DTYPE_INT8;
}

}  // namespace

// RESHAPE / FLATTEN / SQUEEZE / UNSQUEEZE: the bytes in order. A banded call copies
// out_h * t_block bytes from byte in_row_start * t_block to byte out_row_start * t_block.
int copy(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t, tigris_mem_t *mem)
{
    Operand in, out;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (!int8_io(in, out) || in.elements != out.elements) return kError;
    const Requantizer r = requantizer(in, out);
    const int8_t *x = (const int8_t *)in.data;
    int8_t *y = (int8_t *)out.data;
    uint32_t n = out.elements;
    const tigris_tile_ctx_t &tile = mem->tile;
    if (tile.active) {
        if (tile.out_h <= 0 || tile.t_block <= 0 || tile.in_row_start < 0 || tile.out_row_start < 0)
            return kError;
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

// CONCATENATION along the AXES attribute's axis (default: the last axis).
int concat(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    Operand out;
    View vo;
    if (output_operand(plan, op, mem, 0, &out) || out.dtype != TIGRIS_DTYPE_INT8 || out.rank == 0) return kError;
    if (band_view(out, mem->tile, true, &vo)) return kError;
    uint8_t len = 0;
    const uint8_t *axes = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_AXES, &len);
    const int axis = axes != nullptr && len >= 1 ? axes[0] : out.rank - 1;
    if (axis >= out.rank) return kError;
    if (mem->tile.active && axis == (out.rank >= 3 ? 1 : 0)) return kError;  // bands cut the concat axis
    int32_t offset = 0;
    for (int i = 0; i < op->num_inputs; i++) {
        Operand in;
        View vi;
        if (input_operand(plan, op, mem, i, &in) || in.dtype != TIGRIS_DTYPE_INT8 || in.rank != out.rank)
            return kError;
        for (int d = 0; d < out.rank; d++) {
            if (d != axis && in.dims[d] != out.dims[d]) return kError;
        }
        if (offset + in.dims[axis] > out.dims[axis]) return kError;
        if (band_view(in, mem->tile, false, &vi)) return kError;
        View dst = vo;  // the slab of the output this input fills
        dst.dims[axis] = vi.dims[axis];
        dst.base = vo.base + (int64_t)offset * vo.strides[axis];
        copy_view(vi, dst, requantizer(in, out));
        offset += in.dims[axis];
    }
    return offset == out.dims[axis] ? 0 : kError;
}

// PAD / PADV2 with the PADS attribute (i32 leading pads of every axis, then trailing;
// negative pads crop). The fill is ALPHA quantized with the output's parameters (PADV2's
// constant value), else the output's zero point (TFLite PAD).
int pad(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    Operand in, out;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (!int8_io(in, out) || in.rank != out.rank || mem->tile.active) return kError;
    uint8_t len = 0;
    const uint8_t *pads = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_PADS, &len);
    if (pads == nullptr || len < 8 * in.rank) return kError;
    const uint8_t *alpha = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_ALPHA, &len);
    const int8_t fill = alpha != nullptr && len >= 4 ? quantize_value(read_f32(alpha), out.scale, out.zero_point)
                                                     : clamp_s8(out.zero_point);
    View vo, vi;
    const tigris_tile_ctx_t whole = {};
    if (band_view(out, whole, true, &vo) || band_view(in, whole, false, &vi)) return kError;
    memset(out.data, (uint8_t)fill, out.elements);
    View src = vi, dst = vo;  // the part of the input that lands inside the output
    for (int d = 0; d < in.rank; d++) {
        const int32_t lead = read_i32(pads + 4 * d);
        const int32_t trail = read_i32(pads + 4 * (in.rank + d));
        if ((int64_t)in.dims[d] + lead + trail != out.dims[d]) return kError;
        const int32_t lo = lead > 0 ? lead : 0;
        const int32_t hi = lead + in.dims[d] < out.dims[d] ? lead + in.dims[d] : out.dims[d];
        if (hi <= lo) return 0;  // everything cropped: all fill
        dst.dims[d] = src.dims[d] = hi - lo;
        dst.base += (int64_t)lo * vo.strides[d];
        src.base += (int64_t)(lo - lead) * vi.strides[d];
    }
    copy_view(src, dst, requantizer(in, out));
    return 0;
}

// TRANSPOSE by TRANSPOSE_PERM (out axis d = in axis perm[d]); banded calls with
// transposed_tile swap t_outer blocks of [t_rows, t_cols] elements of t_block bytes.
int transpose(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    Operand in, out;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (!int8_io(in, out) || in.rank != out.rank || in.elements != out.elements) return kError;
    const Requantizer r = requantizer(in, out);
    const tigris_tile_ctx_t &tile = mem->tile;
    if (tile.active) {
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
    const uint8_t *perm = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_TRANSPOSE_PERM, &len);
    if (perm == nullptr || len != in.rank) return kError;
    View vi, vo, src;
    tigris_tile_ctx_t whole = {};
    if (band_view(in, whole, false, &vi) || band_view(out, whole, true, &vo)) return kError;
    src = vo;
    src.base = vi.base;
    for (int d = 0; d < in.rank; d++) {
        if (perm[d] >= in.rank || in.dims[perm[d]] != out.dims[d]) return kError;
        src.strides[d] = vi.strides[perm[d]];
    }
    copy_view(src, vo, r);
    return 0;
}

// STRIDED_SLICE by MOVEMENT: (start, end, step) per input axis, then an optional
// shrink-axis bit mask; output extents come from the output tensor.
int strided_slice(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    Operand in, out;
    if (input_operand(plan, op, mem, 0, &in) || output_operand(plan, op, mem, 0, &out)) return kError;
    if (!int8_io(in, out) || mem->tile.active || in.rank == 0) return kError;
    uint8_t len = 0;
    const uint8_t *mv = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_MOVEMENT, &len);
    if (mv == nullptr || len < 12 * in.rank) return kError;
    const int32_t shrink = len >= 12 * in.rank + 4 ? read_i32(mv + 12 * in.rank) : 0;
    View vi, vo, src;
    tigris_tile_ctx_t whole = {};
    if (band_view(in, whole, false, &vi) || band_view(out, whole, true, &vo)) return kError;
    src = vo;
    src.base = vi.base;
    int od = 0;
    for (int d = 0; d < in.rank; d++) {
        int32_t start = read_i32(mv + 12 * d);
        const int32_t step = read_i32(mv + 12 * d + 8);
        if (start < 0) start += in.dims[d];
        if (step == 0 || start < 0 || start >= in.dims[d]) return kError;
        src.base += (int64_t)start * vi.strides[d];
        if (shrink & (1 << d)) continue;
        if (od >= out.rank) return kError;
        const int64_t last = start + (int64_t)(out.dims[od] - 1) * step;
        if (last < 0 || last >= in.dims[d]) return kError;
        src.strides[od] = vi.strides[d] * step;
        od++;
    }
    if (od != out.rank) return kError;
    copy_view(src, vo, requantizer(in, out));
    return 0;
}

}  // namespace tigris_s8
