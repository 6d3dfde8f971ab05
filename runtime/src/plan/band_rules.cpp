// Band rules: operator classes, spatial geometry, band-kind conditions and tile facts.
#include "plan/band_rules.h"
#include "plan/band_rules_internal.h"
#include "common/le_bytes.h"

#include <string.h>

#include "ops/op_table.h"

namespace tigris_rt {

using namespace band_detail;

namespace {

const uint8_t *transpose_perm(const tigris_plan_t *plan, const tigris_stage_t *s, uint8_t *len)
{
    return tigris_op_attribute_data(plan, stage_op(plan, s, 0), TIGRIS_ATTR_TRANSPOSE_PERM, len);
}

bool perm_is(const uint8_t *perm, uint8_t len, const uint8_t *want, uint8_t want_len)
{
    return len == want_len && memcmp(perm, want, len) == 0;
}

int32_t movement_value(const uint8_t *m, uint32_t i)
{
    int32_t v;
    memcpy(&v, m + 4 * i, 4);
    return v;
}

// Gather of a constant 1-D index list (batch_dims 0) whose axis is outside [lo, hi]; StridedSlice without
// shrunk axes taking every axis in [lo, hi] whole (start 0, end the extent, step 1). Either way
// an output band reads the same band of the input.
bool movement_outside(const tigris_plan_t *plan, uint16_t op_index, uint32_t lo, uint32_t hi)
{
    const tigris_op_t &op = plan->ops[op_index];
    const uint16_t in = op_in(plan, op, 0), out = op_out(plan, op, 0);
    const uint32_t rank = plan->tensors[in].ndim;
    if (plan->tensors[out].ndim != rank) return false;
    uint8_t len = 0;
    const uint8_t *m = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_MOVEMENT, &len);
    if (m == nullptr) return false;
    const uint32_t count = len / 4u;
    if (op.op_type == TIGRIS_OP_GATHER) {
        if (op.num_inputs != 1 || count != 4 || movement_value(m, 1) != 0 || movement_value(m, 2) != 1) return false;
        const int32_t axis = movement_value(m, 0);
        return axis >= 0 && (uint32_t)axis < rank && ((uint32_t)axis < lo || (uint32_t)axis > hi);
    }
    if (count != 3 * rank && !(count == 3 * rank + 1 && movement_value(m, 3 * rank) == 0)) return false;
    for (uint32_t a = lo; a <= hi && a < rank; a++) {
        if (movement_value(m, 3 * a) != 0 || movement_value(m, 3 * a + 1) != tensor_dim(plan, in, a) ||
            movement_value(m, 3 * a + 2) != 1)
            return false;
    }
    return true;
}

// ---- per-kind conditions ----------------------------------------------------------

bool transpose_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    static const uint8_t p3[] = {0, 2, 1}, p4a[] = {0, 3, 1, 2}, p4b[] = {0, 2, 3, 1};
    const tigris_op_t *op = single_op(plan, s);
    if (!op || op->op_type != TIGRIS_OP_TRANSPOSE || op->num_inputs != 1) return false;
    uint8_t len = 0;
    const uint8_t *perm = transpose_perm(plan, s, &len);
    const uint16_t in = op_in(plan, *op, 0);
    if (!perm || tensor_dim(plan, in, 0) != 1) return false;
    uint64_t rows, cols;
    uint8_t row_axis, col_axis;
    if (perm_is(perm, len, p3, 3)) {
        rows = prod_dims(plan, in, 1, 2), cols = prod_dims(plan, in, 2, 3), row_axis = 1, col_axis = 2;
    } else if (perm_is(perm, len, p4a, 4)) {
        rows = prod_dims(plan, in, 1, 3), cols = prod_dims(plan, in, 3, 4), row_axis = 1, col_axis = 3;
    } else if (perm_is(perm, len, p4b, 4)) {
        rows = prod_dims(plan, in, 1, 2), cols = prod_dims(plan, in, 2, 4), row_axis = 1, col_axis = 2;
    } else {
        return false;
    }
    const tigris_tile_plan_v10_t ch = tigris_rt::stage_tiles(plan, s);
    const bool columns = plan->header->version >= 9 ? (ch.flags & TIGRIS_TILE_BAND_ON_COLUMNS) != 0 : cols > rows;
    b->extent = (uint32_t)(columns ? cols : rows);
    b->axis = columns ? col_axis : row_axis;
    b->rank = (uint8_t)len;
    return true;
}

