// Loader steps 28-33: operator contracts, tile facts, chain and tile band access, the
// build's kernel set, and float32 sections of int8 plans.
#include <string.h>

#include "common/features.h"
#include "kernels/kernel_set.h"
#include "plan/band_rules.h"
#include "plan/loader_ctx.h"
#include "plan/op_rules.h"

namespace tigris_rt {

uint8_t plan_activation_dtype(const tigris_plan_t *plan)
{
    for (uint32_t i = 0; i < plan->header->num_tensors; i++) {
        const tigris_tensor_t &t = plan->tensors[i];
        if (!(t.flags & TIGRIS_TENSOR_CONSTANT) && t.dtype == TIGRIS_DTYPE_INT8) return TIGRIS_DTYPE_INT8;
    }
    return TIGRIS_DTYPE_FLOAT32;
}

namespace {

uint16_t op_input(const tigris_plan_t &p, const tigris_op_t &op, uint32_t k)
{
    return pool_idx(&p, (uint32_t)op.inputs_off + k);
}

// Step 29: a schema 11 record states exactly the facts the band rules derive.
tigris_error_t check_tile_facts(const LoadCtx &c)
{
    for (uint32_t i = 0; i < c.hdr.num_stages; i++) {
        const tigris_stage_t &s = c.plan.stages[i];
        if (s.tile_plan_idx == TIGRIS_NONE) continue;
        const tigris_tile_plan_v11_t &rec = c.plan.tile_plans_v11[s.tile_plan_idx];
        tigris_tile_facts_t derived;
        memset(&derived, 0, sizeof(derived));
        // Without bands no record is tileable (check_stage_op_mix): its facts are all zero.
        if (bands_built() && !tigris_stage_tile_facts(&c.plan, &s, &derived)) {
            if (rec.choices.tileable) return TIGRIS_ERR_TILE_FACTS;  // the stated kind does not hold
            memset(&derived, 0, sizeof(derived));
        }
        const tigris_tile_facts_t stated = rec.facts;
        if (stated.tile_extent != derived.tile_extent || stated.num_tiles != derived.num_tiles ||
            stated.original_extent != derived.original_extent || stated.halo != derived.halo ||
            stated.band_axis != derived.band_axis || stated.band != derived.band)
            return TIGRIS_ERR_TILE_FACTS;
    }
    return TIGRIS_OK;
}

// Step 30, second half: an output of a chain member other than the last lives only as a
// band in fast memory, so only the next member may read it and it is no model output.
tigris_error_t check_chain_escapes(const LoadCtx &c)
{
    uint16_t owner[TIGRIS_MAX_TENSORS];  // stage whose band the tensor is, TIGRIS_NONE otherwise
    for (uint32_t t = 0; t < c.hdr.num_tensors; t++) owner[t] = TIGRIS_NONE;
    for (uint32_t i = 0; i < c.hdr.num_stages; i++) {
        const tigris_stage_t &s = c.plan.stages[i];
        if (s.chain_len < 2 || i + 1 >= (uint32_t)s.chain_id + s.chain_len) continue;
        for (uint32_t k = 0; k < s.outputs_count; k++) {
            const uint16_t t = pool_idx(&c.plan, (uint32_t)s.outputs_off + k);
            if (c.plan.tensors[t].flags & TIGRIS_TENSOR_MODEL_OUTPUT) return TIGRIS_ERR_CHAIN_BAND;
            owner[t] = (uint16_t)i;
        }
    }
    for (uint32_t i = 0; i < c.hdr.num_stages; i++) {
        const tigris_stage_t &s = c.plan.stages[i];
        for (uint32_t k = 0; k < s.inputs_count; k++) {
            const uint16_t o = owner[pool_idx(&c.plan, (uint32_t)s.inputs_off + k)];
            if (o != TIGRIS_NONE && i != (uint32_t)o + 1u) return TIGRIS_ERR_CHAIN_BAND;
        }
        for (uint32_t j = 0; j < s.ops_count; j++) {
            const tigris_op_t &op = c.plan.ops[pool_idx(&c.plan, (uint32_t)s.ops_off + j)];
            for (uint32_t k = 0; k < op.num_inputs; k++) {
                const uint16_t o = owner[op_input(c.plan, op, k)];
                if (o != TIGRIS_NONE && i != o && i != (uint32_t)o + 1u) return TIGRIS_ERR_CHAIN_BAND;
            }
        }
    }
    return TIGRIS_OK;
}

tigris_error_t check_band_access(const LoadCtx &c)
{
    if (!bands_built()) return TIGRIS_OK;  // no chain and no banded stage was accepted
    for (uint32_t i = 0; i < c.hdr.num_stages; i++) {  // step 30
        const tigris_stage_t &s = c.plan.stages[i];
        if (s.chain_len >= 2 && s.chain_id == i) {
            const tigris_error_t err = check_chain_band(&c.plan, (uint16_t)i);
            if (err != TIGRIS_OK) return err;
        }
    }
    tigris_error_t err = check_chain_escapes(c);
    for (uint32_t i = 0; err == TIGRIS_OK && i < c.hdr.num_stages; i++) {  // step 31
        StageBand band;
        if (stage_band(&c.plan, &c.plan.stages[i], &band) != TIGRIS_BAND_KIND_NONE)
            err = check_tile_band(&c.plan, &c.plan.stages[i], &band);
    }
    return err;
}

// Step 32: each op's kernel is chosen by its kernel dtype (docs/operators.md: input 0's
// dtype, Select input 1, EmbeddingLookup and Constant output 0): quantized int8 ops (input 0 carries a
// quant param, as tigris_dispatch_kernel_s8 decides) ask the int8 set and the float set's
// byte movement, quantized int16 ops the int16 set and the float set's; every other op,
// plain int8 and int16 included, the float set.
tigris_error_t check_kernels(const LoadCtx &c)
{
    for (uint32_t i = 0; i < c.hdr.num_ops; i++) {
        const tigris_op_t &op = c.plan.ops[i];
        const uint8_t dtype = op_kernel_dtype(&c.plan, &op);
        const bool quantized = (dtype == TIGRIS_DTYPE_INT8 || dtype == TIGRIS_DTYPE_INT16) && op.num_inputs > 0 &&
                               tigris_tensor_quant(&c.plan, &c.plan.tensors[op_input(c.plan, op, 0)]) != nullptr;
        if (!(quantized ? kernel_enabled(op.op_type, dtype) : kernel_enabled_f32(op.op_type, dtype)))
            return TIGRIS_ERR_KERNEL_DISABLED;
    }
    return TIGRIS_OK;
}

// Step 33: in an int8 plan a float32 activation starts only at a typed conversion (Cast),
// a control-flow boundary, an operator whose signature outputs float32 (detection) or a
// Constant;
// any other op writing float32 continues a float32 section (reads a float32 activation).
tigris_error_t check_float_sections(const LoadCtx &c)
{
    if (plan_activation_dtype(&c.plan) != TIGRIS_DTYPE_INT8) return TIGRIS_OK;
    for (uint32_t i = 0; i < c.hdr.num_ops; i++) {
        const tigris_op_t &op = c.plan.ops[i];
        bool writes_float = false, reads_float = false;
        for (uint32_t k = 0; k < op.num_outputs; k++) {
            const tigris_tensor_t &t = c.plan.tensors[pool_idx(&c.plan, (uint32_t)op.outputs_off + k)];
            writes_float |= !(t.flags & TIGRIS_TENSOR_CONSTANT) && t.dtype == TIGRIS_DTYPE_FLOAT32;
        }
        for (uint32_t k = 0; k < op.num_inputs; k++) {
            const tigris_tensor_t &t = c.plan.tensors[op_input(c.plan, op, k)];
            reads_float |= !(t.flags & TIGRIS_TENSOR_CONSTANT) && t.dtype == TIGRIS_DTYPE_FLOAT32;
        }
        const bool boundary = ops::has_trait(op.op_type, ops::kTraitBoundary);
        if (writes_float && !reads_float && !boundary) return TIGRIS_ERR_BAD_OPERATOR;
    }
    return TIGRIS_OK;
}

}  // namespace

tigris_error_t check_semantics(LoadCtx &c)
{
    for (uint32_t i = 0; i < c.hdr.num_ops; i++) {  // step 28 (every accepted schema is v4+)
        const tigris_error_t err = check_operator(&c.plan, (uint16_t)i);
        if (err != TIGRIS_OK) return err;
    }
    tigris_error_t err = c.hdr.version >= 11 && !c.skip_tile_facts ? check_tile_facts(c) : TIGRIS_OK;  // step 29
    if (err == TIGRIS_OK) err = check_band_access(c);                                                  // steps 30-31
    if (err == TIGRIS_OK) err = check_kernels(c);                                                      // step 32
    if (err == TIGRIS_OK) err = check_float_sections(c);                                               // step 33
    return err;
}

}  // namespace tigris_rt
