#include "compiler/report/run_report.h"

#include <nlohmann/json.hpp>

#include "compiler/report/format.h"

namespace tigris::report {

std::string render_text(const RunReport& r) {
  std::string out = r.plan + "   runtime " + r.runtime_version + ", " + r.runtime_source +
                    ", host reference backend (" + r.kernels + " kernels)\n";
  TextTable t;
  t.add({"fast arena peak", format_bytes(r.fast_peak),
         "of " + format_bytes(r.fast_capacity) +
             (r.fast_capacity == r.fast_required ? " (exactly what the plan requires)" : "") +
             "; measured, workspace excluded"});
  t.add({"slow arena peak", format_bytes(r.slow_peak), "of " + format_bytes(r.slow_capacity)});
  out += t.render();
  const tigris_exec_stats_t& s = r.stats;
  TextTable stats;
  stats.add({"stages", std::to_string(s.stages_normal) + " normal, " + std::to_string(s.stages_tiled) + " tiled, " +
                           std::to_string(s.stages_chain) + " chain; " + std::to_string(s.total_tiles) + " tiles"});
  stats.add({"moved", "loads " + format_bytes(s.loads_bytes) + ", spills " + format_bytes(s.spills_bytes) +
                          ", weights " + format_bytes(s.weight_bytes) + ", copies " + format_bytes(s.copy_bytes)});
  stats.add({"compactions", std::to_string(s.compactions) + "; slow overflow " + std::to_string(s.slow_overflow_count) +
                                " allocations, " + format_bytes(s.slow_overflow_bytes)});
  out += stats.render();
  std::string tensors;
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    const RunTensor& o = r.outputs[i];
    tensors += (i ? ", " : "") + (r.outputs.size() > 1 ? o.name + " " : std::string()) + format_shape(o.shape) + " " +
               dtype_name(o.dtype);
  }
  return out + "wrote " + r.output + "   " + tensors + (r.stored_order ? " (stored order)" : "") + "\n";
}

nlohmann::ordered_json to_json(const RunReport& r) {
  using json = nlohmann::ordered_json;
  const tigris_exec_stats_t& s = r.stats;
  json j;
  j["run_version"] = 1;
  j["runtime_version"] = r.runtime_version;
  j["runtime_source"] = r.runtime_source;
  j["backend"] = "reference";
  j["kernels"] = r.kernels;
  j["plan"] = r.plan;
  j["output"] = r.output;
  j["axis_order"] = r.stored_order ? "stored" : "declared";
  j["memory"] = {{"fast_peak_bytes", r.fast_peak},
                 {"slow_peak_bytes", r.slow_peak},
                 {"fast_capacity_bytes", r.fast_capacity},
                 {"slow_capacity_bytes", r.slow_capacity},
                 {"fast_required_bytes", r.fast_required},
                 {"workspace_bytes", r.workspace_bytes},
                 {"state_bytes", r.state_bytes}};
  j["stats"] = {{"stages_normal", s.stages_normal},
                {"stages_tiled", s.stages_tiled},
                {"stages_chain", s.stages_chain},
                {"total_tiles", s.total_tiles},
                {"slow_overflow_count", s.slow_overflow_count},
                {"slow_overflow_bytes", s.slow_overflow_bytes},
                {"loads_bytes", s.loads_bytes},
                {"spills_bytes", s.spills_bytes},
                {"compactions", s.compactions},
                {"slow_peak", s.slow_peak},
                {"weight_bytes", s.weight_bytes},
                {"copy_bytes", s.copy_bytes}};
  j["tensors"] = json::array();
  for (const RunTensor& o : r.outputs) {
    j["tensors"].push_back({{"name", o.name}, {"dtype", dtype_name(o.dtype)}, {"shape", o.shape}});
  }
  return j;
}

}  // namespace tigris::report