// A reduction over axis 1 read by bands of input rows: GlobalAvg/GlobalMax, or a Reduce*
// whose AXES include axis 1 (absent AXES: every axis).
bool reduces_axis1(const tigris_plan_t *plan, const tigris_stage_t *s, const tigris_op_t &op)
{
    if (!ops::has_band(op.op_type, ops::kBandByInput)) return false;
    uint8_t len = 0;  // GlobalAvg/GlobalMax carry no AXES: they reduce every spatial axis
    const uint8_t *axes = tigris_op_attribute_data(plan, stage_op(plan, s, 0), TIGRIS_ATTR_AXES, &len);
    if (axes == nullptr) return true;
    for (uint32_t i = 0; i < len; i++) {
        if (axes[i] == 1) return true;
    }
    return false;
}

bool by_input_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    const tigris_op_t *op = single_op(plan, s);
    if (!op || op->num_inputs != 1 || !reduces_axis1(plan, s, *op)) return false;
    const uint16_t in = op_in(plan, *op, 0);
    const uint8_t rank = plan->tensors[in].ndim;
    if (rank < 3 || tensor_dim(plan, in, 1) <= 1) return false;
    b->extent = (uint32_t)tensor_dim(plan, in, 1);
    b->axis = 1;
    b->rank = rank;
    return true;
}

// BY_INPUT mode FLAT (stated only): the same reductions over any AXES, any rank, read by bands
// of input elements in memory order; input and output float32, or both int8.
bool flat_reduction_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    const tigris_op_t *op = single_op(plan, s);
    if (!op || op->num_inputs != 1 || !ops::has_band(op->op_type, ops::kBandByInput)) return false;
    const tigris_tensor_t &x = plan->tensors[op_in(plan, *op, 0)], &y = plan->tensors[op_out(plan, *op, 0)];
    const bool f32 = x.dtype == TIGRIS_DTYPE_FLOAT32 && y.dtype == TIGRIS_DTYPE_FLOAT32;
    const bool s8 = x.dtype == TIGRIS_DTYPE_INT8 && y.dtype == TIGRIS_DTYPE_INT8;
    const uint32_t e = tigris_dtype_size(x.dtype);
    if ((!f32 && !s8) || x.ndim < 1 || e == 0 || x.size_bytes / e < 2) return false;
    b->extent = x.size_bytes / e;
    b->axis = 0;
    b->rank = x.ndim;
    b->mode = TIGRIS_BY_INPUT_MODE_FLAT;
    return true;
}

// One spatial op (per `is_spatial`) and pointwise ops otherwise; rank-4 stage I/O.
bool spatial_stage_holds(const tigris_plan_t *plan, const tigris_stage_t *s, bool (*is_spatial)(uint8_t),
                         uint32_t last_banded_axis, StageBand *b)
{
    if (s->inputs_count == 0 || s->outputs_count == 0 || !stage_io_rank(plan, s, 4)) return false;
    int32_t spatial = -1;
    for (uint32_t j = 0; j < s->ops_count; j++) {
        const uint8_t type = op_at(plan, s, j).op_type;
        if (!op_axes_outside(plan, stage_op(plan, s, j), 1, last_banded_axis)) return false;
        if (is_spatial(type)) {
            if (spatial >= 0) return false;
            spatial = (int32_t)j;
        } else if (!band_pointwise_op(type)) {
            return false;
        }
    }
    uint16_t out;
    if (spatial >= 0) {
        const tigris_op_t &op = op_at(plan, s, (uint32_t)spatial);
        BandGeom g;
        if (op.num_outputs < 1 || !op_band_geom(&op, 0, &g)) return false;
        out = op_out(plan, op, 0);
        b->halo = band_halo(&g);
    } else {
        out = rd_u16(plan->index_pool + s->outputs_off);
        b->halo = 0;
    }
    if (plan->tensors[out].ndim != 4) return false;
    b->spatial = spatial;
    b->extent = (uint32_t)tensor_dim(plan, out, 1);
    b->col_extent = (uint32_t)tensor_dim(plan, out, 2);
    b->axis = 1;
    b->rank = 4;
    return true;
}

