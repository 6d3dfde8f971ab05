// Loader steps 20-22 and 27: weight entries and blob, quant parameters, compressed
// weight blocks, and that every weight a stage uses lies in that stage's block.
#include <math.h>
#include <stdint.h>

#include "common/features.h"
#include "plan/loader_ctx.h"

namespace tigris_rt {

namespace {

// The uncompressed blob follows the entries, 16-aligned from the section start at v11.
uint32_t blob_start(uint32_t version, uint32_t num_weights)
{
    const uint32_t entries = num_weights * (uint32_t)sizeof(tigris_weight_entry_t);
    return version >= 11 ? (entries + 15u) & ~15u : entries;
}

// Kernels read weights through float and int32 pointers, so a weight must start where those
// types may: the writer puts every weight at a multiple of 16 of its blob or block (3.8,
// 3.10), and an uncompressed one must also be 4-aligned at its address (schemas <= 10 start
// the blob at 12 * n bytes, and a buffer may be aligned less than the blob start).
const uint32_t kWeightAlign = 16u;
const uintptr_t kWeightAddressAlign = 4u;

tigris_error_t check_weight_entries(LoadCtx &c)
{
    const uint32_t n = c.hdr.num_weights;
    for (uint32_t i = 0; i < n; i++) {
        if (!string_ok(c, c.plan.weight_entries[i].name_str)) return TIGRIS_ERR_BAD_SECTION;
        if (c.plan.weight_entries[i].offset % kWeightAlign != 0) return TIGRIS_ERR_BAD_SECTION;
    }
    if (n == 0 || c.present[TIGRIS_SEC_WEIGHT_BLOCKS]) return TIGRIS_OK;
    const uint32_t start = c.sec_off[TIGRIS_SEC_WEIGHTS] + blob_start(c.hdr.version, n);
    if (start > c.sec_end[TIGRIS_SEC_WEIGHTS]) return TIGRIS_ERR_BAD_SECTION;
    c.weight_blob_len = c.sec_end[TIGRIS_SEC_WEIGHTS] - start;
    for (uint32_t i = 0; i < n; i++) {
        const tigris_weight_entry_t &w = c.plan.weight_entries[i];
        if (!span_ok(w.offset, w.size_bytes, c.weight_blob_len)) return TIGRIS_ERR_BAD_SECTION;
        if ((uintptr_t)(c.buf + start + w.offset) % kWeightAddressAlign != 0) return TIGRIS_ERR_BAD_SECTION;
    }
    c.plan.weight_blob = c.buf + start;
    return TIGRIS_OK;
}

tigris_error_t check_quant_params(LoadCtx &c)
{
    for (uint32_t i = 0; i < c.plan.num_quant_params; i++) {
        const tigris_quant_param_t &q = c.plan.quant_params[i];
        const float scale = q.scale;
        if (!isfinite(scale) || scale <= 0.0f) return TIGRIS_ERR_BAD_TENSOR;
        const uint32_t n = q.num_channels, page = q.page;
        const uint32_t m = page * 65536u + q.multiplier_off, s = page * 65536u + q.shift_off;
        if (n == 0 || page >= c.quant_pages || (uint32_t)q.multiplier_off + n > 65536u ||
            (uint32_t)q.shift_off + n > 65536u || !span_ok(m, n, c.quant_len) || !span_ok(s, n, c.quant_len))
            return TIGRIS_ERR_BAD_SECTION;
    }
    return TIGRIS_OK;
}

tigris_error_t check_weight_blocks(LoadCtx &c)
{
    // A build without weight blocks refused the section at step 10.
    if (!weight_blocks_built() || !c.present[TIGRIS_SEC_WEIGHT_BLOCKS]) return TIGRIS_OK;
    const uint32_t off = c.sec_off[TIGRIS_SEC_WEIGHT_BLOCKS];
    const uint16_t count = rd_u16(c.buf + off), compression = rd_u16(c.buf + off + 2);
    const uint32_t data = off + 4 + (uint32_t)count * sizeof(tigris_weight_block_t);
    const uint32_t data_len = c.sec_end[TIGRIS_SEC_WEIGHT_BLOCKS] - data;
    if ((compression != TIGRIS_COMPRESSION_NONE && compression != TIGRIS_COMPRESSION_LZ4) || count == 0 ||
        c.hdr.num_weights == 0 || count > c.hdr.num_stages)
        return TIGRIS_ERR_BAD_SECTION;
    const tigris_weight_block_t *blocks = (const tigris_weight_block_t *)(c.buf + off + 4);
    for (uint32_t i = 0; i < count; i++) {
        const tigris_weight_block_t &b = blocks[i];
        if (b.stage_idx >= c.hdr.num_stages || b.num_weights == 0 ||
            !span_ok(b.first_weight_idx, b.num_weights, c.hdr.num_weights) || b.compressed_size == 0 ||
            b.uncompressed_size == 0 || !span_ok(b.blob_offset, b.compressed_size, data_len) ||
            (compression == TIGRIS_COMPRESSION_NONE && b.compressed_size != b.uncompressed_size))
            return TIGRIS_ERR_BAD_SECTION;
        // Stages strictly increasing; weight ranges ascend without overlap.
        if (i > 0 && (b.stage_idx <= blocks[i - 1].stage_idx ||
                      b.first_weight_idx < blocks[i - 1].first_weight_idx + blocks[i - 1].num_weights))
            return TIGRIS_ERR_BAD_SECTION;
    }
    c.plan.weight_blocks = blocks;
    c.plan.weight_blocks_data = c.buf + data;
    c.plan.num_weight_blocks = count;
    c.plan.weight_compression = compression;
    return TIGRIS_OK;
}

// A compressed stage's weight must belong to the stage's block and fit its decoded size.
bool in_block(const LoadCtx &c, const tigris_weight_block_t *b, uint16_t w)
{
    if (w == TIGRIS_NONE) return true;
    if (b == nullptr || w < b->first_weight_idx || w - b->first_weight_idx >= b->num_weights) return false;
    const tigris_weight_entry_t &e = c.plan.weight_entries[w];
    return span_ok(e.offset, e.size_bytes, b->uncompressed_size);
}

bool op_weights_in_block(const LoadCtx &c, uint16_t op_index, const tigris_weight_block_t *b)
{
    const tigris_op_t &op = c.plan.ops[op_index];
    if (!in_block(c, b, op.weight_idx) || !in_block(c, b, op.bias_idx)) return false;
    uint8_t len = 0;
    const uint8_t *k = tigris_op_attribute_data(&c.plan, op_index, TIGRIS_ATTR_CONSTANTS, &len);
    for (uint32_t i = 0; k && i < len / 2u; i++) {
        if (!in_block(c, b, rd_u16(k + 2 * i))) return false;
    }
    return true;
}

}  // namespace

tigris_error_t check_weights(LoadCtx &c)
{
    tigris_error_t err = check_weight_entries(c);        // step 20
    if (err == TIGRIS_OK) err = check_quant_params(c);   // step 21
    if (err == TIGRIS_OK) err = check_weight_blocks(c);  // step 22
    return err;
}

tigris_error_t check_block_coverage(LoadCtx &c)
{
    // A build without weight blocks refused a plan with them at step 10.
    if (!weight_blocks_built() || c.plan.weight_blocks == nullptr) return TIGRIS_OK;
    uint32_t cursor = 0;
    for (uint32_t s = 0; s < c.hdr.num_stages; s++) {
        const tigris_weight_block_t *b = nullptr;
        if (cursor < c.plan.num_weight_blocks && c.plan.weight_blocks[cursor].stage_idx == s)
            b = &c.plan.weight_blocks[cursor++];
        const tigris_stage_t &st = c.plan.stages[s];
        for (uint32_t j = 0; j < st.ops_count; j++) {
            if (!op_weights_in_block(c, pool_idx(&c.plan, st.ops_off + j), b)) return TIGRIS_ERR_BAD_SECTION;
        }
    }
    return TIGRIS_OK;
}

}  // namespace tigris_rt
