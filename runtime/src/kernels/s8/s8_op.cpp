// Operand access and band geometry of the int8 kernels (see s8_op.h).
#include "kernels/s8/s8_op.h"

#include <string.h>

namespace tigris_s8 {
namespace {

int fill_operand(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t index, Operand *o)
{
    if (plan == nullptr || plan->header == nullptr || mem == nullptr) return kError;
    if (index >= plan->header->num_tensors) return kError;
    const tigris_tensor_t *t = &plan->tensors[index];
    if (t->ndim > kMaxRank) return kError;
    *o = Operand();
    o->index = index;
    o->dtype = t->dtype;
    o->rank = t->ndim;
    const int32_t *shape = tigris_tensor_shape(plan, t);
    uint64_t n = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (shape[d] <= 0) return kError;
        o->dims[d] = shape[d];
        n *= (uint64_t)shape[d];
        if (n > 0x7FFFFFFFu) return kError;
    }
    o->elements = (uint32_t)n;
    const tigris_quant_param_t *qp = tigris_tensor_quant(plan, t);
    if (qp != nullptr) {
        o->quant = qp;
        o->quantized = true;
        o->scale = qp->scale;
        o->zero_point = qp->zero_point;
    }
    o->data = (uint8_t *)tigris_mem_tensor_ptr(mem, index);
    return o->data != nullptr ? 0 : kError;
}

}  // namespace

int input_operand(const tigris_plan_t *plan, const tigris_op_t *op, const tigris_mem_t *mem, int i,
                  Operand *out)
{
    if (op == nullptr || i < 0 || i >= op->num_inputs) return kError;
    return fill_operand(plan, mem, tigris_op_inputs(plan, op)[i], out);
}

int output_operand(const tigris_plan_t *plan, const tigris_op_t *op, const tigris_mem_t *mem, int i,
                   Operand *out)
{
    if (op == nullptr || i < 0 || i >= op->num_outputs) return kError;
    return fill_operand(plan, mem, tigris_op_outputs(plan, op)[i], out);
}

bool same_quant(const Operand &a, const Operand &b)
{
    const float d = a.scale - b.scale;
    return (d <= 1e-6f && d >= -1e-6f) && a.zero_point == b.zero_point;
}

uint32_t View::count() const
{
    uint32_t n = 1;
    for (int d = 0; d < rank; d++) n *= (uint32_t)dims[d];
    return n;
}

namespace {

void contiguous_strides(View *v)
{
    int32_t s = 1;
    for (int d = v->rank - 1; d >= 0; d--) {
        v->strides[d] = s;
        s *= v->dims[d];
    }
}

}  // namespace

int band_view(const Operand &t, const tigris_tile_ctx_t &tile, bool is_output, View *v)
{
    *v = View();
    v->rank = t.rank;
    for (int d = 0; d < t.rank; d++) v->dims[d] = t.dims[d];
    v->base = t.data;
    if (!tile.active) {
        contiguous_strides(v);
        return 0;
    }
    int row_axis = -1;
    if (t.rank == 3 || t.rank == 4) row_axis = 1;
    else if (t.rank == 2) row_axis = 0;
    if (row_axis < 0 || tile.out_h <= 0) return kError;

    const int32_t row_start = is_output ? tile.out_row_start : tile.in_row_start;
    const int32_t held = is_output ? tile.out_h : (tile.in_h > 0 ? tile.in_h : tile.out_h);
    if (row_start < 0) return kError;
    View buf = *v;  // the band buffer's layout
    buf.dims[row_axis] = row_start + held;
    if (t.rank == 4 && tile.width_tiled && t.dims[2] > 1) {
        buf.dims[2] = is_output ? tile.out_w : tile.in_w;
        v->dims[2] = tile.out_w;  // the kernel covers the output's columns
        if (buf.dims[2] < v->dims[2]) return kError;
    }
    contiguous_strides(&buf);
    for (int d = 0; d < t.rank; d++) v->strides[d] = buf.strides[d];
    v->dims[row_axis] = tile.out_h;
    v->base = t.data + (int64_t)row_start * buf.strides[row_axis] * tigris_dtype_size(t.dtype);
    return 0;
}

int broadcast_view(const View &t, const View &out, View *v)
{
    if (t.rank > out.rank) return kError;
    *v = View();
    v->rank = out.rank;
    v->base = t.base;
    const int lead = out.rank - t.rank;
    for (int d = 0; d < out.rank; d++) {
        v->dims[d] = out.dims[d];
        if (d < lead) {
            v->strides[d] = 0;
            continue;
        }
        const int32_t td = t.dims[d - lead];
        if (td == out.dims[d]) {
            v->strides[d] = t.strides[d - lead];
        } else if (td == 1) {
            v->strides[d] = 0;
        } else {
            return kError;
        }
    }
    return 0;
}

