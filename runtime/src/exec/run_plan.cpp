// The stage loop: per stage choose a path and run it; afterwards drop the slow-resident
// tensors no later stage uses and compact the slow pool.
#include "exec/exec_internal.h"
#include "memory/arena.h"

namespace tigris_rt {

namespace {

void mark_list(uint16_t *last, const uint16_t *list, uint16_t count, uint16_t s)
{
    for (uint16_t i = 0; i < count; ++i)
        if (last[list[i]] != kKeep && last[list[i]] < s) last[list[i]] = s;
}

// last_stage[t] = the last stage that reads or writes t; model outputs, state outputs and
// the outputs of subgraphs (copied out by their If/While, which then drops the graph's
// tensors) are kept (kKeep). Tensors no stage touches count as dead after the first stage.
void compute_last_stage(RunContext &ctx)
{
    const tigris_plan_t *plan = ctx.plan;
    uint16_t *last = ctx.ws.last_stage;
    const uint16_t n = plan->header->num_tensors;
    for (uint16_t t = 0; t < n; ++t) last[t] = 0;
    for (uint8_t i = 0; i < plan->header->num_model_outputs; ++i) last[plan->model_outputs[i]] = kKeep;
    for (uint16_t i = 0; i < plan->num_state; ++i)
        if (plan->state_entries[i].output != TIGRIS_NONE) last[plan->state_entries[i].output] = kKeep;
    for (uint16_t g = 1; g < plan->num_subgraphs; ++g) {
        const tigris_subgraph_t *sg = &plan->subgraphs[g];
        for (uint16_t i = 0; i < sg->outputs_count; ++i) last[plan->index_pool[sg->outputs_off + i]] = kKeep;
    }
    for (uint16_t s = 0; s < plan->header->num_stages; ++s) {
        const tigris_stage_t *st = &plan->stages[s];
        mark_list(last, tigris_stage_inputs(plan, st), st->inputs_count, s);
        mark_list(last, tigris_stage_outputs(plan, st), st->outputs_count, s);
        const uint16_t *ops = tigris_stage_ops(plan, st);
        for (uint16_t k = 0; k < st->ops_count; ++k) {
            const tigris_op_t *op = &plan->ops[ops[k]];
            mark_list(last, tigris_op_inputs(plan, op), op->num_inputs, s);
            mark_list(last, tigris_op_outputs(plan, op), op->num_outputs, s);
        }
    }
}

// After stage s of the range starting at `first`: null slow-resident tensors whose last
// user, in that range, has run, then compact slow. (Every tensor belongs to one graph, so
// the range spares the tensors of the graphs that hold a running If/While.)
void release_dead_slow(RunContext &ctx, uint16_t first, uint16_t s)
{
    tigris_mem_t *mem = ctx.mem;
    const uint16_t n = ctx.plan->header->num_tensors;
    for (uint16_t t = 0; t < n; ++t) {
        const uint16_t last = ctx.ws.last_stage[t];
        if (last == kKeep || last > s || last < first) continue;
        if (mem->tensor_ptrs[t] != nullptr && in_slow(mem, mem->tensor_ptrs[t])) mem->tensor_ptrs[t] = nullptr;
    }
    mem_compact(mem, ctx.plan, Pool::Slow);
}

}  // namespace

tigris_exec_error_t run_stages(RunContext &ctx)
{
    compute_last_stage(ctx);
    return run_stage_range(ctx, ctx.first_stage, ctx.end_stage);
}

tigris_exec_error_t run_stage_range(RunContext &ctx, uint16_t first, uint16_t end)
{
    uint16_t s = first;
    while (s < end) {
        StagePath path = StagePath::Normal;
        tigris_exec_error_t rc = choose_path(ctx, s, &path);
        uint16_t consumed = 1;
        if (rc == TIGRIS_EXEC_OK) rc = run_stage(ctx, s, path, &consumed);
        if (rc != TIGRIS_EXEC_OK) return rc;
        if (consumed == 0 || consumed > end - s) return TIGRIS_EXEC_ERR_TILE;
        s = (uint16_t)(s + consumed);
        release_dead_slow(ctx, first, (uint16_t)(s - 1));
    }
    return TIGRIS_EXEC_OK;
}

}  // namespace tigris_rt
