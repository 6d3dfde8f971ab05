// Tensor lifetimes over the execution order, and the whole-graph memory timeline.
//
// Steps are node indices. A model input is born at -1; a tensor dies at the step of its
// last reader; a model output dies at num_ops (after the last op); a tensor nobody reads
// dies where it is born. An op's output is live together with the inputs it consumes:
// at a step, the live set holds both (the runtime allocates outputs before it frees
// dying inputs). Sizes are rounded up to the largest runtime alignment a plan allows.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::schedule {

// Bytes the runtime reserves for a tensor of `bytes` on any target (TIGRIS_PLAN_MAX_ALIGN).
uint64_t aligned_size(uint64_t bytes);

struct Lifetime {
  ir::TensorId tensor = ir::kNoTensor;
  int birth = 0;
  int death = 0;
  uint64_t bytes = 0;  // aligned
};

// One entry per activation (non-constant tensor that some node, input or output uses).
std::vector<Lifetime> compute_lifetimes(const ir::Graph& g);

struct Timeline {
  std::vector<uint64_t> live_bytes;  // per step 0..num_ops-1
  uint64_t peak_bytes = 0;
  int peak_step = -1;
};

Timeline memory_timeline(const ir::Graph& g, const std::vector<Lifetime>& lifetimes);

}  // namespace tigris::schedule
