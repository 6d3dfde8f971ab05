// Geometry resolution shared by the float and int8 kernels: tensor shapes plus the tile
// context (tigris_mem.h) -> the extents, paddings, buffer strides and global offsets a
// kernel iterates over. Every kernel takes its geometry from here, so the banding contract
// of docs/operators.md §2 lives in one place.
#pragma once

#include <stdint.h>

#include "common/features.h"
#include "common/op_attribute.h"
#include "tigris.h"
#include "tigris_mem.h"

namespace tigris_rt {
namespace kern {

constexpr int kMaxRank = 8;

// The tile context the kernels read. A build without bands (TIGRIS_NO_BANDS) never sets one
// (its executor runs no banded stage and its dispatchers refuse an active context,
// tile_ctx_usable), so its kernels read a constant empty context and the compiler drops
// every banded path of every kernel.
inline constexpr tigris_tile_ctx_t kNoTile{};
inline const tigris_tile_ctx_t &tile_of(const tigris_mem_t *mem) { return bands_built() ? mem->tile : kNoTile; }
// False for an active tile context in a build without bands: a dispatcher answers -1.
inline bool tile_ctx_usable(const tigris_mem_t *mem) { return bands_built() || mem->tile.active == 0; }

// One kernel invocation.
struct Call {
    const tigris_plan_t *plan;
    const tigris_op_t *op;
    uint16_t op_index;
    tigris_mem_t *mem;

