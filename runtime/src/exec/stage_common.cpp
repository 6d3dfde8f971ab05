// Pieces every stage path uses: trace brackets, output allocation with its fallbacks,
// the kernel call, and the end-of-stage cleanup.
#include "exec/exec_internal.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"

namespace tigris_rt {

bool list_has(const uint16_t *list, uint16_t count, uint16_t t)
{
    for (uint16_t i = 0; i < count; ++i)
        if (list[i] == t) return true;
    return false;
}

void stage_begin(RunContext &ctx, uint16_t s, StagePath path)
{
    trace_set_stage(ctx.mem, s, (uint8_t)path);
    if (!trace_enabled(ctx.mem)) return;
    tigris_trace_event_t e = trace_blank(TIGRIS_TRACE_STAGE_BEGIN);
    e.path = (uint8_t)path;
    trace_send(ctx.mem, &e);
}

void stage_end(RunContext &ctx, uint16_t s)
{
    (void)s;
    if (trace_enabled(ctx.mem)) {
        tigris_trace_event_t e = trace_blank(TIGRIS_TRACE_STAGE_END);
        trace_send(ctx.mem, &e);
    }
    trace_set_stage(ctx.mem, 0xFFFFu, 0xFFu);
}

namespace {

// Whether `bytes` more would take the fast arena above the stage's cap.
bool above_cap(const RunContext &ctx, uint32_t bytes)
{
    uint32_t aligned = 0;
    if (ctx.fast_cap == 0) return false;
    return !align_size(bytes, &aligned) || (uint64_t)ctx.mem->fast_used + aligned > ctx.fast_cap;
}

}  // namespace

tigris_exec_error_t alloc_stage_output(RunContext &ctx, uint16_t t)
{
    tigris_mem_t *mem = ctx.mem;
    const uint32_t bytes = ctx.plan->tensors[t].size_bytes;
    if (!above_cap(ctx, bytes) && mem_alloc_fast(mem, t, bytes) == TIGRIS_MEM_OK) return TIGRIS_EXEC_OK;
    mem_compact(mem, ctx.plan, Pool::Fast);
    if (!above_cap(ctx, bytes) && mem_alloc_fast(mem, t, bytes) == TIGRIS_MEM_OK) return TIGRIS_EXEC_OK;
    if (mem_alloc_slow(mem, t, bytes) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
    ctx.stats->slow_overflow_count++;
    ctx.stats->slow_overflow_bytes += bytes;
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t call_kernel(RunContext &ctx, const tigris_plan_t *kplan, uint16_t op_index)
{
    if (trace_enabled(ctx.mem)) {
        tigris_trace_event_t e = trace_blank(TIGRIS_TRACE_OP);
        e.op = op_index;
        trace_send(ctx.mem, &e);
    }
    int rc = ctx.kernel(kplan, &kplan->ops[op_index], op_index, ctx.mem, ctx.user_ctx);
    return rc == 0 ? TIGRIS_EXEC_OK : TIGRIS_EXEC_ERR_KERNEL;
}

void null_stage_op_outputs(RunContext &ctx, const tigris_stage_t *stage)
{
    const tigris_plan_t *plan = ctx.plan;
    const uint16_t *ops = tigris_stage_ops(plan, stage);
    for (uint16_t i = 0; i < stage->ops_count; ++i) {
        const tigris_op_t *op = &plan->ops[ops[i]];
        const uint16_t *outs = tigris_op_outputs(plan, op);
        for (uint8_t k = 0; k < op->num_outputs; ++k) ctx.mem->tensor_ptrs[outs[k]] = nullptr;
    }
}

void null_stage_intermediates(RunContext &ctx, const tigris_stage_t *stage)
{
    const tigris_plan_t *plan = ctx.plan;
    const uint16_t *ops = tigris_stage_ops(plan, stage);
    const uint16_t *stage_outs = tigris_stage_outputs(plan, stage);
    for (uint16_t i = 0; i < stage->ops_count; ++i) {
        const tigris_op_t *op = &plan->ops[ops[i]];
        const uint16_t *outs = tigris_op_outputs(plan, op);
        for (uint8_t k = 0; k < op->num_outputs; ++k)
            if (!list_has(stage_outs, stage->outputs_count, outs[k])) ctx.mem->tensor_ptrs[outs[k]] = nullptr;
    }
}

void release_stage_fast(RunContext &ctx)
{
    ctx.mem->fast_reserved = ctx.floor;
    mem_reset_fast(ctx.mem);
}

}  // namespace tigris_rt
