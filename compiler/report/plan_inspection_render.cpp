// Text and JSON renderings of a PlanInspection.
#include <cstdio>
#include <nlohmann/json.hpp>

#include "compiler/report/format.h"
#include "compiler/report/plan_inspection.h"

namespace tigris::report {
namespace {

std::string join(const std::vector<std::string>& items, const char* sep = ", ") {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string header_line(const PlanInspection& p) {
  std::string line = p.file + "   plan, schema " + std::to_string(p.schema);
  if (p.show_model_name) line += ", model " + p.model_name;
  line += ", " + plural(p.num_ops, "operator", "operators");
  if (p.num_subgraphs) line += ", " + plural(p.num_subgraphs, "subgraph", "subgraphs");
  line += ", " + plural(p.stages.size(), "stage", "stages") + ", " + std::to_string(p.tiled_stages) + " tiled";
  return line + ", " + format_bytes(p.file_bytes) + "\n";
}

std::string interface_rows(const PlanInspection& p) {
  TextTable t;
  const auto add = [&](const char* dir, const PlanIface& io) {
    t.add({dir, io.name, format_shape(io.shape) + " " + dtype_name(io.dtype),
           "(stored " + dtype_name(io.stored_dtype) + ", " + io.layout + ")"});
  };
  for (const PlanIface& io : p.inputs) add("input", io);
  for (const PlanIface& io : p.outputs) add("output", io);
  return t.render();
}

std::string operators_table(const PlanInspection& p) {
  TextTable t("");
  t.right_align(1);
  t.right_align(2);
  t.add({"operators", "count", "weights"});
  uint32_t count = 0;
  for (const PlanOpType& op : p.op_types) {
    t.add({"  " + op.type, std::to_string(op.count), format_bytes(op.weight_bytes)});
    count += op.count;
  }
  t.add({"  total", std::to_string(count), format_bytes(p.total_weight_bytes)});
  return t.render();
}

std::string memory_section(const PlanInspection& p) {
  const PlanMemory& m = p.memory;
  TextTable t;
  std::string fast_note = "required to run";
  if (m.decompressed_weights) {
    fast_note += "; " + format_bytes(m.activations) + " activations, " + format_bytes(m.decompressed_weights) +
                 " decompressed weights";
  }
  t.add({"fast arena", format_bytes(m.fast_arena_required), fast_note});
  t.add({"budget", format_bytes(m.budget), "compiled for"});
  t.add({"unscheduled", format_bytes(m.unscheduled_peak)});
  std::string weights_note = m.xip ? "read in place (XIP)" : "loaded by stage";
  weights_note += m.lz4 ? ", LZ4 " + format_bytes(m.compressed_weight_bytes) : ", uncompressed";
  t.add({"weights", format_bytes(m.weight_bytes), weights_note});
  if (m.state_bytes) t.add({"state", format_bytes(m.state_bytes), "kept between runs"});
  std::string out = "memory\n" + t.render();
  TextTable build("");
  build.add({"runtime build", p.build_flags.empty() ? "default limits suffice" : join(p.build_flags, " ")});
  return out + build.render();
}

std::string stages_table(const PlanInspection& p) {
  TextTable t;
  t.right_align(0);
  t.right_align(2);
  t.right_align(3);
  t.add({"stage", "ops", "untiled peak", "weights", "tiling"});
  for (const PlanStage& s : p.stages) {
    const std::string ops = s.ops == 0   ? "-"
                            : s.ops == 1 ? std::to_string(s.first_op)
                                         : std::to_string(s.first_op) + "-" + std::to_string(s.last_op);
    t.add({std::to_string(s.index), ops, format_bytes(s.peak_bytes), format_bytes(s.weight_bytes), s.tiling});
  }
  return "stages\n" + t.render();
}

// Plans with control flow: which stages and tensors each graph has, and what runs it.
std::string graphs_table(const PlanInspection& p) {
  if (p.graphs.empty()) return "";
  TextTable t;
  t.right_align(0);
  t.add({"graph", "stages", "inputs", "outputs", "run by"});
  for (const PlanGraph& g : p.graphs) {
    const std::string stages = g.num_stages == 0   ? "-"
                               : g.num_stages == 1 ? std::to_string(g.first_stage)
                                                   : std::to_string(g.first_stage) + "-" +
                                                         std::to_string(g.first_stage + g.num_stages - 1);
    t.add({std::to_string(g.index), stages, join(g.inputs), join(g.outputs), g.run_by});
  }
  return "graphs\n" + t.render();
}

std::string steps_table(const PlanInspection& p) {
  TextTable t;
  t.right_align(0);
  t.right_align(3);
  t.add({"step", "operator", "type", "stage", "inputs", "outputs", "activation"});
  for (const PlanStep& s : p.steps) {
    t.add({std::to_string(s.index), s.name, s.type, std::to_string(s.stage), join(s.inputs), join(s.outputs),
           s.fused_activation});
  }
  std::string out = "steps\n" + t.render();
  std::string params;
  for (const PlanStep& s : p.steps) {
    std::vector<std::string> parts;
    if (s.spatial_op) {
      const tigris_spatial_t& g = s.spatial;
      char buf[160];
      std::snprintf(buf, sizeof buf, "kernel %ux%u, stride %ux%u, pads %u,%u,%u,%u, dilation %ux%u, group %u",
                    g.kernel_h, g.kernel_w, g.stride_h, g.stride_w, g.pad_top, g.pad_left, g.pad_bottom, g.pad_right,
                    g.dilation_h ? g.dilation_h : 1u, g.dilation_w ? g.dilation_w : 1u, g.group ? g.group : 1u);
      parts.push_back(buf);
    }
    if (p.data_dtype == "int8" && (s.act_min != -128 || s.act_max != 127)) {
      parts.push_back("clamp [" + std::to_string(s.act_min) + ", " + std::to_string(s.act_max) + "]");
    }
    if (!s.weight.empty()) parts.push_back("weight " + s.weight);
    if (!s.bias.empty()) parts.push_back("bias " + s.bias);
    if (!parts.empty()) params += "  " + std::to_string(s.index) + " " + s.name + ": " + join(parts) + "\n";
  }
  return params.empty() ? out : out + "parameters\n" + params;
}

std::string tensors_table(const PlanInspection& p) {
  TextTable t;
  t.right_align(0);
  t.right_align(4);
  t.add({"id", "tensor", "type", "stored shape", "bytes", "layout", "quant", "role"});
  for (const PlanTensor& x : p.tensors) {
    t.add({std::to_string(x.id), x.name, dtype_name(x.dtype), format_shape(x.shape), std::to_string(x.bytes), x.layout,
           x.quant ? std::to_string(*x.quant) : "-", join(x.roles)});
  }
  return "tensors\n" + t.render();
}

std::string weights_tables(const PlanInspection& p) {
  std::string out;
  if (!p.weights.empty()) {
    TextTable t;
    t.right_align(0);
    t.right_align(2);
    t.right_align(3);
    t.add({"weight", "name", "offset", "bytes"});
    for (const PlanWeight& w : p.weights) {
      t.add({std::to_string(w.index), w.name, std::to_string(w.offset), std::to_string(w.bytes)});
    }
    out += "weights\n" + t.render();
  }
  if (!p.quant.empty()) {
    TextTable t;
    t.right_align(0);
    t.add({"quant", "scale", "zero point", "channels"});
    for (const PlanQuant& q : p.quant) {
      char scale[32];
      std::snprintf(scale, sizeof scale, "%.9g", static_cast<double>(q.scale));
      t.add({std::to_string(q.index), scale, std::to_string(q.zero_point), std::to_string(q.channels)});
    }
    out += "quantization\n" + t.render();
  }
  if (!p.weight_blocks.empty()) {
    TextTable t;
    t.add({"stage", "weights", "compressed", "uncompressed"});
    for (const PlanWeightBlock& b : p.weight_blocks) {
      t.add({std::to_string(b.stage),
             std::to_string(b.first_weight) + "-" + std::to_string(b.first_weight + b.weights - (b.weights ? 1 : 0)),
             format_bytes(b.compressed_bytes), format_bytes(b.uncompressed_bytes)});
    }
    out += "weight blocks\n" + t.render();
  }
  return out;
}

std::string tiles_table(const PlanInspection& p) {
  TextTable t;
  t.add({"stage", "kind", "band", "tile", "of", "tiles", "halo", "tiled peak"});
  bool any = false;
  for (const PlanStage& s : p.stages) {
    if (s.tiling_kind != "tiles") continue;
    any = true;
    t.add({std::to_string(s.index), s.band_kind.empty() ? "-" : s.band_kind, "axis " + std::to_string(s.band_axis),
           std::to_string(s.tile_extent), std::to_string(s.original_extent), std::to_string(s.tiles),
           std::to_string(s.halo), format_bytes(s.tiled_peak_bytes)});
  }
  return any ? "tile plans\n" + t.render() : "";
}

nlohmann::ordered_json iface_json(const PlanIface& io) {
  return {{"name", io.name},
          {"tensor", io.tensor},
          {"shape", io.shape},
          {"dtype", dtype_name(io.dtype)},
          {"stored_shape", io.stored_shape},
          {"stored_dtype", dtype_name(io.stored_dtype)},
          {"layout", io.layout},
          {"bytes", io.bytes}};
}

nlohmann::ordered_json stage_json(const PlanStage& s) {
  nlohmann::ordered_json tiling = nullptr;
  if (s.tiling_kind == "tiles") {
    tiling = {{"kind", "tiles"},
              {"band", s.band_kind.empty() ? nullptr : nlohmann::ordered_json(s.band_kind)},
              {"axis", s.band_axis},
              {"tile", s.tile_extent},
              {"extent", s.original_extent},
              {"count", s.tiles},
              {"halo", s.halo},
              {"tiled_peak_bytes", s.tiled_peak_bytes}};
  } else if (s.tiling_kind != "untiled") {
    tiling = {{"kind", s.tiling_kind}, {"chain", s.chain_id}, {"length", s.chain_len}};
    if (s.tiling_kind == "chain head") {
      tiling["tile_height"] = s.chain_tile_h;
      tiling["line_buffered"] = s.line_buffered;
    }
  }
  return {{"stage", s.index},   {"first_op", s.first_op},     {"last_op", s.last_op},
          {"operators", s.ops}, {"peak_bytes", s.peak_bytes}, {"weight_bytes", s.weight_bytes},
          {"inputs", s.inputs}, {"outputs", s.outputs},       {"tiling", tiling}};
}

nlohmann::ordered_json step_json(const PlanStep& s) {
  nlohmann::ordered_json j = {
      {"step", s.index},
      {"name", s.name},
      {"type", s.type},
      {"stage", s.stage},
      {"inputs", s.inputs},
      {"outputs", s.outputs},
      {"fused_activation", s.fused_activation.empty() ? nullptr : nlohmann::ordered_json(s.fused_activation)},
      {"weight", s.weight.empty() ? nullptr : nlohmann::ordered_json(s.weight)},
      {"bias", s.bias.empty() ? nullptr : nlohmann::ordered_json(s.bias)},
      {"act_min", s.act_min},
      {"act_max", s.act_max}};
  if (s.spatial_op) {
    const tigris_spatial_t& g = s.spatial;
    j["spatial"] = {{"kernel", {g.kernel_h, g.kernel_w}},
                    {"stride", {g.stride_h, g.stride_w}},
                    {"pads", {g.pad_top, g.pad_left, g.pad_bottom, g.pad_right}},
                    {"dilation", {g.dilation_h ? g.dilation_h : 1, g.dilation_w ? g.dilation_w : 1}},
                    {"group", g.group ? g.group : 1}};
  }
  return j;
}

}  // namespace

std::string render_text(const PlanInspection& p, bool verbose) {
  std::string out = header_line(p) + interface_rows(p) + operators_table(p) + memory_section(p);
  if (verbose) {
    out += stages_table(p) + graphs_table(p) + steps_table(p) + tensors_table(p) + weights_tables(p) + tiles_table(p);
  }
  return out;
}

nlohmann::ordered_json to_json(const PlanInspection& p) {
  using json = nlohmann::ordered_json;
  json j;
  j["inspection_version"] = kInspectionVersion;
  j["format"] = "plan";
  j["file"] = p.file;
  j["file_bytes"] = p.file_bytes;
  j["schema"] = p.schema;
  j["model_name"] = p.model_name;
  j["dtype"] = p.data_dtype;
  j["operators"] = p.num_ops;
  j["tensors"] = p.num_tensors;
  j["subgraphs"] = p.num_subgraphs;
  j["tiled_stages"] = p.tiled_stages;
  j["inputs"] = json::array();
  for (const PlanIface& io : p.inputs) j["inputs"].push_back(iface_json(io));
  j["outputs"] = json::array();
  for (const PlanIface& io : p.outputs) j["outputs"].push_back(iface_json(io));
  j["operator_types"] = json::array();
  for (const PlanOpType& op : p.op_types) {
    j["operator_types"].push_back({{"type", op.type}, {"count", op.count}, {"weight_bytes", op.weight_bytes}});
  }
  const PlanMemory& m = p.memory;
  j["memory"] = {{"fast_arena_required_bytes", m.fast_arena_required},
                 {"activation_bytes", m.activations},
                 {"decompressed_weight_bytes", m.decompressed_weights},
                 {"budget_bytes", m.budget},
                 {"scheduled_peak_bytes", m.scheduled_peak},
                 {"unscheduled_peak_bytes", m.unscheduled_peak},
                 {"weight_bytes", m.weight_bytes},
                 {"compressed_weight_bytes", m.compressed_weight_bytes},
                 {"weights_xip", m.xip},
                 {"weight_compression", m.lz4 ? "lz4" : "none"},
                 {"state_bytes", m.state_bytes}};
  const auto limits = [](const PlanLimits& l) {
    return json{{"tensors", l.tensors},
                {"stage_inputs", l.stage_inputs},
                {"stage_outputs", l.stage_outputs},
                {"chain_stages", l.chain_stages},
                {"spatial_ops_per_stage", l.spatial_ops_per_stage}};
  };
  j["runtime_build"] = {{"required", limits(p.required)}, {"build", limits(p.build)}, {"flags", p.build_flags}};
  j["stages"] = json::array();
  for (const PlanStage& s : p.stages) j["stages"].push_back(stage_json(s));
  if (!p.graphs.empty()) {  // plans with control flow
    j["graphs"] = json::array();
    for (const PlanGraph& g : p.graphs)
      j["graphs"].push_back({{"graph", g.index},
                             {"first_stage", g.first_stage},
                             {"stages", g.num_stages},
                             {"inputs", g.inputs},
                             {"outputs", g.outputs},
                             {"run_by", g.run_by}});
  }
  j["steps"] = json::array();
  for (const PlanStep& s : p.steps) j["steps"].push_back(step_json(s));
  j["tensor_table"] = json::array();
  for (const PlanTensor& x : p.tensors) {
    j["tensor_table"].push_back({{"id", x.id},
                                 {"name", x.name},
                                 {"dtype", dtype_name(x.dtype)},
                                 {"shape", x.shape},
                                 {"bytes", x.bytes},
                                 {"layout", x.layout},
                                 {"roles", x.roles},
                                 {"quant", x.quant ? json(*x.quant) : json(nullptr)}});
  }
  j["weights"] = json::array();
  for (const PlanWeight& w : p.weights) {
    j["weights"].push_back({{"index", w.index}, {"name", w.name}, {"offset", w.offset}, {"bytes", w.bytes}});
  }
  j["quant_params"] = json::array();
  for (const PlanQuant& q : p.quant) {
    j["quant_params"].push_back(
        {{"index", q.index}, {"scale", q.scale}, {"zero_point", q.zero_point}, {"channels", q.channels}});
  }
  j["weight_blocks"] = json::array();
  for (const PlanWeightBlock& b : p.weight_blocks) {
    j["weight_blocks"].push_back({{"stage", b.stage},
                                  {"first_weight", b.first_weight},
                                  {"weights", b.weights},
                                  {"compressed_bytes", b.compressed_bytes},
                                  {"uncompressed_bytes", b.uncompressed_bytes}});
  }
  return j;
}

}  // namespace tigris::report
