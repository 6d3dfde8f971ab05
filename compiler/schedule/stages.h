// Partitioning: the op list cut into stages that fit the fast budget, each stage run whole
// (the normal path), banded (a tile record: stripes, 2-D tiles, row bands, layout bands), or
// as a member of a chain (members stream row bands through each other).
//
// Every candidate range is costed by the runtime's own byte counts: normal stages by the
// live-set model of usage.h, banded stages and chains by the band cost model (band_cost.h)
// on a probe plan (probe.h), with the band the plan will state. A dynamic programme over
// the op order picks the cuts minimising slow-memory traffic (the bytes the runtime loads
// and spills, halos included) plus weighted halo recomputation and per-tile overhead;
// ranges that cannot fit the budget in any form are infeasible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::schedule {

// At most this many inputs / outputs per stage (the runtime's default build limits).
inline constexpr size_t kMaxStageInputs = 16;
inline constexpr size_t kMaxStageOutputs = 16;

enum class StageForm : uint8_t {
  Normal,  // whole, on the normal path
  Banded,  // a standalone stage with a tileable record
  Chain    // a member of a chain (the head holds the chain's choices)
};

// The band a banded stage (or a chain, on its head) states, and what it costs.
struct BandChoice {
  uint8_t kind = 0;         // tigris_band_kind_t (banded stages)
  uint8_t mode = 0;         // LEADING or CHANNELS mode
  uint8_t axis = 0;         // record axis: TIGRIS_TILE_AXIS_HEIGHT or TIGRIS_TILE_AXIS_HW
  uint8_t band_axis = 0;    // the tensor axis the bands run along (a Concat's own axis)
  uint16_t flags = 0;       // record flags (TIGRIS_TILE_BAND_ON_COLUMNS)
  uint32_t rows = 0;        // rows per band (tile_extent_wide), a chain's chain_tile_h
  uint32_t cols = 0;        // HW: columns per tile (0: every column)
  uint32_t extent = 0;      // rows the bands divide
  uint32_t col_extent = 0;  // HW: columns the tiles divide
  uint32_t tiles = 0;       // bands run (x column tiles)
  uint32_t halo = 0;        // rows a band reads beyond its own (composed for chains)
  bool line_buffered = false;
};

struct Stage {
  int first = 0;  // ops [first, end)
  int end = 0;
  std::vector<ir::TensorId> inputs;   // the plan's stage inputs (a chain head: every external read)
  std::vector<ir::TensorId> outputs;  // the plan's stage outputs
  StageForm form = StageForm::Normal;
  BandChoice band;      // Banded, and a chain's head
  int chain_head = -1;  // Chain: index of the head stage
  int chain_len = 0;
  uint64_t peak_bytes = 0;        // fast bytes held (a chain: the chain's, on every member)
  uint64_t reload_bytes = 0;      // tensor bytes of the inputs it reloads (0 for chain members)
  uint64_t spill_bytes = 0;       // tensor bytes of the outputs it spills (0 for inner members)
  uint64_t load_traffic = 0;      // bytes the runtime loads (bands and halos), on a head
  uint64_t spill_traffic = 0;     // bytes the runtime spills, on a head
  uint64_t halo_macs = 0;         // multiply-accumulates computed more than once, on a head
  uint64_t slow_bytes_after = 0;  // slow memory in use at the end of the stage (aligned)
  bool fits = true;
  std::string reason;    // why it does not fit, when !fits
  std::string decision;  // why it has this form (analyze -v)
};

struct Schedule {
  uint64_t budget = 0;  // 0 = no budget: one stage
  std::vector<Stage> stages;
  uint64_t scheduled_peak = 0;  // max stage peak
  uint64_t slow_peak = 0;
  uint64_t floor = 0;        // no plan of this op order fits below (0 when not computed)
  std::string floor_op;      // the op that sets the floor
  bool fits = true;          // every stage within the budget
  bool probe_usable = true;  // banding available (else only normal stages)
  bool part_of_plan = false;  // a segment or subgraph of a plan with control flow (never in place)
  // The schedules of the graph's subgraphs (ir::Graph::subgraphs, same order): each If/While
  // node is a stage of its own here, the stages of its graphs are in these.
  std::vector<Schedule> subgraphs;
};

// The fast bytes the normal path holds to run ops [first, end) as one stage (the flag is
// kept for callers; inputs read in place are held like loaded ones).
uint64_t stage_cost(const ir::Graph& g, int first, int end, bool single_stage);

// Stage inputs and outputs of ops [first, end), with reload/spill bytes.
void stage_io(const ir::Graph& g, Stage& s);

struct PartitionOptions {
  bool banding = true;  // false: normal stages only
  bool greedy = false;  // baseline: each stage grown while it fits whole; an op that does not
                        // fit alone gets its best banded form (no chains, no DP)
  // -c lz4: a stage (a chain: all its members) may read at most this many weight bytes, the
  // decompressed block the fast budget reserves room for (0: no limit).
  uint64_t max_stage_weight_bytes = 0;
  bool part_of_plan = false;  // set for the pieces of a graph with control flow (control.cpp)
};

// Partition under `budget` (0 = everything in one stage). A graph with If/While nodes is
// partitioned by partition_with_control.
Schedule partition(const ir::Graph& g, uint64_t budget, const PartitionOptions& options = {});

// control.cpp: each If/While node a stage of its own (it holds nothing in fast memory: its
// graphs' stages do, and they are scheduled under the same budget); the ranges between
// partitioned as graphs of their own; then every subgraph, recursively.
Schedule partition_with_control(const ir::Graph& g, uint64_t budget, const PartitionOptions& options);

}  // namespace tigris::schedule
