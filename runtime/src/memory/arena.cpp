// Memory manager: initialisation, bump allocation in both pools, reserve and reset.
#include "memory/arena.h"

#include <string.h>

#include "memory/trace_emit.h"

namespace tigris_rt {

bool in_fast(const tigris_mem_t *mem, const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return mem->fast_base != nullptr && b >= mem->fast_base && b < mem->fast_base + mem->fast_size;
}

bool in_slow(const tigris_mem_t *mem, const void *p)
{
    const uint8_t *b = (const uint8_t *)p;
    return mem->slow_base != nullptr && b >= mem->slow_base && b < mem->slow_base + mem->slow_size;
}

uint32_t pool_offset(const tigris_mem_t *mem, const void *p)
{
    if (in_fast(mem, p)) return (uint32_t)((const uint8_t *)p - mem->fast_base);
    if (in_slow(mem, p)) return (uint32_t)((const uint8_t *)p - mem->slow_base);
    return 0xFFFFFFFFu;
}

uint8_t pool_of(const tigris_mem_t *mem, const void *p)
{
    return in_fast(mem, p) ? TIGRIS_TRACE_POOL_FAST : in_slow(mem, p) ? TIGRIS_TRACE_POOL_SLOW : TIGRIS_TRACE_POOL_NONE;
}

void mem_note_fast_peak(tigris_mem_t *mem)
{
    if (mem->fast_used > mem->fast_peak) mem->fast_peak = mem->fast_used;
}

static void note_slow_peak(tigris_mem_t *mem)
{
    if (mem->slow_used > mem->slow_peak) mem->slow_peak = mem->slow_used;
    if (mem->stats != nullptr && mem->slow_used > mem->stats->slow_peak) mem->stats->slow_peak = mem->slow_used;
}

// Room for `bytes` (aligned) above *used within capacity; the aligned size on success.
static tigris_mem_error_t fit(uint32_t used, uint32_t capacity, uint32_t bytes, uint32_t *aligned)
{
    if (!align_size(bytes, aligned)) return TIGRIS_MEM_ERR_OOM;
    if (used > capacity || *aligned > capacity - used) return TIGRIS_MEM_ERR_OOM;
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t mem_alloc_fast(tigris_mem_t *mem, uint16_t idx, uint32_t bytes)
{
    if (mem == nullptr || mem->tensor_ptrs == nullptr || mem->fast_base == nullptr) return TIGRIS_MEM_ERR_NULL;
    if (idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    uint32_t aligned = 0;
    tigris_mem_error_t err = fit(mem->fast_used, mem->fast_size, bytes, &aligned);
    if (err != TIGRIS_MEM_OK) return err;
    uint32_t offset = mem->fast_used;
    mem->tensor_ptrs[idx] = mem->fast_base + offset;
    mem->fast_used += aligned;
    mem_note_fast_peak(mem);
    trace_mem(mem, TIGRIS_TRACE_ALLOC, TIGRIS_TRACE_POOL_FAST, idx, offset, 0xFFFFFFFFu, bytes);
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t mem_bump_slow(tigris_mem_t *mem, uint32_t bytes, uint8_t **out)
{
    if (mem == nullptr || out == nullptr) return TIGRIS_MEM_ERR_NULL;
    if (mem->slow_base == nullptr) return TIGRIS_MEM_ERR_OOM;
    uint32_t aligned = 0;
    tigris_mem_error_t err = fit(mem->slow_used, mem->slow_size, bytes, &aligned);
    if (err != TIGRIS_MEM_OK) return err;
    *out = mem->slow_base + mem->slow_used;
    mem->slow_used += aligned;
    note_slow_peak(mem);
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t mem_alloc_slow(tigris_mem_t *mem, uint16_t idx, uint32_t bytes)
{
    if (mem == nullptr || mem->tensor_ptrs == nullptr) return TIGRIS_MEM_ERR_NULL;
    if (idx >= mem->num_tensors) return TIGRIS_MEM_ERR_BAD_INDEX;
    uint8_t *p = nullptr;
    tigris_mem_error_t err = mem_bump_slow(mem, bytes, &p);
    if (err != TIGRIS_MEM_OK) return err;
    mem->tensor_ptrs[idx] = p;
    trace_mem(mem, TIGRIS_TRACE_ALLOC, TIGRIS_TRACE_POOL_SLOW, idx, (uint32_t)(p - mem->slow_base), 0xFFFFFFFFu, bytes);
    return TIGRIS_MEM_OK;
}

tigris_mem_error_t mem_bump_fast(tigris_mem_t *mem, uint32_t bytes, uint8_t **out)
{
    if (mem == nullptr || out == nullptr || mem->fast_base == nullptr) return TIGRIS_MEM_ERR_NULL;
    uint32_t aligned = 0;
    tigris_mem_error_t err = fit(mem->fast_used, mem->fast_size, bytes, &aligned);
    if (err != TIGRIS_MEM_OK) return err;
    *out = mem->fast_base + mem->fast_used;
    mem->fast_used += aligned;
    mem_note_fast_peak(mem);
    return TIGRIS_MEM_OK;
}

void mem_reserve_fast(tigris_mem_t *mem) { mem->fast_reserved = mem->fast_used; }

void mem_reset_fast(tigris_mem_t *mem)
{
    uint32_t released = mem->fast_used - mem->fast_reserved;
    mem->fast_used = mem->fast_reserved;
    trace_mem(mem, TIGRIS_TRACE_RESET, TIGRIS_TRACE_POOL_FAST, 0xFFFFu, mem->fast_reserved, 0xFFFFFFFFu, released);
}

}  // namespace tigris_rt

using namespace tigris_rt;

extern "C" tigris_mem_error_t tigris_mem_init(tigris_mem_t *mem, void **tensor_ptrs, uint16_t num_tensors,
                                              void *fast_buf, uint32_t fast_size, void *slow_buf, uint32_t slow_size)
{
    if (mem == nullptr || tensor_ptrs == nullptr || fast_buf == nullptr) return TIGRIS_MEM_ERR_NULL;
    if (slow_buf == nullptr && slow_size != 0) return TIGRIS_MEM_ERR_NULL;
    uint32_t fast_gap = align_gap(fast_buf);
    uint32_t slow_gap = slow_buf != nullptr ? align_gap(slow_buf) : 0u;
    // An unaligned buffer may be too small to reach its first aligned address.
    if (fast_gap > fast_size || slow_gap > slow_size) return TIGRIS_MEM_ERR_OOM;

    memset(mem, 0, sizeof(*mem));
    mem->tensor_ptrs = tensor_ptrs;
    mem->num_tensors = num_tensors;
    mem->fast_base = (uint8_t *)fast_buf;
    mem->fast_size = fast_size;
    mem->fast_used = fast_gap;
    mem->fast_reserved = fast_gap;
    mem->fast_peak = fast_gap;
    mem->slow_base = (uint8_t *)slow_buf;
    mem->slow_size = slow_size;
    mem->slow_used = slow_gap;
    mem->slow_peak = slow_gap;
    trace_set_stage(mem, 0xFFFFu, 0xFFu);
    memset(tensor_ptrs, 0, (size_t)num_tensors * sizeof(void *));
    return TIGRIS_MEM_OK;
}

extern "C" tigris_mem_error_t tigris_mem_alloc_slow(tigris_mem_t *mem, uint16_t tensor_idx, uint32_t size_bytes)
{
    return mem_alloc_slow(mem, tensor_idx, size_bytes);
}

extern "C" void tigris_mem_set_trace(tigris_mem_t *mem, tigris_trace_fn fn, void *ctx)
{
#ifdef TIGRIS_TRACE
    if (mem == nullptr) return;
    mem->trace_fn = fn;
    mem->trace_ctx = fn != nullptr ? ctx : nullptr;
#else
    (void)mem;
    (void)fn;
    (void)ctx;
#endif
}
