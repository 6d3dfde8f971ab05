// Executor workspace sizing and carving (layout in workspace.h).
#include "exec/workspace.h"

#include "ops/op_table.h"

namespace tigris_rt {

namespace {

uint32_t spatial_ops_in(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    uint32_t n = 0;
    const uint16_t *ops = tigris_stage_ops(plan, stage);
    for (uint16_t i = 0; i < stage->ops_count; ++i)
        if (ops[i] < plan->header->num_ops && ops::has_trait(plan->ops[ops[i]].op_type, ops::kTraitWindow)) ++n;
    return n;
}

}  // namespace

bool workspace_counts(const tigris_plan_t *plan, WorkspaceCounts *out)
{
    if (plan == nullptr || plan->header == nullptr || out == nullptr) return false;
    const tigris_file_header_t *h = plan->header;
    if (plan->index_pool == nullptr || (h->num_tensors > 0 && plan->tensors == nullptr) ||
        (h->num_stages > 0 && plan->stages == nullptr) || (h->num_ops > 0 && plan->ops == nullptr))
        return false;
    WorkspaceCounts c{0, 0, 0, 0, h->num_tensors, plan->num_subgraphs > 0 ? plan->subgraph_depth : 0u};
    for (uint16_t s = 0; s < h->num_stages; ++s) {
        const tigris_stage_t *st = &plan->stages[s];
        if (st->inputs_count > c.stage_inputs) c.stage_inputs = st->inputs_count;
        if (st->outputs_count > c.stage_outputs) c.stage_outputs = st->outputs_count;
        if (st->chain_len >= 2) {
            if (st->chain_len > c.chain_stages) c.chain_stages = st->chain_len;
            uint32_t spatial = spatial_ops_in(plan, st);
            if (spatial > c.spatial_ops) c.spatial_ops = spatial;
        }
    }
    *out = c;
    return true;
}

namespace {

template <typename T>
T *take(uint8_t **cursor, size_t count)
{
    T *p = (T *)(void *)*cursor;
    *cursor += count * sizeof(T);
    return p;
}

}  // namespace

bool carve_workspace(void *buf, size_t size, const WorkspaceCounts &c, Workspace *out)
{
    if (buf == nullptr || size < workspace_bytes(c)) return false;
    const uintptr_t mask = (uintptr_t)sizeof(void *) - 1u;
    uint8_t *cursor = (uint8_t *)(((uintptr_t)buf + mask) & ~mask);
    out->counts = c;
    out->stage_in = take<void *>(&cursor, c.stage_inputs);
    out->stage_out = take<void *>(&cursor, c.stage_outputs);
    out->chain_ptrs = take<void *>(&cursor, 2u * (size_t)c.chain_stages);
    out->frame_ptrs = take<void *>(&cursor, 2u * (size_t)c.depth);
    out->chain_info = take<int32_t>(&cursor, 14u * (size_t)c.chain_stages);
    out->op_geom = take<int32_t>(&cursor, 16u * (size_t)c.chain_stages * c.spatial_ops);
    out->roll = take<int32_t>(&cursor, 2u * (size_t)c.tensors);
    out->frames = take<int32_t>(&cursor, 16u * (size_t)c.depth);
    out->last_stage = take<uint16_t>(&cursor, c.tensors);
    out->last_op = take<uint16_t>(&cursor, c.tensors);
    return true;
}

}  // namespace tigris_rt
