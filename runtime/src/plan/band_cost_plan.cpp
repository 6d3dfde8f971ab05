// The band cost model over a loaded plan (band_cost_plan.h).
#include "plan/band_cost_plan.h"

#include "ops/op_table.h"

namespace tigris_rt {

namespace {

bool spatial_for(uint8_t shape, const tigris_plan_t *plan, const tigris_op_t &op)
{
    switch (shape) {
    case PLAN_COST_STRIPE: return stripe_spatial_op(op.op_type) || line_spatial_op(op.op_type);
    case PLAN_COST_HW: return hw_spatial_op(op.op_type);
    case PLAN_COST_CHAIN: return chain_spatial_op(op.op_type);
    case PLAN_COST_CHANNELS: return ops::has_band(op.op_type, ops::kBandChannelSpatial) || channel_mix_op(plan, &op);
    default: (void)plan; return false;
    }
}

void source_op(const void *vctx, uint16_t j, CostOp *out)
{
    const PlanCostCtx &c = *static_cast<const PlanCostCtx *>(vctx);
    const tigris_op_t &op = c.plan->ops[c.first_op + j];
    *out = CostOp{};
    out->num_inputs = op.num_inputs;
    out->num_outputs = op.num_outputs;
    out->inputs = tigris_op_inputs(c.plan, &op);
    out->outputs = tigris_op_outputs(c.plan, &op);
    const bool geom = c.shape == PLAN_COST_CHANNELS ? channel_band_geom(c.plan, &op, &out->row)
                                                    : op_band_geom(&op, 0, &out->row);
    out->spatial = spatial_for(c.shape, c.plan, op) && geom ? 1u : 0u;
    if (out->spatial && c.shape == PLAN_COST_HW && !op_band_geom(&op, 1, &out->col)) out->spatial = 0;
    if (c.shape == PLAN_COST_CHANNELS) {  // output channel c reads input channel c, or (a Conv) every one
        out->col = BandGeom{};
        out->col.eff_k = out->col.stride = 1;
        out->col.kind = channel_mix_op(c.plan, &op) ? BAND_GEOM_ALL : BAND_GEOM_WINDOW;
    }
}

void source_tensor(const void *vctx, uint16_t id, CostTensor *out)
{
    *out = plan_cost_tensor(*static_cast<const PlanCostCtx *>(vctx), id);
}

bool listed(const tigris_plan_t *plan, uint16_t off, uint16_t count, uint16_t t)
{
    for (uint16_t i = 0; i < count; ++i)
        if (plan->index_pool[off + i] == t) return true;
    return false;
}

uint16_t source_ops(const tigris_plan_t *plan, uint16_t head, uint16_t last)
{
    uint32_t n = 0;
    for (uint32_t s = head; s <= last; ++s) n += plan->stages[s].ops_count;
    return n > 0xFFFFu ? 0 : (uint16_t)n;
}

// Whether an op of the source reads t whole: a binary op's operand broadcast along the
// band, or (ROWS) MatMul's second operand.
bool read_whole(const PlanCostCtx &c, uint16_t t, uint16_t num_ops)
{
    const tigris_plan_t *plan = c.plan;
    const tigris_tensor_t &tt = plan->tensors[t];
    for (uint16_t j = 0; j < num_ops; ++j) {
        const tigris_op_t &op = plan->ops[c.first_op + j];
        const uint16_t *ins = tigris_op_inputs(plan, &op);
        for (uint8_t k = 0; k < op.num_inputs; ++k) {
            if (ins[k] != t) continue;
            if (c.shape == PLAN_COST_ROWS && op.op_type == TIGRIS_OP_MATMUL && k == 1) return true;
            if (!band_binary_op(op.op_type) || op.num_outputs < 1) continue;
            const tigris_tensor_t &o = plan->tensors[tigris_op_outputs(plan, &op)[0]];
            if (cost_broadcast_whole(tigris_tensor_shape(plan, &o), o.ndim, tigris_tensor_shape(plan, &tt), tt.ndim,
                                     c.lo, c.hi))
                return true;
        }
    }
    return false;
}

}  // namespace

CostTensor plan_cost_tensor(const PlanCostCtx &c, uint16_t t)
{
    const tigris_plan_t *plan = c.plan;
    const tigris_tensor_t &tt = plan->tensors[t];
    const tigris_stage_t &head = plan->stages[c.head], &last = plan->stages[c.last];
    uint8_t flags = 0;
    if (tt.flags & TIGRIS_TENSOR_CONSTANT) flags |= COST_CONSTANT;
    if (listed(plan, head.inputs_off, head.inputs_count, t)) flags |= COST_LOADED;
    if (listed(plan, last.outputs_off, last.outputs_count, t)) flags |= COST_SPILLED;
    if (c.shape != PLAN_COST_CHAIN && (flags & COST_LOADED) && read_whole(c, t, source_ops(plan, c.head, c.last)))
        flags |= COST_WHOLE;
    const uint8_t axis = c.shape == PLAN_COST_ROWS ? 0 : 1;
    if (c.shape == PLAN_COST_CHANNELS && c.lo == 0) {  // a matrix stage: [dim 0, the rest]
        const int32_t *d = tigris_tensor_shape(plan, &tt);
        int64_t rest = 1;
        for (uint8_t a = 1; a < tt.ndim; ++a) rest *= d[a];
        const int32_t dims[2] = {tt.ndim > 0 ? d[0] : 1, rest > INT32_MAX ? INT32_MAX : (int32_t)rest};
        CostTensor m = cost_tensor_channels(dims, 2, (uint8_t)tigris_dtype_size(tt.dtype), flags);
        m.bytes = tt.size_bytes;
        return m;
    }
    CostTensor out = c.shape == PLAN_COST_CHANNELS
                         ? cost_tensor_channels(tigris_tensor_shape(plan, &tt), tt.ndim,
                                                (uint8_t)tigris_dtype_size(tt.dtype), flags)
                         : cost_tensor(tigris_tensor_shape(plan, &tt), tt.ndim, (uint8_t)tigris_dtype_size(tt.dtype), axis,
                                 c.shape == PLAN_COST_HW, flags);
    out.bytes = tt.size_bytes;
    return out;
}

bool plan_cost_source(const tigris_plan_t *plan, uint16_t s, tigris_band_kind_t kind, PlanCostCtx *ctx, CostSource *src)
{
    const tigris_stage_t &st = plan->stages[s];
    *ctx = PlanCostCtx{};
    ctx->plan = plan;
    ctx->head = ctx->last = s;
    switch (kind) {
    case TIGRIS_BAND_KIND_STRIPE: ctx->shape = PLAN_COST_STRIPE, ctx->lo = ctx->hi = 1; break;
    case TIGRIS_BAND_KIND_HW: ctx->shape = PLAN_COST_HW, ctx->lo = 1, ctx->hi = 2; break;
    case TIGRIS_BAND_KIND_ROWS: ctx->shape = PLAN_COST_ROWS, ctx->lo = ctx->hi = 0; break;
    case TIGRIS_BAND_KIND_CHANNELS: {  // rows: axis 1 of NHWC, axis 0 of a rank-2 stage
        const uint16_t out = st.outputs_count ? plan->index_pool[st.outputs_off] : 0;
        const uint8_t rows = st.outputs_count && plan->tensors[out].ndim == 2 ? 0 : 1;
        ctx->shape = PLAN_COST_CHANNELS, ctx->lo = ctx->hi = rows;
        break;
    }
    case TIGRIS_BAND_KIND_NONE:
        if (st.chain_len < 2 || st.chain_id != s || (uint32_t)s + st.chain_len > plan->header->num_stages) return false;
        ctx->shape = PLAN_COST_CHAIN, ctx->lo = ctx->hi = 1;
        ctx->last = (uint16_t)(s + st.chain_len - 1u);
        break;
    default: return false;
    }
    if (st.ops_count == 0) return false;
    ctx->first_op = tigris_stage_ops(plan, &st)[0];
    *src = CostSource{};
    src->ctx = ctx;
    src->num_ops = source_ops(plan, ctx->head, ctx->last);
    src->hw = ctx->shape == PLAN_COST_HW || ctx->shape == PLAN_COST_CHANNELS ? 1u : 0u;
    src->op = source_op;
    src->tensor = source_tensor;
    return src->num_ops > 0 && (uint32_t)ctx->first_op + src->num_ops <= plan->header->num_ops;
}

void plan_stated_band(const tigris_plan_t *plan, uint16_t s, uint32_t extent, uint32_t col_extent, uint32_t *rows,
                      uint32_t *cols)
{
    const tigris_stage_t &st = plan->stages[s];
    uint32_t r, w = 1;
    if (st.chain_len >= 2) {
        r = st.chain_tile_h;
    } else {
        const tigris_tile_plan_v10_t ch = tigris_rt::stage_tiles(plan, &st);
        r = ch.tile_extent_wide;
        w = ch.tile_width;
    }
    if (r < 1) r = 1;
    if (r > extent) r = extent;
    if (w < 1) w = 1;
    if (w > col_extent) w = col_extent;
    *rows = r;
    *cols = w;
}

uint64_t plan_concat_peak(const tigris_plan_t *plan, uint16_t op_index, uint32_t axis, uint32_t band, uint32_t blocks,
                          uint32_t align)
{
    const tigris_op_t &op = plan->ops[op_index];
    const uint16_t out = tigris_op_outputs(plan, &op)[0];
    const tigris_tensor_t &y = plan->tensors[out];
    const int32_t extent = tensor_dim(plan, out, axis);
    uint64_t outer = 1;
    for (uint32_t a = 0; a < axis; a++) outer *= (uint64_t)tensor_dim(plan, out, a);
    if (extent < 1 || outer < 1 || y.size_bytes % ((uint64_t)extent * outer) != 0) return UINT64_MAX;
    // Bytes per unit of the axis: `blocks` (clamped to [1, outer]; 0 = every block) x cell.
    const uint64_t kept = blocks == 0 || blocks > outer ? outer : blocks;
    const uint64_t row_bytes = y.size_bytes / ((uint64_t)extent * outer) * kept;
    const int32_t b = band < 1 ? 1 : (band > (uint32_t)extent ? extent : (int32_t)band);
    uint64_t peak = 0;
    for (int32_t o0 = 0; o0 < extent; o0 += b) {
        const int32_t o1 = o0 + b < extent ? o0 + b : extent;
        uint64_t bytes = cost_align(row_bytes * (uint64_t)(o1 - o0), align);
        int32_t off = 0;
        for (uint32_t k = 0; k < op.num_inputs; k++) {
            const int32_t n = tensor_dim(plan, tigris_op_inputs(plan, &op)[k], axis);
            const int32_t lo = o0 > off ? o0 : off, hi = o1 < off + n ? o1 : off + n;
            if (hi > lo) bytes += cost_align(row_bytes * (uint64_t)(hi - lo), align);
            off += n;
        }
        if (bytes > peak) peak = bytes;
    }
    return peak;
}

bool plan_conv_input_channels(const tigris_plan_t *plan, uint16_t op_index, uint32_t rows, uint32_t cols,
                              uint32_t align, uint64_t *peak, uint64_t *loads)
{
    const tigris_op_t &op = plan->ops[op_index];
    BandGeom g;
    if (op.op_type != TIGRIS_OP_CONV || op.num_inputs < 1 || op.num_outputs < 1 || !op_band_geom(&op, 0, &g))
        return false;
    const tigris_tensor_t &x = plan->tensors[tigris_op_inputs(plan, &op)[0]];
    const tigris_tensor_t &y = plan->tensors[tigris_op_outputs(plan, &op)[0]];
    if (x.ndim != 4 || y.ndim != 4) return false;
    const int32_t *xs = tigris_tensor_shape(plan, &x), *ys = tigris_tensor_shape(plan, &y);
    const uint64_t elem = tigris_dtype_size(x.dtype);
    const int32_t h_out = ys[1], c = xs[3];
    if (h_out < 1 || c < 1 || elem == 0) return false;
    const int32_t r = rows < 1 ? 1 : (rows > (uint32_t)h_out ? h_out : (int32_t)rows);
    const uint64_t w = cols < 1 ? 1 : (cols > (uint32_t)c ? (uint32_t)c : cols);
    const uint64_t out_row = (uint64_t)ys[0] * (uint64_t)ys[2] * (uint64_t)ys[3] * elem;  // every batch
    const uint64_t in_pixel_rows = (uint64_t)xs[0] * (uint64_t)xs[2] * elem;              // x one channel
    *peak = 0;
    *loads = 0;
    for (int32_t o0 = 0; o0 < h_out; o0 += r) {
        const int32_t o1 = o0 + r < h_out ? o0 + r : h_out;
        BandRows in;
        band_input_rows(&g, xs[1], o0, o1, &in);
        const uint64_t read = (uint64_t)(in.in1 - in.in0) * in_pixel_rows;
        const uint64_t held = cost_align(out_row * (uint64_t)(o1 - o0), align) + cost_align(read * w, align);
        if (held > *peak) *peak = held;
        *loads += read * (uint64_t)c;
    }
    return true;
}

bool plan_stage_peak(const tigris_plan_t *plan, uint16_t s, uint32_t align, CostSpace *spaces, uint16_t capacity,
                     CostPeak *out)
{
    *out = CostPeak{};
    const tigris_stage_t &st = plan->stages[s];
    StageBand band;
    tigris_band_kind_t kind = TIGRIS_BAND_KIND_NONE;
    if (st.chain_len < 2) {
        kind = stage_band(plan, &st, &band);
        if (kind == TIGRIS_BAND_KIND_NONE) return false;
    }
    if (kind == TIGRIS_BAND_KIND_CONCAT) {
        uint32_t rows, cols;
        const bool blocks = band.mode == TIGRIS_CONCAT_MODE_BLOCKS;
        plan_stated_band(plan, s, band.extent, blocks ? band.col_extent : 1, &rows, &cols);
        out->peak = plan_concat_peak(plan, tigris_stage_ops(plan, &st)[0], band.axis, rows, blocks ? cols : 0, align);
        out->band = out->peak;
        const uint64_t tiles =
            (uint64_t)((band.extent + rows - 1u) / rows) * (blocks ? (band.col_extent + cols - 1u) / cols : 1u);
        out->tiles = tiles > UINT32_MAX ? UINT32_MAX : (uint32_t)tiles;
        return out->peak != UINT64_MAX;
    }
    if (kind == TIGRIS_BAND_KIND_CHANNELS && band.mode == TIGRIS_CHANNELS_MODE_INPUT) {
        // Input-channel bands: the output kept (whole, or a 1x1 Conv's row block), int8's
        // accumulator block and one box of rows x input columns.
        const uint16_t op_index = tigris_stage_ops(plan, &st)[0];
        const tigris_op_t &op = plan->ops[op_index];
        const tigris_tensor_t &o = plan->tensors[tigris_op_outputs(plan, &op)[0]];
        const tigris_tensor_t &in = plan->tensors[tigris_op_inputs(plan, &op)[0]];
        uint32_t rows, cols;
        plan_stated_band(plan, s, band.extent, band.col_extent, &rows, &cols);
        const uint64_t tiles = (uint64_t)((band.extent + rows - 1u) / rows) * ((band.col_extent + cols - 1u) / cols);
        out->tiles = tiles > UINT32_MAX ? UINT32_MAX : (uint32_t)tiles;
        if (band.rank == 4) {  // a KxK Conv: a block of output rows and one band of its input rows
            uint64_t loads = 0;
            if (!plan_conv_input_channels(plan, op_index, rows, cols, align, &out->peak, &loads)) return false;
            out->band = out->peak;
            return true;
        }
        const uint64_t elem = tigris_dtype_size(in.dtype);
        out->band = cost_align((uint64_t)rows * cols * elem, align);
        // A FullyConnected keeps its whole output; a 1x1 Conv one block of `rows` pixels of it.
        const uint64_t oc = (uint64_t)tigris_tensor_shape(plan, &o)[o.ndim - 1];
        const uint64_t kept = op.op_type == TIGRIS_OP_CONV ? (uint64_t)rows * oc * elem : o.size_bytes;
        out->peak = cost_align(kept, align) + out->band;
        // int8: the int32 accumulator of the row block (rows x OC), allocated after the output.
        if (in.dtype == TIGRIS_DTYPE_INT8) out->peak += cost_align((uint64_t)rows * oc * 4u, align);
        return elem != 0;
    }
    if (kind != TIGRIS_BAND_KIND_NONE && kind != TIGRIS_BAND_KIND_STRIPE && kind != TIGRIS_BAND_KIND_HW &&
        kind != TIGRIS_BAND_KIND_ROWS && kind != TIGRIS_BAND_KIND_CHANNELS) {
        const tigris_op_t &op = plan->ops[tigris_stage_ops(plan, &st)[0]];
        const tigris_tensor_t &in = plan->tensors[tigris_op_inputs(plan, &op)[0]];
        const tigris_tensor_t &o = plan->tensors[tigris_op_outputs(plan, &op)[0]];
        uint32_t rows, cols;
        plan_stated_band(plan, s, band.extent, 1, &rows, &cols);
        const uint32_t elem = tigris_dtype_size(o.dtype);
        out->peak = cost_layout_peak(kind, band.extent, rows, in.size_bytes, o.size_bytes,
                                     elem ? o.size_bytes / elem : 0, align);
        out->band = out->peak;
        out->tiles = (band.extent + rows - 1u) / rows;
        return out->peak != UINT64_MAX;
    }
    PlanCostCtx ctx;
    CostSource src;
    if (!plan_cost_source(plan, s, kind, &ctx, &src)) return false;
    const uint16_t n = cost_spaces(src, spaces, capacity);
    if (n == 0) return false;
    uint32_t rows, cols;
    plan_stated_band(plan, s, (uint32_t)spaces[n - 1].rows, (uint32_t)spaces[n - 1].cols, &rows, &cols);
    const bool lb = st.chain_len >= 2 && (st.flags & TIGRIS_STAGE_LINE_BUFFERED) != 0;
    return cost_banded_peak(src, spaces, n, rows, cols, lb, align, out);
}

}  // namespace tigris_rt
