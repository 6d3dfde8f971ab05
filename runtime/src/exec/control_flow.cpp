// Control flow: a stage holding an If or While runs other graphs' stage ranges.
//
// Every tensor belongs to one graph, and between stages every live tensor is in slow memory,
// so the control stage never touches the fast arena: it copies operands slow to slow into
// the chosen graph's input tensors, runs that graph's stages with the ordinary stage loop
// (each stage loads from slow, spills, resets, as in the main graph), and copies the graph's
// outputs to the op's outputs. Each copy is a COPY event and counts in stats->copy_bytes.
//
// If: operands 1.. go to the chosen graph's inputs (input 0 is the one-element bool
// condition, read, not copied). While: the loop variables live in the op's output tensors:
// the operands are copied there first; each round copies them into the condition graph's
// inputs, runs it and reads its bool; while true copies them into the body's inputs, runs
// the body and copies its outputs back. The outputs then hold the final values.
//
// After a graph has run and its outputs are copied, every tensor of the graph is dropped
// and the slow pool compacted, so a loop does not accumulate slow memory per round.
//
// Nesting: run_graph -> run_stage_range -> run_stage_control -> run_graph recurses once
// per If/While level, which the loader bounds by subgraph_depth (<= TIGRIS_MAX_SUBGRAPH_DEPTH);
// ctx.depth is checked against the workspace's depth so a plan that got past the loader
// otherwise fails closed. A graph's operands that do not match the op's (count, dtype,
// size) fail with KERNEL before anything runs; a missing operand or a full slow pool, MEM.
#include <string.h>

#include "exec/exec_internal.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"

