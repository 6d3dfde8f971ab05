// Trace hooks shared by the memory manager and the executor. In a runtime built without
// TIGRIS_TRACE every function here is an empty inline and the calls compile to nothing.
#pragma once

#include "tigris_mem.h"

namespace tigris_rt {

// An event with every optional field at its "unused" value: u16 fields 0xFFFF,
// offsets 0xFFFFFFFF, rows/cols -1, pool and path 0xFF.
inline tigris_trace_event_t trace_blank(uint8_t kind)
{
    tigris_trace_event_t e;
    e.kind = kind;
    e.pool = TIGRIS_TRACE_POOL_NONE;
    e.path = 0xFFu;
    e.pad0 = 0;
    e.stage = 0xFFFFu;
    e.tensor = 0xFFFFu;
    e.op = 0xFFFFu;
    e.pad1 = 0xFFFFu;
    e.offset = 0xFFFFFFFFu;
    e.src_offset = 0xFFFFFFFFu;
    e.bytes = 0;
    e.row0 = -1;
    e.row1 = -1;
    e.col0 = -1;
    e.col1 = -1;
    e.fast_used = 0;
    e.slow_used = 0;
    return e;
}

// Stamp the current stage and the pools' fill levels, then report the event.
inline void trace_send(tigris_mem_t *mem, tigris_trace_event_t *e)
{
#ifdef TIGRIS_TRACE
    if (mem == nullptr || mem->trace_fn == nullptr) return;
    e->stage = mem->trace_stage;
    e->fast_used = mem->fast_used;
    e->slow_used = mem->slow_used;
    mem->trace_fn(e, mem->trace_ctx);
#else
    (void)mem;
    (void)e;
#endif
}

// True when events would be delivered (lets callers skip building them).
inline bool trace_enabled(const tigris_mem_t *mem)
{
#ifdef TIGRIS_TRACE
    return mem != nullptr && mem->trace_fn != nullptr;
#else
    (void)mem;
    return false;
#endif
}

// The start of band `tile` (clamped to 0xFFFF) covering units [u0, u1) of the banded axis.
inline void trace_tile_begin(tigris_mem_t *mem, uint32_t tile, int32_t u0, int32_t u1)
{
    if (!trace_enabled(mem)) return;
    tigris_trace_event_t e = trace_blank(TIGRIS_TRACE_TILE_BEGIN);
    e.op = (uint16_t)(tile > 0xFFFFu ? 0xFFFFu : tile);
    e.row0 = u0;
    e.row1 = u1;
    trace_send(mem, &e);
}

// The event of every transfer: kind, pool, tensor, destination/source offsets and bytes, and
// for a band its rows [row0, row1) and columns [col0, col1) (-1: the whole extent).
inline void trace_mem(tigris_mem_t *mem, uint8_t kind, uint8_t pool, uint16_t tensor, uint32_t offset,
                      uint32_t src_offset, uint32_t bytes, int32_t row0 = -1, int32_t row1 = -1, int32_t col0 = -1,
                      int32_t col1 = -1)
{
    if (!trace_enabled(mem)) return;
    tigris_trace_event_t e = trace_blank(kind);
    e.pool = pool;
    e.tensor = tensor;
    e.offset = offset;
    e.src_offset = src_offset;
    e.bytes = bytes;
    e.row0 = row0;
    e.row1 = row1;
    e.col0 = col0;
    e.col1 = col1;
    trace_send(mem, &e);
}

// The stage (and its path) that later events belong to; 0xFFFF outside a run.
inline void trace_set_stage(tigris_mem_t *mem, uint16_t stage, uint8_t path)
{
#ifdef TIGRIS_TRACE
    mem->trace_stage = stage;
    mem->trace_path = path;
#else
    (void)mem;
    (void)stage;
    (void)path;
#endif
}

}  // namespace tigris_rt
