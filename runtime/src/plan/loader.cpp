// tigris_plan_load / tigris_plan_load_ex: the validation steps in their documented order
// (docs/plan-format.md "Loader"). The candidate plan lives on the stack until every step
// has passed; on any failure the caller's plan is all zero.
#include <string.h>

#include "plan/loader_ctx.h"
#include "plan/loader_facts.h"

namespace tigris_rt {
namespace {

bool host_little_endian()
{
    const uint32_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

// Steps 3-6: header fields that need nothing but the header.
tigris_error_t check_header(LoadCtx &c)
{
    if (c.len < sizeof(tigris_file_header_t)) return TIGRIS_ERR_TOO_SMALL;
    memcpy(&c.hdr, c.buf, sizeof(c.hdr));
    if (c.hdr.magic != TIGRIS_MAGIC) return TIGRIS_ERR_BAD_MAGIC;
    // Schema policy: 11 fully, 4..9 (24-byte tile records), 10 only without tile records
    // (its tile record layout is not known exactly).
    const uint32_t v = c.hdr.version;
    if (v < TIGRIS_SCHEMA_VERSION_MIN || v > TIGRIS_SCHEMA_VERSION || (v == 10 && c.hdr.num_tile_plans != 0))
        return TIGRIS_ERR_BAD_VERSION;
    if (c.hdr.file_size != c.len) return TIGRIS_ERR_BAD_SIZE;
    c.plan.header = (const tigris_file_header_t *)c.buf;
    return TIGRIS_OK;
}

tigris_error_t run_steps(LoadCtx &c)
{
    typedef tigris_error_t (*Step)(LoadCtx &);
    static const Step steps[] = {
        check_header,         check_directory,     check_required_sections,
        check_pool_alignment, check_record_tables, check_strings_and_model_io,
        check_plan_limits,    check_tensor_ranges, check_tensor_contracts,
        check_op_records,     check_attributes,    check_weights,
        check_stages,         check_stage_op_mix,  check_block_coverage,
        check_semantics,
    };
    for (Step step : steps) {
        const tigris_error_t err = step(c);
        if (err != TIGRIS_OK) return err;
    }
    return TIGRIS_OK;
}

}  // namespace

tigris_error_t load_plan_unverified_facts(const uint8_t *buf, uint32_t buf_len, tigris_plan_t *out_plan)
{
    if (out_plan == nullptr) return TIGRIS_ERR_NULL;
    memset(out_plan, 0, sizeof(*out_plan));
    if (buf == nullptr) return TIGRIS_ERR_NULL;
    LoadCtx c;
    memset(&c, 0, sizeof(c));
    c.buf = buf;
    c.len = buf_len;
    c.skip_tile_facts = true;
    const tigris_error_t err = run_steps(c);
    if (err == TIGRIS_OK) *out_plan = c.plan;
    return err;
}

}  // namespace tigris_rt

extern "C" tigris_error_t tigris_plan_load_ex(const uint8_t *buf, uint32_t buf_len, tigris_plan_t *out_plan,
                                              tigris_plan_limits_t *out_required)
{
    if (out_required) memset(out_required, 0, sizeof(*out_required));
    if (out_plan == nullptr) return TIGRIS_ERR_NULL;
    memset(out_plan, 0, sizeof(*out_plan));
    if (buf == nullptr) return TIGRIS_ERR_NULL;
    if (!tigris_rt::host_little_endian()) return TIGRIS_ERR_ENDIAN;

    tigris_rt::LoadCtx c;
    memset(&c, 0, sizeof(c));
    c.buf = buf;
    c.len = buf_len;
    const tigris_error_t err = tigris_rt::run_steps(c);
    if (out_required) *out_required = c.required;
    if (err == TIGRIS_OK) *out_plan = c.plan;
    return err;
}

extern "C" tigris_error_t tigris_plan_load(const uint8_t *buf, uint32_t buf_len, tigris_plan_t *out_plan)
{
    return tigris_plan_load_ex(buf, buf_len, out_plan, nullptr);
}

extern "C" void tigris_build_limits(tigris_plan_limits_t *out)
{
    if (out == nullptr) return;
    out->tensors = TIGRIS_MAX_TENSORS;
    out->stage_inputs = TIGRIS_MAX_STAGE_INPUTS;
    out->stage_outputs = TIGRIS_MAX_STAGE_OUTPUTS;
    out->chain_stages = TIGRIS_MAX_CHAIN_STAGES;
    out->spatial_ops_per_stage =
        TIGRIS_MAX_SPATIAL_OPS_PER_STAGE > 65535 ? (uint16_t)65535 : (uint16_t)TIGRIS_MAX_SPATIAL_OPS_PER_STAGE;
}