// At most one HW spatial op: a stage of pointwise ops alone (a channel shuffle's Gather, a
// wide elementwise op) takes 2-D tiles of its output's rows x columns too.
bool hw_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    return spatial_stage_holds(plan, s, hw_spatial_op, 2, b);
}

// Rank-3 stripe: unary ops around at most one Conv1D, or binary ops without a Conv1D.
bool stripe3_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    if (s->inputs_count == 0 || s->outputs_count == 0 || !stage_io_rank(plan, s, 3)) return false;
    int32_t conv = -1;
    bool binary = false;
    for (uint32_t j = 0; j < s->ops_count; j++) {
        const uint8_t type = op_at(plan, s, j).op_type;
        if (!op_axes_outside(plan, stage_op(plan, s, j), 1, 1)) return false;
        if (line_spatial_op(type)) {
            if (conv >= 0) return false;
            conv = (int32_t)j;
        } else if (band_binary_op(type)) {
            binary = true;
        } else if (!band_unary_op(type)) {
            return false;
        }
    }
    if (conv >= 0 && binary) return false;
    uint16_t out = rd_u16(plan->index_pool + s->outputs_off);
    b->halo = 0;
    if (conv >= 0) {
        const tigris_op_t &op = op_at(plan, s, (uint32_t)conv);
        BandGeom g;
        if (op.num_outputs < 1 || !op_band_geom(&op, 0, &g)) return false;
        out = op_out(plan, op, 0);
        b->halo = band_halo(&g);
    }
    b->spatial = conv;
    b->extent = (uint32_t)tensor_dim(plan, out, 1);
    b->axis = 1;
    b->rank = 3;
    return true;
}

bool stripe_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    if (s->inputs_count == 0 || s->outputs_count == 0) return false;
    const uint8_t rank = plan->tensors[rd_u16(plan->index_pool + s->outputs_off)].ndim;
    if (rank == 3) return stripe3_holds(plan, s, b);
    return rank == 4 && spatial_stage_holds(plan, s, stripe_spatial_op, 1, b);
}

// Row-banded matrix ops: FullyConnected on a rank-2 input, rank-2 MatMul whose first
// operand is a tensor (its second operand is read whole), pointwise ops off axis 0.
bool rows_op(const tigris_plan_t *plan, uint16_t op_index)
{
    const tigris_op_t &op = plan->ops[op_index];
    if (op.op_type == TIGRIS_OP_FULLY_CONN) return op.num_inputs >= 1 && plan->tensors[op_in(plan, op, 0)].ndim == 2;
    if (op.op_type == TIGRIS_OP_MATMUL) {
        uint8_t len = 0;
        const uint8_t *k = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_CONSTANT_OPERAND, &len);
        if (k != nullptr && len >= 1 && k[0] == 0) return false;  // the banded operand is a constant
        return op.num_inputs >= 1 && plan->tensors[op_in(plan, op, 0)].ndim == 2;
    }
    return (band_unary_op(op.op_type) || band_binary_op(op.op_type) || band_channel_op(op.op_type)) &&
           op_axes_outside(plan, op_index, 0, 0);
}

bool rows_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    if (s->inputs_count == 0 || s->outputs_count == 0 || !stage_io_rank(plan, s, 2)) return false;
    for (uint32_t j = 0; j < s->ops_count; j++) {
        if (!rows_op(plan, stage_op(plan, s, j))) return false;
    }
    b->extent = (uint32_t)tensor_dim(plan, rd_u16(plan->index_pool + s->outputs_off), 0);
    b->axis = 0;
    b->rank = 2;
    return true;
}

