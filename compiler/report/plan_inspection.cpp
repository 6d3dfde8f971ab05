#include "compiler/report/plan_inspection.h"

#include <map>

#include "compiler/report/iface_layout.h"
#include "compiler/report/op_names.h"
#include "tigris_executor.h"
#include "tigris_iface.h"

namespace tigris::report {
namespace {

std::string band_kind_name(uint8_t kind) {
  switch (kind) {
  case TIGRIS_BAND_KIND_RESHAPE: return "RESHAPE";
  case TIGRIS_BAND_KIND_LEADING: return "LEADING";
  case TIGRIS_BAND_KIND_ROWS: return "ROWS";
  case TIGRIS_BAND_KIND_TRANSPOSE: return "TRANSPOSE";
  case TIGRIS_BAND_KIND_BY_INPUT: return "BY_INPUT";
  case TIGRIS_BAND_KIND_HW: return "HW";
  case TIGRIS_BAND_KIND_STRIPE: return "STRIPE";
  case TIGRIS_BAND_KIND_CHANNELS: return "CHANNELS";
  case TIGRIS_BAND_KIND_CONCAT: return "CONCAT";
  default: return "";
  }
}

std::string file_stem(const std::string& path) {
  const size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  return dot == std::string::npos || dot == 0 ? name : name.substr(0, dot);
}

uint64_t weight_size(const tigris_plan_t& plan, uint16_t idx) {
  if (idx == TIGRIS_NONE || plan.weight_entries == nullptr || idx >= plan.header->num_weights) return 0;
  return plan.weight_entries[idx].size_bytes;
}

std::string weight_name(const tigris_plan_t& plan, uint16_t idx) {
  if (idx == TIGRIS_NONE || plan.weight_entries == nullptr || idx >= plan.header->num_weights) return "";
  return tigris_weight_name(&plan, &plan.weight_entries[idx]);
}

// The op's weight and bias, and the weights its CONSTANTS attribute names (SVDF, LSTM).
uint64_t op_weight_bytes(const tigris_plan_t& plan, const tigris_op_t& op) {
  uint64_t bytes = weight_size(plan, op.weight_idx) + weight_size(plan, op.bias_idx);
  uint8_t len = 0;
  const uint8_t* c =
      tigris_op_attribute_data(&plan, static_cast<uint16_t>(&op - plan.ops), TIGRIS_ATTR_CONSTANTS, &len);
  for (uint8_t k = 0; c != nullptr && k + 1 < len; k += 2)
    bytes += weight_size(plan, static_cast<uint16_t>(c[k] | (c[k + 1] << 8)));
  return bytes;
}

std::vector<std::string> tensor_names(const tigris_plan_t& plan, const uint16_t* idx, uint32_t count) {
  std::vector<std::string> out;
  for (uint32_t i = 0; i < count; ++i) out.push_back(tigris_tensor_name(&plan, &plan.tensors[idx[i]]));
  return out;
}

PlanIface iface_row(const tigris_plan_t& plan, uint16_t idx) {
  const tigris_tensor_t& t = plan.tensors[idx];
  PlanIface row;
  row.name = tigris_tensor_name(&plan, &t);
  row.tensor = idx;
  row.shape = declared_shape(plan, t);
  row.dtype = tigris_tensor_declared_dtype(&t);
  row.stored_shape = report::stored_shape(plan, t);
  row.stored_dtype = t.dtype;
  row.layout = stored_layout_name(t);
  row.bytes = tigris_iface_bytes(&plan, idx);
  return row;
}

void describe_tiling(const tigris_plan_t& plan, uint32_t s, PlanStage& row) {
  const tigris_stage_t& st = plan.stages[s];
  if (st.chain_len >= 2 && st.chain_id != TIGRIS_NONE) {
    row.chain_id = st.chain_id;
    row.chain_len = st.chain_len;
    if (st.chain_id == s) {
      row.tiling_kind = "chain head";
      row.chain_tile_h = st.chain_tile_h;
      row.line_buffered = (st.flags & TIGRIS_STAGE_LINE_BUFFERED) != 0;
      row.tiling = "chain of " + std::to_string(st.chain_len) + ", tile height " + std::to_string(st.chain_tile_h) +
                   (row.line_buffered ? ", line buffered" : ", tile buffered");
    } else {
      row.tiling_kind = "chain member";
      row.tiling = "in chain " + std::to_string(st.chain_id);
    }
    return;
  }
  const tigris_tile_plan_v10_t tiles = tigris_stage_tiles(&plan, &st);
  if (!tiles.tileable) {
    row.tiling = "untiled";
    return;
  }
  tigris_tile_facts_t facts{};
  row.tiling_kind = "tiles";
  row.tiled_peak_bytes = tiles.tiled_peak_bytes;
  if (tigris_stage_tile_facts(&plan, &st, &facts)) {
    row.tiles = facts.num_tiles;
    row.halo = facts.halo;
    row.tile_extent = facts.tile_extent;
    row.original_extent = facts.original_extent;
    row.band_axis = facts.band_axis;
    row.band_kind = band_kind_name(TIGRIS_TILE_BAND_KIND(facts.band));
    if (TIGRIS_TILE_BAND_KIND(facts.band) == TIGRIS_BAND_KIND_CHANNELS &&
        TIGRIS_TILE_BAND_MODE(facts.band) == TIGRIS_CHANNELS_MODE_OUTPUT)
      row.band_kind += " OUTPUT";  // output-channel bands of a Conv or FullyConnected
    if (TIGRIS_TILE_BAND_KIND(facts.band) == TIGRIS_BAND_KIND_CHANNELS &&
        TIGRIS_TILE_BAND_MODE(facts.band) == TIGRIS_CHANNELS_MODE_INPUT)
      row.band_kind += " INPUT";  // input-channel bands of a FullyConnected (partial sums)
    if (TIGRIS_TILE_BAND_KIND(facts.band) == TIGRIS_BAND_KIND_BY_INPUT &&
        TIGRIS_TILE_BAND_MODE(facts.band) == TIGRIS_BY_INPUT_MODE_FLAT)
      row.band_kind += " FLAT";  // a reduction by blocks of input elements
    if (TIGRIS_TILE_BAND_KIND(facts.band) == TIGRIS_BAND_KIND_CONCAT &&
        TIGRIS_TILE_BAND_MODE(facts.band) == TIGRIS_CONCAT_MODE_BLOCKS)
      row.band_kind += " BLOCKS";  // units x blocks of the axes before the concat axis
  } else {
    row.tiles = tiles.num_tiles;
    row.halo = tiles.halo;
    row.tile_extent = tiles.tile_extent_wide ? tiles.tile_extent_wide : tiles.tile_height;
    row.original_extent = tiles.original_height;
    row.band_axis = tiles.axis;
  }
  row.tiling = std::to_string(row.tiles) + " tiles, axis " + std::to_string(row.band_axis) + ", halo " +
               std::to_string(row.halo);
}

std::vector<PlanStage> stage_rows(const tigris_plan_t& plan) {
  std::vector<PlanStage> rows;
  for (uint32_t s = 0; s < plan.header->num_stages; ++s) {
    const tigris_stage_t& st = plan.stages[s];
    PlanStage row;
    row.index = s;
    row.ops = st.ops_count;
    const uint16_t* ops = tigris_stage_ops(&plan, &st);
    if (st.ops_count) {
      row.first_op = ops[0];
      row.last_op = ops[st.ops_count - 1];
    }
    for (uint32_t i = 0; i < st.ops_count; ++i) row.weight_bytes += op_weight_bytes(plan, plan.ops[ops[i]]);
    row.peak_bytes = st.peak_bytes;
    row.inputs = tensor_names(plan, tigris_stage_inputs(&plan, &st), st.inputs_count);
    row.outputs = tensor_names(plan, tigris_stage_outputs(&plan, &st), st.outputs_count);
    describe_tiling(plan, s, row);
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<PlanStep> step_rows(const tigris_plan_t& plan) {
  // The stage an op runs in: the one that lists it (the op record holds only a low byte).
  std::vector<uint32_t> stage_of(plan.header->num_ops, 0);
  for (uint32_t s = 0; s < plan.header->num_stages; ++s) {
    const uint16_t* ops = tigris_stage_ops(&plan, &plan.stages[s]);
    for (uint32_t i = 0; i < plan.stages[s].ops_count; ++i) stage_of[ops[i]] = s;
  }
  std::vector<PlanStep> rows;
  for (uint32_t i = 0; i < plan.header->num_ops; ++i) {
    const tigris_op_t& op = plan.ops[i];
    PlanStep row;
    row.index = i;
    row.name = tigris_op_name(&plan, &op);
    row.type = op_type_name(op.op_type);
    row.stage = stage_of[i];
    row.inputs = tensor_names(plan, tigris_op_inputs(&plan, &op), op.num_inputs);
    row.outputs = tensor_names(plan, tigris_op_outputs(&plan, &op), op.num_outputs);
    row.fused_activation = fused_activation_name(op.fused_act);
    row.weight = weight_name(plan, op.weight_idx);
    row.bias = weight_name(plan, op.bias_idx);
    row.act_min = op.act_min;
    row.act_max = op.act_max;
    row.spatial = op.spatial;
    row.spatial_op = op.spatial.kernel_h != 0 || op.spatial.kernel_w != 0;
    rows.push_back(std::move(row));
  }
  return rows;
}

std::vector<PlanTensor> tensor_rows(const tigris_plan_t& plan) {
  std::vector<PlanTensor> rows;
  for (uint32_t i = 0; i < plan.header->num_tensors; ++i) {
    const tigris_tensor_t& t = plan.tensors[i];
    PlanTensor row;
    row.id = i;
    row.name = tigris_tensor_name(&plan, &t);
    row.dtype = t.dtype;
    row.shape = stored_shape(plan, t);
    row.bytes = t.size_bytes;
    row.layout = stored_layout_name(t);
    if (t.flags & TIGRIS_TENSOR_CONSTANT) row.roles.push_back("constant");
    if (t.flags & TIGRIS_TENSOR_MODEL_INPUT) row.roles.push_back("input");
    if (t.flags & TIGRIS_TENSOR_MODEL_OUTPUT) row.roles.push_back("output");
    if (t.flags & TIGRIS_TENSOR_STATE) row.roles.push_back("state");
    // By value: optional's assignment would bind a reference to the packed record's field,
    // which may be misaligned (UB).
    const uint16_t quant = t.quant_param_idx;
    if (quant != TIGRIS_NONE) row.quant = uint32_t{quant};
    rows.push_back(std::move(row));
  }
  return rows;
}

PlanMemory memory_of(const tigris_plan_t& plan) {
  PlanMemory m;
  m.fast_arena_required = tigris_fast_arena_required(&plan);
  m.decompressed_weights = tigris_weight_decompression_overhead(&plan);
  m.budget = plan.header->budget;
  m.scheduled_peak = plan.scheduled_peak;
  m.activations = plan.header->version >= 11 ? plan.scheduled_peak : plan.header->budget;
  m.unscheduled_peak = plan.header->peak;
  for (uint32_t w = 0; w < plan.header->num_weights && plan.weight_entries; ++w) {
    m.weight_bytes += plan.weight_entries[w].size_bytes;
  }
  m.lz4 = plan.weight_compression == TIGRIS_COMPRESSION_LZ4 && plan.num_weight_blocks > 0;
  for (uint32_t b = 0; b < plan.num_weight_blocks; ++b) {
    m.compressed_weight_bytes += plan.weight_blocks[b].compressed_size;
  }
  m.xip = (plan.header->flags & TIGRIS_FLAG_XIP) != 0;
  m.state_bytes = plan.state_bytes;
  return m;
}

void add_limit_flags(PlanInspection& out) {
  const std::pair<const char*, std::pair<uint32_t, uint32_t>> limits[] = {
      {"TIGRIS_MAX_TENSORS", {out.required.tensors, out.build.tensors}},
      {"TIGRIS_MAX_STAGE_INPUTS", {out.required.stage_inputs, out.build.stage_inputs}},
      {"TIGRIS_MAX_STAGE_OUTPUTS", {out.required.stage_outputs, out.build.stage_outputs}},
      {"TIGRIS_MAX_CHAIN_STAGES", {out.required.chain_stages, out.build.chain_stages}},
      {"TIGRIS_MAX_SPATIAL_OPS_PER_STAGE", {out.required.spatial_ops_per_stage, out.build.spatial_ops_per_stage}},
  };
  for (const auto& [name, values] : limits) {
    if (values.first > values.second)
      out.build_flags.push_back(std::string("-D") + name + "=" + std::to_string(values.first));
  }
}

PlanLimits limits_of(const tigris_plan_limits_t& l) {
  return PlanLimits{l.tensors, l.stage_inputs, l.stage_outputs, l.chain_stages, l.spatial_ops_per_stage};
}

// The plan's graphs, each with the If/While that runs it.
std::vector<PlanGraph> graph_rows(const tigris_plan_t& plan) {
  std::vector<PlanGraph> rows;
  if (plan.subgraphs == nullptr) return rows;
  for (uint32_t g = 0; g < plan.num_subgraphs; ++g) {
    const tigris_subgraph_t& sg = plan.subgraphs[g];
    PlanGraph row;
    row.index = g;
    row.first_stage = sg.first_stage;
    row.num_stages = sg.num_stages;
    row.inputs = tensor_names(plan, plan.index_pool + sg.inputs_off, sg.inputs_count);
    row.outputs = tensor_names(plan, plan.index_pool + sg.outputs_off, sg.outputs_count);
    row.run_by = g == 0 ? "main" : "";
    rows.push_back(std::move(row));
  }
  for (uint32_t i = 0; i < plan.header->num_ops; ++i) {
    const tigris_op_t& op = plan.ops[i];
    if (op.op_type != TIGRIS_OP_IF && op.op_type != TIGRIS_OP_WHILE) continue;
    uint8_t len = 0;
    const uint8_t* d = tigris_op_attribute_data(&plan, static_cast<uint16_t>(i), TIGRIS_ATTR_SUBGRAPHS, &len);
    if (d == nullptr || len != 4) continue;
    const bool is_if = op.op_type == TIGRIS_OP_IF;
    const std::string who = std::string(is_if ? "If " : "While ") + tigris_op_name(&plan, &op);
    for (int k = 0; k < 2; ++k) {
      const uint32_t g = static_cast<uint32_t>(d[2 * k] | d[2 * k + 1] << 8);
      if (g >= rows.size()) continue;
      std::string& by = rows[g].run_by;
      by += (by.empty() ? "" : ", ") + who + (is_if ? (k == 0 ? " (then)" : " (else)") : (k == 0 ? " (condition)" : " (body)"));
    }
  }
  return rows;
}

}  // namespace

PlanInspection inspect_plan(const tigris_plan_t& plan, const tigris_plan_limits_t& required, const std::string& file,
                            uint64_t file_bytes) {
  const tigris_file_header_t& h = *plan.header;
  PlanInspection out;
  out.file = file;
  out.file_bytes = file_bytes;
  out.schema = h.version;
  out.model_name = tigris_model_name(&plan);
  out.show_model_name = !out.model_name.empty() && out.model_name != file_stem(file);
  out.num_ops = h.num_ops;
  out.num_tensors = h.num_tensors;
  out.num_subgraphs = plan.num_subgraphs > 1 ? plan.num_subgraphs - 1u : 0u;
  out.graphs = graph_rows(plan);
  out.data_dtype = tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8 ? "int8" : "float32";
  for (uint32_t i = 0; i < h.num_model_inputs; ++i) out.inputs.push_back(iface_row(plan, plan.model_inputs[i]));
  for (uint32_t i = 0; i < h.num_model_outputs; ++i) out.outputs.push_back(iface_row(plan, plan.model_outputs[i]));

  std::map<int, PlanOpType> by_type;
  for (uint32_t i = 0; i < h.num_ops; ++i) {
    PlanOpType& row = by_type[plan.ops[i].op_type];
    row.type = op_type_name(plan.ops[i].op_type);
    row.count++;
    row.weight_bytes += op_weight_bytes(plan, plan.ops[i]);
  }
  for (auto& [type, row] : by_type) {
    out.total_weight_bytes += row.weight_bytes;
    out.op_types.push_back(row);
  }

  out.memory = memory_of(plan);
  out.required = limits_of(required);
  tigris_plan_limits_t build{};
  tigris_build_limits(&build);
  out.build = limits_of(build);
  add_limit_flags(out);

  out.stages = stage_rows(plan);
  for (const PlanStage& s : out.stages) out.tiled_stages += s.tiling_kind == "untiled" ? 0u : 1u;
  out.steps = step_rows(plan);
  out.tensors = tensor_rows(plan);
  for (uint32_t w = 0; w < h.num_weights && plan.weight_entries; ++w) {
    const tigris_weight_entry_t& e = plan.weight_entries[w];
    out.weights.push_back({w, tigris_weight_name(&plan, &e), e.offset, e.size_bytes});
  }
  for (uint32_t q = 0; q < plan.num_quant_params; ++q) {
    const tigris_quant_param_t& p = plan.quant_params[q];
    out.quant.push_back({q, p.scale, p.zero_point, p.num_channels});
  }
  for (uint32_t b = 0; b < plan.num_weight_blocks; ++b) {
    const tigris_weight_block_t& blk = plan.weight_blocks[b];
    out.weight_blocks.push_back(
        {blk.stage_idx, blk.first_weight_idx, blk.num_weights, blk.compressed_size, blk.uncompressed_size});
  }
  return out;
}

}  // namespace tigris::report
