// Chains: consecutive stages streamed band by band (docs/executor.md). Every member's
// weight block is decompressed before the first band (kept under fast_reserved); the
// chain is described as one op sequence through row spaces (receptive fields compose
// through the spaces, row ranges are back-propagated per tile by the band cost model);
// only the head's inputs are loaded from slow and only the last member's outputs spilled.
// A LINE_BUFFERED head keeps every band buffer for the whole chain and moves the rows the
// next tile shares instead of recomputing (or reloading) them. The band is the head's
// chain_tile_h (schema 11: exactly; earlier: the largest up to it that fits).
#include "exec/band_tile.h"
#include "memory/arena.h"

namespace tigris_rt {

namespace {

static_assert(sizeof(CostSpace) <= 64, "chain spaces live in the workspace's chain regions");

// The row spaces live in the workspace's chain_info and op_geom regions (contiguous int32).
CostSpace *chain_spaces(RunContext &ctx, uint16_t *capacity)
{
    const WorkspaceCounts &c = ctx.ws.counts;
    const size_t bytes = 4u * (14u * (size_t)c.chain_stages + 16u * (size_t)c.chain_stages * c.spatial_ops);
    const size_t n = bytes / sizeof(CostSpace);
    *capacity = (uint16_t)(n > 0xFFFFu ? 0xFFFFu : n);
    return (CostSpace *)(void *)ctx.ws.chain_info;
}

tigris_exec_error_t load_member_weights(RunContext &ctx, uint16_t head, uint16_t len)
{
    for (uint16_t m = 0; m < len; ++m) {
        tigris_plan_t member;
        ctx.ws.chain_ptrs[m] = nullptr;
        tigris_exec_error_t rc = load_stage_weights(ctx, (uint16_t)(head + m), &member);
        if (rc != TIGRIS_EXEC_OK) return rc;
        if (stage_weight_block(ctx.plan, (uint16_t)(head + m)) != nullptr)
            ctx.ws.chain_ptrs[m] = (void *)member.weight_blob;
    }
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t alloc_chain_outputs(RunContext &ctx, const tigris_stage_t &last)
{
    const uint16_t *outs = tigris_stage_outputs(ctx.plan, &last);
    for (uint16_t i = 0; i < last.outputs_count; ++i) {
        uint16_t first = 0;
        while (outs[first] != outs[i]) ++first;
        if (first < i) {
            ctx.ws.stage_out[i] = ctx.ws.stage_out[first];
            continue;
        }
        if (mem_alloc_slow(ctx.mem, outs[i], ctx.plan->tensors[outs[i]].size_bytes) != TIGRIS_MEM_OK)
            return TIGRIS_EXEC_ERR_MEM;
        ctx.ws.stage_out[i] = ctx.mem->tensor_ptrs[outs[i]];
    }
    return TIGRIS_EXEC_OK;
}

void save_chain_io(RunContext &ctx, const tigris_stage_t &head, const tigris_stage_t &last)
{
    const uint16_t *ins = tigris_stage_inputs(ctx.plan, &head);
    for (uint16_t i = 0; i < head.inputs_count; ++i) ctx.ws.stage_in[i] = ctx.mem->tensor_ptrs[ins[i]];
    for (uint16_t i = 0; i < last.outputs_count; ++i) ctx.ws.stage_out[i] = nullptr;
}

}  // namespace

tigris_exec_error_t run_chain(RunContext &ctx, uint16_t head, uint16_t *consumed)
{
    const tigris_plan_t *plan = ctx.plan;
    const tigris_stage_t &h = plan->stages[head];
    const uint16_t len = h.chain_len;
    *consumed = len;
    if ((uint32_t)head + len > plan->header->num_stages || len > ctx.ws.counts.chain_stages)
        return TIGRIS_EXEC_ERR_TILE;
    const tigris_stage_t &last = plan->stages[head + len - 1];
    stage_begin(ctx, head, StagePath::Chain);
    for (uint16_t m = 0; m < len; ++m) null_stage_op_outputs(ctx, &plan->stages[head + m]);
    save_chain_io(ctx, h, last);
    tigris_plan_t kplan = *plan;
    BandRun run{};
    run.ctx = &ctx;
    run.kplan = &kplan;
    run.blobs = ctx.ws.chain_ptrs;
    run.line_buffered = (h.flags & TIGRIS_STAGE_LINE_BUFFERED) != 0;
    uint16_t capacity = 0;
    run.spaces = chain_spaces(ctx, &capacity);
    tigris_exec_error_t rc = load_member_weights(ctx, head, len);
    if (rc == TIGRIS_EXEC_OK) rc = band_describe(run, head, TIGRIS_BAND_KIND_NONE, capacity);
    uint32_t rows = 0, cols = 0;
    CostPeak peak;
    if (rc == TIGRIS_EXEC_OK) {
        const bool search = plan->header->version < 11;
        rc = band_choose(run, head, search ? (h.chain_tile_h > 0 ? h.chain_tile_h : 1u) : 0u, &rows, &cols, &peak);
        if (search && rc == TIGRIS_EXEC_ERR_TILE) rc = TIGRIS_EXEC_ERR_MEM;  // nothing fits (earlier schemas)
    }
    if (rc == TIGRIS_EXEC_OK) {
        band_fill_info(run);
        rc = alloc_chain_outputs(ctx, last);
    }
    if (rc == TIGRIS_EXEC_OK) rc = band_prepare(run);
    if (rc == TIGRIS_EXEC_OK) rc = band_run_all(run, rows, cols);
    if (run.n > 0) band_finish(run);
    release_stage_fast(ctx);
    if (rc == TIGRIS_EXEC_OK) ctx.stats->stages_chain = (uint16_t)(ctx.stats->stages_chain + len);
    stage_end(ctx, head);
    return rc;
}

}  // namespace tigris_rt
