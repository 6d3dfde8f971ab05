// Band transfers between a full tensor in slow memory and packed band buffers in fast
// memory. A tensor is seen as a slab: `outer` blocks of `rows` rows of `cell` bytes (the
// CostTensor of the band cost model); a band is rows [r0, r1) of every block, packed as
// outer x (r1 - r0) rows. Every transfer reports its LOAD or SPILL event and counts
// stats->loads_bytes / spills_bytes (trace sums equal the counters).
#pragma once

#include "exec/exec_internal.h"
#include "plan/band_cost.h"

namespace tigris_rt {

struct Slab {
    uint32_t outer, rows, cell;
};

inline Slab slab_of(const CostTensor &t) { return Slab{t.outer, t.rows, t.cell * t.cols}; }

// Bytes of rows [r0, r1) of every block.
inline uint32_t slab_bytes(const Slab &s, int32_t r0, int32_t r1) { return s.outer * (uint32_t)(r1 - r0) * s.cell; }

// Allocate a fast buffer of rows [r0, r1) for tensor t, copy them from `full` and point t at it.
tigris_exec_error_t slab_load(RunContext &ctx, uint16_t t, const void *full, const Slab &s, int32_t r0, int32_t r1);

// Copy rows [r0, r1) from `full` into an existing buffer `dst` that holds `dst_rows` rows per
// block, at row `dst_row` of each block (line buffers: only the new rows of a tile).
tigris_exec_error_t slab_load_into(RunContext &ctx, uint16_t t, const void *full, const Slab &s, int32_t r0, int32_t r1,
                                   uint8_t *dst, int32_t dst_rows, int32_t dst_row);

// Copy rows [r0, r1) from the buffer at `src` (`src_rows` rows per block, starting at
// `src_row` of each block) into rows [r0, r1) of `full`. The tensor pointer is not changed.
tigris_exec_error_t slab_spill(RunContext &ctx, uint16_t t, void *full, const Slab &s, int32_t r0, int32_t r1,
                               const uint8_t *src, int32_t src_rows, int32_t src_row);

// Move rows [from, from + count) of every block of a buffer whose blocks held `old_rows`
// rows to rows [0, count) of blocks of `new_rows` rows (line buffers keep the rows a tile
// shares with the next). MOVE event with the bytes moved.
void slab_roll(RunContext &ctx, uint16_t t, uint8_t *buf, const Slab &s, int32_t old_rows, int32_t from, int32_t count,
               int32_t new_rows);

}  // namespace tigris_rt
