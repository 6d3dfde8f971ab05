// Runs export can compute in row bands: contiguous operators of the allowed list, all
// int8, at least one strided or pooling operator, and every tensor the run produces,
// except the last operator's output, read only inside the run.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "export/banding/geometry.h"
#include "export/tflite/model.h"

namespace tigris::banding {

struct Run {
  size_t first = 0, last = 0;  // operator indices in subgraph 0, inclusive
  bool operator==(const Run&) const = default;
};

// The banding view of every operator of subgraph 0 (nullopt: cannot be in a run).
std::vector<std::optional<BandOp>> band_ops(const tflite::Model& m);

// Every valid run. `eligible[i]` false keeps operator i out of all runs (operators a
// previous rewrite generated); empty = all eligible.
std::vector<Run> candidate_runs(const tflite::Model& m, const std::vector<std::optional<BandOp>>& ops,
                                const std::vector<bool>& eligible = {});

}  // namespace tigris::banding