// Bands of the first leading extent both shapes share (> 1): a contiguous byte run of
// both the input and the output.
bool reshape_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    const tigris_op_t *op = single_op(plan, s);
    if (!op || !ops::has_band(op->op_type, ops::kBandReshape)) return false;
    const uint16_t in = op_in(plan, *op, 0), out = op_out(plan, *op, 0);
    const uint8_t rin = plan->tensors[in].ndim, rout = plan->tensors[out].ndim;
    uint64_t pin = 1, pout = 1;
    uint32_t a = 0, o = 0;
    while (a < rin) {
        pin *= (uint64_t)tensor_dim(plan, in, a);
        while (o < rout && pout < pin) pout *= (uint64_t)tensor_dim(plan, out, o++);
        if (pin > 1 && pin == pout) {
            b->extent = (uint32_t)pin;
            b->axis = (uint8_t)a;
            b->rank = rin;
            return pin <= UINT32_MAX;
        }
        a++;
    }
    return false;
}

bool leading_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    const tigris_op_t *op = single_op(plan, s);
    if (!op || op->op_type != TIGRIS_OP_TRANSPOSE || op->num_inputs != 1) return false;
    uint8_t len = 0;
    const uint8_t *perm = transpose_perm(plan, s, &len);
    if (!perm || len == 0) return false;
    const uint16_t in = op_in(plan, *op, 0);
    uint8_t m = 0, q = 0;
    if (perm[0] == 0) {
        uint32_t p = 1;  // fixed leading prefix, at most rank - 1 axes
        while (p + 1 < len && perm[p] == p) p++;
        if (!leading_swap(perm, len, (uint8_t)p, &m, &q)) return false;
        const uint64_t outer = prod_dims(plan, in, 0, p);
        if (outer < 2 || outer > UINT32_MAX) return false;
        b->mode = TIGRIS_LEADING_MODE_BATCH;
        b->extent = (uint32_t)outer;
        b->axis = (uint8_t)(p - 1);
    } else {
        const int32_t lead = tensor_dim(plan, in, perm[0]);
        if (lead < 2 || !leading_swap(perm, len, 0, &m, &q)) return false;
        b->mode = TIGRIS_LEADING_MODE_ROWS;
        b->extent = (uint32_t)lead;
        b->axis = perm[0];
    }
    b->rank = len;
    return true;
}

// One Concat along axis a of distinct inputs of the output's rank, equal to it on every
// other axis: bands of output rows along a, each reading only the inputs that cover them.
bool concat_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    const tigris_op_t *op = single_op(plan, s);
    uint32_t axis = 0;
    if (!op || op->op_type != TIGRIS_OP_CONCAT || !concat_band_axis(plan, stage_op(plan, s, 0), &axis)) return false;
    const uint16_t out = op_out(plan, *op, 0);
    b->extent = (uint32_t)tensor_dim(plan, out, axis);
    b->axis = (uint8_t)axis;
    b->rank = plan->tensors[out].ndim;
    b->halo = 0;
    return b->extent >= 1;
}

// CONCAT mode BLOCKS (stated only): the same Concat, its bands also cut the blocks of the
// axes before the concat axis (col_extent = their product, e.g. the pixels of an NHWC
// channel concat) into tile_width blocks.
bool concat_blocks_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b)
{
    if (!concat_holds(plan, s, b)) return false;
    const uint64_t outer = prod_dims(plan, op_out(plan, *single_op(plan, s), 0), 0, b->axis);
    if (outer < 1 || outer > UINT32_MAX) return false;
    b->col_extent = (uint32_t)outer;
    b->mode = TIGRIS_CONCAT_MODE_BLOCKS;
    return true;
}

bool kind_conditions(const tigris_plan_t *plan, const tigris_stage_t *s, tigris_band_kind_t kind, StageBand *b)
{
    switch (kind) {
    case TIGRIS_BAND_KIND_TRANSPOSE: return transpose_holds(plan, s, b);
    case TIGRIS_BAND_KIND_BY_INPUT: return by_input_holds(plan, s, b);
    case TIGRIS_BAND_KIND_HW: return hw_holds(plan, s, b);
    case TIGRIS_BAND_KIND_ROWS: return rows_holds(plan, s, b);
    case TIGRIS_BAND_KIND_RESHAPE: return reshape_holds(plan, s, b);
    case TIGRIS_BAND_KIND_LEADING: return leading_holds(plan, s, b);
    case TIGRIS_BAND_KIND_STRIPE: return stripe_holds(plan, s, b);
    case TIGRIS_BAND_KIND_CHANNELS: return channels_holds(plan, s, b);
    case TIGRIS_BAND_KIND_CONCAT: return concat_holds(plan, s, b);
    default: return false;
    }
}

}  // namespace

