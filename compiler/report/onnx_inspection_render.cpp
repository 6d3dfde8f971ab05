// Text and JSON renderings of an OnnxInspection.
#include "compiler/report/format.h"

#include <nlohmann/json.hpp>
#include "compiler/report/onnx_inspection.h"

namespace tigris::report {
namespace {

std::string macs_cell(const std::optional<uint64_t>& macs) { return macs ? format_count(*macs) : "?"; }

std::string value_cell(const OnnxValue& v) {
  const std::string shape = v.shape_known ? format_shape(v.shape) : "?";
  return shape + " " + (v.dtype ? dtype_name(v.dtype) : std::string("?"));
}

std::string header_line(const OnnxInspection& p) {
  std::string line = p.file + "   ONNX, IR " + std::to_string(p.ir_version) + ", opsets";
  for (size_t i = 0; i < p.opsets.size(); ++i) {
    line += (i ? ", " : " ") + p.opsets[i].first + " " + std::to_string(p.opsets[i].second);
  }
  // As written: analyze counts the operators left after normalization fuses and folds.
  line += ", " + plural(p.num_ops, "operator", "operators") + " in the file";
  if (p.num_subgraphs) line += ", " + plural(p.num_subgraphs, "subgraph", "subgraphs");
  return line + ", " + format_bytes(p.file_bytes) + "\n";
}

std::string interface_rows(const OnnxInspection& p) {
  TextTable t;
  for (const OnnxValue& v : p.inputs) {
    t.add({"input", v.name, value_cell(v), v.initializer_default ? "initializer default" : ""});
  }
  for (const OnnxValue& v : p.outputs) t.add({"output", v.name, value_cell(v)});
  return t.render();
}

std::string operators_table(const OnnxInspection& p) {
  TextTable t("");
  for (size_t c = 1; c <= 5; ++c) t.right_align(c);
  t.add({"operators", "count", "weights", "weight %", "MACs", "MAC %"});
  const uint64_t mac_whole = p.known_macs;
  for (const OnnxOpType& op : p.op_types) {
    t.add({"  " + op.type, std::to_string(op.count), format_bytes(op.weight_bytes),
           format_percent(op.weight_bytes, p.total_weight_bytes), macs_cell(op.macs),
           op.macs && p.total_macs ? format_percent(*op.macs, mac_whole) : "?"});
  }
  t.add({"  total", std::to_string(p.num_ops), format_bytes(p.total_weight_bytes),
         p.total_weight_bytes ? "100.0%" : "-", macs_cell(p.total_macs),
         !p.total_macs   ? "?"
         : *p.total_macs ? "100.0%"
                         : "-"});
  return t.render();
}

std::string activations_table(const OnnxInspection& p) {
  if (p.largest_activations.empty()) return "";
  TextTable t;
  t.right_align(2);
  for (const OnnxActivation& a : p.largest_activations) {
    t.add({a.name, format_shape(a.shape) + " " + dtype_name(a.dtype), format_bytes(a.bytes), a.producer});
  }
  return "largest activations\n" + t.render();
}

std::string steps_table(const OnnxInspection& p) {
  TextTable t;
  t.right_align(0);
  t.right_align(3);
  t.right_align(4);
  t.right_align(5);
  t.add({"step", "type", "output", "bytes", "weights", "MACs", "name"});
  for (const OnnxStep& s : p.steps) {
    t.add({std::to_string(s.index), s.type, s.output ? value_cell(*s.output) : "?",
           s.output_bytes ? format_bytes(*s.output_bytes) : "?", format_bytes(s.weight_bytes), macs_cell(s.macs),
           s.name});
  }
  std::string out = "steps\n" + t.render();
  std::string attrs;
  for (const OnnxStep& s : p.steps) {
    if (s.attributes.empty()) continue;
    attrs += "  " + std::to_string(s.index) + " " + s.type + ":";
    for (const auto& a : s.attributes) attrs += " " + a;
    attrs += "\n";
  }
  if (!attrs.empty()) out += "attributes\n" + attrs;
  const auto list = [](const char* title, const std::vector<std::string>& items) {
    std::string s;
    if (items.empty()) return s;
    s = std::string(title) + "\n";
    for (const auto& i : items) s += "  " + i + "\n";
    return s;
  };
  out += list("constants", p.constants);
  out += "declared intermediates   " + std::to_string(p.declared_intermediates) + "\n";
  out += list("external data", p.external_data);
  out += list("local functions", p.functions);
  return out;
}

nlohmann::ordered_json value_json(const OnnxValue& v) {
  nlohmann::ordered_json shape = nullptr;
  if (v.shape_known) {
    shape = nlohmann::ordered_json::array();
    for (size_t i = 0; i < v.shape.size(); ++i) {
      if (v.shape[i] >= 0) {
        shape.push_back(v.shape[i]);
      } else {
        shape.push_back(v.dim_names[i].empty() ? nullptr : nlohmann::ordered_json(v.dim_names[i]));
      }
    }
  }
  nlohmann::ordered_json j = {
      {"name", v.name}, {"shape", shape}, {"dtype", v.dtype ? nlohmann::ordered_json(dtype_name(v.dtype)) : nullptr}};
  return j;
}

nlohmann::ordered_json optional_json(const std::optional<uint64_t>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

std::string render_text(const OnnxInspection& p, bool verbose) {
  std::string out = header_line(p) + interface_rows(p) + operators_table(p) + activations_table(p);
  TextTable init("");
  init.add({"initializers", std::to_string(p.dense_initializers) + " dense, " + std::to_string(p.sparse_initializers) +
                                " sparse, " + std::to_string(p.external_initializers) + " external"});
  out += init.render();
  out += "shapes are declared, not inferred; ? marks figures the file does not determine\n";
  if (verbose) out += steps_table(p);
  return out;
}

nlohmann::ordered_json to_json(const OnnxInspection& p) {
  using json = nlohmann::ordered_json;
  json j;
  j["inspection_version"] = 1;
  j["format"] = "onnx";
  j["file"] = p.file;
  j["file_bytes"] = p.file_bytes;
  j["ir_version"] = p.ir_version;
  j["opsets"] = json::array();
  for (const auto& [domain, version] : p.opsets) j["opsets"].push_back({{"domain", domain}, {"version", version}});
  j["producer"] = {{"name", p.producer}, {"version", p.producer_version}};
  j["graph_name"] = p.graph_name;
  j["operators"] = p.num_ops;
  j["subgraphs"] = p.num_subgraphs;
  j["inputs"] = json::array();
  for (const OnnxValue& v : p.inputs) {
    json row = value_json(v);
    row["initializer_default"] = v.initializer_default;
    j["inputs"].push_back(row);
  }
  j["outputs"] = json::array();
  for (const OnnxValue& v : p.outputs) j["outputs"].push_back(value_json(v));
  j["operator_types"] = json::array();
  for (const OnnxOpType& op : p.op_types) {
    j["operator_types"].push_back(
        {{"type", op.type}, {"count", op.count}, {"weight_bytes", op.weight_bytes}, {"macs", optional_json(op.macs)}});
  }
  j["weight_bytes"] = p.total_weight_bytes;
  j["macs"] = optional_json(p.total_macs);
  j["known_macs"] = p.known_macs;
  j["largest_activations"] = json::array();
  for (const OnnxActivation& a : p.largest_activations) {
    j["largest_activations"].push_back({{"name", a.name},
                                        {"shape", a.shape},
                                        {"dtype", dtype_name(a.dtype)},
                                        {"bytes", a.bytes},
                                        {"producer", a.producer}});
  }
  j["initializers"] = {{"dense", p.dense_initializers},
                       {"sparse", p.sparse_initializers},
                       {"external", p.external_initializers},
                       {"bytes", p.initializer_bytes}};
  j["declared_intermediates"] = p.declared_intermediates;
  j["steps"] = json::array();
  for (const OnnxStep& s : p.steps) {
    j["steps"].push_back({{"step", s.index},
                          {"type", s.type},
                          {"name", s.name},
                          {"inputs", s.inputs},
                          {"outputs", s.outputs},
                          {"output", s.output ? value_json(*s.output) : json(nullptr)},
                          {"output_bytes", optional_json(s.output_bytes)},
                          {"weight_bytes", s.weight_bytes},
                          {"macs", optional_json(s.macs)},
                          {"attributes", s.attributes}});
  }
  j["constants"] = p.constants;
  j["external_data"] = p.external_data;
  j["functions"] = p.functions;
  return j;
}

}  // namespace tigris::report
