// Band transfers (band_io.h).
#include "exec/band_io.h"

#include <string.h>

#include "memory/arena.h"

namespace tigris_rt {

namespace {

bool rows_ok(const Slab &s, int32_t r0, int32_t r1) { return r0 >= 0 && r1 > r0 && (uint32_t)r1 <= s.rows; }

}  // namespace

tigris_exec_error_t slab_load_into(RunContext &ctx, uint16_t t, const void *full, const Slab &s, int32_t r0, int32_t r1,
                                   uint8_t *dst, int32_t dst_rows, int32_t dst_row)
{
    if (full == nullptr || !rows_ok(s, r0, r1) || dst_row < 0 || dst_row + (r1 - r0) > dst_rows)
        return TIGRIS_EXEC_ERR_TILE;
    const uint8_t *src = (const uint8_t *)full;
    const size_t run = (size_t)(r1 - r0) * s.cell;
    for (uint32_t b = 0; b < s.outer; ++b)
        memcpy(dst + ((size_t)b * (uint32_t)dst_rows + (uint32_t)dst_row) * s.cell,
               src + ((size_t)b * s.rows + (uint32_t)r0) * s.cell, run);
    const uint32_t bytes = slab_bytes(s, r0, r1);
    ctx.stats->loads_bytes += bytes;
    trace_band(ctx.mem, TIGRIS_TRACE_LOAD, t, dst, full, bytes, r0, r1);
    return TIGRIS_EXEC_OK;
}

tigris_exec_error_t slab_load(RunContext &ctx, uint16_t t, const void *full, const Slab &s, int32_t r0, int32_t r1)
{
    if (full == nullptr || !rows_ok(s, r0, r1)) return TIGRIS_EXEC_ERR_TILE;
    uint8_t *dst = nullptr;
    if (mem_bump_fast(ctx.mem, slab_bytes(s, r0, r1), &dst) != TIGRIS_MEM_OK) return TIGRIS_EXEC_ERR_MEM;
    ctx.mem->tensor_ptrs[t] = dst;
    return slab_load_into(ctx, t, full, s, r0, r1, dst, r1 - r0, 0);
}

tigris_exec_error_t slab_spill(RunContext &ctx, uint16_t t, void *full, const Slab &s, int32_t r0, int32_t r1,
                               const uint8_t *src, int32_t src_rows, int32_t src_row)
{
    if (full == nullptr || src == nullptr || !rows_ok(s, r0, r1) || src_row < 0 || src_row + (r1 - r0) > src_rows)
        return TIGRIS_EXEC_ERR_TILE;
    uint8_t *dst = (uint8_t *)full;
    const size_t run = (size_t)(r1 - r0) * s.cell;
    for (uint32_t b = 0; b < s.outer; ++b)
        memcpy(dst + ((size_t)b * s.rows + (uint32_t)r0) * s.cell,
               src + ((size_t)b * (uint32_t)src_rows + (uint32_t)src_row) * s.cell, run);
    const uint32_t bytes = slab_bytes(s, r0, r1);
    ctx.stats->spills_bytes += bytes;
    trace_band(ctx.mem, TIGRIS_TRACE_SPILL, t, full, src, bytes, r0, r1);
    return TIGRIS_EXEC_OK;
}

void slab_roll(RunContext &ctx, uint16_t t, uint8_t *buf, const Slab &s, int32_t old_rows, int32_t from, int32_t count,
               int32_t new_rows)
{
    if (count <= 0) return;
    const size_t run = (size_t)count * s.cell;
    // Blocks move towards lower addresses when they shrink and higher when they grow: order
    // the moves so no block is overwritten before it has moved.
    const bool grow = new_rows > old_rows;
    for (uint32_t i = 0; i < s.outer; ++i) {
        const uint32_t b = grow ? s.outer - 1u - i : i;
        memmove(buf + (size_t)b * (uint32_t)new_rows * s.cell,
                buf + ((size_t)b * (uint32_t)old_rows + (uint32_t)from) * s.cell, run);
    }
    trace_band(ctx.mem, TIGRIS_TRACE_MOVE, t, buf, buf, (uint32_t)(run * s.outer), from, from + count);
}

}  // namespace tigris_rt
