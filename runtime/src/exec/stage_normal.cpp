// The normal path: the whole stage in the fast arena.
//   1. weights (if the stage has a block), 2. load every stage input slow -> fast,
//   3. per op: allocate its outputs (fast; compact and retry; overflow to slow), call the
//      kernel, null the inputs it read for the last time in this stage; a schema 11 plan
//      caps the stage at its stated peak above its weights (compacting at the cap), so the
//      stage holds exactly the live set the compiler scheduled, whatever the arena,
//   4. spill the stage outputs to slow (left in place for inputs read in place),
//   5. restore the inputs' slow pointers, null intermediates, reset fast to the floor.
#include "exec/exec_internal.h"
#include "memory/arena.h"

namespace tigris_rt {

namespace {

// last_op[t] = position (in the stage) of the last op reading t; stage outputs are exempt.
void mark_last_reads(RunContext &ctx, const tigris_stage_t *stage)
{
    const tigris_plan_t *plan = ctx.plan;
    const uint16_t *ops = tigris_stage_ops(plan, stage);
    for (uint16_t i = 0; i < stage->ops_count; ++i) {
        const tigris_op_t *op = &plan->ops[ops[i]];
        const uint16_t *ins = tigris_op_inputs(plan, op);
        for (uint8_t k = 0; k < op->num_inputs; ++k) ctx.ws.last_op[ins[k]] = i;
    }
    const uint16_t *outs = tigris_stage_outputs(plan, stage);
    for (uint16_t i = 0; i < stage->outputs_count; ++i) ctx.ws.last_op[outs[i]] = kKeep;
}

// Load each stage input into fast, remembering where it was (NULL: read in place, consumed).
tigris_exec_error_t load_inputs(RunContext &ctx, const tigris_stage_t *stage, uint16_t *loaded)
{
    const uint16_t *ins = tigris_stage_inputs(ctx.plan, stage);
    tigris_mem_t *mem = ctx.mem;
    for (uint16_t i = 0; i < stage->inputs_count; ++i) {
        const uint16_t t = ins[i];
        ctx.ws.stage_in[i] = mem->tensor_ptrs[t];
        *loaded = (uint16_t)(i + 1);
        if (list_has(ins, i, t)) continue;  // listed twice: loaded once
        if (ctx.in_place && in_fast(mem, mem->tensor_ptrs[t])) {
            ctx.ws.stage_in[i] = nullptr;
            continue;
        }
        if (mem_load(mem, t, ctx.plan->tensors[t].size_bytes) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
    }
    return TIGRIS_EXEC_OK;
}

void restore_inputs(RunContext &ctx, const tigris_stage_t *stage, uint16_t loaded)
{
    const uint16_t *ins = tigris_stage_inputs(ctx.plan, stage);
    for (uint16_t i = loaded; i > 0; --i) ctx.mem->tensor_ptrs[ins[i - 1]] = ctx.ws.stage_in[i - 1];
}

tigris_exec_error_t run_ops(RunContext &ctx, const tigris_stage_t *stage, const tigris_plan_t *kplan)
{
    const tigris_plan_t *plan = ctx.plan;
    const uint16_t *ops = tigris_stage_ops(plan, stage);
    for (uint16_t i = 0; i < stage->ops_count; ++i) {
        const uint16_t op_index = ops[i];
        const tigris_op_t *op = &plan->ops[op_index];
        const uint16_t *outs = tigris_op_outputs(plan, op);
        for (uint8_t k = 0; k < op->num_outputs; ++k) {
            if (ctx.mem->tensor_ptrs[outs[k]] != nullptr) continue;
            tigris_exec_error_t rc = alloc_stage_output(ctx, outs[k]);
            if (rc != TIGRIS_EXEC_OK) return rc;
        }
        tigris_exec_error_t rc = call_kernel(ctx, kplan, op_index);
        if (rc != TIGRIS_EXEC_OK) return rc;
        const uint16_t *ins = tigris_op_inputs(plan, op);
        for (uint8_t k = 0; k < op->num_inputs; ++k)
            if (ctx.ws.last_op[ins[k]] == i) ctx.mem->tensor_ptrs[ins[k]] = nullptr;
    }
    return TIGRIS_EXEC_OK;
}

// Spill the stage outputs held in fast (those that overflowed already live in slow).
tigris_exec_error_t spill_outputs(RunContext &ctx, const tigris_stage_t *stage)
{
    const uint16_t *outs = tigris_stage_outputs(ctx.plan, stage);
    const uint16_t *ins = tigris_stage_inputs(ctx.plan, stage);
    tigris_mem_t *mem = ctx.mem;
    for (uint16_t i = 0; i < stage->outputs_count; ++i) {
        const uint16_t t = outs[i];
        if (list_has(ins, stage->inputs_count, t) || list_has(outs, i, t)) continue;
        if (mem->tensor_ptrs[t] == nullptr) return TIGRIS_EXEC_ERR_MEM;  // never produced
        if (!in_fast(mem, mem->tensor_ptrs[t])) continue;
        if (mem_spill(mem, t, ctx.plan->tensors[t].size_bytes) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
    }
    return TIGRIS_EXEC_OK;
}

// Schema 11 states each stage's peak: the fast offset the stage may not rise above (its
// weights are below fast_reserved). 0 (no cap) before schema 11 or for a stage stating none.
uint32_t stage_fast_cap(const RunContext &ctx, const tigris_stage_t *stage)
{
    if (ctx.plan->header->version < 11 || stage->peak_bytes == 0) return 0;
    const uint64_t cap = (uint64_t)ctx.mem->fast_reserved + stage->peak_bytes;
    return cap < ctx.mem->fast_size ? (uint32_t)cap : 0;
}

}  // namespace

tigris_exec_error_t run_stage_normal(RunContext &ctx, uint16_t s)
{
    const tigris_stage_t *stage = &ctx.plan->stages[s];
    stage_begin(ctx, s, StagePath::Normal);
    null_stage_op_outputs(ctx, stage);
    mark_last_reads(ctx, stage);
    uint16_t loaded = 0;
    tigris_plan_t kplan;
    tigris_exec_error_t rc = load_stage_weights(ctx, s, &kplan);
    if (rc == TIGRIS_EXEC_OK) rc = load_inputs(ctx, stage, &loaded);
    ctx.fast_cap = rc == TIGRIS_EXEC_OK ? stage_fast_cap(ctx, stage) : 0;
    if (rc == TIGRIS_EXEC_OK) rc = run_ops(ctx, stage, &kplan);
    ctx.fast_cap = 0;
    if (rc == TIGRIS_EXEC_OK && !ctx.in_place) rc = spill_outputs(ctx, stage);
    restore_inputs(ctx, stage, loaded);
    null_stage_intermediates(ctx, stage);
    release_stage_fast(ctx);
    if (rc == TIGRIS_EXEC_OK) ctx.stats->stages_normal++;
    stage_end(ctx, s);
    return rc;
}

}  // namespace tigris_rt
