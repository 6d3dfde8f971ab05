// A stage's (or chain's) cost description computed once and read per band: the banded paths
// ask the CostSource for every op's geometry and every tensor's band figures on each band
// (cost_band_ranges, the tile engine's loads, outputs and tile contexts), and over a loaded
// plan each answer is recomputed from the op's attributes and the tensor's dims and stage
// lists (op_band_geom, plan_cost_tensor). BandMemo keeps the first kBandMemoOps ops and
// kBandMemoTensors tensors of the source in fixed tables (no heap: it lives in the caller's
// frame) and answers through a CostSource of its own; what does not fit is answered by the
// plan's source as before, so every figure is the same with or without the memo.
#pragma once

#include "plan/band_cost.h"

namespace tigris_rt {

constexpr uint16_t kBandMemoOps = 8;
constexpr uint16_t kBandMemoTensors = 12;

struct BandMemo {
    CostSource base;  // the plan's source: what the tables do not hold
    uint16_t num_ops;
    uint16_t num_tensors;
    CostOp ops[kBandMemoOps];
    uint16_t ids[kBandMemoTensors];
    CostTensor tensors[kBandMemoTensors];
};

// Fill `memo` from `base` (its first ops, and the tensors the ops read and write in order of
// first use) and return the source answering from it. `memo` must outlive the source, and
// `base` must hand out op records whose tensor lists stay valid (a plan's do).
CostSource band_memo_fill(BandMemo &memo, const CostSource &base);

// The CostTensor of tensor `id`: from the table, else from the base source.
CostTensor band_memo_tensor(const BandMemo &memo, uint16_t id);

}  // namespace tigris_rt