    uint16_t in_index(uint8_t i) const { return tigris_op_inputs(plan, op)[i]; }
    uint16_t out_index(uint8_t i) const { return tigris_op_outputs(plan, op)[i]; }
    const tigris_tensor_t &in(uint8_t i) const { return plan->tensors[in_index(i)]; }
    const tigris_tensor_t &out(uint8_t i) const { return plan->tensors[out_index(i)]; }
    const int32_t *shape(const tigris_tensor_t &t) const { return tigris_tensor_shape(plan, &t); }
    const uint8_t *in_ptr(uint8_t i) const { return static_cast<const uint8_t *>(mem->tensor_ptrs[in_index(i)]); }
    uint8_t *out_ptr(uint8_t i) const { return static_cast<uint8_t *>(mem->tensor_ptrs[out_index(i)]); }
    const tigris_tile_ctx_t &tile() const { return tile_of(mem); }
    bool tiled() const { return tile_of(mem).active != 0; }
    const uint8_t *attr(uint8_t kind, uint8_t *len) const
    {
#ifdef TIGRIS_NO_BANDS  // one call per op: share the loader's copy of the lookup
        return op_attribute(plan, op_index, kind, len);
#else  // kernels run per band: the lookup inline, without a call per tile
        return tigris_op_attribute_data(plan, op_index, kind, len);
#endif
    }
    const void *weight() const { return tigris_op_weight(plan, op); }
    const void *bias() const { return tigris_op_bias(plan, op); }
    uint32_t weight_bytes() const { return plan->weight_entries[op->weight_idx].size_bytes; }
};

// ---- Sliding-window ops (Conv, Depthwise, Conv1D, pools) ---------------------------------
// Output row r (0 <= r < out_h) of batch n lives at out + n*out_batch + (out_row_start + r)*out_row;
// it reads window rows iy = r*s_h - pad_top + kh*d_h, valid when 0 <= iy < in_h, at buffer row
// in_row_start + iy. Columns likewise with pad_left and in_w (rank 3 tensors have one column).
struct SpatialGeom {
    int32_t n, c_in, c_out;
    int32_t in_h, in_w, out_h, out_w;
    int32_t k_h, k_w, s_h, s_w, d_h, d_w;
    int32_t pad_top, pad_bottom, pad_left, pad_right;
    int32_t in_row_start, out_row_start;
    int32_t chan0;  // channel bands: global channel of buffer channel 0 (c_in = c_out = the band's;
                    // chan_mix: c_out the band's output channels, c_in every input channel;
                    // chan_partial: c_in the band's input channels, c_out every output channel)
    int64_t in_batch, in_row, out_batch, out_row;  // strides in elements (pixel stride = c)
};
// 0, or -1 when the tensors are not rank 3/4 or the tile context is inconsistent.
int spatial_geometry(const Call &call, SpatialGeom *g);

// ---- Output-to-input maps through global indices (ConvTranspose, Resize) ------------------
// Computes output rows [out_row0, out_row0 + out_h) (global) of a full output of full_out_h rows
// into buffer rows out_row_start..; the input buffer holds global rows [in_row0, in_row0 + in_h)
// from buffer row in_row_start. Columns likewise (in_col0/out_col0; buffers of in_w/out_w columns).
struct MapGeom {
    int32_t n, c_in, c_out;
    int32_t full_in_h, full_in_w, full_out_h, full_out_w;
    int32_t out_row0, out_h, out_col0, out_w;
    int32_t in_row0, in_h, in_col0, in_w;
    int32_t in_row_start, out_row_start;
    int64_t in_batch, in_row, out_batch, out_row;
};
int map_geometry(const Call &call, MapGeom *g);

// ---- Strided views of whole or banded tensors (pointwise ops) -----------------------------
// Element (local coordinates l) of a view is at data + Σ l_i*stride_i elements; its global
// coordinate is origin_i + l_i.
struct View {
    uint8_t *data;
    uint8_t rank;
    uint8_t elem;  // bytes per element
    int32_t shape[kMaxRank];
    int64_t stride[kMaxRank];
    int32_t origin[kMaxRank];
};

// The band of a pointwise call: which axis is cut into rows (1 for stripes, 0 for row_tiled
// matrices, -1 untiled) and, with width_tiled, axis 2 into columns.
struct Band {
    int8_t row_axis;
    int32_t rows, row0, in_row_start, out_row_start;
    int8_t col_axis;
    int32_t cols, col0, in_cols, out_cols;
    bool chans;  // col_axis is the channel axis of a channel band (only row-banded inputs are cut)
};
#ifdef TIGRIS_NO_BANDS
// No band in this build: the empty band, inline so that each kernel's banded branches fold away.
inline Band pointwise_band(const tigris_mem_t *)
{
    Band b{};
    b.row_axis = -1;
    b.col_axis = -1;
    return b;
}
#else
Band pointwise_band(const tigris_mem_t *mem);
#endif

// A Concat banded along its own axis (tile.concat_tiled): the output band is units
// [o0, o0 + rows) of the axis; an input covering output units [offset, offset + extent)
// holds its share [lo, hi) of them (empty: hi <= lo), at band units lo - o0.
struct ConcatPiece {
    int32_t lo, hi;
};
inline ConcatPiece concat_piece(const tigris_tile_ctx_t &t, int32_t offset, int32_t extent)
{
    const int32_t o0 = t.out_row0, o1 = t.out_row0 + t.out_h;
    return ConcatPiece{o0 > offset ? o0 : offset, o1 < offset + extent ? o1 : offset + extent};
}

// Whole tensor (or constant) of `shape`, dense, origin 0.
View whole_view(const void *data, const int32_t *shape, uint8_t rank, uint8_t elem);
// Output `t` of the op under `band` (a band-shaped view, origin at the band's global row/col).
#ifdef TIGRIS_NO_BANDS  // every band is the whole tensor
inline View output_view(const Band &, const void *data, const int32_t *shape, uint8_t rank, uint8_t elem)
{
    return whole_view(data, shape, rank, elem);
}
#else
View output_view(const Band &band, const void *data, const int32_t *shape, uint8_t rank, uint8_t elem);
#endif
// Input tensor under `band`, aligned right against an output of rank `out_rank` and full shape
// `out_shape`: banded when its aligned row extent equals the output's, else whole.
#ifdef TIGRIS_NO_BANDS
inline View input_view(const Band &, const void *data, const int32_t *shape, uint8_t rank, uint8_t elem,
                       const int32_t *, uint8_t)
{
    return whole_view(data, shape, rank, elem);
}
#else
View input_view(const Band &band, const void *data, const int32_t *shape, uint8_t rank, uint8_t elem,
                const int32_t *out_shape, uint8_t out_rank);
#endif
// Input rows [row_start, row_start + rows) of axis `axis` in a buffer holding row_start + rows
// rows (by-input reduction bands).
View rows_view(const void *data, const int32_t *shape, uint8_t rank, uint8_t elem, int axis, int32_t rows,
               int32_t row_start);
// True when a band cuts axis `axis` of a tensor of rank `rank` (ops that work along that axis
// cannot run banded).
inline bool band_cuts_axis(const Band &band, int axis) { return band.row_axis == axis || band.col_axis == axis; }

// Row-tiled matrices: first row and count of the banded operand (0 and all when untiled).
struct RowBand {
    int32_t rows, in_row_start, out_row_start;
    bool active;
};
#ifdef TIGRIS_NO_BANDS
inline RowBand row_band(const tigris_mem_t *, int32_t full_rows) { return RowBand{full_rows, 0, 0, false}; }
#else
RowBand row_band(const tigris_mem_t *mem, int32_t full_rows);
#endif

// By-input reduction band: input rows [in_row_start, in_row_start + in_h) of axis 1, or
// (flat) input elements [flat_start, flat_start + in_h) in memory order.
struct ReduceBand {
    bool active, first, last, flat;
    int32_t in_h, in_row_start, flat_start;
    void *acc;  // float (float kernels) or int32 (int8 kernels), one per output element
};
#ifdef TIGRIS_NO_BANDS
inline ReduceBand reduce_band(const tigris_mem_t *) { return ReduceBand{}; }
#else
ReduceBand reduce_band(const tigris_mem_t *mem);
#endif

// Visits `count` input elements from flat index `start` (a tensor of `rank` dims `shape`) in
// memory order: fn(o, k) with o the flat index of the output element (keepdims layout:
// the `reduced` axes of extent 1) element k (0 <= k < count, its position in the band)
// reduces into. A reduction that combines each element into its output's accumulator
// in this order sees every output's inputs in the whole kernel's (row-major) order.
template <typename Fn>
void for_each_flat(const int32_t *shape, uint8_t rank, const bool *reduced, int64_t start, int64_t count, Fn fn)
{
    int64_t stride[kMaxRank], idx[kMaxRank], o = 0, kept = 1;
    for (int a = rank - 1; a >= 0; --a) {
        stride[a] = reduced[a] ? 0 : kept;
        if (!reduced[a]) kept *= shape[a];
    }
    int64_t rest = start;
    for (int a = rank - 1; a >= 0; --a) {
        idx[a] = rest % shape[a];
        rest /= shape[a];
        o += idx[a] * stride[a];
    }
    for (int64_t k = 0; k < count; ++k) {
        fn(o, k);
        for (int a = rank - 1; a >= 0; --a) {  // the odometer: next element in memory order
            o += stride[a];
            if (++idx[a] < shape[a]) break;
            o -= stride[a] * shape[a];
            idx[a] = 0;
        }
    }
}

}  // namespace kern
}  // namespace tigris_rt
