#include "tools/tigris/trace_report.h"

#include <algorithm>

#include "compiler/report/format.h"
#include "tigris_loader.h"
#include "tools/tigris/host_run.h"

namespace tigris::cli {
namespace {

using report::format_bytes;
using report::format_count;

constexpr uint16_t kNone16 = 0xFFFF;

void check(std::vector<std::string>& out, const char* what, uint64_t events, uint64_t counter) {
  if (events != counter) {
    out.push_back(std::string("mismatch: ") + what + ": events " + format_count(events) + ", runtime counter " +
                  format_count(counter));
  }
}

std::string unit_label(const TraceUnit& u) {
  if (u.stages <= 1) return std::to_string(u.stage);
  return std::to_string(u.stage) + "-" + std::to_string(u.stage + u.stages - 1);
}

std::string tensor_label(const tigris_plan_t& plan, uint16_t t) {
  if (t == kNone16 || t >= plan.header->num_tensors) return "";
  return std::string(" ") + tigris_tensor_name(&plan, &plan.tensors[t]);
}

std::string pool_name(uint8_t pool) { return pool == TIGRIS_TRACE_POOL_SLOW ? "slow" : "fast"; }

std::string range(const char* axis, int32_t a, int32_t b) {
  return a < 0 ? "" : std::string(" ") + axis + " " + std::to_string(a) + "-" + std::to_string(b);
}

}  // namespace

std::string trace_event_text(const tigris_plan_t& plan, const tigris_trace_event_t& e) {
  const std::string size = format_bytes(e.bytes);
  const std::string rows = range("rows", e.row0, e.row1) + range("cols", e.col0, e.col1);
  switch (e.kind) {
  case TIGRIS_TRACE_TILE_BEGIN: return "tile " + std::to_string(e.op) + rows;
  case TIGRIS_TRACE_LOAD:
    return "load    slow+" + std::to_string(e.src_offset) + " -> fast+" + std::to_string(e.offset) + "  " + size +
           tensor_label(plan, e.tensor) + rows;
  case TIGRIS_TRACE_SPILL:
    return "spill   fast+" + std::to_string(e.src_offset) + " -> slow+" + std::to_string(e.offset) + "  " + size +
           tensor_label(plan, e.tensor) + rows;
  case TIGRIS_TRACE_ALLOC:
    return "alloc   " + pool_name(e.pool) + "+" + std::to_string(e.offset) + "  " + size +
           tensor_label(plan, e.tensor) + rows;
  case TIGRIS_TRACE_MOVE:
    return "move    " + pool_name(e.pool) + "+" + std::to_string(e.src_offset) + " -> +" + std::to_string(e.offset) +
           "  " + size + tensor_label(plan, e.tensor);
  case TIGRIS_TRACE_WEIGHTS: return "weights fast+" + std::to_string(e.offset) + "  " + size;
  case TIGRIS_TRACE_COPY: return "copy    " + size + tensor_label(plan, e.tensor);
  case TIGRIS_TRACE_OP:
    return e.op < plan.header->num_ops ? std::string("op      ") + tigris_op_name(&plan, &plan.ops[e.op]) : "op";
  case TIGRIS_TRACE_RESET: return "reset   fast used " + format_bytes(e.fast_used);
  default: return "event " + std::to_string(e.kind);
  }
}

std::string trace_kind_name(uint8_t path, uint16_t stages, uint8_t mode) {
  switch (path) {
  case TIGRIS_PATH_NORMAL: return "untiled";
  case TIGRIS_PATH_TILED: return "1D tile";
  case TIGRIS_PATH_TILED_2D: return "2D tile";
  case TIGRIS_PATH_BY_INPUT: return mode == TIGRIS_BY_INPUT_MODE_FLAT ? "reduce by element blocks" : "reduce by rows";
  case TIGRIS_PATH_TRANSPOSE: return "transpose";
  case TIGRIS_PATH_ROWS: return "row bands";
  case TIGRIS_PATH_RESHAPE: return "reshape bands";
  case TIGRIS_PATH_CHAIN: return "chain " + std::to_string(stages);
  case TIGRIS_PATH_CONTROL: return "control";
  case TIGRIS_PATH_LEADING: return "leading bands";
  case TIGRIS_PATH_CHANNELS:
    return mode == TIGRIS_CHANNELS_MODE_OUTPUT  ? "output-channel bands"
           : mode == TIGRIS_CHANNELS_MODE_INPUT ? "input-channel bands"
                                                : "channel bands";
  case TIGRIS_PATH_CONCAT: return mode == TIGRIS_CONCAT_MODE_BLOCKS ? "concat blocks" : "concat bands";
  default: return "path " + std::to_string(path);
  }
}

uint8_t stage_band_mode(const tigris_plan_t& plan, uint16_t stage) {
  tigris_tile_facts_t facts{};
  if (stage >= plan.header->num_stages || !tigris_stage_tile_facts(&plan, &plan.stages[stage], &facts)) return 0;
  return TIGRIS_TILE_BAND_MODE(facts.band);
}

TraceSummary summarize_trace(const tigris_plan_t& plan, std::vector<tigris_trace_event_t> events,
                             const tigris_exec_stats_t& stats, uint32_t measured_fast_peak) {
  TraceSummary s;
  s.events = std::move(events);
  TraceUnit* open = nullptr;
  for (size_t i = 0; i < s.events.size(); ++i) {
    const tigris_trace_event_t& e = s.events[i];
    if (e.kind == TIGRIS_TRACE_STAGE_BEGIN) {
      TraceUnit u;
      u.stage = e.stage;
      u.path = e.path;
      u.mode = stage_band_mode(plan, e.stage);
      if (e.stage < plan.header->num_stages && plan.stages[e.stage].chain_len >= 2) {
        u.stages = plan.stages[e.stage].chain_len;
      }
      u.first_event = i;
      s.units.push_back(u);
      open = &s.units.back();
    }
    if (open) open->fast_peak = std::max(open->fast_peak, e.fast_used);
    s.fast_peak = std::max(s.fast_peak, e.fast_used);
    switch (e.kind) {
    case TIGRIS_TRACE_TILE_BEGIN:
      ++s.tiles;
      if (open) ++open->tiles;
      break;
    case TIGRIS_TRACE_LOAD:
      s.read += e.bytes;
      if (open) open->read += e.bytes;
      break;
    case TIGRIS_TRACE_SPILL:
      s.written += e.bytes;
      if (open) open->written += e.bytes;
      break;
    case TIGRIS_TRACE_WEIGHTS:
      s.weights += e.bytes;
      if (open) open->weights += e.bytes;
      break;
    case TIGRIS_TRACE_COPY: s.copies += e.bytes; break;
    default: break;
    }
    if (e.kind == TIGRIS_TRACE_STAGE_END && open) {
      open->slow_used = e.slow_used;
      open->end_event = i + 1;
      open = nullptr;
    }
  }
  if (open) s.mismatches.push_back("mismatch: stage " + std::to_string(open->stage) + " began but never ended");
  check(s.mismatches, "bytes loaded", s.read, stats.loads_bytes);
  check(s.mismatches, "bytes spilled", s.written, stats.spills_bytes);
  check(s.mismatches, "weight bytes", s.weights, stats.weight_bytes);
  check(s.mismatches, "bytes copied", s.copies, stats.copy_bytes);
  check(s.mismatches, "tiles", s.tiles, stats.total_tiles);
  check(s.mismatches, "fast peak", s.fast_peak, measured_fast_peak);
  return s;
}

std::string render_trace(const tigris_plan_t& plan, const TraceSummary& trace, const TraceHeader& header,
                         bool verbose) {
  std::string out = header.model + "   traced on runtime " + header.runtime_version + ", host reference backend, " +
                    (header.given_input ? "given input" : "zero input") + "\n";
  report::TextTable top;
  top.add({"moved", format_bytes(trace.written) + " written, " + format_bytes(trace.read) + " read"});
  top.add({"fast peak", format_bytes(trace.fast_peak) + " of " + format_bytes(header.fast_capacity)});
  if (trace.weights) top.add({"weights", format_bytes(trace.weights) + " decompressed into fast memory"});
  out += top.render() + "\n";

  report::TextTable units("");
  units.add({"stage", "kind", "tiles", "read", "written", "fast peak", "slow used"});
  for (size_t c = 2; c < 7; ++c) units.right_align(c);
  for (const TraceUnit& u : trace.units) {
    units.add({unit_label(u), trace_kind_name(u.path, u.stages, u.mode), std::to_string(u.tiles), format_bytes(u.read),
               format_bytes(u.written), format_bytes(u.fast_peak), format_bytes(u.slow_used)});
  }
  if (!verbose) {
    out += units.render();
  } else {
    // The table's header, then each unit's row followed by its events.
    const std::string table = units.render();
    size_t line_end = table.find('\n');
    out += table.substr(0, line_end + 1);
    for (const TraceUnit& u : trace.units) {
      const size_t next = table.find('\n', line_end + 1);
      out += table.substr(line_end + 1, next - line_end);
      line_end = next;
      for (size_t i = u.first_event; i < u.end_event; ++i) {
        const tigris_trace_event_t& e = trace.events[i];
        if (e.kind == TIGRIS_TRACE_STAGE_BEGIN || e.kind == TIGRIS_TRACE_STAGE_END) continue;
        out += (e.kind == TIGRIS_TRACE_TILE_BEGIN ? "    " : "      ") + trace_event_text(plan, e) + "\n";
      }
    }
  }
  out += "\n";
  if (trace.mismatches.empty()) {
    out += format_count(trace.events.size()) +
           " events; their bytes equal the runtime's own counters. Host alignment is " +
           std::to_string(TIGRIS_TENSOR_ALIGN) + " bytes; a target with less uses at most these bytes.\n";
  } else {
    for (const std::string& m : trace.mismatches) out += m + "\n";
  }
  return out;
}

void collect_event(const tigris_trace_event_t* event, void* ctx) {
  static_cast<std::vector<tigris_trace_event_t>*>(ctx)->push_back(*event);
}

TraceSummary traced_run(const tigris_plan_t& plan, const std::vector<std::vector<uint8_t>>& inputs) {
  std::vector<tigris_trace_event_t> events;
  HostRunConfig config;
  config.fast_bytes = tigris_fast_arena_required(&plan);
  config.slow_bytes = default_slow_bytes(plan);
  config.trace = collect_event;
  config.trace_ctx = &events;
  const HostRunResult r = run_on_host(plan, inputs, config);
  return summarize_trace(plan, std::move(events), r.stats, r.fast_peak);
}

}  // namespace tigris::cli