int32_t tensor_dim(const tigris_plan_t *plan, uint16_t tensor, uint32_t axis)
{
    const tigris_tensor_t &t = plan->tensors[tensor];
    if (axis >= t.ndim) return 1;
    int32_t v;
    memcpy(&v, plan->shape_pool + t.shape_off + axis, sizeof(v));
    return v;
}

// ---- operator classes ----------------------------------------------------------------

bool band_unary_op(uint8_t type) { return ops::has_band(type, ops::kBandUnary); }

bool band_binary_op(uint8_t type) { return ops::has_band(type, ops::kBandBinary); }

bool band_channel_op(uint8_t type) { return ops::has_band(type, ops::kBandChannel); }

bool band_pointwise_op(uint8_t type)
{
    return ops::has_band(type, ops::kBandUnary | ops::kBandBinary | ops::kBandChannel | ops::kBandJoin);
}

bool op_axes_outside(const tigris_plan_t *plan, uint16_t op_index, uint32_t lo, uint32_t hi)
{
    const tigris_op_t &op = plan->ops[op_index];
    const uint8_t t = op.op_type;
    if (!ops::has_band(t, ops::kBandAxes)) return true;
    // Band rules also run before the operator contracts (step 25): no operand, no band.
    if (op.num_inputs == 0 || op.num_outputs == 0) return false;
    const uint16_t ref = t == TIGRIS_OP_CONCAT ? op_out(plan, op, 0) : op_in(plan, op, 0);
    const uint32_t rank = plan->tensors[ref].ndim;
    uint8_t len = 0;
    if (t == TIGRIS_OP_GATHER || t == TIGRIS_OP_STRIDED_SLICE) return movement_outside(plan, op_index, lo, hi);
    if (t == TIGRIS_OP_RESIZE)  // only the integer-factor form bands (output row o reads o / stride)
        return tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_RESIZE_SCALES, &len) == nullptr;
    const uint8_t *axes = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_AXES, &len);
    if (axes == nullptr) return rank >= 1 && (rank - 1u < lo || rank - 1u > hi);  // default: the last axis
    if (len == 0) return false;
    uint32_t first = axes[0];
    for (uint32_t i = 0; i < len; i++) {
        if (axes[i] >= lo && axes[i] <= hi) return false;
        if (axes[i] < first) first = axes[i];
    }
    // LayerNorm normalizes every axis from its first named one.
    return t != TIGRIS_OP_LAYER_NORM || first > hi;
}

bool concat_band_axis(const tigris_plan_t *plan, uint16_t op_index, uint32_t *axis)
{
    const tigris_op_t &op = plan->ops[op_index];
    if (op.op_type != TIGRIS_OP_CONCAT || op.num_inputs < 1 || op.num_outputs != 1) return false;
    const uint16_t out = op_out(plan, op, 0);
    const uint32_t rank = plan->tensors[out].ndim;
    uint8_t len = 0;
    const uint8_t *axes = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_AXES, &len);
    if (rank == 0 || (axes != nullptr && (len != 1 || axes[0] >= rank))) return false;
    *axis = axes != nullptr ? axes[0] : rank - 1u;
    int64_t rows = 0;
    for (uint32_t k = 0; k < op.num_inputs; k++) {
        const uint16_t in = op_in(plan, op, k);
        if (plan->tensors[in].ndim != rank || plan->tensors[in].dtype != plan->tensors[out].dtype) return false;
        for (uint32_t j = 0; j < k; j++)
            if (op_in(plan, op, j) == in) return false;  // each input is loaded once, as its own band
        for (uint32_t a = 0; a < rank; a++)
            if (a != *axis && tensor_dim(plan, in, a) != tensor_dim(plan, out, a)) return false;
        rows += tensor_dim(plan, in, *axis);
    }
    return rows == tensor_dim(plan, out, *axis);
}

bool stripe_spatial_op(uint8_t type) { return ops::has_band(type, ops::kBandStripe); }

bool hw_spatial_op(uint8_t type) { return ops::has_band(type, ops::kBandHw); }

