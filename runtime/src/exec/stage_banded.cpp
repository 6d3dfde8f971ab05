// Standalone banded stages described by the band cost model: height/length stripes
// (STRIPE), 2-D tiles (HW), row bands of matrices (ROWS) and rows x channels (CHANNELS).
//   1. weights (kept under fast_reserved), 2. the band: the record's (schema 11, HW) or the
//   largest that fits (stripes and rows of earlier schemas), TILE when it does not fit,
//   3. full output buffers in slow (a stripe may reuse its dying input's, stripe_in_place),
//   4. whole-read inputs loaded once, 5. every band (band_tile.h), 6. pointers restored.
#include "exec/band_tile.h"
#include "memory/arena.h"
#include "plan/band_rules.h"

namespace tigris_rt {

namespace {

constexpr uint16_t kStageSpaces = 2;  // a standalone stage has at most one spatial op

void save_inputs(RunContext &ctx, const tigris_stage_t &st)
{
    const uint16_t *ins = tigris_stage_inputs(ctx.plan, &st);
    for (uint16_t i = 0; i < st.inputs_count; ++i) ctx.ws.stage_in[i] = ctx.mem->tensor_ptrs[ins[i]];
    for (uint16_t i = 0; i < st.outputs_count; ++i) ctx.ws.stage_out[i] = nullptr;
}

// Full slow buffers of the stage outputs (a stripe falls back to its input's, in place).
tigris_exec_error_t alloc_outputs(RunContext &ctx, BandRun &run, uint16_t s, bool stripe, uint32_t rows)
{
    const tigris_stage_t &st = ctx.plan->stages[s];
    const uint16_t *outs = tigris_stage_outputs(ctx.plan, &st);
    for (uint16_t i = 0; i < st.outputs_count; ++i) {
        const uint16_t t = outs[i];
        uint16_t first = 0;
        while (outs[first] != t) ++first;
        if (first < i) {
            ctx.ws.stage_out[i] = ctx.ws.stage_out[first];
            continue;
        }
        if (mem_alloc_slow(ctx.mem, t, ctx.plan->tensors[t].size_bytes) == TIGRIS_MEM_OK) {
            ctx.ws.stage_out[i] = ctx.mem->tensor_ptrs[t];
            continue;
        }
        uint16_t in_slot = 0;
        if (!stripe || !stripe_in_place(run, s, rows, &in_slot)) return TIGRIS_EXEC_ERR_MEM;
        ctx.ws.stage_out[i] = ctx.ws.stage_in[in_slot];
    }
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t run_banded_stage(RunContext &ctx, uint16_t s, StagePath path, tigris_band_kind_t kind)
{
    const tigris_stage_t &st = ctx.plan->stages[s];
    stage_begin(ctx, s, path);
    null_stage_op_outputs(ctx, &st);
    save_inputs(ctx, st);
    CostSpace spaces[kStageSpaces];
    tigris_plan_t kplan;
    void *blob = nullptr;
    BandRun run{};
    run.ctx = &ctx;
    run.spaces = spaces;
    run.kplan = &kplan;
    run.blobs = &blob;
    tigris_exec_error_t rc = load_stage_weights(ctx, s, &kplan);
    if (stage_weight_block(ctx.plan, s) != nullptr) blob = (void *)kplan.weight_blob;
    if (rc == TIGRIS_EXEC_OK) rc = band_describe(run, s, kind, kStageSpaces);
    uint32_t rows = 0, cols = 0;
    CostPeak peak;
    if (rc == TIGRIS_EXEC_OK) {
        const bool search = ctx.plan->header->version < 11 && kind != TIGRIS_BAND_KIND_HW && kind != TIGRIS_BAND_KIND_CHANNELS;
        rc = band_choose(run, s, search ? (uint32_t)spaces[run.n - 1].rows : 0u, &rows, &cols, &peak);
    }
    if (rc == TIGRIS_EXEC_OK) {
        band_fill_info(run);
        rc = alloc_outputs(ctx, run, s, kind == TIGRIS_BAND_KIND_STRIPE, rows);
    }
    if (rc == TIGRIS_EXEC_OK) rc = band_prepare(run);
    if (rc == TIGRIS_EXEC_OK) rc = band_run_all(run, rows, cols);
    if (run.n > 0) band_finish(run);
    release_stage_fast(ctx);
    if (rc == TIGRIS_EXEC_OK) ctx.stats->stages_tiled++;
    stage_end(ctx, s);
    return rc;
}

}  // namespace

tigris_exec_error_t run_stage_stripe(RunContext &ctx, uint16_t s)
{
    return run_banded_stage(ctx, s, StagePath::Stripe, TIGRIS_BAND_KIND_STRIPE);
}

tigris_exec_error_t run_stage_tiled_2d(RunContext &ctx, uint16_t s)
{
    return run_banded_stage(ctx, s, StagePath::Tiled2D, TIGRIS_BAND_KIND_HW);
}

tigris_exec_error_t run_stage_rows(RunContext &ctx, uint16_t s)
{
    return run_banded_stage(ctx, s, StagePath::Rows, TIGRIS_BAND_KIND_ROWS);
}

tigris_exec_error_t run_stage_channels(RunContext &ctx, uint16_t s)
{
    StageBand b;
    if (stage_band(ctx.plan, &ctx.plan->stages[s], &b) == TIGRIS_BAND_KIND_CHANNELS &&
        b.mode == TIGRIS_CHANNELS_MODE_INPUT)
        return run_stage_input_channels(ctx, s);
    return run_banded_stage(ctx, s, StagePath::Channels, TIGRIS_BAND_KIND_CHANNELS);
}

}  // namespace tigris_rt
