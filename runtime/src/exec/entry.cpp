// Executor entry points: argument checks, workspace, the run's floor and up-front memory
// check, state binding, and the epilogue that restores the caller's arena on every exit.
#include <string.h>

#include "common/features.h"
#include "exec/exec_internal.h"
#include "iface/in_place.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"

namespace tigris_rt {

namespace {

struct Request {
    const tigris_plan_t *plan;
    tigris_mem_t *mem;
    tigris_kernel_fn kernel;
    void *user_ctx;
    tigris_exec_stats_t *stats;
    void *workspace;
    size_t workspace_size;
    void *state;
    size_t state_size;
    bool state_entry;  // called through tigris_run_with_state
};

bool plan_has_state(const tigris_plan_t *plan) { return plan->num_state > 0; }

tigris_exec_error_t check_arguments(const Request &r, WorkspaceCounts *counts)
{
    if (r.plan == nullptr || r.plan->header == nullptr || r.mem == nullptr || r.mem->tensor_ptrs == nullptr ||
        r.kernel == nullptr)
        return TIGRIS_EXEC_ERR_NULL;
    if (r.workspace == nullptr) return TIGRIS_EXEC_ERR_WORKSPACE;
    if (r.plan->header->num_stages == 0) return TIGRIS_EXEC_ERR_NO_STAGES;
    if (!workspace_counts(r.plan, counts) || r.workspace_size < workspace_bytes(*counts))
        return TIGRIS_EXEC_ERR_WORKSPACE;
    if (plan_has_state(r.plan)) {
        if (!state_built()) return TIGRIS_EXEC_ERR_STATE;  // TIGRIS_NO_STATE: the loader refused it
        if (!r.state_entry || r.state == nullptr || r.state_size < tigris_state_required(r.plan))
            return TIGRIS_EXEC_ERR_STATE;
    }
    const tigris_mem_t *mem = r.mem;
    if (mem->num_tensors < r.plan->header->num_tensors) return TIGRIS_EXEC_ERR_MEM;
    if (mem->fast_base == nullptr || mem->fast_used > mem->fast_size || mem->fast_reserved > mem->fast_used)
        return TIGRIS_EXEC_ERR_MEM;
    return TIGRIS_EXEC_OK;
}

// Schema 11 states its scheduled peak: refuse up front when the arena above the floor is
// smaller than what the plan needs.
bool fits_up_front(const tigris_plan_t *plan, const tigris_mem_t *mem, uint32_t floor)
{
    if (plan->header->version < 11) return true;
    const uint32_t required = tigris_fast_arena_required(plan);
    return floor <= mem->fast_size && mem->fast_size - floor >= required && required != UINT32_MAX;
}

void main_graph_range(const tigris_plan_t *plan, uint16_t *first, uint16_t *end)
{
    *first = 0;
    *end = plan->header->num_stages;
    if (plan->num_subgraphs > 0 && plan->subgraphs != nullptr) {
        *first = plan->subgraphs[0].first_stage;
        *end = (uint16_t)(plan->subgraphs[0].first_stage + plan->subgraphs[0].num_stages);
    }
}

// Null every tensor pointer into the fast arena at or above `floor` (what a run leaves
// there is invalid once the arena is restored), sparing the outputs of an in-place run.
void drop_fast_pointers(RunContext &ctx, bool keep_outputs)
{
    tigris_mem_t *mem = ctx.mem;
    const tigris_plan_t *plan = ctx.plan;
    for (uint16_t t = 0; t < plan->header->num_tensors; ++t) {
        void *p = mem->tensor_ptrs[t];
        if (p == nullptr || !in_fast(mem, p) || pool_offset(mem, p) < ctx.floor) continue;
        if (keep_outputs && (plan->tensors[t].flags & TIGRIS_TENSOR_MODEL_OUTPUT) != 0) continue;
        mem->tensor_ptrs[t] = nullptr;
    }
}

// What a previous run left (outputs, intermediates of a failed run) is dropped so that it
// does not occupy slow memory during this one: every pointer but the model inputs' is
// nulled and the slow pool compacted.
void drop_previous_results(RunContext &ctx)
{
    tigris_mem_t *mem = ctx.mem;
    const tigris_plan_t *plan = ctx.plan;
    for (uint16_t t = 0; t < plan->header->num_tensors; ++t)
        if ((plan->tensors[t].flags & TIGRIS_TENSOR_MODEL_INPUT) == 0) mem->tensor_ptrs[t] = nullptr;
    mem_compact(mem, plan, Pool::Slow);
}

tigris_exec_error_t execute(const Request &r)
{
    tigris_exec_stats_t local_stats;
    tigris_exec_stats_t *stats = r.stats != nullptr ? r.stats : &local_stats;
    memset(stats, 0, sizeof(*stats));

    WorkspaceCounts counts{};
    tigris_exec_error_t rc = check_arguments(r, &counts);
    if (rc != TIGRIS_EXEC_OK) return rc;

    tigris_mem_t *mem = r.mem;
    RunContext ctx{};
    ctx.plan = r.plan;
    ctx.mem = mem;
    ctx.kernel = r.kernel;
    ctx.user_ctx = r.user_ctx;
    ctx.stats = stats;
    carve_workspace(r.workspace, r.workspace_size, counts, &ctx.ws);
    ctx.floor = mem->fast_used;
    ctx.in_place = inputs_read_in_place(r.plan, mem, &ctx.floor);
    main_graph_range(r.plan, &ctx.first_stage, &ctx.end_stage);
    if (!fits_up_front(r.plan, mem, ctx.floor)) return TIGRIS_EXEC_ERR_MEM;  // mem untouched

    const uint32_t entry_used = mem->fast_used;
    const uint32_t entry_reserved = mem->fast_reserved;
    tigris_exec_stats_t *entry_stats = mem->stats;
    mem->fast_reserved = ctx.floor;  // resets never reach below the floor
    memset(&mem->tile, 0, sizeof(mem->tile));
    mem->stats = nullptr;  // the clean-up is not counted as this run's work
    drop_previous_results(ctx);
    mem->stats = stats;
    stats->slow_peak = mem->slow_used;

    if (state_built() && plan_has_state(r.plan)) rc = bind_state(ctx, (const uint8_t *)r.state);
    if (rc == TIGRIS_EXEC_OK) rc = run_stages(ctx);
    if (rc == TIGRIS_EXEC_OK && state_built() && plan_has_state(r.plan)) rc = copy_state_back(ctx, (uint8_t *)r.state);

    drop_fast_pointers(ctx, ctx.in_place && rc == TIGRIS_EXEC_OK);
    if (ctx.in_place) {
        for (uint8_t i = 0; i < r.plan->header->num_model_inputs; ++i)
            mem->tensor_ptrs[r.plan->model_inputs[i]] = nullptr;
    }
    mem->fast_used = ctx.in_place ? ctx.floor : entry_used;
    mem->fast_reserved = entry_reserved;
    mem->stats = entry_stats;
    memset(&mem->tile, 0, sizeof(mem->tile));
    trace_set_stage(mem, 0xFFFFu, 0xFFu);
    return rc;
}

}  // namespace

}  // namespace tigris_rt