bool line_spatial_op(uint8_t type) { return ops::has_band(type, ops::kBandLine); }

bool chain_spatial_op(uint8_t type) { return ops::has_band(type, ops::kBandChainSpatial); }

bool chain_op(uint8_t type) { return ops::has_band(type, ops::kBandChain | ops::kBandChainSpatial); }

bool leading_swap(const uint8_t *perm, uint8_t len, uint8_t p, uint8_t *m, uint8_t *q)
{
    if (p >= len) return false;
    const uint32_t first = perm[p];
    uint32_t k = p;
    while (k < len && perm[k] == first + (k - p)) k++;  // group B: first, first + 1, ...
    const uint32_t end_b = first + (k - p);
    if (first < p || end_b > len) return false;
    for (uint32_t a = p; a < first; a++, k++)  // group A: p .. first - 1
        if (k >= len || perm[k] != a) return false;
    for (uint32_t a = end_b; a < len; a++, k++)  // the fixed suffix
        if (k >= len || perm[k] != a) return false;
    *m = (uint8_t)first;
    *q = (uint8_t)end_b;
    return k == len;
}

// ---- geometry -------------------------------------------------------------------------

bool op_band_geom(const tigris_op_t *op, int axis, BandGeom *out)
{
    const tigris_spatial_t &sp = op->spatial;
    const uint32_t k = axis == 0 ? sp.kernel_h : sp.kernel_w;
    const uint32_t s = axis == 0 ? sp.stride_h : sp.stride_w;
    uint32_t d = axis == 0 ? sp.dilation_h : sp.dilation_w;
    if (d == 0) d = 1;
    out->pad_before = axis == 0 ? sp.pad_top : sp.pad_left;
    out->pad_after = axis == 0 ? sp.pad_bottom : sp.pad_right;
    out->stride = s;
    if (s == 0) return false;
    switch (op->op_type) {
    case TIGRIS_OP_RESIZE:
        out->kind = BAND_GEOM_UPSAMPLE, out->eff_k = 1, out->pad_before = out->pad_after = 0;
        return true;
    case TIGRIS_OP_CONV_TRANSPOSE: out->kind = BAND_GEOM_TRANSPOSED; break;
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE:
    case TIGRIS_OP_MAX_POOL:
    case TIGRIS_OP_AVG_POOL:
    case TIGRIS_OP_CONV1D:
    case TIGRIS_OP_L2_POOL: out->kind = BAND_GEOM_WINDOW; break;
    default: return false;
    }
    if (k == 0) return false;
    out->eff_k = (k - 1u) * d + 1u;
    return true;
}

bool channel_mix_op(const tigris_plan_t *plan, const tigris_op_t *op)
{
    if (!ops::has_band(op->op_type, ops::kBandChannelMix) || op->num_inputs < 1 || op->num_outputs < 1) return false;
    const uint16_t in = op_in(plan, *op, 0), out = op_out(plan, *op, 0);
    if (op->op_type == TIGRIS_OP_FULLY_CONN)  // [N, OC] from [N, ...] (a flattened input)
        return plan->tensors[out].ndim == 2 && plan->tensors[in].ndim >= 2 &&
               tensor_dim(plan, in, 0) == tensor_dim(plan, out, 0);
    return op->spatial.group <= 1 && plan->tensors[in].ndim == 4 && plan->tensors[out].ndim == 4;
}

bool channel_band_geom(const tigris_plan_t *plan, const tigris_op_t *op, BandGeom *out)
{
    if (op->op_type == TIGRIS_OP_FULLY_CONN) {  // output row r reads input row r
        *out = BandGeom{};
        out->kind = BAND_GEOM_WINDOW;
        out->eff_k = out->stride = 1;
        return true;
    }
    if (op->op_type != TIGRIS_OP_GLOBAL_AVG && op->op_type != TIGRIS_OP_GLOBAL_MAX) return op_band_geom(op, 0, out);
    if (op->num_inputs < 1) return false;
    const int32_t h = tensor_dim(plan, op_in(plan, *op, 0), 1);
    if (h < 1) return false;
    *out = BandGeom{};
    out->kind = BAND_GEOM_WINDOW;  // one output row reading every input row
    out->eff_k = (uint32_t)h;
    out->stride = 1;
    return true;
}

