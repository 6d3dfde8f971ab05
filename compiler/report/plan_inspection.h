// `tigris inspect PLAN.tgrs`: what a loaded plan holds, as data, then text or JSON.
// Built only from a plan the runtime loader accepted (tigris_plan_load_ex).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "tigris.h"
#include "tigris_loader.h"

namespace tigris::report {

inline constexpr int kInspectionVersion = 1;

struct PlanIface {
  std::string name;
  uint16_t tensor = 0;
  std::vector<int64_t> shape;         // the model's declared axis order
  int dtype = 0;                      // declared dtype
  std::vector<int64_t> stored_shape;  // as the plan stores it
  int stored_dtype = 0;
  std::string layout;  // NHWC, NLC or "as declared"
  uint32_t bytes = 0;  // bytes the caller supplies/receives (declared dtype)
};

struct PlanOpType {
  std::string type;
  uint32_t count = 0;
  uint64_t weight_bytes = 0;
};

struct PlanStage {
  uint32_t index = 0;
  uint32_t first_op = 0, last_op = 0, ops = 0;
  uint32_t peak_bytes = 0;  // untiled peak the compiler recorded
  uint64_t weight_bytes = 0;
  std::vector<std::string> inputs, outputs;
  // Tiling: "untiled", "tiles", "chain head", "chain member".
  std::string tiling_kind = "untiled";
  uint32_t tiles = 0, halo = 0, tile_extent = 0, original_extent = 0, band_axis = 0;
  std::string band_kind;  // RESHAPE, LEADING, ROWS, TRANSPOSE, BY_INPUT, HW, STRIPE or ""
  uint32_t tiled_peak_bytes = 0;
  uint32_t chain_id = 0, chain_len = 0, chain_tile_h = 0;
  bool line_buffered = false;
  std::string tiling;  // the rendered cell
};

struct PlanStep {
  uint32_t index = 0;
  std::string name, type;
  uint32_t stage = 0;
  std::vector<std::string> inputs, outputs;
  std::string fused_activation;
  std::string weight, bias;  // weight entry names, or ""
  int act_min = -128, act_max = 127;
  tigris_spatial_t spatial{};
  bool spatial_op = false;
};

struct PlanTensor {
  uint32_t id = 0;
  std::string name;
  int dtype = 0;
  std::vector<int64_t> shape;  // stored
  uint32_t bytes = 0;
  std::string layout;
  std::vector<std::string> roles;  // constant, input, output, state
  std::optional<uint32_t> quant;
};

struct PlanWeight {
  uint32_t index = 0;
  std::string name;
  uint32_t offset = 0, bytes = 0;
};

struct PlanQuant {
  uint32_t index = 0;
  float scale = 0;
  int32_t zero_point = 0;
  uint32_t channels = 0;
};

struct PlanWeightBlock {
  uint32_t stage = 0, first_weight = 0, weights = 0;
  uint32_t compressed_bytes = 0, uncompressed_bytes = 0;
};

struct PlanMemory {
  uint32_t fast_arena_required = 0;   // tigris_fast_arena_required
  uint32_t activations = 0;           // scheduled peak (schema 11) or budget
  uint32_t decompressed_weights = 0;  // tigris_weight_decompression_overhead
  uint32_t budget = 0;                // header budget
  uint32_t scheduled_peak = 0;        // 0 before schema 11
  uint32_t unscheduled_peak = 0;      // header peak
  uint64_t weight_bytes = 0;          // every weight entry, uncompressed
  uint64_t compressed_weight_bytes = 0;
  bool xip = false;
  bool lz4 = false;
  uint32_t state_bytes = 0;
};

struct PlanLimits {
  uint32_t tensors = 0, stage_inputs = 0, stage_outputs = 0, chain_stages = 0, spatial_ops_per_stage = 0;
};

// A graph of a plan with control flow (SUBGRAPHS section): 0 the main graph, the others run
// by If/While operators (`run_by`: "If <op name> (then)" ...).
struct PlanGraph {
  uint32_t index = 0, first_stage = 0, num_stages = 0;
  std::vector<std::string> inputs, outputs;
  std::string run_by;
};

struct PlanInspection {
  std::string file;
  uint64_t file_bytes = 0;
  uint32_t schema = 0;
  std::string model_name;
  bool show_model_name = false;  // the stored name differs from the file stem
  uint32_t num_ops = 0, num_tensors = 0, num_subgraphs = 0, tiled_stages = 0;
  std::string data_dtype;  // int8 or float32 dispatch
  std::vector<PlanIface> inputs, outputs;
  std::vector<PlanOpType> op_types;
  uint64_t total_weight_bytes = 0;  // per op, as in the operators table
  PlanMemory memory;
  PlanLimits required, build;
  std::vector<std::string> build_flags;  // -DTIGRIS_MAX_...=N the plan needs, empty = defaults suffice
  std::vector<PlanStage> stages;
  std::vector<PlanGraph> graphs;  // empty without control flow
  std::vector<PlanStep> steps;
  std::vector<PlanTensor> tensors;
  std::vector<PlanWeight> weights;
  std::vector<PlanQuant> quant;
  std::vector<PlanWeightBlock> weight_blocks;
};

PlanInspection inspect_plan(const tigris_plan_t& plan, const tigris_plan_limits_t& required, const std::string& file,
                            uint64_t file_bytes);

std::string render_text(const PlanInspection& inspection, bool verbose);
nlohmann::ordered_json to_json(const PlanInspection& inspection);

}  // namespace tigris::report
