// tigris_input_alloc: place a model input where the run reads it. A plan that reads its
// inputs in place gets them in the fast arena (see in_place.h); any other plan in slow.
#include "iface/in_place.h"
#include "memory/arena.h"
#include "tigris_iface.h"

namespace tigris_rt {

namespace {

// Whether another model input of the plan already sits in the fast arena (then the room
// below the group exists and this input goes right after the fill level).
bool sibling_in_fast(const tigris_plan_t *plan, const tigris_mem_t *mem, uint16_t self)
{
    for (uint8_t i = 0; i < plan->header->num_model_inputs; ++i) {
        uint16_t t = plan->model_inputs[i];
        if (t == self || t >= mem->num_tensors) continue;
        const void *p = mem->tensor_ptrs[t];
        if (p != nullptr && in_fast(mem, p) && pool_offset(mem, p) < mem->fast_used) return true;
    }
    return false;
}

tigris_error_t place_in_fast(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t idx)
{
    uint32_t room = 0;
    if (!in_place_room(plan, &room)) return TIGRIS_ERR_MEM;
    if (sibling_in_fast(plan, mem, idx)) room = 0;
    const uint32_t saved_used = mem->fast_used;
    if (mem->fast_used > mem->fast_size || room > mem->fast_size - mem->fast_used) return TIGRIS_ERR_MEM;
    mem->fast_used += room;
    if (mem_alloc_fast(mem, idx, plan->tensors[idx].size_bytes) != TIGRIS_MEM_OK) {
        mem->fast_used = saved_used;  // a failed call leaves mem unchanged
        return TIGRIS_ERR_MEM;
    }
    return TIGRIS_OK;
}

}  // namespace

}  // namespace tigris_rt

using namespace tigris_rt;

extern "C" tigris_error_t tigris_input_alloc(const tigris_plan_t *plan, tigris_mem_t *mem, uint16_t tensor_idx)
{
    if (plan == nullptr || plan->header == nullptr || plan->tensors == nullptr || mem == nullptr ||
        mem->tensor_ptrs == nullptr)
        return TIGRIS_ERR_NULL;
    if (tensor_idx >= plan->header->num_tensors || (plan->tensors[tensor_idx].flags & TIGRIS_TENSOR_MODEL_INPUT) == 0)
        return TIGRIS_ERR_BAD_TENSOR;
    if (tensor_idx >= mem->num_tensors) return TIGRIS_ERR_TENSOR_SLOTS;
    if (mem->tensor_ptrs[tensor_idx] != nullptr) return TIGRIS_OK;  // an existing buffer is kept
    if (plan_reads_inputs_in_place(plan)) return place_in_fast(plan, mem, tensor_idx);
    if (mem_alloc_slow(mem, tensor_idx, plan->tensors[tensor_idx].size_bytes) != TIGRIS_MEM_OK) return TIGRIS_ERR_MEM;
    return TIGRIS_OK;
}
