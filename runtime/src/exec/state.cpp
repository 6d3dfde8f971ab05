// Variables kept across invocations. The caller's state buffer holds every variable; a run
// copies each entry's region into a slow buffer bound to the entry's input tensor (so
// loads, compaction and banding never touch the caller's buffer) and, only after the whole
// run succeeded, copies each entry's output tensor back to its region.
#include <string.h>

#include "exec/exec_internal.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"

namespace tigris_rt {

namespace {

void trace_copy(tigris_mem_t *mem, uint16_t tensor, const void *dst, uint32_t dst_off, uint32_t src_off, uint32_t bytes)
{
    if (!trace_enabled(mem)) return;  // skip pool_of in runtimes built without TIGRIS_TRACE
    trace_mem(mem, TIGRIS_TRACE_COPY, pool_of(mem, dst), tensor, dst_off, src_off, bytes);
}

bool entry_fits(const tigris_plan_t *plan, const tigris_state_entry_t *e, uint16_t tensor)
{
    if (tensor >= plan->header->num_tensors) return false;
    if (e->bytes > plan->tensors[tensor].size_bytes) return false;
    return e->offset <= plan->state_bytes && e->bytes <= plan->state_bytes - e->offset;
}

}  // namespace

tigris_exec_error_t bind_state(RunContext &ctx, const uint8_t *state)
{
    const tigris_plan_t *plan = ctx.plan;
    tigris_mem_t *mem = ctx.mem;
    for (uint16_t i = 0; i < plan->num_state; ++i) {
        const tigris_state_entry_t *e = &plan->state_entries[i];
        if (!entry_fits(plan, e, e->input)) return TIGRIS_EXEC_ERR_STATE;
        if (mem_alloc_slow(mem, e->input, plan->tensors[e->input].size_bytes) != TIGRIS_MEM_OK)
            return TIGRIS_EXEC_ERR_MEM;
        uint8_t *dst = (uint8_t *)mem->tensor_ptrs[e->input];
        memcpy(dst, state + e->offset, e->bytes);
        ctx.stats->copy_bytes += e->bytes;
        trace_copy(mem, e->input, dst, pool_offset(mem, dst), e->offset, e->bytes);
    }
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t copy_state_back(RunContext &ctx, uint8_t *state)
{
    const tigris_plan_t *plan = ctx.plan;
    tigris_mem_t *mem = ctx.mem;
    // Check every entry first so the buffer is either fully updated or left as it was.
    for (uint16_t i = 0; i < plan->num_state; ++i) {
        const tigris_state_entry_t *e = &plan->state_entries[i];
        if (e->output == TIGRIS_NONE) continue;
        if (!entry_fits(plan, e, e->output) || e->output >= mem->num_tensors || mem->tensor_ptrs[e->output] == nullptr)
            return TIGRIS_EXEC_ERR_STATE;
    }
    for (uint16_t i = 0; i < plan->num_state; ++i) {
        const tigris_state_entry_t *e = &plan->state_entries[i];
        if (e->output == TIGRIS_NONE) continue;
        const uint8_t *src = (const uint8_t *)mem->tensor_ptrs[e->output];
        memcpy(state + e->offset, src, e->bytes);
        ctx.stats->copy_bytes += e->bytes;
        trace_copy(mem, e->output, state + e->offset, e->offset, pool_offset(mem, src), e->bytes);
    }
    return TIGRIS_EXEC_OK;
}

}  // namespace tigris_rt

using namespace tigris_rt;

extern "C" size_t tigris_state_required(const tigris_plan_t *plan)
{
    if (plan == nullptr || plan->num_state == 0) return 0;
    return plan->state_bytes;
}

extern "C" tigris_exec_error_t tigris_state_init(const tigris_plan_t *plan, void *state, size_t state_size)
{
    if (plan == nullptr || plan->header == nullptr) return TIGRIS_EXEC_ERR_NULL;
    if (state == nullptr) return TIGRIS_EXEC_ERR_STATE;  // even for a plan without state
    const size_t required = tigris_state_required(plan);
    if (required == 0) return TIGRIS_EXEC_OK;
    if (state_size < required || plan->state_section == nullptr) return TIGRIS_EXEC_ERR_STATE;
    for (uint16_t i = 0; i < plan->num_state; ++i) {
        const tigris_state_entry_t *e = &plan->state_entries[i];
        if (e->offset > plan->state_bytes || e->bytes > plan->state_bytes - e->offset) return TIGRIS_EXEC_ERR_STATE;
    }
    memset(state, 0, required);
    for (uint16_t i = 0; i < plan->num_state; ++i) {
        const tigris_state_entry_t *e = &plan->state_entries[i];
        memcpy((uint8_t *)state + e->offset, plan->state_section + e->initial, e->bytes);
    }
    return TIGRIS_EXEC_OK;
}
