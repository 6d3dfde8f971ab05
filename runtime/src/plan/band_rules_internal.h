// Helpers shared by the band-rule files (band_rules.cpp, band_rules_channels.cpp): stage and
// op operand access, and the per-kind conditions one file defines for the other.
#pragma once

#include "common/le_bytes.h"
#include "plan/band_rules.h"

namespace tigris_rt {
namespace band_detail {

inline uint16_t stage_op(const tigris_plan_t *plan, const tigris_stage_t *s, uint32_t j)
{
    return rd_u16(plan->index_pool + s->ops_off + j);
}

inline const tigris_op_t &op_at(const tigris_plan_t *plan, const tigris_stage_t *s, uint32_t j)
{
    return plan->ops[stage_op(plan, s, j)];
}

inline uint16_t op_in(const tigris_plan_t *plan, const tigris_op_t &op, uint32_t k)
{
    return rd_u16(plan->index_pool + op.inputs_off + k);
}

inline uint16_t op_out(const tigris_plan_t *plan, const tigris_op_t &op, uint32_t k)
{
    return rd_u16(plan->index_pool + op.outputs_off + k);
}

// Every stage output has rank `rank`, every non-constant stage input at most that rank
// (a lower rank is a broadcast operand; the band access rules say where it may be read).
inline bool stage_io_rank(const tigris_plan_t *plan, const tigris_stage_t *s, uint8_t rank)
{
    for (uint32_t k = 0; k < s->inputs_count; k++) {
        uint16_t t = rd_u16(plan->index_pool + s->inputs_off + k);
        if (!is_constant(plan, t) && plan->tensors[t].ndim > rank) return false;
    }
    for (uint32_t k = 0; k < s->outputs_count; k++) {
        uint16_t t = rd_u16(plan->index_pool + s->outputs_off + k);
        if (plan->tensors[t].ndim != rank) return false;
    }
    return true;
}

inline uint64_t prod_dims(const tigris_plan_t *plan, uint16_t t, uint32_t from, uint32_t to)
{
    uint64_t n = 1;
    for (uint32_t a = from; a < to; a++) n *= (uint64_t)tensor_dim(plan, t, a);
    return n;
}

// The single op of a one-op stage with one input and one output, or nullptr.
inline const tigris_op_t *single_op(const tigris_plan_t *plan, const tigris_stage_t *s)
{
    if (s->ops_count != 1) return nullptr;
    const tigris_op_t &op = op_at(plan, s, 0);
    return (op.num_inputs >= 1 && op.num_outputs == 1) ? &op : nullptr;
}

// Per-kind conditions of the channel bands (band_rules_channels.cpp).
bool channels_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b);
bool input_channels_holds(const tigris_plan_t *plan, const tigris_stage_t *s, StageBand *b);

}  // namespace band_detail
}  // namespace tigris_rt