int spatial_geometry(const tigris_op_t *op, const Operand &in, const Operand &out,
                     const tigris_tile_ctx_t &tile, Spatial *g)
{
    if ((in.rank != 3 && in.rank != 4) || in.rank != out.rank) return kError;
    if (in.dims[0] != out.dims[0]) return kError;
    const tigris_spatial_t &s = op->spatial;
    *g = Spatial();
    g->batches = in.dims[0];
    g->in_h = in.dims[1];
    g->out_h = out.dims[1];
    g->in_w = in.rank == 4 ? in.dims[2] : 1;
    g->out_w = out.rank == 4 ? out.dims[2] : 1;
    g->in_c = in.dims[in.rank - 1];
    g->out_c = out.dims[out.rank - 1];
    g->k_h = s.kernel_h;
    g->k_w = in.rank == 4 ? s.kernel_w : 1;
    g->stride_h = s.stride_h;
    g->stride_w = in.rank == 4 ? s.stride_w : 1;
    g->dil_h = s.dilation_h ? s.dilation_h : 1;
    g->dil_w = in.rank == 4 && s.dilation_w ? s.dilation_w : 1;
    g->pad_top = s.pad_top;
    g->pad_bottom = s.pad_bottom;
    g->pad_left = in.rank == 4 ? s.pad_left : 0;
    g->pad_right = in.rank == 4 ? s.pad_right : 0;
    if (g->k_h <= 0 || g->k_w <= 0 || g->stride_h <= 0 || g->stride_w <= 0) return kError;
    g->in_buf_rows = g->in_h;
    g->in_buf_cols = g->in_w;
    g->out_buf_rows = g->out_h;
    g->out_buf_cols = g->out_w;
    if (!tile.active) return 0;

    if (tile.in_h < 0 || tile.out_h <= 0 || tile.in_row_start < 0 || tile.out_row_start < 0)
        return kError;
    g->in_h = tile.in_h;
    g->out_h = tile.out_h;
    g->pad_top = tile.pad_top;
    g->pad_bottom = tile.pad_bottom;
    g->in_row0 = tile.in_row_start;
    g->out_row0 = tile.out_row_start;
    g->in_buf_rows = tile.in_row_start + tile.in_h;
    g->out_buf_rows = tile.out_row_start + tile.out_h;
    if (tile.width_tiled && in.rank == 4) {
        if (tile.in_w < 0 || tile.out_w <= 0) return kError;
        g->in_w = tile.in_w;
        g->out_w = tile.out_w;
        g->pad_left = tile.pad_left;
        g->pad_right = tile.pad_right;
        g->in_buf_cols = tile.in_w;
        g->out_buf_cols = tile.out_w;
    }
    return 0;
}

bool output_requant(const tigris_plan_t *plan, const Operand &out, int32_t c, int32_t *multiplier,
                    int *shift)
{
    const tigris_quant_param_t *qp = out.quant;
    if (qp == nullptr || plan->quant_data == nullptr || qp->num_channels == 0) return false;
    const int32_t ch = qp->num_channels > 1 ? c : 0;
    if (ch >= qp->num_channels) return false;
    *multiplier = tigris_quant_multipliers(plan, qp)[ch];
    *shift = (int)tigris_quant_shifts(plan, qp)[ch];
    return true;
}

namespace {

const uint8_t *entry_bytes(const tigris_plan_t *plan, uint16_t idx, uint32_t bytes)
{
    if (idx == TIGRIS_NONE || plan->weight_entries == nullptr || idx >= plan->header->num_weights)
        return nullptr;
    const tigris_weight_entry_t *w = &plan->weight_entries[idx];
    if (w->size_bytes < bytes) return nullptr;
    return (const uint8_t *)tigris_weight_data(plan, w);
}

}  // namespace

const uint8_t *op_weight_bytes(const tigris_plan_t *plan, const tigris_op_t *op, uint32_t bytes)
{
    return entry_bytes(plan, op->weight_idx, bytes);
}

const uint8_t *op_bias_bytes(const tigris_plan_t *plan, const tigris_op_t *op, uint32_t bytes)
{
    return entry_bytes(plan, op->bias_idx, bytes);
}

int32_t read_i32(const uint8_t *p)
{
    return (int32_t)((uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
                     ((uint32_t)p[3] << 24));
}

float read_f32(const uint8_t *p)
{
    const uint32_t bits = (uint32_t)read_i32(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

}  // namespace tigris_s8
