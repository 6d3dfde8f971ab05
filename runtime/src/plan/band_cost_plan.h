// The band cost model's description of a loaded plan's stage or chain: what the executor
// bands by, and what tests (and the compiler, after writing a plan) check peaks with.
#pragma once

#include "plan/band_cost.h"

namespace tigris_rt {

// Accessor state of a CostSource over a loaded plan (tensor ids are plan tensor indices).
struct PlanCostCtx {
    const tigris_plan_t *plan;
    uint16_t head;      // the stage (a chain: its head)
    uint16_t last;      // the last stage (a chain: its last member), else head
    uint16_t first_op;  // plan op index of source op 0 (stage ops are contiguous)
    uint8_t shape;      // PlanCostShape
    uint8_t lo, hi;     // banded axes of the broadcast rule
};

enum PlanCostShape : uint8_t {
    PLAN_COST_STRIPE = 0,  // axis 1 (rank 3 or 4), spatial: stripe set or Conv1D
    PLAN_COST_HW = 1,      // axes 1 and 2, spatial: the HW set
    PLAN_COST_ROWS = 2,    // axis 0 of rank-2 matrices, no spatial op
    PLAN_COST_CHAIN = 3,   // axis 1, spatial: chain set, nothing read whole
    PLAN_COST_CHANNELS = 4  // axes 1 and 3 (rows x channels), spatial: the channel-spatial set
};

// Describe stage s banded as STRIPE, HW, ROWS or CHANNELS, or (kind NONE) the chain whose head is s.
// False for another kind or a chain field that does not hold.
bool plan_cost_source(const tigris_plan_t *plan, uint16_t s, tigris_band_kind_t kind, PlanCostCtx *ctx,
                      CostSource *src);

// The CostTensor of plan tensor t as that source sees it.
CostTensor plan_cost_tensor(const PlanCostCtx &ctx, uint16_t t);

// The band a plan states for a banded stage: rows (the record's tile_extent_wide or
// tile_height, clamped to [1, extent]) and HW columns (tile_width clamped to [1, out W]);
// a chain: the head's chain_tile_h.
void plan_stated_band(const tigris_plan_t *plan, uint16_t s, uint32_t extent, uint32_t col_extent, uint32_t *rows,
                      uint32_t *cols);

// A CONCAT stage (band kind CONCAT, its one op at `op_index`, concat axis `axis`): with
// `band` output rows of the axis per band (clamped to [1, extent]), each band holds its
// output rows and, of every input covering some of them, those rows (every block of the
// dims before the axis, packed; mode BLOCKS: `blocks` of them, 0 = every block): the
// largest sum over the bands of align(blocks x rows x cell) per buffer. UINT64_MAX when
// the plan does not describe one.
uint64_t plan_concat_peak(const tigris_plan_t *plan, uint16_t op_index, uint32_t axis, uint32_t band, uint32_t blocks,
                          uint32_t align);

// Input-channel bands of a KxK float32 Conv (CHANNELS mode INPUT, rank-4 form; its op at
// `op_index`): `rows` output rows per block (clamped to [1, H_out]), `cols` input channels per
// band (clamped to [1, C_in]). A block keeps its output rows (N x rows x W_out x C_out floats)
// while one band of the input rows it reads (N x rows read x W_in x cols; the window's rows
// clipped to the input) is loaded at a time: peak, the largest align(block) + align(band)
// over the blocks; loads, the input bytes every band of every block loads (halo rows again).
// False when the op is not such a Conv.
bool plan_conv_input_channels(const tigris_plan_t *plan, uint16_t op_index, uint32_t rows, uint32_t cols,
                              uint32_t align, uint64_t *peak, uint64_t *loads);

// What the executor holds for stage s of a loaded plan (weights excluded), with the band the
// plan states: a standalone banded stage by its kind, or the chain headed by s (line-buffered
// when its head says so). `spaces` holds `capacity` entries of scratch. False when the stage
// is not banded (normal path, control flow, chain member) or cannot be described.
bool plan_stage_peak(const tigris_plan_t *plan, uint16_t s, uint32_t align, CostSpace *spaces, uint16_t capacity,
                     CostPeak *out);

}  // namespace tigris_rt
