// Temporal partitioning: the op list cut into stages that fit the fast budget.
//
// A stage's cost is what the runtime's normal-stage executor holds (32-aligned sizes):
// every stage input is loaded from slow memory at the start and held until its last
// read in the stage; an op's outputs are allocated before it runs and held until their
// last read in the stage, or to the end of the stage when a later stage or the caller
// reads them (they are spilled) or nobody does; tensors produced before and read after
// the stage stay in slow memory. A single-stage plan that reads every model input and
// writes every model output reads the inputs in place: there they are held for the whole
// stage, and nothing lives in slow memory. The cuts minimise spill + reload bytes
// (dynamic programme over the op order), then the number of stages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::schedule {

// At most this many inputs / outputs per stage (the runtime's default build limits).
inline constexpr size_t kMaxStageInputs = 16;
inline constexpr size_t kMaxStageOutputs = 16;

struct Stage {
  int first = 0;  // ops [first, end)
  int end = 0;
  std::vector<ir::TensorId> inputs;   // reloaded, in order of first read
  std::vector<ir::TensorId> outputs;  // spilled, in production order
  uint64_t peak_bytes = 0;
  uint64_t reload_bytes = 0;          // unaligned tensor bytes (0 for a one-stage in-place plan)
  uint64_t spill_bytes = 0;
  uint64_t slow_bytes_after = 0;      // slow memory in use at the end of the stage (aligned)
  bool fits = true;
  std::string reason;                 // when !fits
};

struct Schedule {
  uint64_t budget = 0;                // 0 = no budget: one stage
  std::vector<Stage> stages;
  uint64_t scheduled_peak = 0;        // max stage peak
  uint64_t slow_peak = 0;
  bool fits = true;                   // every stage within the budget
};

// The fast bytes the executor holds to run ops [first, end) as one stage; `single_stage`:
// it is the plan's only stage and reads the model inputs in place.
uint64_t stage_cost(const ir::Graph& g, int first, int end, bool single_stage);

// Stage inputs and outputs of ops [first, end).
void stage_io(const ir::Graph& g, Stage& s);

// Partition under `budget` (0 = everything in one stage).
Schedule partition(const ir::Graph& g, uint64_t budget);

}  // namespace tigris::schedule