uint32_t band_halo(const BandGeom *g)
{
    switch (g->kind) {
    case BAND_GEOM_WINDOW: return g->eff_k > g->stride ? g->eff_k - g->stride : 0u;
    case BAND_GEOM_TRANSPOSED: return (g->eff_k - 1u + g->stride - 1u) / g->stride;
    case BAND_GEOM_ALL: return 0;
    default: return g->stride > 1u ? 1u : 0u;
    }
}

void band_input_rows(const BandGeom *g, int32_t in_extent, int32_t o0, int32_t o1, BandRows *out)
{
    const int64_t s = g->stride, k = g->eff_k, p = g->pad_before;
    int64_t i0, i1;
    if (g->kind == BAND_GEOM_ALL) {
        i0 = 0;
        i1 = in_extent;
    } else if (g->kind == BAND_GEOM_WINDOW) {
        i0 = (int64_t)o0 * s - p;
        i1 = (int64_t)(o1 - 1) * s - p + k;
    } else if (g->kind == BAND_GEOM_UPSAMPLE) {
        i0 = o0 / s;
        i1 = (o1 - 1) / s + 1;
    } else {  // transposed: input i feeds outputs i*s - p .. i*s - p + k - 1
        const int64_t lo = (int64_t)o0 + p - k + 1;
        i0 = lo <= 0 ? -((-lo) / s) : (lo + s - 1) / s;
        i1 = ((int64_t)o1 - 1 + p) / s + 1;
    }
    const bool window = g->kind == BAND_GEOM_WINDOW;
    out->pad_before = (window && i0 < 0) ? (int32_t)-i0 : 0;
    out->pad_after = (window && i1 > in_extent) ? (int32_t)(i1 - in_extent) : 0;
    out->in0 = (int32_t)(i0 < 0 ? 0 : (i0 > in_extent ? in_extent : i0));
    out->in1 = (int32_t)(i1 > in_extent ? in_extent : (i1 < out->in0 ? out->in0 : i1));
}

void band_compose(BandGeom *acc, const BandGeom *next)
{
    acc->eff_k += (next->eff_k - 1u) * acc->stride;
    acc->pad_before += next->pad_before * acc->stride;
    acc->pad_after += next->pad_after * acc->stride;
    acc->stride *= next->stride;
}

// ---- kinds and facts -------------------------------------------------------------------

uint8_t record_axis(const tigris_plan_t *plan, const tigris_tile_plan_v10_t *ch)
{
    if (plan->header->version < 5) return ch->tileable ? (uint8_t)TIGRIS_TILE_AXIS_HEIGHT : (uint8_t)0;
    return ch->axis;
}

bool stage_holds_control_flow(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    for (uint32_t j = 0; j < stage->ops_count; j++) {
        const uint8_t t = op_at(plan, stage, j).op_type;
        if (ops::has_trait(t, ops::kTraitControl)) return true;
    }
    return false;
}

bool band_kind_holds(const tigris_plan_t *plan, const tigris_stage_t *stage, tigris_band_kind_t kind, uint8_t mode,
                     StageBand *out)
{
    StageBand b;
    memset(&b, 0, sizeof(b));
    b.spatial = -1;
    const tigris_tile_plan_v10_t ch = tigris_rt::stage_tiles(plan, stage);
    const uint8_t want_axis = kind == TIGRIS_BAND_KIND_HW ? TIGRIS_TILE_AXIS_HW : TIGRIS_TILE_AXIS_HEIGHT;
    if (record_axis(plan, &ch) != want_axis) return false;
    // Input-channel bands, flat reductions and concat blocks are asked for (a record stating
    // mode INPUT, FLAT or BLOCKS, or the scheduler's probe): without a mode the stage gives its
    // default mode.
    if (kind == TIGRIS_BAND_KIND_CHANNELS && mode == TIGRIS_CHANNELS_MODE_INPUT) {
        if (!input_channels_holds(plan, stage, &b)) return false;
    } else if (kind == TIGRIS_BAND_KIND_BY_INPUT && mode == TIGRIS_BY_INPUT_MODE_FLAT) {
        if (!flat_reduction_holds(plan, stage, &b)) return false;
    } else if (kind == TIGRIS_BAND_KIND_CONCAT && mode == TIGRIS_CONCAT_MODE_BLOCKS) {
        if (!concat_blocks_holds(plan, stage, &b)) return false;
    } else if (!kind_conditions(plan, stage, kind, &b)) {
        return false;
    }
    if (mode != 0xFF && mode != b.mode) return false;
    b.kind = kind;
    *out = b;
    return true;
}

