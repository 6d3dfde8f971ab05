// Choosing and dispatching a stage's execution path.
//
// Control flow and chains are recognised by their operators and chain fields. A stage
// with a tileable record is banded by the kind tigris_stage_band_kind gives (stated by the
// record from schema 11): from schema 11 always, with the record's band, so the run holds
// exactly the plan's scheduled peak; before, only when its inputs and outputs do not fit
// the fast arena above the reserved prefix (after its weights). A record that asks for
// banding the runtime cannot classify fails closed with TILE, as does every chain or tileable
// record in a build without bands (TIGRIS_NO_BANDS, common/features.h).
#include "common/features.h"
#include "exec/exec_internal.h"
#include "memory/arena.h"
#include "plan/band_rules.h"
#include "tigris_loader.h"

namespace tigris_rt {

namespace {

uint64_t aligned_sum(const tigris_plan_t *plan, const uint16_t *list, uint16_t count)
{
    uint64_t sum = 0;
    for (uint16_t i = 0; i < count; ++i) {
        uint32_t aligned = 0;
        if (!align_size(plan->tensors[list[i]].size_bytes, &aligned)) return UINT64_MAX / 4;
        sum += aligned;
    }
    return sum;
}

bool stage_needs_banding(const RunContext &ctx, uint16_t s)
{
    const tigris_plan_t *plan = ctx.plan;
    const tigris_stage_t *stage = &plan->stages[s];
    uint64_t io = aligned_sum(plan, tigris_stage_inputs(plan, stage), stage->inputs_count) +
                  aligned_sum(plan, tigris_stage_outputs(plan, stage), stage->outputs_count);
    uint32_t weights = 0;
    if (!stage_weight_bytes(plan, s, &weights)) return true;
    const tigris_mem_t *mem = ctx.mem;
    uint64_t avail = mem->fast_size > mem->fast_reserved ? (uint64_t)(mem->fast_size - mem->fast_reserved) : 0u;
    avail = avail > weights ? avail - weights : 0u;
    return io > avail;
}

bool path_of_kind(tigris_band_kind_t kind, StagePath *path)
{
    switch (kind) {
    case TIGRIS_BAND_KIND_STRIPE: *path = StagePath::Stripe; return true;
    case TIGRIS_BAND_KIND_HW: *path = StagePath::Tiled2D; return true;
    case TIGRIS_BAND_KIND_BY_INPUT: *path = StagePath::ByInput; return true;
    case TIGRIS_BAND_KIND_TRANSPOSE: *path = StagePath::Transpose; return true;
    case TIGRIS_BAND_KIND_ROWS: *path = StagePath::Rows; return true;
    case TIGRIS_BAND_KIND_RESHAPE: *path = StagePath::Reshape; return true;
    case TIGRIS_BAND_KIND_LEADING: *path = StagePath::Leading; return true;
    case TIGRIS_BAND_KIND_CHANNELS: *path = StagePath::Channels; return true;
    case TIGRIS_BAND_KIND_CONCAT: *path = StagePath::Concat; return true;
    case TIGRIS_BAND_KIND_NONE: break;
    }
    return false;
}

}  // namespace

tigris_exec_error_t choose_path(const RunContext &ctx, uint16_t s, StagePath *path)
{
    const tigris_plan_t *plan = ctx.plan;
    const tigris_stage_t *stage = &plan->stages[s];
    *path = StagePath::Normal;
    // A build without weight blocks (the loader refused them) has no way to place a block.
    if (!weight_blocks_built() && plan->weight_blocks != nullptr) return TIGRIS_EXEC_ERR_KERNEL;
    if (stage_holds_control_flow(plan, stage)) {
        *path = StagePath::Control;
        return control_flow_built() ? TIGRIS_EXEC_OK : TIGRIS_EXEC_ERR_KERNEL;
    }
    // A build without bands (the loader refused chains and tileable records) runs stages whole.
    if (!bands_built()) return stage->chain_len == 0 && !tigris_rt::stage_tiles(plan, stage).tileable
                                   ? TIGRIS_EXEC_OK : TIGRIS_EXEC_ERR_TILE;
    if (stage->chain_len >= 2) {
        *path = StagePath::Chain;
        return stage->chain_id == s ? TIGRIS_EXEC_OK : TIGRIS_EXEC_ERR_TILE;  // only a head starts a chain
    }
    if (!tigris_rt::stage_tiles(plan, stage).tileable) return TIGRIS_EXEC_OK;
    if (plan->header->version < 11 && !stage_needs_banding(ctx, s)) return TIGRIS_EXEC_OK;
    if (!path_of_kind(tigris_stage_band_kind(plan, stage, nullptr), path)) return TIGRIS_EXEC_ERR_TILE;
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t run_stage(RunContext &ctx, uint16_t s, StagePath path, uint16_t *consumed)
{
    *consumed = 1;
    if (path == StagePath::Normal) return run_stage_normal(ctx, s);
    if (path == StagePath::Control)
        return control_flow_built() ? run_stage_control(ctx, s) : TIGRIS_EXEC_ERR_KERNEL;
    if (!bands_built()) return TIGRIS_EXEC_ERR_TILE;  // choose_path gives no band path
    switch (path) {
    case StagePath::Normal:
    case StagePath::Control: break;
    case StagePath::Stripe: return run_stage_stripe(ctx, s);
    case StagePath::Tiled2D: return run_stage_tiled_2d(ctx, s);
    case StagePath::ByInput: return run_stage_by_input(ctx, s);
    case StagePath::Transpose: return run_stage_transpose(ctx, s);
    case StagePath::Rows: return run_stage_rows(ctx, s);
    case StagePath::Reshape: return run_stage_reshape(ctx, s);
    case StagePath::Leading: return run_stage_leading(ctx, s);
    case StagePath::Channels: return run_stage_channels(ctx, s);
    case StagePath::Concat: return run_stage_concat(ctx, s);
    case StagePath::Chain: return run_chain(ctx, s, consumed);
    }
    return TIGRIS_EXEC_ERR_TILE;
}

}  // namespace tigris_rt
