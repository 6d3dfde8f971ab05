// What `tigris codegen` needs to know about a loaded plan: the figures the generated C is
// sized from, the interface it exchanges, and how the chosen kernel backend routes each
// operator (docs/cli.md, "tigris codegen").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/report/plan_inspection.h"
#include "tigris.h"
#include "tigris_loader.h"

namespace tigris::cli {

enum class Backend { kReference, kEspNn, kCmsisNn };

// "reference", "esp-nn", "cmsis-nn"; UsageError naming the choices for anything else.
Backend parse_backend(const std::string& text);
const char* backend_name(Backend backend);

struct CodegenIface {
  std::string name;
  std::string shape;   // stored axis order, `1x64x64x3`
  std::string dtype;   // declared dtype
  uint32_t bytes = 0;  // tigris_iface_bytes
};

struct CodegenPlan {
  report::PlanInspection inspection;
  std::string file;  // the plan path as given
  uint32_t file_bytes = 0;
  bool int8 = false;  // tigris_plan_data_dtype is int8
  uint32_t num_tensors = 0, num_stages = 0, tiled_stages = 0, chained_stages = 0;
  uint32_t fast_required = 0;    // tigris_fast_arena_required
  uint32_t slow_peak = 0;        // the MEMORY section's slow peak (0 before schema 11)
  uint32_t slow_bytes = 0;       // the slow buffer the generated code declares
  uint64_t workspace_bytes = 0;  // tigris_executor_workspace_required on this (64-bit) host
  uint32_t state_bytes = 0;      // tigris_state_required
  // Room for the CMSIS-NN adapter's fast-arena reservation on any CMSIS-NN build
  // (tigris_accel::cmsis_nn_reserve_bound, backends/common/accel_routes.h).
  uint32_t cmsis_reserve = 0;
  tigris_plan_limits_t required{};  // tigris_plan_load_ex
  uint32_t subgraphs = 0, subgraph_depth = 0;
  // Kernel families the plan's operators use, and the TIGRIS_NO_KERNEL_<FAMILY> defines of the
  // others: a runtime built with them links only the kernels and loader rules this plan needs.
  std::vector<std::string> families, unused_family_defines;
  std::vector<CodegenIface> inputs, outputs;
};

// `text` made safe inside a C comment or string literal: control characters, backslashes and
// the second character of a `*/` or `/*` become `_`.
std::string comment_safe(std::string text);

// Gathers the facts from a plan the runtime loader accepted; `bytes` are the file's bytes.
CodegenPlan describe_plan(const tigris_plan_t& plan, const tigris_plan_limits_t& required,
                          const std::vector<uint8_t>& bytes, const std::string& file);

struct RouteCounts {
  uint32_t native = 0, fallback = 0, float_reference = 0;
};

// How the plan's operators run under `backend` (backends/common/accel_routes.h): on the vendor
// library, the int8 reference, or the float reference (float plans, float32 sections).
RouteCounts count_routes(const tigris_plan_t& plan, Backend backend);

}  // namespace tigris::cli
