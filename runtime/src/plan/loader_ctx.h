// Loader internals: the state the validation steps share while a plan is checked.
// Nothing here is exposed until every step has passed (tigris_plan_load copies the
// candidate plan out only then). docs/plan-format.md lists the steps in order.
#pragma once

#include <string.h>

#include "common/le_bytes.h"
#include "ops/op_table.h"
#include "tigris.h"
#include "tigris_loader.h"

namespace tigris_rt {

struct LoadCtx {
    const uint8_t *buf;
    uint32_t len;
    tigris_file_header_t hdr;            // copy of the header
    uint32_t sec_off[TIGRIS_SEC_COUNT];  // section start, valid when present
    uint32_t sec_end[TIGRIS_SEC_COUNT];  // exclusive end (next larger start or file end)
    bool present[TIGRIS_SEC_COUNT];
    uint32_t index_count;  // u16 entries of the index pool
    uint32_t shape_count;  // i32 entries of the shape pool
    uint32_t strings_len;
    uint32_t quant_len;    // int32 elements of the quant-data pool
    uint16_t quant_pages;  // pages field of the quant header
    uint32_t weight_blob_len;
    uint32_t attr_data_len;
    uint32_t state_len;    // bytes of the STATE section (initial values live inside)
    bool skip_tile_facts;  // load_plan_unverified_facts: step 29 not run
    tigris_plan_t plan;    // candidate plan being filled
    tigris_plan_limits_t required;
};

// Bounds helpers (overflow-free).
static inline bool span_ok(uint32_t off, uint32_t size, uint32_t total) { return off <= total && size <= total - off; }

static inline uint32_t section_len(const LoadCtx &c, int id)
{
    return c.present[id] ? c.sec_end[id] - c.sec_off[id] : 0u;
}

// Index-pool entry i (caller checked i < index_count).
static inline uint16_t pool_idx(const tigris_plan_t *plan, uint32_t i) { return rd_u16(plan->index_pool + i); }

static inline bool string_ok(const LoadCtx &c, uint32_t off)
{
    if (c.plan.strings == nullptr || off >= c.strings_len) return false;
    // A plain loop, not memchr: libc's word-at-a-time memchr is 160 B of flash for a load-time check.
    for (uint32_t i = off; i < c.strings_len; ++i)
        if (c.plan.strings[i] == '\0') return true;
    return false;
}

// Validation steps, in the order tigris_plan_load runs them (docs/plan-format.md §Loader).
tigris_error_t check_directory(LoadCtx &c);             // step 7
tigris_error_t check_required_sections(LoadCtx &c);     // step 8
tigris_error_t check_pool_alignment(LoadCtx &c);        // step 9
tigris_error_t check_record_tables(LoadCtx &c);         // steps 10-12
tigris_error_t check_strings_and_model_io(LoadCtx &c);  // step 13
tigris_error_t check_plan_limits(LoadCtx &c);           // step 14
tigris_error_t check_tensor_ranges(LoadCtx &c);         // step 15
tigris_error_t check_tensor_contracts(LoadCtx &c);      // steps 16-17
tigris_error_t check_op_records(LoadCtx &c);            // step 18
tigris_error_t check_attributes(LoadCtx &c);            // step 19
tigris_error_t check_weights(LoadCtx &c);               // steps 20-22
tigris_error_t check_stages(LoadCtx &c);                // steps 23-24 (+ state, subgraphs)
tigris_error_t check_stage_op_mix(LoadCtx &c);          // steps 25-26
tigris_error_t check_block_coverage(LoadCtx &c);        // step 27
tigris_error_t check_semantics(LoadCtx &c);             // steps 28-33

// The kernel dtype of a plan: int8 when any activation (non-constant) tensor is int8.
uint8_t plan_activation_dtype(const tigris_plan_t *plan);

// An op's kind of control flow / stateful structure.
static inline bool op_is_control_flow(uint8_t type) { return ops::has_trait(type, ops::kTraitControl); }

}  // namespace tigris_rt
