// Eligibility and geometry of in-place single-stage inputs (see in_place.h).
#include "iface/in_place.h"

#include "memory/arena.h"

namespace tigris_rt {

namespace {

bool contains(const uint16_t *list, uint16_t count, uint16_t value)
{
    for (uint16_t i = 0; i < count; ++i)
        if (list[i] == value) return true;
    return false;
}

bool has_control_flow(const tigris_plan_t *plan, const tigris_stage_t *stage)
{
    if (plan->num_subgraphs > 0) return true;
    const uint16_t *ops = tigris_stage_ops(plan, stage);
    for (uint16_t i = 0; i < stage->ops_count; ++i) {
        uint8_t type = plan->ops[ops[i]].op_type;
        if (type == TIGRIS_OP_IF || type == TIGRIS_OP_WHILE) return true;
    }
    return false;
}

}  // namespace

bool plan_reads_inputs_in_place(const tigris_plan_t *plan)
{
    if (plan == nullptr || plan->header == nullptr || plan->stages == nullptr) return false;
    const tigris_file_header_t *h = plan->header;
    if (h->version < 5 || h->num_stages != 1 || h->num_model_inputs == 0) return false;
    const tigris_stage_t *stage = &plan->stages[0];
    if (stage->tile_plan_idx != TIGRIS_NONE || stage->chain_len != 0 || stage->chain_id != TIGRIS_NONE) return false;
    if (plan->num_state != 0 || has_control_flow(plan, stage)) return false;
    const uint16_t *ins = tigris_stage_inputs(plan, stage);
    const uint16_t *outs = tigris_stage_outputs(plan, stage);
    for (uint8_t i = 0; i < h->num_model_inputs; ++i)
        if (!contains(ins, stage->inputs_count, plan->model_inputs[i])) return false;
    for (uint8_t i = 0; i < h->num_model_outputs; ++i)
        if (!contains(outs, stage->outputs_count, plan->model_outputs[i])) return false;
    return true;
}

bool in_place_room(const tigris_plan_t *plan, uint32_t *room)
{
    uint32_t overhead = tigris_weight_decompression_overhead(plan);
    if (overhead == UINT32_MAX) return false;
    return align_size(overhead, room);
}

bool inputs_read_in_place(const tigris_plan_t *plan, const tigris_mem_t *mem, uint32_t *floor)
{
    if (!plan_reads_inputs_in_place(plan) || mem->tensor_ptrs == nullptr) return false;
    uint32_t room = 0;
    if (!in_place_room(plan, &room)) return false;
    uint32_t lowest = UINT32_MAX;
    for (uint8_t i = 0; i < plan->header->num_model_inputs; ++i) {
        uint16_t t = plan->model_inputs[i];
        if (t >= mem->num_tensors) return false;
        const void *p = mem->tensor_ptrs[t];
        if (p == nullptr || !in_fast(mem, p)) return false;
        uint32_t off = pool_offset(mem, p);
        uint32_t bytes = plan->tensors[t].size_bytes;
        if (off < mem->fast_reserved || off > mem->fast_used || bytes > mem->fast_used - off) return false;
        if (off < lowest) lowest = off;
    }
    if (lowest < mem->fast_reserved || lowest - mem->fast_reserved < room) return false;
    *floor = lowest - room;
    return true;
}

}  // namespace tigris_rt