namespace tigris_rt {

namespace {

struct Graphs {
    uint16_t a, b;  // If: then, else; While: condition, body
};

bool graphs_of(const tigris_plan_t *plan, uint16_t op_index, Graphs *g)
{
    uint8_t len = 0;
    const uint8_t *d = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_SUBGRAPHS, &len);
    if (d == nullptr || len != 4) return false;
    g->a = (uint16_t)(d[0] | d[1] << 8);
    g->b = (uint16_t)(d[2] | d[3] << 8);
    return g->a != 0 && g->b != 0 && g->a < plan->num_subgraphs && g->b < plan->num_subgraphs;
}

const uint16_t *graph_inputs(const tigris_plan_t *plan, uint16_t g)
{
    return plan->index_pool + plan->subgraphs[g].inputs_off;
}
const uint16_t *graph_outputs(const tigris_plan_t *plan, uint16_t g)
{
    return plan->index_pool + plan->subgraphs[g].outputs_off;
}

bool same_tensor_kind(const tigris_plan_t *plan, uint16_t x, uint16_t y)
{
    return plan->tensors[x].dtype == plan->tensors[y].dtype && plan->tensors[x].size_bytes == plan->tensors[y].size_bytes;
}

// Whether tensors list[0, n) match the graph's inputs (or outputs) one by one.
bool matches(const tigris_plan_t *plan, const uint16_t *list, uint16_t n, const uint16_t *graph_list, uint16_t count)
{
    if (n != count) return false;
    for (uint16_t i = 0; i < n; ++i)
        if (!same_tensor_kind(plan, list[i], graph_list[i])) return false;
    return true;
}

bool is_one_bool(const tigris_plan_t *plan, uint16_t t)
{
    return plan->tensors[t].dtype == TIGRIS_DTYPE_BOOL && plan->tensors[t].size_bytes == 1;
}

// If: both branches take operands 1.. and give the op's outputs.
bool if_operands_match(const tigris_plan_t *plan, const tigris_op_t *op, Graphs g)
{
    const uint16_t *ins = tigris_op_inputs(plan, op) + 1;
    const uint16_t *outs = tigris_op_outputs(plan, op);
    const uint16_t n_in = (uint16_t)(op->num_inputs - 1);
    const uint16_t branches[2] = {g.a, g.b};
    for (uint16_t graph : branches) {
        const tigris_subgraph_t &sg = plan->subgraphs[graph];
        if (!matches(plan, ins, n_in, graph_inputs(plan, graph), sg.inputs_count) ||
            !matches(plan, outs, op->num_outputs, graph_outputs(plan, graph), sg.outputs_count))
            return false;
    }
    return is_one_bool(plan, tigris_op_inputs(plan, op)[0]);
}

// While: the condition takes the loop variables and gives one bool; the body takes and
// gives the loop variables; the op's inputs and outputs are the loop variables.
bool while_operands_match(const tigris_plan_t *plan, const tigris_op_t *op, Graphs g)
{
    const uint16_t *ins = tigris_op_inputs(plan, op);
    const uint16_t *outs = tigris_op_outputs(plan, op);
    const tigris_subgraph_t &cond = plan->subgraphs[g.a];
    const tigris_subgraph_t &body = plan->subgraphs[g.b];
    return matches(plan, ins, op->num_inputs, outs, op->num_outputs) &&
           matches(plan, outs, op->num_outputs, graph_inputs(plan, g.a), cond.inputs_count) &&
           cond.outputs_count == 1 && is_one_bool(plan, graph_outputs(plan, g.a)[0]) &&
           matches(plan, outs, op->num_outputs, graph_inputs(plan, g.b), body.inputs_count) &&
           matches(plan, outs, op->num_outputs, graph_outputs(plan, g.b), body.outputs_count);
}

// Copy tensor src into tensor dst, giving dst a slow buffer first when it has none.
tigris_exec_error_t copy_tensor(RunContext &ctx, uint16_t dst, uint16_t src)
{
    tigris_mem_t *mem = ctx.mem;
    if (dst == src) return TIGRIS_EXEC_OK;
    if (mem->tensor_ptrs[src] == nullptr) return TIGRIS_EXEC_ERR_MEM;  // never produced
    const uint32_t bytes = ctx.plan->tensors[dst].size_bytes;
    if (mem->tensor_ptrs[dst] == nullptr && mem_alloc_slow(mem, dst, bytes) != TIGRIS_MEM_OK)
        return TIGRIS_EXEC_ERR_MEM;
    const uint8_t *from = (const uint8_t *)mem->tensor_ptrs[src];  // read after the allocation
    uint8_t *to = (uint8_t *)mem->tensor_ptrs[dst];
    memmove(to, from, bytes);
    ctx.stats->copy_bytes += bytes;
    if (trace_enabled(mem))
        trace_mem(mem, TIGRIS_TRACE_COPY, pool_of(mem, to), dst, pool_offset(mem, to), pool_offset(mem, from), bytes);
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t copy_list(RunContext &ctx, const uint16_t *dst, const uint16_t *src, uint16_t n)
{
    for (uint16_t i = 0; i < n; ++i) {
        tigris_exec_error_t rc = copy_tensor(ctx, dst[i], src[i]);
        if (rc != TIGRIS_EXEC_OK) return rc;
    }
    return TIGRIS_EXEC_OK;
}

void drop(tigris_mem_t *mem, const uint16_t *list, uint16_t n)
{
    for (uint16_t i = 0; i < n; ++i) mem->tensor_ptrs[list[i]] = nullptr;
}

// Null every tensor of graph g (its inputs, outputs and the outputs of its stages' ops) and
// compact slow. Nested graphs dropped theirs when they finished.
void drop_graph(RunContext &ctx, uint16_t g)
{
    const tigris_plan_t *plan = ctx.plan;
    const tigris_subgraph_t &sg = plan->subgraphs[g];
    drop(ctx.mem, graph_inputs(plan, g), sg.inputs_count);
    drop(ctx.mem, graph_outputs(plan, g), sg.outputs_count);
    for (uint16_t s = sg.first_stage; s < sg.first_stage + sg.num_stages; ++s) {
        const tigris_stage_t *st = &plan->stages[s];
        const uint16_t *ops = tigris_stage_ops(plan, st);
        for (uint16_t k = 0; k < st->ops_count; ++k) {
            const tigris_op_t *op = &plan->ops[ops[k]];
            drop(ctx.mem, tigris_op_outputs(plan, op), op->num_outputs);
        }
    }
    mem_compact(ctx.mem, plan, Pool::Slow);
}

// Copy `operands` into graph g's inputs and run its stages; its outputs stay set (the
// caller copies them out, then drops the graph). The control stage's trace stage is
// restored afterwards so its COPY events carry it.
tigris_exec_error_t run_graph(RunContext &ctx, uint16_t s, uint16_t g, const uint16_t *operands)
{
    const tigris_subgraph_t &sg = ctx.plan->subgraphs[g];
    tigris_exec_error_t rc = copy_list(ctx, graph_inputs(ctx.plan, g), operands, sg.inputs_count);
    if (rc == TIGRIS_EXEC_OK) {
        ctx.depth++;
        rc = run_stage_range(ctx, sg.first_stage, (uint16_t)(sg.first_stage + sg.num_stages));
        ctx.depth--;
    }
    trace_set_stage(ctx.mem, s, (uint8_t)StagePath::Control);
    return rc;
}

tigris_exec_error_t run_if(RunContext &ctx, uint16_t s, const tigris_op_t *op, Graphs g)
{
    const tigris_plan_t *plan = ctx.plan;
    const uint16_t *ins = tigris_op_inputs(plan, op);
    const uint8_t *cond = (const uint8_t *)ctx.mem->tensor_ptrs[ins[0]];
    if (cond == nullptr) return TIGRIS_EXEC_ERR_MEM;
    const uint16_t chosen = *cond != 0 ? g.a : g.b;
    tigris_exec_error_t rc = run_graph(ctx, s, chosen, ins + 1);
    if (rc == TIGRIS_EXEC_OK)
        rc = copy_list(ctx, tigris_op_outputs(plan, op), graph_outputs(plan, chosen), op->num_outputs);
    drop_graph(ctx, chosen);
    return rc;
}

// Run the condition graph on the loop variables; *go receives its bool.
tigris_exec_error_t run_condition(RunContext &ctx, uint16_t s, uint16_t g, const uint16_t *vars, bool *go)
{
    tigris_exec_error_t rc = run_graph(ctx, s, g, vars);
    const uint8_t *c = (const uint8_t *)ctx.mem->tensor_ptrs[graph_outputs(ctx.plan, g)[0]];
    if (rc == TIGRIS_EXEC_OK && c == nullptr) rc = TIGRIS_EXEC_ERR_MEM;
    *go = rc == TIGRIS_EXEC_OK && *c != 0;
    drop_graph(ctx, g);
    return rc;
}

tigris_exec_error_t run_while(RunContext &ctx, uint16_t s, const tigris_op_t *op, Graphs g)
{
    const tigris_plan_t *plan = ctx.plan;
    const uint16_t *vars = tigris_op_outputs(plan, op);
    const uint16_t n = op->num_outputs;
    tigris_exec_error_t rc = copy_list(ctx, vars, tigris_op_inputs(plan, op), n);
    bool go = false;
    if (rc == TIGRIS_EXEC_OK) rc = run_condition(ctx, s, g.a, vars, &go);
    while (rc == TIGRIS_EXEC_OK && go) {
        rc = run_graph(ctx, s, g.b, vars);
        if (rc == TIGRIS_EXEC_OK) rc = copy_list(ctx, vars, graph_outputs(plan, g.b), n);
        drop_graph(ctx, g.b);
        if (rc == TIGRIS_EXEC_OK) rc = run_condition(ctx, s, g.a, vars, &go);
    }
    return rc;
}

}  // namespace

tigris_exec_error_t run_stage_control(RunContext &ctx, uint16_t s)
{
    const tigris_plan_t *plan = ctx.plan;
    const tigris_stage_t *stage = &plan->stages[s];
    if (stage->ops_count != 1 || plan->subgraphs == nullptr || ctx.depth >= ctx.ws.counts.depth)
        return TIGRIS_EXEC_ERR_KERNEL;  // an If/While is a stage of its own, nested no deeper than the loader found
    const uint16_t op_index = tigris_stage_ops(plan, stage)[0];
    const tigris_op_t *op = &plan->ops[op_index];
    Graphs g{};
    const bool is_if = op->op_type == TIGRIS_OP_IF;
    if (!graphs_of(plan, op_index, &g) ||
        !(is_if ? if_operands_match(plan, op, g) : while_operands_match(plan, op, g)))
        return TIGRIS_EXEC_ERR_KERNEL;
    stage_begin(ctx, s, StagePath::Control);
    null_stage_op_outputs(ctx, stage);
    tigris_exec_error_t rc = is_if ? run_if(ctx, s, op, g) : run_while(ctx, s, op, g);
    if (rc == TIGRIS_EXEC_OK) ctx.stats->stages_normal++;
    stage_end(ctx, s);
    return rc;
}

}  // namespace tigris_rt
