// `tigris run`: what one host run of a plan did, as data, then text or JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tigris_executor.h"

namespace tigris::report {

struct RunTensor {
  std::string name;
  int dtype = 0;
  std::vector<int64_t> shape;  // as written to the output file
};

struct RunReport {
  std::string plan;
  std::string output;
  std::string runtime_version;
  std::string runtime_source = "bundled";
  std::string kernels;        // "float32" or "int8" reference dispatch
  bool stored_order = false;  // arrays were exchanged in the plan's stored axis order
  uint32_t fast_peak = 0, slow_peak = 0;
  uint32_t fast_capacity = 0, slow_capacity = 0;
  uint32_t fast_required = 0;  // tigris_fast_arena_required
  uint64_t workspace_bytes = 0, state_bytes = 0;
  tigris_exec_stats_t stats{};
  std::vector<RunTensor> outputs;
};

std::string render_text(const RunReport& report);
nlohmann::ordered_json to_json(const RunReport& report);

}  // namespace tigris::report
