// Compressed (or stored) weight blocks: decoded into fast memory for the stage that owns them.
#include <string.h>

#include "common/features.h"
#include "exec/exec_internal.h"
#include "iface/in_place.h"
#include "lz4/lz4_block.h"
#include "memory/arena.h"
#include "memory/trace_emit.h"

namespace tigris_rt {

const tigris_weight_block_t *stage_weight_block(const tigris_plan_t *plan, uint16_t s)
{
    // TIGRIS_NO_WEIGHT_BLOCKS: the loader refused a plan with blocks (FEATURE_DISABLED).
    if (!weight_blocks_built() || plan->weight_blocks == nullptr) return nullptr;
    for (uint16_t i = 0; i < plan->num_weight_blocks; ++i)
        if (plan->weight_blocks[i].stage_idx == s) return &plan->weight_blocks[i];  // one block per stage
    return nullptr;
}

bool stage_weight_bytes(const tigris_plan_t *plan, uint16_t s, uint32_t *bytes)
{
    const tigris_weight_block_t *b = stage_weight_block(plan, s);
    *bytes = 0;
    return b == nullptr || align_size(b->uncompressed_size, bytes);
}

namespace {

// Where the block goes: the room at the floor for inputs read in place, else the fast top.
tigris_exec_error_t place_block(RunContext &ctx, uint32_t aligned, uint8_t **dst)
{
    tigris_mem_t *mem = ctx.mem;
    if (ctx.in_place) {
        uint32_t room = 0;
        if (!in_place_room(ctx.plan, &room) || aligned > room) return TIGRIS_EXEC_ERR_MEM;
        *dst = mem->fast_base + ctx.floor;
        mem->fast_reserved = ctx.floor + aligned;
        return TIGRIS_EXEC_OK;
    }
    if (mem_bump_fast(mem, aligned, dst) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
    mem_reserve_fast(mem);
    return TIGRIS_EXEC_OK;
}

bool decode_block(const tigris_plan_t *plan, const tigris_weight_block_t *b, uint8_t *dst)
{
    const uint8_t *src = plan->weight_blocks_data + b->blob_offset;
    if (plan->weight_compression == TIGRIS_COMPRESSION_NONE) {
        if (b->compressed_size != b->uncompressed_size) return false;
        memcpy(dst, src, b->uncompressed_size);
        return true;
    }
    if (plan->weight_compression != TIGRIS_COMPRESSION_LZ4) return false;
    uint32_t produced = 0;
    Lz4Status st = lz4_decode_block(src, b->compressed_size, dst, b->uncompressed_size, &produced);
    return st == LZ4_OK && produced == b->uncompressed_size;
}

}  // namespace

tigris_exec_error_t load_stage_weights(RunContext &ctx, uint16_t s, tigris_plan_t *kplan)
{
    *kplan = *ctx.plan;
    const tigris_weight_block_t *b = stage_weight_block(ctx.plan, s);
    if (b == nullptr) return TIGRIS_EXEC_OK;
    uint32_t aligned = 0;
    if (!align_size(b->uncompressed_size, &aligned) || ctx.plan->weight_blocks_data == nullptr)
        return TIGRIS_EXEC_ERR_MEM;
    uint8_t *dst = nullptr;
    tigris_exec_error_t rc = place_block(ctx, aligned, &dst);
    if (rc != TIGRIS_EXEC_OK) return rc;
    if (!decode_block(ctx.plan, b, dst)) return TIGRIS_EXEC_ERR_KERNEL;
    kplan->weight_blob = dst;
    ctx.stats->weight_bytes += b->uncompressed_size;
    trace_mem(ctx.mem, TIGRIS_TRACE_WEIGHTS, TIGRIS_TRACE_POOL_FAST, 0xFFFFu, (uint32_t)(dst - ctx.mem->fast_base),
              0xFFFFFFFFu, b->uncompressed_size);
    return TIGRIS_EXEC_OK;
}

}  // namespace tigris_rt
