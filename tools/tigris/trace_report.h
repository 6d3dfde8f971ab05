// `tigris analyze --trace`: one run of a plan on the host runtime, its event stream
// grouped into execution units (one per stage or chain), and the check that the
// events' byte sums equal the runtime's own counters.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_trace.h"

namespace tigris::cli {

struct TraceUnit {
  uint16_t stage = 0;                     // the stage (a chain: its head)
  uint16_t stages = 1;                    // stages it covers (chain length)
  uint8_t path = 0;                       // tigris_trace_path_t
  uint8_t mode = 0;                       // the stage's band mode (tile facts' high nibble)
  uint32_t tiles = 0;                     // TILE_BEGIN events
  uint64_t read = 0;                      // slow -> fast (LOAD)
  uint64_t written = 0;                   // fast -> slow (SPILL)
  uint64_t weights = 0;                   // decompressed weight bytes (WEIGHTS)
  uint32_t fast_peak = 0;                 // the largest fast_used any of its events reports
  uint32_t slow_used = 0;                 // slow_used at its end
  size_t first_event = 0, end_event = 0;  // [first, end) of the event list
};

struct TraceSummary {
  std::vector<tigris_trace_event_t> events;
  std::vector<TraceUnit> units;
  uint64_t read = 0, written = 0, weights = 0, copies = 0;
  uint32_t tiles = 0;
  uint32_t fast_peak = 0;
  std::vector<std::string> mismatches;  // empty when every sum equals its counter
};

// Groups `events` and compares their sums with `stats` and the measured fast peak.
TraceSummary summarize_trace(const tigris_plan_t& plan, std::vector<tigris_trace_event_t> events,
                             const tigris_exec_stats_t& stats, uint32_t measured_fast_peak);

struct TraceHeader {
  std::string model;
  std::string runtime_version;
  bool given_input = false;
  uint32_t fast_capacity = 0;
};

// The text `analyze --trace` prints; `verbose` lists every event under its unit.
std::string render_trace(const tigris_plan_t& plan, const TraceSummary& trace, const TraceHeader& header, bool verbose);

// One event as the verbose trace lists it: "load    slow+0 -> fast+64  1.00 KiB x rows 0-8".
std::string trace_event_text(const tigris_plan_t& plan, const tigris_trace_event_t& event);

// A tigris_trace_fn that appends each event to the std::vector<tigris_trace_event_t> at ctx.
void collect_event(const tigris_trace_event_t* event, void* ctx);

// Runs the plan once on the host runtime with the trace hook, in the arenas `tigris run`
// gives by default, and summarizes the events. `inputs` as run_on_host takes them.
TraceSummary traced_run(const tigris_plan_t& plan, const std::vector<std::vector<uint8_t>>& inputs);

// "untiled", "1D tile", "2D tile", ..., "chain 3"; `mode` names the form within a path
// ("reduce by element blocks", "input-channel bands", "concat blocks").
std::string trace_kind_name(uint8_t path, uint16_t stages, uint8_t mode = 0);

// The band mode a stage's tile record states (0 without one).
uint8_t stage_band_mode(const tigris_plan_t& plan, uint16_t stage);

}  // namespace tigris::cli
