// Compaction: slide live allocations of a pool down in address order, closing the gaps
// that dead tensors left, and repoint every tensor that points into a moved block.
#include <string.h>

#include "memory/arena.h"
#include "memory/trace_emit.h"

namespace tigris_rt {

namespace {

struct Window {
    uint8_t *base;
    uint32_t begin;  // first offset compacted
    uint32_t end;    // one past the last used offset
};

uint16_t tensor_count(const tigris_mem_t *mem, const tigris_plan_t *plan)
{
    uint16_t n = plan->header->num_tensors;
    return mem->num_tensors < n ? mem->num_tensors : n;
}

// The lowest live pointer at or above `scan` inside the window; -1 when none.
int32_t lowest_live(const tigris_mem_t *mem, uint16_t count, const Window &w, const uint8_t *scan)
{
    int32_t best = -1;
    const uint8_t *end = w.base + w.end;
    for (uint16_t i = 0; i < count; ++i) {
        const uint8_t *p = (const uint8_t *)mem->tensor_ptrs[i];
        if (p == nullptr || p < scan || p >= end) continue;
        if (best < 0 || p < (const uint8_t *)mem->tensor_ptrs[best]) best = i;
    }
    return best;
}

uint32_t aligned_tensor_size(const tigris_plan_t *plan, uint16_t idx)
{
    uint32_t aligned = 0;
    if (!align_size(plan->tensors[idx].size_bytes, &aligned)) return UINT32_MAX;
    return aligned;
}

// Extent of the block starting at `start`: the largest aligned size of every tensor that
// points into it, grown until no tensor inside reaches past its end, capped at the window.
uint32_t block_extent(const tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t count, const Window &w,
                      const uint8_t *start)
{
    const uint8_t *limit = w.base + w.end;
    const uint8_t *block_end = start;
    bool grew = true;
    while (grew) {
        grew = false;
        for (uint16_t i = 0; i < count; ++i) {
            const uint8_t *p = (const uint8_t *)mem->tensor_ptrs[i];
            if (p == nullptr || p < start || p >= limit) continue;
            if (p != start && p >= block_end) continue;
            uint32_t size = aligned_tensor_size(plan, i);
            uint32_t room = (uint32_t)(limit - p);
            const uint8_t *e = p + (size < room ? size : room);
            if (e > block_end) {
                block_end = e;
                grew = true;
            }
        }
    }
    return (uint32_t)(block_end - start);
}

// Move [src, src + bytes) to dst and repoint every tensor inside it.
void move_block(tigris_mem_t *mem, uint16_t count, uint8_t *dst, uint8_t *src, uint32_t bytes, uint8_t pool,
                const uint8_t *pool_base)
{
    memmove(dst, src, bytes);
    uint16_t first = 0xFFFFu;
    for (uint16_t i = 0; i < count; ++i) {
        uint8_t *p = (uint8_t *)mem->tensor_ptrs[i];
        if (p == nullptr || p < src || p >= src + bytes) continue;
        mem->tensor_ptrs[i] = dst + (p - src);
        if (first == 0xFFFFu && p == src) first = i;
    }
    trace_mem(mem, TIGRIS_TRACE_MOVE, pool, first, (uint32_t)(dst - pool_base), (uint32_t)(src - pool_base), bytes);
}

}  // namespace

uint32_t mem_compact(tigris_mem_t *mem, const tigris_plan_t *plan, Pool pool)
{
    if (mem == nullptr || mem->tensor_ptrs == nullptr || plan == nullptr || plan->header == nullptr) return 0;
    Window w;
    uint32_t *used;
    uint8_t trace_pool;
    if (pool == Pool::Fast) {
        w = Window{mem->fast_base, mem->fast_reserved, mem->fast_used};
        used = &mem->fast_used;
        trace_pool = TIGRIS_TRACE_POOL_FAST;
    } else {
        if (mem->slow_base == nullptr) return 0;
        w = Window{mem->slow_base, slow_start(mem), mem->slow_used};
        used = &mem->slow_used;
        trace_pool = TIGRIS_TRACE_POOL_SLOW;
    }
    if (w.base == nullptr || w.begin >= w.end) return 0;

    uint16_t count = tensor_count(mem, plan);
    uint32_t cursor = w.begin;
    const uint8_t *scan = w.base + w.begin;
    bool moved = false;
    for (;;) {
        int32_t idx = lowest_live(mem, count, w, scan);
        if (idx < 0) break;
        uint8_t *start = (uint8_t *)mem->tensor_ptrs[idx];
        uint32_t bytes = block_extent(mem, plan, count, w, start);
        scan = start + bytes;
        if (w.base + cursor != start) {
            move_block(mem, count, w.base + cursor, start, bytes, trace_pool, w.base);
            moved = true;
        }
        cursor += bytes;
    }
    // Allocations are aligned, so the cursor stays on an aligned offset.
    uint32_t released = w.end - cursor;
    *used = cursor;
    if ((moved || released > 0) && mem->stats != nullptr) mem->stats->compactions++;
    return released;
}

}  // namespace tigris_rt
