// Loader steps 23-26: stage records and chains, the op schedule, state entries,
// subgraph ranges and nesting depth, and the op mix of tiled and chained stages.
#include "common/features.h"
#include "plan/band_rules.h"
#include "plan/loader_ctx.h"

namespace tigris_rt {

namespace {

bool list_ok(const LoadCtx &c, uint16_t off, uint16_t count, uint32_t bound)
{
    if (count && c.plan.index_pool == nullptr) return false;
    if (!span_ok(off, count, c.index_count)) return false;
    for (uint32_t k = 0; k < count; k++) {
        if (pool_idx(&c.plan, (uint32_t)off + k) >= bound) return false;
    }
    return true;
}

// A chain is stated on every member: the head names itself, members name the head, all
// state the same length, only the head has chain_tile_h (and flags), none has a tile record.
bool chain_ok(const LoadCtx &c, uint32_t i)
{
    const tigris_stage_t &s = c.plan.stages[i];
    if (s.chain_len == 0) return s.chain_id == TIGRIS_NONE && s.chain_tile_h == 0 && s.flags == 0;
    if (s.chain_id == TIGRIS_NONE || s.chain_len < 2 || s.chain_id > i ||
        (uint32_t)s.chain_id + s.chain_len > c.hdr.num_stages || i >= (uint32_t)s.chain_id + s.chain_len ||
        s.tile_plan_idx != TIGRIS_NONE)
        return false;
    const tigris_stage_t &head = c.plan.stages[s.chain_id];
    if (head.chain_id != s.chain_id || head.chain_len != s.chain_len || head.chain_tile_h == 0) return false;
    if (i != s.chain_id) return s.chain_tile_h == 0 && s.flags == 0;
    return (s.flags & ~TIGRIS_STAGE_LINE_BUFFERED) == 0;
}

tigris_error_t check_stage_records(LoadCtx &c)
{
    const tigris_file_header_t &h = c.hdr;
    for (uint32_t i = 0; i < h.num_stages; i++) {
        const tigris_stage_t &s = c.plan.stages[i];
        if (!list_ok(c, s.ops_off, s.ops_count, h.num_ops) ||
            !list_ok(c, s.inputs_off, s.inputs_count, h.num_tensors) ||
            !list_ok(c, s.outputs_off, s.outputs_count, h.num_tensors) || s.reserved != 0 ||
            (s.tile_plan_idx != TIGRIS_NONE && s.tile_plan_idx >= h.num_tile_plans) || !chain_ok(c, i))
            return TIGRIS_ERR_BAD_SECTION;
    }
    // Step 24: stage j's ops continue the global op order; every op is scheduled once.
    uint32_t next = 0;
    for (uint32_t i = 0; i < h.num_stages; i++) {
        const tigris_stage_t &s = c.plan.stages[i];
        for (uint32_t j = 0; j < s.ops_count; j++) {
            const uint16_t op = pool_idx(&c.plan, (uint32_t)s.ops_off + j);
            if (op != next) return TIGRIS_ERR_BAD_SECTION;
            const uint8_t byte = c.plan.ops[op].stage;
            if ((h.version < 5 && byte != i) || byte != (uint8_t)i) return TIGRIS_ERR_BAD_OPERATOR;
            next++;
        }
    }
    return next == h.num_ops ? TIGRIS_OK : TIGRIS_ERR_BAD_SECTION;
}

tigris_error_t check_state_entries(LoadCtx &c)
{
    // A build without state (TIGRIS_NO_STATE) refuses a plan with state entries.
    if (!state_built()) return c.plan.num_state != 0 ? TIGRIS_ERR_FEATURE_DISABLED : TIGRIS_OK;
    const uint32_t values_from = 8u + (uint32_t)c.plan.num_state * sizeof(tigris_state_entry_t);
    for (uint32_t i = 0; i < c.plan.num_state; i++) {
        const tigris_state_entry_t &e = c.plan.state_entries[i];
        if (e.input >= c.hdr.num_tensors || !(c.plan.tensors[e.input].flags & TIGRIS_TENSOR_STATE))
            return TIGRIS_ERR_BAD_SECTION;
        const uint32_t bytes = c.plan.tensors[e.input].size_bytes;
        if (e.output != TIGRIS_NONE && (e.output >= c.hdr.num_tensors || c.plan.tensors[e.output].size_bytes != bytes))
            return TIGRIS_ERR_BAD_SECTION;
        if (e.bytes != bytes || !span_ok(e.offset, e.bytes, c.plan.state_bytes) || e.initial < values_from ||
            !span_ok(e.initial, e.bytes, c.state_len))
            return TIGRIS_ERR_BAD_SECTION;
    }
    return TIGRIS_OK;
}

// Graphs partition the stages in order, graph 0 (main) first.
tigris_error_t check_subgraph_ranges(LoadCtx &c)
{
    if (!control_flow_built()) return TIGRIS_OK;  // no SUBGRAPHS section was accepted (step 11)
    uint32_t next = 0;
    for (uint32_t g = 0; g < c.plan.num_subgraphs; g++) {
        const tigris_subgraph_t &sg = c.plan.subgraphs[g];
        if (sg.first_stage != next || !list_ok(c, sg.inputs_off, sg.inputs_count, c.hdr.num_tensors) ||
            !list_ok(c, sg.outputs_off, sg.outputs_count, c.hdr.num_tensors))
            return TIGRIS_ERR_BAD_SECTION;
        next += sg.num_stages;
    }
    return (c.plan.num_subgraphs == 0 || next == c.hdr.num_stages) ? TIGRIS_OK : TIGRIS_ERR_BAD_SECTION;
}

uint32_t graph_of_stage(const tigris_plan_t &p, uint32_t stage)
{
    uint32_t lo = 0, hi = p.num_subgraphs;  // last graph whose first_stage <= stage
    while (hi - lo > 1) {
        const uint32_t mid = (lo + hi) / 2;
        if (p.subgraphs[mid].first_stage <= stage) lo = mid;
        else hi = mid;
    }
    return lo;
}

// Graphs holding an If/While that names a graph of `level` (level == nullptr: any If/While).
void next_level(const LoadCtx &c, const uint32_t *level, uint32_t *out, bool *any)
{
    const uint32_t words = (TIGRIS_MAX_SUBGRAPHS + 31u) / 32u;
    for (uint32_t i = 0; i < words; i++) out[i] = 0;
    *any = false;
    for (uint32_t s = 0; s < c.hdr.num_stages; s++) {
        const tigris_stage_t &st = c.plan.stages[s];
        for (uint32_t j = 0; j < st.ops_count; j++) {
            const uint16_t op = pool_idx(&c.plan, (uint32_t)st.ops_off + j);
            if (!op_is_control_flow(c.plan.ops[op].op_type)) continue;
            const uint8_t *g = tigris_op_attribute_data(&c.plan, op, TIGRIS_ATTR_SUBGRAPHS, nullptr);
            const uint16_t a = rd_u16(g), b = rd_u16(g + 2);
            if (level && !((level[a / 32] >> (a % 32)) & 1u) && !((level[b / 32] >> (b % 32)) & 1u)) continue;
            const uint32_t own = graph_of_stage(c.plan, s);
            out[own / 32] |= 1u << (own % 32);
            *any = true;
        }
    }
}

// Deepest If/While nesting, by levels: L1 = graphs with control flow, L(d+1) = graphs
// whose control flow names a graph of L(d). A level still non-empty past the graph
// count means a graph contains itself.
tigris_error_t check_subgraph_depth(LoadCtx &c)
{
    if (!control_flow_built() || c.plan.num_subgraphs == 0) return TIGRIS_OK;
    uint32_t a[(TIGRIS_MAX_SUBGRAPHS + 31u) / 32u], b[(TIGRIS_MAX_SUBGRAPHS + 31u) / 32u];
    uint32_t *cur = a, *nxt = b;
    bool any = false;
    next_level(c, nullptr, cur, &any);
    uint32_t depth = 0;
    while (any) {
        depth++;
        if (depth > c.plan.num_subgraphs) return TIGRIS_ERR_BAD_SECTION;
        next_level(c, cur, nxt, &any);
        uint32_t *t = cur;
        cur = nxt;
        nxt = t;
    }
    c.plan.subgraph_depth = (uint16_t)depth;
    return depth > TIGRIS_MAX_SUBGRAPH_DEPTH ? TIGRIS_ERR_PLAN_LIMITS : TIGRIS_OK;
}

}  // namespace

tigris_error_t check_stages(LoadCtx &c)
{
    tigris_error_t err = check_stage_records(c);
    if (err == TIGRIS_OK) err = check_state_entries(c);
    if (err == TIGRIS_OK) err = check_subgraph_ranges(c);
    if (err == TIGRIS_OK) err = check_subgraph_depth(c);
    return err;
}

namespace {

// Pre-v11 tileable records: the stage must have a kind (the executor's decision order).
tigris_error_t check_legacy_tile_kind(const LoadCtx &c, const tigris_stage_t &s)
{
    const tigris_tile_plan_v10_t ch = tigris_rt::stage_tiles(&c.plan, &s);
    if (!ch.tileable) return TIGRIS_OK;
    StageBand band;
    if (stage_band(&c.plan, &s, &band) != TIGRIS_BAND_KIND_NONE) return TIGRIS_OK;
    if (record_axis(&c.plan, &ch) != TIGRIS_TILE_AXIS_HEIGHT) return TIGRIS_ERR_BAD_OPERATOR;
    if (s.inputs_count == 0 || s.outputs_count == 0) return TIGRIS_ERR_BAD_SECTION;
    const uint8_t rank = c.plan.tensors[pool_idx(&c.plan, s.inputs_off)].ndim;
    if (rank != 3 && rank != 4) return TIGRIS_ERR_BAD_SECTION;
    for (uint32_t k = 0; k < s.inputs_count; k++) {
        if (c.plan.tensors[pool_idx(&c.plan, (uint32_t)s.inputs_off + k)].ndim != rank) return TIGRIS_ERR_BAD_SECTION;
    }
    for (uint32_t k = 0; k < s.outputs_count; k++) {
        if (c.plan.tensors[pool_idx(&c.plan, (uint32_t)s.outputs_off + k)].ndim != rank) return TIGRIS_ERR_BAD_SECTION;
    }
    return TIGRIS_ERR_BAD_OPERATOR;
}

// Chained ops: the chain allow-list (no axis attribute on the rows), and every non-constant
// operand is rank 4 (NHWC rows).
bool chained_ops_ok(const LoadCtx &c, const tigris_stage_t &s)
{
    for (uint32_t j = 0; j < s.ops_count; j++) {
        const uint16_t index = pool_idx(&c.plan, (uint32_t)s.ops_off + j);
        const tigris_op_t &op = c.plan.ops[index];
        if (!chain_op(op.op_type) || !op_axes_outside(&c.plan, index, 1, 1)) return false;
        for (uint32_t k = 0; k < (uint32_t)op.num_inputs + op.num_outputs; k++) {
            const uint16_t t = k < op.num_inputs ? pool_idx(&c.plan, (uint32_t)op.inputs_off + k)
                                                 : pool_idx(&c.plan, (uint32_t)op.outputs_off + (k - op.num_inputs));
            const tigris_tensor_t &tt = c.plan.tensors[t];
            if (!(tt.flags & TIGRIS_TENSOR_CONSTANT) && tt.ndim != 4) return false;
        }
    }
    return true;
}

// A build without bands (TIGRIS_NO_BANDS) runs every stage whole: a chain or a tileable
// record is a feature it left out. A build without control flow refuses If / While (its
// SUBGRAPHS section went at step 11); one without weight blocks refused them at step 10.
tigris_error_t check_features(const LoadCtx &c)
{
    for (uint32_t i = 0; i < c.hdr.num_stages && !bands_built(); i++) {
        const tigris_stage_t &s = c.plan.stages[i];
        if (s.chain_len != 0 || tigris_rt::stage_tiles(&c.plan, &s).tileable) return TIGRIS_ERR_FEATURE_DISABLED;
    }
    for (uint32_t i = 0; i < c.hdr.num_ops && !control_flow_built(); i++) {
        if (op_is_control_flow(c.plan.ops[i].op_type)) return TIGRIS_ERR_FEATURE_DISABLED;
    }
    return TIGRIS_OK;
}

}  // namespace

tigris_error_t check_stage_op_mix(LoadCtx &c)
{
    const tigris_error_t features = check_features(c);
    if (features != TIGRIS_OK || !bands_built()) return features;  // no chain, nothing tileable
    for (uint32_t i = 0; i < c.hdr.num_stages; i++) {
        const tigris_stage_t &s = c.plan.stages[i];
        if (c.hdr.version < 11) {  // step 25; schema 11 states the kind (verified at step 29)
            const tigris_error_t err = check_legacy_tile_kind(c, s);
            if (err != TIGRIS_OK) return err;
        }
        if (s.chain_len >= 2 && !chained_ops_ok(c, s)) return TIGRIS_ERR_BAD_OPERATOR;  // step 26
    }
    return TIGRIS_OK;
}

}  // namespace tigris_rt
