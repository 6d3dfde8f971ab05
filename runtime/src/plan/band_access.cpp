// Band access rules: which tensors a banded (tiled) stage and a chained stage may touch.
//
// A stage's ops are walked in order through "row spaces": space 0 until the first spatial
// op, then one more space after each spatial op. Every non-constant tensor an op reads or
// writes belongs to exactly one space and has that space's extent; a tensor read before
// it is written must be a stage input. docs/plan-format.md "Band access rules".
#include <string.h>

#include "common/le_bytes.h"
#include "ops/op_table.h"
#include "plan/band_rules.h"

namespace tigris_rt {

namespace {

constexpr uint8_t kUnset = 0xFF;
constexpr uint8_t kWhole = 0xFE;  // a broadcast stage input read whole by elementwise ops

// AXES_HC: rows and channels (axes 1 and 3); every space has the same channels, except
// after a channel-mixing op (CHANNELS mode OUTPUT: the Conv's output channels).
enum WalkAxes : uint8_t { AXES_H, AXES_HW, AXES_ROWS, AXES_HC };

struct Walk {
    const tigris_plan_t *plan;
    const tigris_stage_t *stage;
    const tigris_stage_t *loads;  // the stage whose inputs are loaded from slow (a chain: its head)
    uint8_t rank;
    uint8_t axes;
    bool inputs_in_space0;              // chains: stage inputs arrive as the first space's band
    bool allow_whole;                   // tiles: broadcast stage inputs may be read whole
    bool chans_per_space;               // AXES_HC: each space fixes its own channel count
    bool (*spatial)(uint8_t type);      // ops that open a new space (nullptr: none)
    uint8_t space[TIGRIS_MAX_TENSORS];  // per tensor, kUnset when not seen
    int64_t ext0, ext1;                 // current space extents (-1 = not yet fixed)
    int64_t batch;
};

uint16_t list_at(const tigris_plan_t *plan, uint16_t off, uint32_t k) { return rd_u16(plan->index_pool + off + k); }

bool in_list(const tigris_plan_t *plan, uint16_t off, uint16_t count, uint16_t t)
{
    for (uint32_t k = 0; k < count; k++) {
        if (list_at(plan, off, k) == t) return true;
    }
    return false;
}

bool fix(int64_t &slot, int64_t value)
{
    if (slot < 0) slot = value;
    return slot == value;
}

// The tensor has the walk's rank, batch and the current space's extent(s).
bool extent_ok(Walk &w, uint16_t t)
{
    const tigris_plan_t *p = w.plan;
    if (w.axes == AXES_HC && w.rank == 2) {  // a matrix stage: [dim 0, the rest] (a FullyConnected's flattened input)
        int64_t rest = 1;
        for (uint32_t a = 1; a < p->tensors[t].ndim; a++) rest *= tensor_dim(p, t, a);
        return p->tensors[t].ndim >= 2 && fix(w.ext0, tensor_dim(p, t, 0)) && fix(w.ext1, rest);
    }
    if (p->tensors[t].ndim != w.rank) return false;
    if (w.axes == AXES_ROWS) return fix(w.ext0, tensor_dim(p, t, 0));
    if (!fix(w.batch, tensor_dim(p, t, 0)) || !fix(w.ext0, tensor_dim(p, t, 1))) return false;
    if (w.axes == AXES_HC) return fix(w.ext1, tensor_dim(p, t, 3));
    return w.axes != AXES_HW || fix(w.ext1, tensor_dim(p, t, 2));
}

void reset_spaces(Walk &w)
{
    const tigris_plan_t *p = w.plan;
    const tigris_stage_t *s = w.stage;
    for (uint32_t k = 0; k < s->inputs_count; k++) w.space[list_at(p, s->inputs_off, k)] = kUnset;
    for (uint32_t k = 0; k < s->outputs_count; k++) w.space[list_at(p, s->outputs_off, k)] = kUnset;
    for (uint32_t j = 0; j < s->ops_count; j++) {
        const tigris_op_t &op = p->ops[list_at(p, s->ops_off, j)];
        for (uint32_t k = 0; k < op.num_inputs; k++) w.space[list_at(p, op.inputs_off, k)] = kUnset;
        for (uint32_t k = 0; k < op.num_outputs; k++) w.space[list_at(p, op.outputs_off, k)] = kUnset;
    }
}

// Operand `t` of an elementwise op is broadcast along every banded axis of the op's
// output (right-aligned dims absent or 1) while the output's band is longer than 1.
bool broadcast_along_band(const Walk &w, const tigris_op_t &op, uint16_t t)
{
    const tigris_plan_t *p = w.plan;
    if (!band_binary_op(op.op_type) || op.num_outputs < 1) return false;
    const uint16_t o = list_at(p, op.outputs_off, 0);
    const uint32_t R = p->tensors[o].ndim, r = p->tensors[t].ndim;
    const uint32_t lo = w.axes == AXES_ROWS || w.rank == 2 ? 0u : 1u, hi = w.axes == AXES_HW ? 2u : lo;
    if (r > R || hi >= R) return false;
    bool longer = false;
    for (uint32_t a = lo; a <= hi; a++) {
        longer |= tensor_dim(p, o, a) > 1;
        if (a + r >= R && tensor_dim(p, t, a + r - R) != 1) return false;
    }
    return longer;
}

bool read_ok(Walk &w, const tigris_op_t &op, uint32_t k, uint8_t cur)
{
    const tigris_plan_t *p = w.plan;
    const tigris_stage_t *s = w.stage;
    const uint16_t t = list_at(p, op.inputs_off, k);
    if (is_constant(p, t)) return true;
    const bool stage_input = in_list(p, s->inputs_off, s->inputs_count, t);
    // A row band's MatMul reads its second operand whole: a stage input, never an intermediate.
    if (w.axes == AXES_ROWS && op.op_type == TIGRIS_OP_MATMUL && k == 1) return stage_input;
    if (w.allow_whole && broadcast_along_band(w, op, t)) {
        if (!stage_input || (w.space[t] != kUnset && w.space[t] != kWhole)) return false;
        w.space[t] = kWhole;
        return true;
    }
    // A tensor loaded from slow (a stage input; in a chain an input of its head) may be read in
    // several row spaces: each space it has the extent of gets its own band of it.
    if (stage_input && in_list(p, w.loads->inputs_off, w.loads->inputs_count, t)) {
        if (w.space[t] == kWhole) return false;
        if (w.space[t] == kUnset) w.space[t] = cur;
        return extent_ok(w, t);
    }
    if (w.space[t] == kUnset) {
        if (!stage_input || (w.inputs_in_space0 && cur != 0)) return false;
        w.space[t] = cur;
    } else if (w.space[t] != cur) {
        return false;
    }
    return extent_ok(w, t);
}

bool walk_stage(Walk &w)
{
    const tigris_plan_t *p = w.plan;
    const tigris_stage_t *s = w.stage;
    reset_spaces(w);
    uint8_t cur = 0;
    for (uint32_t j = 0; j < s->ops_count; j++) {
        const tigris_op_t &op = p->ops[list_at(p, s->ops_off, j)];
        for (uint32_t k = 0; k < op.num_inputs; k++) {
            if (!read_ok(w, op, k, cur)) return false;
        }
        if (w.spatial && w.spatial(op.op_type)) {
            if (cur + 1u >= kWhole) return false;
            cur++;
            w.ext0 = -1;
            if (w.axes != AXES_HC || w.chans_per_space) w.ext1 = -1;
        }
        for (uint32_t k = 0; k < op.num_outputs; k++) {
            const uint16_t t = list_at(p, op.outputs_off, k);
            if (w.space[t] != kUnset || is_constant(p, t)) return false;  // written once, after no read
            w.space[t] = cur;
            if (!extent_ok(w, t)) return false;
        }
    }
    // Stage outputs are written by the stage, in its last space (the output band).
    for (uint32_t k = 0; k < s->outputs_count; k++) {
        if (w.space[list_at(p, s->outputs_off, k)] != cur) return false;
    }
    return true;
}

void init_walk(Walk &w, const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    w.plan = plan;
    w.stage = stage;
    w.loads = stage;
    w.inputs_in_space0 = false;
    w.allow_whole = true;
    w.chans_per_space = false;
    w.spatial = nullptr;
    w.ext0 = w.ext1 = w.batch = -1;
}

// One op reading one banded stage input (other operands constant), writing the stage output.
bool single_op_band_ok(const tigris_plan_t *p, const tigris_stage_t *s)
{
    if (s->ops_count != 1 || s->outputs_count != 1) return false;
    const tigris_op_t &op = p->ops[list_at(p, s->ops_off, 0)];
    if (op.num_inputs < 1 || op.num_outputs != 1) return false;
    const uint16_t in = list_at(p, op.inputs_off, 0);
    if (is_constant(p, in) || !in_list(p, s->inputs_off, s->inputs_count, in)) return false;
    for (uint32_t k = 1; k < op.num_inputs; k++) {
        if (!is_constant(p, list_at(p, op.inputs_off, k))) return false;
    }
    return list_at(p, op.outputs_off, 0) == list_at(p, s->outputs_off, 0);
}

// CONCAT: every input of the one op a non-constant stage input (each is loaded in pieces),
// its one output the stage's only output.
bool concat_band_ok(const tigris_plan_t *p, const tigris_stage_t *s)
{
    if (s->ops_count != 1 || s->outputs_count != 1) return false;
    const tigris_op_t &op = p->ops[list_at(p, s->ops_off, 0)];
    if (op.num_inputs < 1 || op.num_outputs != 1) return false;
    for (uint32_t k = 0; k < op.num_inputs; k++) {
        const uint16_t in = list_at(p, op.inputs_off, k);
        if (is_constant(p, in) || !in_list(p, s->inputs_off, s->inputs_count, in)) return false;
    }
    return list_at(p, op.outputs_off, 0) == list_at(p, s->outputs_off, 0);
}

}  // namespace

tigris_error_t check_tile_band(const tigris_plan_t *plan, const tigris_stage_t *stage, const StageBand *band)
{
    Walk w;
    init_walk(w, plan, stage);
    w.rank = band->rank;
    switch (band->kind) {
    case TIGRIS_BAND_KIND_STRIPE:
        w.axes = AXES_H;
        w.spatial = band->rank == 3 ? line_spatial_op : stripe_spatial_op;
        break;
    case TIGRIS_BAND_KIND_HW:
        w.axes = AXES_HW;
        w.spatial = hw_spatial_op;
        break;
    case TIGRIS_BAND_KIND_CHANNELS:
        // Input-channel bands: the one FullyConnected reads its stage input in boxes and
        // writes its stage output whole (single_op_band_ok: weights constant).
        if (band->mode == TIGRIS_CHANNELS_MODE_INPUT)
            return single_op_band_ok(plan, stage) ? TIGRIS_OK : TIGRIS_ERR_TILE_BAND;
        w.axes = AXES_HC;
        w.chans_per_space = band->mode == TIGRIS_CHANNELS_MODE_OUTPUT;
        if (w.chans_per_space) w.spatial = [](uint8_t type) { return ops::has_band(type, ops::kBandChannelMix); };
        else w.spatial = [](uint8_t type) { return ops::has_band(type, ops::kBandChannelSpatial); };
        break;
    case TIGRIS_BAND_KIND_ROWS:
        w.axes = AXES_ROWS;
        w.ext0 = band->extent;
        break;
    case TIGRIS_BAND_KIND_NONE: return TIGRIS_OK;
    case TIGRIS_BAND_KIND_CONCAT: return concat_band_ok(plan, stage) ? TIGRIS_OK : TIGRIS_ERR_TILE_BAND;
    default: return single_op_band_ok(plan, stage) ? TIGRIS_OK : TIGRIS_ERR_TILE_BAND;
    }
    return walk_stage(w) ? TIGRIS_OK : TIGRIS_ERR_TILE_BAND;
}

tigris_error_t check_chain_band(const tigris_plan_t *plan, uint16_t head)
{
    const uint16_t len = plan->stages[head].chain_len;
    Walk w;
    for (uint32_t k = 0; k < len; k++) {
        const tigris_stage_t *s = &plan->stages[head + k];
        init_walk(w, plan, s);
        w.loads = &plan->stages[head];
        w.rank = 4;
        w.axes = AXES_H;
        w.inputs_in_space0 = true;
        w.allow_whole = false;
        w.spatial = chain_spatial_op;
        if (!walk_stage(w)) return TIGRIS_ERR_CHAIN_BAND;
        if (k == 0) continue;
        // A member's banded inputs are the previous member's output bands, or inputs of the
        // head (loaded again at the rows of the space that reads them).
        const tigris_stage_t *prev = s - 1;
        for (uint32_t i = 0; i < s->inputs_count; i++) {
            const uint16_t t = list_at(plan, s->inputs_off, i);
            if (!is_constant(plan, t) && !in_list(plan, prev->outputs_off, prev->outputs_count, t) &&
                !in_list(plan, w.loads->inputs_off, w.loads->inputs_count, t))
                return TIGRIS_ERR_CHAIN_BAND;
        }
    }
    return TIGRIS_OK;
}

}  // namespace tigris_rt
