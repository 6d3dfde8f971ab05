// Single-stage plans that read their inputs in place (schema 5+).
//
// Placement (tigris_input_alloc): such a plan's inputs go in the fast arena by bump
// allocation, one after another, at the top of what is filled; the first one placed
// skips `room` bytes first (the aligned tigris_weight_decompression_overhead()), which stay
// free directly below it for the run to decompress the stage's weights into.
//
// Run: when every model input lies in the fast arena above the reserved prefix and below
// the fill level, with the room free below the lowest one, the run's floor is the start of
// that room. The run consumes the inputs where they are and leaves its outputs in fast.
#pragma once

#include <stdint.h>

#include "tigris.h"
#include "tigris_mem.h"

namespace tigris_rt {

// Whether the plan reads its inputs in place: schema >= 5, exactly one stage, without a
// tile record, chain, control flow or state, that reads every model input and writes
// every model output.
bool plan_reads_inputs_in_place(const tigris_plan_t *plan);

// Aligned decompression room below the first in-place input; false on overflow.
bool in_place_room(const tigris_plan_t *plan, uint32_t *room);

// For a plan that reads its inputs in place: true when every model input is placed in the
// fast arena within [fast_reserved, fast_used) with the room free below the lowest one
// (i.e. at or above fast_reserved). *floor receives the offset where the room starts.
bool inputs_read_in_place(const tigris_plan_t *plan, const tigris_mem_t *mem, uint32_t *floor);

}  // namespace tigris_rt