using namespace tigris_rt;

extern "C" tigris_exec_error_t tigris_run_with_workspace_buffer(const tigris_plan_t *plan, tigris_mem_t *mem,
                                                                tigris_kernel_fn kernel, void *user_ctx,
                                                                tigris_exec_stats_t *stats, void *workspace,
                                                                size_t workspace_size)
{
    return execute(Request{plan, mem, kernel, user_ctx, stats, workspace, workspace_size, nullptr, 0, false});
}

extern "C" tigris_exec_error_t tigris_run_with_workspace(const tigris_plan_t *plan, tigris_mem_t *mem,
                                                         tigris_kernel_fn kernel, void *user_ctx,
                                                         tigris_exec_stats_t *stats,
                                                         tigris_executor_workspace_t *workspace)
{
    return execute(
        Request{plan, mem, kernel, user_ctx, stats, workspace, sizeof(tigris_executor_workspace_t), nullptr, 0, false});
}

extern "C" tigris_exec_error_t tigris_run_with_state(const tigris_plan_t *plan, tigris_mem_t *mem,
                                                     tigris_kernel_fn kernel, void *user_ctx,
                                                     tigris_exec_stats_t *stats, void *workspace, size_t workspace_size,
                                                     void *state, size_t state_size)
{
    return execute(Request{plan, mem, kernel, user_ctx, stats, workspace, workspace_size, state, state_size, true});
}

#if TIGRIS_ENABLE_DEFAULT_EXECUTOR_WORKSPACE
namespace {
tigris_executor_workspace_t g_default_workspace;  // zero-initialised, no constructor
}
#endif

extern "C" tigris_exec_error_t tigris_run(const tigris_plan_t *plan, tigris_mem_t *mem, tigris_kernel_fn kernel,
                                          void *user_ctx, tigris_exec_stats_t *stats)
{
#if TIGRIS_ENABLE_DEFAULT_EXECUTOR_WORKSPACE
    return tigris_run_with_workspace(plan, mem, kernel, user_ctx, stats, &g_default_workspace);
#else
    return execute(Request{plan, mem, kernel, user_ctx, stats, nullptr, 0, nullptr, 0, false});
#endif
}

extern "C" size_t tigris_executor_workspace_required(const tigris_plan_t *plan)
{
    WorkspaceCounts counts{};
    if (!workspace_counts(plan, &counts)) return 0;
    return workspace_bytes(counts);
}

extern "C" size_t tigris_executor_workspace_size(void) { return sizeof(tigris_executor_workspace_t); }

extern "C" uint8_t tigris_plan_data_dtype(const tigris_plan_t *plan)
{
    if (plan == nullptr || plan->header == nullptr || plan->tensors == nullptr) return TIGRIS_DTYPE_FLOAT32;
    for (uint16_t t = 0; t < plan->header->num_tensors; ++t) {
        const tigris_tensor_t *tensor = &plan->tensors[t];
        if ((tensor->flags & TIGRIS_TENSOR_CONSTANT) == 0 && tensor->dtype == TIGRIS_DTYPE_INT8)
            return TIGRIS_DTYPE_INT8;
    }
    return TIGRIS_DTYPE_FLOAT32;
}