namespace {

bool bandable_stage(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    return stage->chain_len == 0 && tigris_rt::stage_tiles(plan, stage).tileable && stage->ops_count != 0 &&
           !stage_holds_control_flow(plan, stage);
}

}  // namespace

tigris_band_kind_t derive_band_kind(const tigris_plan_t *plan, const tigris_stage_t *stage, StageBand *out)
{
    static const tigris_band_kind_t order[] = {
        TIGRIS_BAND_KIND_TRANSPOSE, TIGRIS_BAND_KIND_BY_INPUT, TIGRIS_BAND_KIND_HW,    TIGRIS_BAND_KIND_ROWS,
        TIGRIS_BAND_KIND_RESHAPE,   TIGRIS_BAND_KIND_LEADING,  TIGRIS_BAND_KIND_STRIPE};
    if (bandable_stage(plan, stage)) {
        for (tigris_band_kind_t kind : order) {
            if (band_kind_holds(plan, stage, kind, 0xFF, out)) return kind;
        }
    }
    memset(out, 0, sizeof(*out));
    out->spatial = -1;
    return TIGRIS_BAND_KIND_NONE;
}

tigris_band_kind_t stage_band(const tigris_plan_t *plan, const tigris_stage_t *stage, StageBand *out)
{
    if (!plan->tile_plans_v11) return derive_band_kind(plan, stage, out);
    memset(out, 0, sizeof(*out));
    out->spatial = -1;
    if (!bandable_stage(plan, stage)) return TIGRIS_BAND_KIND_NONE;
    const uint8_t band = plan->tile_plans_v11[stage->tile_plan_idx].facts.band;
    const uint8_t stated = TIGRIS_TILE_BAND_KIND(band);
    if (stated == TIGRIS_BAND_KIND_NONE || stated > TIGRIS_BAND_KIND_CONCAT) return TIGRIS_BAND_KIND_NONE;
    const tigris_band_kind_t kind = (tigris_band_kind_t)stated;
    return band_kind_holds(plan, stage, kind, TIGRIS_TILE_BAND_MODE(band), out) ? kind : TIGRIS_BAND_KIND_NONE;
}

bool band_facts(const tigris_plan_t *plan, const tigris_stage_t *stage, const StageBand *b, tigris_tile_facts_t *out)
{
    const tigris_tile_plan_v10_t ch = tigris_rt::stage_tiles(plan, stage);
    memset(out, 0, sizeof(*out));
    if (b->extent == 0) return false;
    uint32_t band = ch.tile_extent_wide;
    if (band < 1) band = 1;
    if (band > b->extent) band = b->extent;
    uint64_t tiles = ((uint64_t)b->extent + band - 1u) / band;
    if (b->kind == TIGRIS_BAND_KIND_HW || b->kind == TIGRIS_BAND_KIND_CHANNELS ||
        (b->kind == TIGRIS_BAND_KIND_CONCAT && b->mode == TIGRIS_CONCAT_MODE_BLOCKS)) {
        uint32_t w = ch.tile_width < 1 ? 1u : ch.tile_width;
        if (b->col_extent == 0) return false;
        if (w > b->col_extent) w = b->col_extent;
        tiles *= ((uint64_t)b->col_extent + w - 1u) / w;
    }
    if (tiles > UINT32_MAX || b->halo > 0xFFFFu) return false;
    out->tile_extent = band;
    out->num_tiles = (uint32_t)tiles;
    out->original_extent = b->extent;
    out->halo = (uint16_t)b->halo;
    out->band_axis = b->axis;
    out->band = TIGRIS_TILE_BAND(b->kind, b->mode);
    return true;
}

}  // namespace tigris_rt
