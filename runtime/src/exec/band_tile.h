// The tile engine shared by the stripe, 2-D tile, row-band and chain paths: a stage (or a
// chain's members) described by the band cost model runs one band at a time, allocating
// exactly the buffers the model counts (plan/band_cost.h) in a fixed order:
//   before the first band  whole-read inputs (kept); line-buffered: every band buffer at
//                          its space's max rows (kept);
//   per band               TILE_BEGIN; the loaded tensors' bands (space of their first
//                          read); per op: a new band of a loaded tensor it reads in a later
//                          space (residual operands), its outputs at its space's rows, the
//                          kernel with the tile context; the stage outputs' bands spilled;
//                          RESET.
// Per-tensor state lives in the workspace's roll region: info[2t] = space of the tensor's
// (first) band (kNoSpace, kWholeSpace), info[2t + 1] = fast offset of its line buffer.
#pragma once

#include "exec/band_memo.h"
#include "exec/exec_internal.h"
#include "plan/band_cost_plan.h"

namespace tigris_rt {

constexpr int32_t kNoSpace = -1;
constexpr int32_t kWholeSpace = -2;

struct BandRun {
    RunContext *ctx;
    PlanCostCtx pctx;
    CostSource src;  // answers from memo (band_describe): the description is computed once per stage
    BandMemo memo;
    CostSpace *spaces;
    uint16_t n;
    bool line_buffered;
    tigris_plan_t *kplan;  // the plan the kernels see (weight_blob switched per member)
    void *const *blobs;    // per member (stage - head): its decoded weights, or NULL
    uint32_t tiles;        // bands run
};

// Describe stage s (kind STRIPE, HW or ROWS; NONE: the chain headed by s) into run.pctx,
// run.src and run.spaces[0, capacity). TILE when it cannot be described.
tigris_exec_error_t band_describe(BandRun &run, uint16_t s, tigris_band_kind_t kind, uint16_t capacity);

// The band to run: the plan's (plan_stated_band), or with `search_upto` > 0 (plans before
// schema 11) the largest band up to it whose peak fits the fast arena above fast_reserved.
// Fills *peak with the model's figures for it. TILE when the band does not fit.
tigris_exec_error_t band_choose(BandRun &run, uint16_t s, uint32_t search_upto, uint32_t *rows, uint32_t *cols,
                                CostPeak *peak);

// The per-tensor table of the run.
void band_fill_info(BandRun &run);

// Before the first band (after band_fill_info): load the whole-read inputs and (line
// buffers) allocate every band buffer, all kept under fast_reserved.
tigris_exec_error_t band_prepare(BandRun &run);

// Run every band of `rows` x `cols` (cols 0: every column).
tigris_exec_error_t band_run_all(BandRun &run, uint32_t rows, uint32_t cols);

// Stripes whose slow pool is full: whether stage s may write its one output into the
// slow buffer of its one banded input (same size, the input dies at this stage, and no
// band's output bytes reach input bytes a later band still reads). *in_slot: the input's
// index in the stage's input list. Needs band_fill_info.
bool stripe_in_place(BandRun &run, uint16_t s, uint32_t rows, uint16_t *in_slot);

// After the last band (or a failure): stage outputs point at their full slow buffers, head
// inputs at their slow copies, intermediates are nulled and the tile context is cleared.
void band_finish(BandRun &run);

}  // namespace tigris_rt
