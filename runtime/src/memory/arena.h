// Memory manager internals: the executor's (and the banded paths') view of the two pools.
//
// Both pools are bump allocators over caller buffers. Offsets are relative to the pool's
// base pointer; the first TIGRIS_TENSOR_ALIGN-aligned address is the pool's start offset.
// Every allocation is rounded up to TIGRIS_TENSOR_ALIGN, so every tensor pointer the pools
// hand out is aligned.
//
// Fast pool: [start, fast_reserved) survives resets (caller data below the run's floor,
// decompressed weights, accumulators, line buffers); [fast_reserved, fast_used) is the
// stage's working set; a reset returns fast_used to fast_reserved.
// Slow pool: [start, slow_used); reclaimed only by compaction.
//
// Counters: when mem->stats is set, loads/spills add their bytes, compactions that moved or
// released anything count, and slow allocations raise stats->slow_peak. Every allocation,
// load, spill, move and reset reports a trace event (TIGRIS_TRACE builds).
#pragma once

#include <stdint.h>

#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_mem.h"

namespace tigris_rt {

enum class Pool : uint8_t { Fast = 0, Slow = 1 };

// Round n up to TIGRIS_TENSOR_ALIGN; false when that overflows 32 bits.
inline bool align_size(uint32_t n, uint32_t *out)
{
    const uint32_t mask = (uint32_t)TIGRIS_TENSOR_ALIGN - 1u;
    if (n > UINT32_MAX - mask) return false;
    *out = (n + mask) & ~mask;
    return true;
}

// Bytes from an unaligned base to its first aligned address (the pool's start offset).
inline uint32_t align_gap(const void *base)
{
    const uintptr_t mask = (uintptr_t)TIGRIS_TENSOR_ALIGN - 1u;
    return (uint32_t)(((uintptr_t)TIGRIS_TENSOR_ALIGN - ((uintptr_t)base & mask)) & mask);
}

inline uint32_t fast_start(const tigris_mem_t *mem) { return align_gap(mem->fast_base); }
inline uint32_t slow_start(const tigris_mem_t *mem) { return align_gap(mem->slow_base); }

// Whether p lies inside a pool's buffer [base, base + size).
bool in_fast(const tigris_mem_t *mem, const void *p);
bool in_slow(const tigris_mem_t *mem, const void *p);

// Offset of p within the pool that holds it, 0xFFFFFFFF when in neither (trace fields).
uint32_t pool_offset(const tigris_mem_t *mem, const void *p);
// TIGRIS_TRACE_POOL_FAST, _SLOW or _NONE for a pointer.
uint8_t pool_of(const tigris_mem_t *mem, const void *p);

// Reports a LOAD, SPILL or MOVE of a band (transfer.cpp): the pools and offsets of dst and src,
// rows [h0, h1) and columns [w0, w1) of the tensor (-1: the whole extent).
void trace_band(tigris_mem_t *mem, uint8_t kind, uint16_t tensor, const void *dst, const void *src, uint32_t bytes,
                int32_t h0, int32_t h1, int32_t w0 = -1, int32_t w1 = -1);

// Bump-allocate `bytes` for tensor `idx` and point tensor_ptrs[idx] at it (ALLOC event).
// NULL, BAD_INDEX (idx >= num_tensors), OOM (no room, or size overflow); mem unchanged on error.
tigris_mem_error_t mem_alloc_fast(tigris_mem_t *mem, uint16_t idx, uint32_t bytes);
tigris_mem_error_t mem_alloc_slow(tigris_mem_t *mem, uint16_t idx, uint32_t bytes);

// Bump-allocate an anonymous fast block (weights, accumulators, line buffers): *out gets its
// address. No tensor pointer changes and no event (the caller reports what it writes there).
tigris_mem_error_t mem_bump_fast(tigris_mem_t *mem, uint32_t bytes, uint8_t **out);
// The same in the slow pool (raises slow_peak and stats->slow_peak). OOM without a slow buffer.
tigris_mem_error_t mem_bump_slow(tigris_mem_t *mem, uint32_t bytes, uint8_t **out);

// Raise fast_peak to fast_used (for callers that move fast_used themselves).
void mem_note_fast_peak(tigris_mem_t *mem);

// fast_reserved = fast_used: everything allocated so far survives resets.
void mem_reserve_fast(tigris_mem_t *mem);

// fast_used = fast_reserved (RESET event). Tensor pointers are not touched: the caller nulls
// the ones that pointed above the reserved prefix.
void mem_reset_fast(tigris_mem_t *mem);

// Slide every live allocation of a pool down in address order, closing the gaps left by
// tensors whose pointers were nulled, and repoint every tensor (aliases and pointers into
// the inside of a block included). The fast pool compacts [fast_reserved, fast_used), the
// slow pool [start, slow_used). A live block is sized by the largest aligned size_bytes of
// the plan tensors that point at its start, so callers must first null dead tensors and
// tensors that point at band-sized buffers. One MOVE event per block moved. Returns the
// bytes released; counts in stats->compactions when anything moved or was released.
uint32_t mem_compact(tigris_mem_t *mem, const tigris_plan_t *plan, Pool pool);

// Copy tensor idx (bytes from its current pointer, wherever it is) into a new fast block
// and repoint it there (LOAD event, stats->loads_bytes). NOT_SET when it has no pointer.
tigris_mem_error_t mem_load(tigris_mem_t *mem, uint16_t idx, uint32_t bytes);

// Copy tensor idx into a new slow block and repoint it there (SPILL event,
// stats->spills_bytes). NOT_SET when it has no pointer.
tigris_mem_error_t mem_spill(tigris_mem_t *mem, uint16_t idx, uint32_t bytes);

// Row bands of a rank-3 (N, L, C) or rank-4 (N, H, W, C) channels-last tensor.
// load_rows: copy rows [h0, h1) of every batch from the full tensor at its current pointer
// into a packed fast buffer of N * (h1 - h0) rows and repoint the tensor at it.
// spill_rows: copy the packed band at the tensor's pointer into rows [h0, h1) of the full
// tensor at `full` and repoint the tensor at `full`.
// BAD_INDEX for another rank or rows outside [0, H); NOT_SET without a pointer.
tigris_mem_error_t mem_load_rows(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, int32_t h0, int32_t h1);
tigris_mem_error_t mem_spill_rows(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, void *full, int32_t h0,
                                  int32_t h1);

// 2-D rectangles [h0, h1) x [w0, w1) of a rank-4 NHWC tensor, packed as
// N x (h1 - h0) x (w1 - w0) x C, otherwise as the row variants.
tigris_mem_error_t mem_load_rect(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, int32_t h0, int32_t h1,
                                 int32_t w0, int32_t w1);
tigris_mem_error_t mem_spill_rect(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, void *full, int32_t h0,
                                  int32_t h1, int32_t w0, int32_t w1);

// Boxes [h0, h1) x [w0, w1) x channels [c0, c1) of a rank-4 NHWC tensor, packed as
// N x rows x cols x channels (channel bands; a rectangle is the box of every channel).
// `matrix`: the tensor (any rank >= 2) seen as [dim 0, product of the rest] with one batch
// and one column (w0 = 0, w1 = 1): rows [h0, h1) x columns [c0, c1) of a matrix stage.
// `matrix` 2: the tensor seen as [product of every dim but the last, the last] (one row per
// pixel of an NHWC tensor: a 1x1 Conv's input-channel bands).
struct MemBox {
    int32_t h0, h1, w0, w1, c0, c1;
    uint8_t matrix;
};
tigris_mem_error_t mem_load_box(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, const MemBox &box);
tigris_mem_error_t mem_spill_box(tigris_mem_t *mem, const tigris_plan_t *plan, uint16_t idx, void *full,
                                 const MemBox &box);

}  // namespace tigris_rt
