// Candidate forms of a range of ops for the partitioner: a banded standalone stage
// (bands.cpp) or a chain (chains.cpp), each sized by the runtime's band cost model on the
// probe plan, with the exact slow-memory traffic the runtime will count and the halo work.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/schedule/probe.h"
#include "compiler/schedule/stages.h"
#include "compiler/schedule/usage.h"
#include "plan/band_cost.h"

namespace tigris::schedule {

// Weights of the objective (bytes of slow traffic are the unit). A halo multiply-accumulate
// costs a quarter byte; every band (tile) costs a few kernel calls' overhead; every stage a
// little, so that equal traffic prefers fewer stages and larger bands.
inline constexpr double kMacWeight = 0.25;
inline constexpr double kTileWeight = 64.0;
inline constexpr double kStageWeight = 256.0;

struct Candidate {
  bool ok = false;
  StageForm form = StageForm::Normal;
  BandChoice band;
  uint64_t peak = 0;
  uint64_t loads = 0;   // bytes the runtime loads from slow
  uint64_t spills = 0;  // bytes it spills to slow
  uint64_t halo_macs = 0;
  std::vector<int> member_ends;  // chains: end op of each member
  std::string decision;
  double cost() const;
};

// What running `src` banded by rows x cols moves and recomputes (the executor's order).
struct Traffic {
  uint64_t loads = 0, spills = 0, halo_macs = 0;
};
// `macs[j]`: multiply-accumulates per output element of source op j.
bool band_traffic(const tigris_rt::CostSource& src, tigris_rt::CostSpace* spaces, uint16_t n, uint32_t rows,
                  uint32_t cols, bool line_buffered, const std::vector<uint64_t>& macs, Traffic* out);

// Multiply-accumulates per output element of plan op `op` (1 for elementwise ops).
uint64_t op_macs_per_element(const tigris_plan_t* plan, const tigris_op_t& op);

// The best banded form of ops [first, end) (inputs/outputs as range_io gives) within
// `budget`; ok false when no band kind holds or none fits.
Candidate best_banded(Probe& probe, const ir::Graph& g, int first, int end, const std::vector<ir::TensorId>& inputs,
                      const std::vector<ir::TensorId>& outputs, uint64_t budget);

// The best chain over ops [first, end) within `budget`; ok false when the range cannot be
// a chain (operators, member rules, limits) or no tile height fits.
Candidate best_chain(Probe& probe, const ir::Graph& g, const Usage& u, int first, int end, uint64_t budget);

// Whether every op of [first, end) may be chained (allow-list, rank-4 operands); cheap
// pre-filter for best_chain.
bool chainable_op(Probe& probe, const ir::Graph& g, int i);

// The smallest fast bytes op i needs as a stage of its own in any form (its floor).
uint64_t op_floor(Probe& probe, const ir::Graph& g, const Usage& u, int i);

}  // namespace tigris::schedule
