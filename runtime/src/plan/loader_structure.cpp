// Loader steps 7-13: section directory, required sections, pool alignment, record
// tables, quant header, strings and model I/O. Every span is checked before a pointer
// to it is stored in the candidate plan.
#include "common/features.h"
#include "plan/loader_ctx.h"

namespace tigris_rt {

namespace {

uint32_t tile_record_size(uint32_t version)
{
    if (version >= 11) return sizeof(tigris_tile_plan_v11_t);
    if (version == 10) return sizeof(tigris_tile_plan_v10_t);
    return sizeof(tigris_tile_plan_t);
}

// A table of `count` records of `size` bytes at `off` must fit its section.
bool table_fits(const LoadCtx &c, int id, uint32_t off, uint32_t count, uint32_t size)
{
    uint64_t need = (uint64_t)count * size;
    return need <= UINT32_MAX && span_ok(off, (uint32_t)need, c.sec_end[id]);
}

}  // namespace

tigris_error_t check_directory(LoadCtx &c)
{
    const uint32_t dir = c.hdr.section_dir_off;
    if (dir < sizeof(tigris_file_header_t)) return TIGRIS_ERR_BAD_SECTION;
    uint32_t cursor = dir;
    uint32_t prev_type = 0, prev_off = 0;
    bool sentinel = false;
    while (span_ok(cursor, sizeof(tigris_section_entry_t), c.len)) {
        const uint32_t type = rd_u32(c.buf + cursor);
        const uint32_t off = rd_u32(c.buf + cursor + 4);
        cursor += sizeof(tigris_section_entry_t);
        if (type == TIGRIS_SEC_END) {
            sentinel = true;
            break;
        }
        // Ids strictly increasing (hence no duplicates); starts never decreasing.
        if (type >= TIGRIS_SEC_COUNT || type <= prev_type || off < prev_off || off > c.len)
            return TIGRIS_ERR_BAD_SECTION;
        c.present[type] = true;
        c.sec_off[type] = off;
        prev_type = type;
        prev_off = off;
    }
    if (!sentinel) return TIGRIS_ERR_BAD_SECTION;
    // `cursor` is the end of the sentinel: no section may start inside the directory.
    for (uint32_t i = 1; i < TIGRIS_SEC_COUNT; i++) {
        if (!c.present[i]) continue;
        if (c.sec_off[i] < cursor) return TIGRIS_ERR_BAD_SECTION;
        uint32_t end = c.len;
        for (uint32_t j = 1; j < TIGRIS_SEC_COUNT; j++) {
            if (c.present[j] && c.sec_off[j] > c.sec_off[i] && c.sec_off[j] < end) end = c.sec_off[j];
        }
        c.sec_end[i] = end;
    }
    return TIGRIS_OK;
}

tigris_error_t check_required_sections(LoadCtx &c)
{
    static const int always[] = {TIGRIS_SEC_TENSORS, TIGRIS_SEC_OPS, TIGRIS_SEC_INDEX_POOL, TIGRIS_SEC_SHAPE_POOL,
                                 TIGRIS_SEC_STRINGS};
    for (int id : always) {
        if (!c.present[id]) return TIGRIS_ERR_MISSING_SEC;
    }
    if ((c.hdr.num_stages && !c.present[TIGRIS_SEC_STAGES]) ||
        (c.hdr.num_tile_plans && !c.present[TIGRIS_SEC_TILE_PLANS]) ||
        (c.hdr.num_weights && !c.present[TIGRIS_SEC_WEIGHTS]) ||
        (c.hdr.num_quant_params && !c.present[TIGRIS_SEC_QUANT_PARAMS]) ||
        (c.hdr.version >= 11 && !c.present[TIGRIS_SEC_MEMORY]))
        return TIGRIS_ERR_MISSING_SEC;
    return TIGRIS_OK;
}

// Alignment of a section's start address (not only its offset: the caller's buffer
// may itself be misaligned).
static bool aligned_at(const LoadCtx &c, int id, uintptr_t align)
{
    return ((uintptr_t)(c.buf + c.sec_off[id]) % align) == 0;
}

tigris_error_t check_pool_alignment(LoadCtx &c)
{
    const tigris_file_header_t &h = c.hdr;
    const bool index_used =
        h.num_ops || h.num_stages || h.num_model_inputs || h.num_model_outputs || c.present[TIGRIS_SEC_SUBGRAPHS];
    if (index_used && !aligned_at(c, TIGRIS_SEC_INDEX_POOL, 2)) return TIGRIS_ERR_BAD_SECTION;
    if (h.num_tensors && !aligned_at(c, TIGRIS_SEC_SHAPE_POOL, 4)) return TIGRIS_ERR_BAD_SECTION;
    if (c.present[TIGRIS_SEC_QUANT_PARAMS] && !aligned_at(c, TIGRIS_SEC_QUANT_PARAMS, 4)) return TIGRIS_ERR_BAD_SECTION;
    // Pools are exposed as typed pointers only when aligned; an unused misaligned pool stays NULL.
    if (aligned_at(c, TIGRIS_SEC_INDEX_POOL, 2)) {
        c.plan.index_pool = (const uint16_t *)(const void *)(c.buf + c.sec_off[TIGRIS_SEC_INDEX_POOL]);
        c.index_count = section_len(c, TIGRIS_SEC_INDEX_POOL) / 2u;
    }
    if (aligned_at(c, TIGRIS_SEC_SHAPE_POOL, 4)) {
        c.plan.shape_pool = (const int32_t *)(const void *)(c.buf + c.sec_off[TIGRIS_SEC_SHAPE_POOL]);
        c.shape_count = section_len(c, TIGRIS_SEC_SHAPE_POOL) / 4u;
    }
    c.plan.strings = (const char *)(c.buf + c.sec_off[TIGRIS_SEC_STRINGS]);
    c.strings_len = section_len(c, TIGRIS_SEC_STRINGS);
    return TIGRIS_OK;
}

namespace {

tigris_error_t check_tile_records(LoadCtx &c)
{
    const uint32_t v = c.hdr.version;
    const uint32_t off = c.sec_off[TIGRIS_SEC_TILE_PLANS];
    const uint32_t size = tile_record_size(v);
    if (!c.hdr.num_tile_plans) return TIGRIS_OK;
    if (!table_fits(c, TIGRIS_SEC_TILE_PLANS, off, c.hdr.num_tile_plans, size)) return TIGRIS_ERR_BAD_SECTION;
    for (uint32_t i = 0; i < c.hdr.num_tile_plans; i++) {
        const uint8_t *rec = c.buf + off + i * size;
        const uint8_t tileable = rec[0], axis = rec[1];
        if (tileable > 1) return TIGRIS_ERR_BAD_SECTION;
        if (v >= 5 && ((tileable && axis != TIGRIS_TILE_AXIS_HEIGHT && axis != TIGRIS_TILE_AXIS_HW) ||
                       (!tileable && axis != TIGRIS_TILE_AXIS_NONE)))
            return TIGRIS_ERR_BAD_SECTION;
        if (v >= 10) {
            // The wide band is authoritative; tile_height is its u16 view; reserved is 0.
            const uint16_t height = rd_u16(rec + 2);
            const uint32_t wide = rd_u32(rec + 24), reserved = rd_u32(rec + 28);
            const uint32_t narrow = wide > 0xFFFFu ? 0xFFFFu : wide;
            if (reserved != 0 || height != narrow || (tileable && wide == 0)) return TIGRIS_ERR_BAD_SECTION;
        }
    }
    if (v >= 11) {
        c.plan.tile_plans_v11 = (const tigris_tile_plan_v11_t *)(c.buf + off);
    } else {
        c.plan.tile_plans = (const tigris_tile_plan_t *)(c.buf + off);
    }
    return TIGRIS_OK;
}

tigris_error_t check_quant_header(LoadCtx &c)
{
    if (!c.present[TIGRIS_SEC_QUANT_PARAMS]) return TIGRIS_OK;
    const uint32_t off = c.sec_off[TIGRIS_SEC_QUANT_PARAMS];
    if (!span_ok(off, sizeof(tigris_quant_header_t), c.sec_end[TIGRIS_SEC_QUANT_PARAMS])) return TIGRIS_ERR_BAD_SECTION;
    const uint16_t count = rd_u16(c.buf + off), pages = rd_u16(c.buf + off + 2);
    const uint32_t entries = off + sizeof(tigris_quant_header_t);
    if (!table_fits(c, TIGRIS_SEC_QUANT_PARAMS, entries, count, sizeof(tigris_quant_param_t)))
        return TIGRIS_ERR_BAD_SECTION;
    const uint32_t pool = entries + (uint32_t)count * sizeof(tigris_quant_param_t);
    const uint32_t pool_bytes = c.sec_end[TIGRIS_SEC_QUANT_PARAMS] - pool;
    if (pool_bytes % 4u) return TIGRIS_ERR_BAD_SECTION;
    const uint32_t elems = pool_bytes / 4u;
    const uint32_t physical = (elems + 65535u) / 65536u;
    // Trailing section padding may reach into one more physical page.
    if (pages == 0 || physical < pages || physical > (uint32_t)pages + 1u) return TIGRIS_ERR_BAD_SECTION;
    if (count != c.hdr.num_quant_params) return TIGRIS_ERR_BAD_SECTION;
    c.plan.quant_params = (const tigris_quant_param_t *)(c.buf + entries);
    c.plan.num_quant_params = count;
    c.plan.quant_data = elems ? (const int32_t *)(const void *)(c.buf + pool) : nullptr;
    c.quant_len = elems;
    c.quant_pages = pages;
    return TIGRIS_OK;
}

tigris_error_t check_attribute_table(LoadCtx &c)
{
    if (!c.present[TIGRIS_SEC_OP_ATTRIBUTES]) return TIGRIS_OK;
    const uint32_t off = c.sec_off[TIGRIS_SEC_OP_ATTRIBUTES];
    if (c.hdr.version < 4 || !span_ok(off, 4, c.sec_end[TIGRIS_SEC_OP_ATTRIBUTES])) return TIGRIS_ERR_BAD_SECTION;
    const uint16_t count = rd_u16(c.buf + off);
    if (count == 0 || !table_fits(c, TIGRIS_SEC_OP_ATTRIBUTES, off + 4, count, sizeof(tigris_op_attribute_t)))
        return TIGRIS_ERR_BAD_SECTION;
    const uint32_t data = off + 4 + (uint32_t)count * sizeof(tigris_op_attribute_t);
    c.plan.op_attributes = (const tigris_op_attribute_t *)(c.buf + off + 4);
    c.plan.op_attribute_data = c.buf + data;
    c.plan.num_op_attributes = count;
    c.attr_data_len = c.sec_end[TIGRIS_SEC_OP_ATTRIBUTES] - data;
    return TIGRIS_OK;
}

// STATE and SUBGRAPHS (v10+) and MEMORY (v11+) tables.
tigris_error_t check_late_sections(LoadCtx &c)
{
    const uint32_t v = c.hdr.version;
    if (c.present[TIGRIS_SEC_STATE]) {
        const uint32_t off = c.sec_off[TIGRIS_SEC_STATE];
        if (v < 10 || !span_ok(off, sizeof(tigris_state_header_t), c.sec_end[TIGRIS_SEC_STATE]))
            return TIGRIS_ERR_BAD_SECTION;
        const uint16_t count = rd_u16(c.buf + off);
        if (rd_u16(c.buf + off + 2) != 0 ||
            !table_fits(c, TIGRIS_SEC_STATE, off + 8, count, sizeof(tigris_state_entry_t)))
            return TIGRIS_ERR_BAD_SECTION;
        c.plan.state_section = c.buf + off;
        c.plan.state_entries = count ? (const tigris_state_entry_t *)(c.buf + off + 8) : nullptr;
        c.plan.num_state = count;
        c.plan.state_bytes = rd_u32(c.buf + off + 4);
        c.state_len = section_len(c, TIGRIS_SEC_STATE);
    }
    if (c.present[TIGRIS_SEC_SUBGRAPHS]) {
        // A build without control flow (TIGRIS_NO_CONTROL_FLOW) refuses the graphs here, so
        // num_subgraphs stays 0 and the graph checks of step 23 go (step 25 would refuse an
        // If / While, which needs the section, step 12b).
        if (!control_flow_built()) return TIGRIS_ERR_FEATURE_DISABLED;
        const uint32_t off = c.sec_off[TIGRIS_SEC_SUBGRAPHS];
        if (v < 10 || !span_ok(off, sizeof(tigris_subgraphs_header_t), c.sec_end[TIGRIS_SEC_SUBGRAPHS]))
            return TIGRIS_ERR_BAD_SECTION;
        const uint16_t count = rd_u16(c.buf + off);
        if (count == 0 || rd_u16(c.buf + off + 2) != 0 ||
            !table_fits(c, TIGRIS_SEC_SUBGRAPHS, off + 4, count, sizeof(tigris_subgraph_t)))
            return TIGRIS_ERR_BAD_SECTION;
        c.plan.subgraphs = (const tigris_subgraph_t *)(c.buf + off + 4);
        c.plan.num_subgraphs = count;
    }
    if (c.present[TIGRIS_SEC_MEMORY]) {
        const uint32_t off = c.sec_off[TIGRIS_SEC_MEMORY];
        if (v < 11 || !span_ok(off, sizeof(tigris_memory_section_t), c.sec_end[TIGRIS_SEC_MEMORY]) ||
            rd_u32(c.buf + off + 8) != 0 || rd_u32(c.buf + off + 12) != 0)
            return TIGRIS_ERR_BAD_SECTION;
        c.plan.scheduled_peak = rd_u32(c.buf + off);
    }
    return TIGRIS_OK;
}

// STATE / SUBGRAPHS are required once a tensor or op needs them (tables are in bounds now).
tigris_error_t check_state_and_flow_presence(LoadCtx &c)
{
    for (uint32_t i = 0; i < c.hdr.num_tensors; i++) {
        if ((c.plan.tensors[i].flags & TIGRIS_TENSOR_STATE) && !c.present[TIGRIS_SEC_STATE])
            return TIGRIS_ERR_MISSING_SEC;
    }
    for (uint32_t i = 0; i < c.hdr.num_ops; i++) {
        if (op_is_control_flow(c.plan.ops[i].op_type) && !c.present[TIGRIS_SEC_SUBGRAPHS])
            return TIGRIS_ERR_MISSING_SEC;
    }
    return TIGRIS_OK;
}

}  // namespace

tigris_error_t check_record_tables(LoadCtx &c)
{
    const tigris_file_header_t &h = c.hdr;
    if (!table_fits(c, TIGRIS_SEC_TENSORS, c.sec_off[TIGRIS_SEC_TENSORS], h.num_tensors, sizeof(tigris_tensor_t)) ||
        !table_fits(c, TIGRIS_SEC_OPS, c.sec_off[TIGRIS_SEC_OPS], h.num_ops, sizeof(tigris_op_t)) ||
        (h.num_stages &&
         !table_fits(c, TIGRIS_SEC_STAGES, c.sec_off[TIGRIS_SEC_STAGES], h.num_stages, sizeof(tigris_stage_t))) ||
        (h.num_weights && !table_fits(c, TIGRIS_SEC_WEIGHTS, c.sec_off[TIGRIS_SEC_WEIGHTS], h.num_weights,
                                      sizeof(tigris_weight_entry_t))))
        return TIGRIS_ERR_BAD_SECTION;
    c.plan.tensors = (const tigris_tensor_t *)(c.buf + c.sec_off[TIGRIS_SEC_TENSORS]);
    c.plan.ops = (const tigris_op_t *)(c.buf + c.sec_off[TIGRIS_SEC_OPS]);
    if (h.num_stages) c.plan.stages = (const tigris_stage_t *)(c.buf + c.sec_off[TIGRIS_SEC_STAGES]);
    if (h.num_weights) c.plan.weight_entries = (const tigris_weight_entry_t *)(c.buf + c.sec_off[TIGRIS_SEC_WEIGHTS]);

    tigris_error_t err = check_tile_records(c);
    // A build without weight blocks (TIGRIS_NO_WEIGHT_BLOCKS) refuses the section here, so the
    // block checks of steps 22 and 27 go.
    if (err == TIGRIS_OK && c.present[TIGRIS_SEC_WEIGHT_BLOCKS] && !weight_blocks_built())
        err = TIGRIS_ERR_FEATURE_DISABLED;
    if (err == TIGRIS_OK && c.present[TIGRIS_SEC_WEIGHT_BLOCKS]) {
        const uint32_t off = c.sec_off[TIGRIS_SEC_WEIGHT_BLOCKS];
        if (!span_ok(off, 4, c.sec_end[TIGRIS_SEC_WEIGHT_BLOCKS]) ||
            !table_fits(c, TIGRIS_SEC_WEIGHT_BLOCKS, off + 4, rd_u16(c.buf + off), sizeof(tigris_weight_block_t)))
            err = TIGRIS_ERR_BAD_SECTION;
    }
    if (err == TIGRIS_OK) err = check_attribute_table(c);          // step 11
    if (err == TIGRIS_OK) err = check_late_sections(c);            // step 11 (v10/v11 sections)
    if (err == TIGRIS_OK) err = check_quant_header(c);             // step 12
    if (err == TIGRIS_OK) err = check_state_and_flow_presence(c);  // MISSING_SEC for state / flow
    return err;
}

tigris_error_t check_strings_and_model_io(LoadCtx &c)
{
    if (c.strings_len == 0 || !string_ok(c, c.hdr.model_name_str)) return TIGRIS_ERR_BAD_SECTION;
    const uint32_t n = (uint32_t)c.hdr.num_model_inputs + c.hdr.num_model_outputs;
    if (n == 0) return TIGRIS_OK;
    if (c.plan.index_pool == nullptr || !span_ok(c.hdr.model_io_off, n, c.index_count)) return TIGRIS_ERR_BAD_SECTION;
    for (uint32_t i = 0; i < n; i++) {
        if (pool_idx(&c.plan, c.hdr.model_io_off + i) >= c.hdr.num_tensors) return TIGRIS_ERR_BAD_SECTION;
    }
    c.plan.model_inputs = c.plan.index_pool + c.hdr.model_io_off;
    c.plan.model_outputs = c.plan.model_inputs + c.hdr.num_model_inputs;
    return TIGRIS_OK;
}

}  // namespace tigris_rt
