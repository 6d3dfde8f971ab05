// Geometry resolution: tensor shapes + tile context -> what a kernel iterates over.
#include "kernels/common/geometry.h"

namespace tigris_rt {
namespace kern {

namespace {

int32_t dil(uint16_t d) { return d == 0 ? 1 : (int32_t)d; }

// Dense strides (elements) of a buffer with dims `dims`.
void dense_strides(const int32_t *dims, uint8_t rank, int64_t *stride)
{
    int64_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
        stride[i] = s;
        s *= dims[i];
    }
}

bool spatial_rank(const Call &call, uint8_t *rank)
{
    const tigris_tensor_t &in = call.in(0), &out = call.out(0);
    if (in.ndim != out.ndim || (in.ndim != 3 && in.ndim != 4)) return false;
    *rank = in.ndim;
    return true;
}

}  // namespace

int spatial_geometry(const Call &call, SpatialGeom *g)
{
    uint8_t rank = 0;
    if (!spatial_rank(call, &rank)) return -1;
    const int32_t *is = call.shape(call.in(0)), *os = call.shape(call.out(0));
    const tigris_spatial_t &sp = call.op->spatial;
    bool wide = rank == 4;
    g->n = is[0];
    g->c_in = is[rank - 1];
    g->c_out = os[rank - 1];
    g->in_h = is[1];
    g->in_w = wide ? is[2] : 1;
    g->out_h = os[1];
    g->out_w = wide ? os[2] : 1;
    g->k_h = sp.kernel_h;
    g->s_h = sp.stride_h;
    g->d_h = dil(sp.dilation_h);
    g->pad_top = sp.pad_top;
    g->pad_bottom = sp.pad_bottom;
    g->k_w = wide ? sp.kernel_w : 1;
    g->s_w = wide ? sp.stride_w : 1;
    g->d_w = wide ? dil(sp.dilation_w) : 1;
    g->pad_left = wide ? sp.pad_left : 0;
    g->pad_right = wide ? sp.pad_right : 0;
    g->in_row_start = g->out_row_start = 0;
    g->chan0 = 0;
    if (call.tiled()) {
        const tigris_tile_ctx_t &t = call.tile();
        g->in_h = t.in_h;
        g->out_h = t.out_h;
        g->pad_top = t.pad_top;
        g->pad_bottom = t.pad_bottom;
        g->in_row_start = t.in_row_start;
        g->out_row_start = t.out_row_start;
        if (t.width_tiled) {
            if (!wide) return -1;
            g->in_w = t.in_w;
            g->out_w = t.out_w;
            g->pad_left = t.pad_left;
            g->pad_right = t.pad_right;
        }
        if (t.chan_tiled && t.chan_mix) {  // output channels [chan0, chan0 + chans) from every input channel
            if (!wide || t.chan0 < 0 || t.chans < 1 || t.chan0 + t.chans > g->c_out) return -1;
            g->chan0 = t.chan0;
            g->c_out = t.chans;
        } else if (t.chan_tiled && t.chan_partial) {  // input channels [chan0, chan0 + chans), every output one
            if (!wide || t.chan0 < 0 || t.chans < 1 || t.chan0 + t.chans > g->c_in) return -1;
            g->chan0 = t.chan0;
            g->c_in = t.chans;
        } else if (t.chan_tiled) {  // channels [chan0, chan0 + chans) of a channel-separable op
            if (!wide || g->c_in != g->c_out || t.chan0 < 0 || t.chans < 1 || t.chan0 + t.chans > g->c_in) return -1;
            g->chan0 = t.chan0;
            g->c_in = g->c_out = t.chans;
        }
        if (g->in_h < 0 || g->out_h < 0 || g->in_w < 1 || g->out_w < 0 || g->in_row_start < 0 || g->out_row_start < 0 ||
            g->pad_top < 0 || g->pad_left < 0)
            return -1;
    }
    if (g->k_h < 1 || g->k_w < 1 || g->s_h < 1 || g->s_w < 1) return -1;
    g->in_row = (int64_t)g->in_w * g->c_in;
    g->in_batch = (int64_t)(g->in_row_start + g->in_h) * g->in_row;
    g->out_row = (int64_t)g->out_w * g->c_out;
    g->out_batch = (int64_t)(g->out_row_start + g->out_h) * g->out_row;
    return 0;
}

int map_geometry(const Call &call, MapGeom *g)
{
    uint8_t rank = 0;
    if (!spatial_rank(call, &rank)) return -1;
    const int32_t *is = call.shape(call.in(0)), *os = call.shape(call.out(0));
    bool wide = rank == 4;
    g->n = is[0];
    g->c_in = is[rank - 1];
    g->c_out = os[rank - 1];
    g->full_in_h = is[1];
    g->full_in_w = wide ? is[2] : 1;
    g->full_out_h = os[1];
    g->full_out_w = wide ? os[2] : 1;
    g->out_row0 = 0, g->out_h = g->full_out_h, g->out_col0 = 0, g->out_w = g->full_out_w;
    g->in_row0 = 0, g->in_h = g->full_in_h, g->in_col0 = 0, g->in_w = g->full_in_w;
    g->in_row_start = g->out_row_start = 0;
    if (call.tiled()) {
        const tigris_tile_ctx_t &t = call.tile();
        g->out_row0 = t.out_row0, g->out_h = t.out_h, g->in_row0 = t.in_row0, g->in_h = t.in_h;
        g->in_row_start = t.in_row_start, g->out_row_start = t.out_row_start;
        if (t.width_tiled) {
            if (!wide) return -1;
            g->out_col0 = t.out_col0, g->out_w = t.out_w, g->in_col0 = t.in_col0, g->in_w = t.in_w;
        }
        if (g->out_row0 < 0 || g->out_h < 0 || g->out_row0 + g->out_h > g->full_out_h || g->in_row0 < 0 ||
            g->in_h < 0 || g->in_row0 + g->in_h > g->full_in_h || g->out_col0 < 0 || g->out_w < 0 ||
            g->out_col0 + g->out_w > g->full_out_w || g->in_col0 < 0 || g->in_w < 0 ||
            g->in_col0 + g->in_w > g->full_in_w || g->in_row_start < 0 || g->out_row_start < 0)
            return -1;
    }
    g->in_row = (int64_t)g->in_w * g->c_in;
    g->in_batch = (int64_t)(g->in_row_start + g->in_h) * g->in_row;
    g->out_row = (int64_t)g->out_w * g->c_out;
    g->out_batch = (int64_t)(g->out_row_start + g->out_h) * g->out_row;
    return 0;
}

#ifndef TIGRIS_NO_BANDS  // else inline in geometry.h
Band pointwise_band(const tigris_mem_t *mem)
{
    Band b{};
    b.row_axis = -1;
    b.col_axis = -1;
    const tigris_tile_ctx_t &t = tile_of(mem);
    if (!t.active) return b;
    b.row_axis = t.row_tiled ? 0 : 1;
    b.rows = t.out_h;
    b.row0 = t.out_row0;
    b.in_row_start = t.in_row_start;
    b.out_row_start = t.out_row_start;
    if (t.width_tiled && !t.row_tiled) {
        b.col_axis = 2;
        b.cols = t.out_w;
        b.col0 = t.out_col0;
        b.in_cols = t.in_w;
        b.out_cols = t.out_w;
    }
    if (t.chan_tiled) {  // rank-4 NHWC: the channels are axis 3; a row-tiled matrix: its columns
        b.col_axis = t.row_tiled ? 1 : 3;
        b.cols = b.in_cols = b.out_cols = t.chans;
        b.col0 = t.chan0;
        b.chans = true;
    }
    return b;
}
#endif

View whole_view(const void *data, const int32_t *shape, uint8_t rank, uint8_t elem)
{
    View v{};
    v.data = static_cast<uint8_t *>(const_cast<void *>(data));
    v.rank = rank;
    v.elem = elem;
    for (uint8_t i = 0; i < rank; ++i) v.shape[i] = shape[i];
    dense_strides(shape, rank, v.stride);
    return v;
}

namespace {

// Cuts axis `ra` (rows) and `ca` (columns) of a view; `row_start` rows precede the band in
// the buffer, whose column count is `cols_buf`.
View banded_view(const Band &b, const void *data, const int32_t *shape, uint8_t rank, uint8_t elem, int ra, int ca,
                 int32_t row_start, int32_t cols_buf)
{
    View v = whole_view(data, shape, rank, elem);
    int32_t dims[kMaxRank];
    for (uint8_t i = 0; i < rank; ++i) dims[i] = shape[i];
    if (ra >= 0) {
        v.shape[ra] = b.rows;
        dims[ra] = row_start + b.rows;
        v.origin[ra] = b.row0;
    }
    if (ca >= 0) {
        v.shape[ca] = b.cols;
        dims[ca] = cols_buf;
        v.origin[ca] = b.col0;
    }
    dense_strides(dims, rank, v.stride);
    if (ra >= 0) v.data += (int64_t)row_start * v.stride[ra] * elem;
    return v;
}

}  // namespace

#ifndef TIGRIS_NO_BANDS  // else whole views, inline in geometry.h
View output_view(const Band &b, const void *data, const int32_t *shape, uint8_t rank, uint8_t elem)
{
    int ra = b.row_axis >= 0 && b.row_axis < rank ? b.row_axis : -1;
    int ca = b.col_axis >= 0 && b.col_axis < rank ? b.col_axis : -1;
    return banded_view(b, data, shape, rank, elem, ra, ca, b.out_row_start, b.out_cols);
}

View input_view(const Band &b, const void *data, const int32_t *shape, uint8_t rank, uint8_t elem,
                const int32_t *out_shape, uint8_t out_rank)
{
    int off = (int)out_rank - (int)rank;
    int ra = -1, ca = -1;
    if (off >= 0 && b.row_axis >= 0 && b.row_axis < out_rank) {
        int a = b.row_axis - off;
        if (a >= 0 && shape[a] == out_shape[b.row_axis]) ra = a;
    }
    if (off >= 0 && b.col_axis >= 0 && b.col_axis < out_rank && (ra >= 0 || !b.chans)) {
        int a = b.col_axis - off;  // channel bands: only a row-banded input holds a channel band
        if (a >= 0 && shape[a] == out_shape[b.col_axis]) ca = a;
    }
    return banded_view(b, data, shape, rank, elem, ra, ca, b.in_row_start, b.in_cols);
}

#endif

View rows_view(const void *data, const int32_t *shape, uint8_t rank, uint8_t elem, int axis, int32_t rows,
               int32_t row_start)
{
    Band b{};
    b.row_axis = (int8_t)axis;
    b.col_axis = -1;
    b.rows = rows;
    return banded_view(b, data, shape, rank, elem, axis, -1, row_start, 0);
}

#ifndef TIGRIS_NO_BANDS  // else inline in geometry.h
RowBand row_band(const tigris_mem_t *mem, int32_t full_rows)
{
    RowBand r{full_rows, 0, 0, false};
    const tigris_tile_ctx_t &t = tile_of(mem);
    if (t.active && t.row_tiled) r = RowBand{t.out_h, t.in_row_start, t.out_row_start, true};
    return r;
}

ReduceBand reduce_band(const tigris_mem_t *mem)
{
    ReduceBand r{};
    const tigris_tile_ctx_t &t = tile_of(mem);
    if (!t.active || t.reduce_acc == nullptr) return r;
    r.active = true;
    r.first = t.reduce_first != 0;
    r.last = t.reduce_last != 0;
    r.in_h = t.in_h;
    r.in_row_start = t.in_row_start;
    r.flat = t.reduce_flat != 0;
    r.flat_start = t.in_row0;
    r.acc = t.reduce_acc;
    return r;
}
#endif

}  // namespace kern
}  // namespace tigris_rt
