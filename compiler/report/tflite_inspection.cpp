// Builds, renders and serializes a TfliteInspection (subgraph 0 of the file).
#include "compiler/report/tflite_inspection.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <stdexcept>
#include <nlohmann/json.hpp>

#include "compiler/frontend/tflite/tflite_loader.h"
#include "compiler/report/format.h"
#include "export/tflite/reader.h"

namespace tigris::report {
namespace {

namespace tfl = tigris::tflite;

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

uint64_t element_bytes(tfl::TensorType t) {
  switch (t) {
  case tfl::TensorType::Int8:
  case tfl::TensorType::UInt8:
  case tfl::TensorType::Bool: return 1;
  case tfl::TensorType::Int16:
  case tfl::TensorType::UInt16:
  case tfl::TensorType::Float16:
  case tfl::TensorType::BFloat16: return 2;
  case tfl::TensorType::Float32:
  case tfl::TensorType::Int32:
  case tfl::TensorType::UInt32: return 4;
  case tfl::TensorType::Int64:
  case tfl::TensorType::UInt64:
  case tfl::TensorType::Float64:
  case tfl::TensorType::Complex64: return 8;
  default: return 0;
  }
}

TfliteValue value_of(const tfl::Tensor& t) {
  TfliteValue v;
  v.name = t.name;
  v.shape.assign(t.shape.begin(), t.shape.end());
  v.dtype = lower(tfl::tensor_type_name(t.type));
  v.bytes = static_cast<uint64_t>(std::max<int64_t>(tfl::element_count(t.shape), 0)) * element_bytes(t.type);
  return v;
}

// Multiply-accumulates of the operators that have any (conv-like ones).
uint64_t macs_of(const tfl::Model& m, const tfl::SubGraph& sg, const tfl::Operator& o) {
  int32_t code = tfl::builtin_code(m, o);
  if (o.inputs.size() < 2 || o.outputs.empty() || o.inputs[1] < 0 || o.outputs[0] < 0) return 0;
  const std::vector<int32_t>& w = sg.tensors.at(static_cast<size_t>(o.inputs[1])).shape;
  uint64_t out = static_cast<uint64_t>(
      std::max<int64_t>(tfl::element_count(sg.tensors.at(static_cast<size_t>(o.outputs[0])).shape), 0));
  if (code == tfl::op::kConv2D && w.size() == 4) return out * static_cast<uint64_t>(w[1]) * w[2] * w[3];
  if (code == tfl::op::kDepthwiseConv2D && w.size() == 4) return out * static_cast<uint64_t>(w[1]) * w[2];
  if (code == tfl::op::kFullyConnected && w.size() == 2) return out * static_cast<uint64_t>(w[1]);
  return 0;
}

void add_operators(const tfl::Model& m, const tfl::SubGraph& sg, TfliteInspection& r) {
  std::set<int32_t> counted;  // constants already charged to an operator
  std::vector<std::string> producer(sg.tensors.size());
  for (size_t i = 0; i < sg.operators.size(); ++i) {
    const tfl::Operator& o = sg.operators[i];
    std::string kind = tfl::operator_kind(m, o);
    auto it = std::find_if(r.op_types.begin(), r.op_types.end(), [&](const TfliteOpType& t) { return t.kind == kind; });
    if (it == r.op_types.end()) it = r.op_types.insert(r.op_types.end(), TfliteOpType{kind});
    ++it->count;
    for (int32_t in : o.inputs) {
      if (in < 0 || static_cast<size_t>(in) >= sg.tensors.size() || !counted.insert(in).second) continue;
      if (tfl::is_constant(m, sg.tensors[static_cast<size_t>(in)]))
        it->weight_bytes += tfl::tensor_data(m, sg.tensors[static_cast<size_t>(in)]).size();
    }
    it->macs += macs_of(m, sg, o);
    for (int32_t out : o.outputs)
      if (out >= 0 && static_cast<size_t>(out) < sg.tensors.size())
        producer[static_cast<size_t>(out)] = "step " + std::to_string(i) + " " + kind;
  }
  for (const TfliteOpType& t : r.op_types) {
    r.total_weight_bytes += t.weight_bytes;
    r.total_macs += t.macs;
  }
  for (int32_t in : sg.inputs)
    if (in >= 0 && static_cast<size_t>(in) < sg.tensors.size()) producer[static_cast<size_t>(in)] = "model input";
  std::vector<TfliteValue> acts;
  for (size_t i = 0; i < sg.tensors.size(); ++i) {
    if (producer[i].empty() || tfl::is_constant(m, sg.tensors[i])) continue;
    acts.push_back(value_of(sg.tensors[i]));
    acts.back().producer = producer[i];
  }
  std::stable_sort(acts.begin(), acts.end(),
                   [](const TfliteValue& a, const TfliteValue& b) { return a.bytes > b.bytes; });
  if (acts.size() > 5) acts.resize(5);
  r.largest_activations = std::move(acts);
}

void add_quantization(const tfl::Model& m, const tfl::SubGraph& sg, TfliteQuantization& q) {
  for (const tfl::Tensor& t : sg.tensors) {
    if (tfl::is_constant(m, t)) continue;
    std::string d = lower(tfl::tensor_type_name(t.type));
    if (std::find(q.activation_dtypes.begin(), q.activation_dtypes.end(), d) == q.activation_dtypes.end())
      q.activation_dtypes.push_back(d);
  }
  for (const tfl::Operator& o : sg.operators) {
    int32_t code = tfl::builtin_code(m, o);
    if (code == tfl::op::kDequantize && !o.inputs.empty() && o.inputs[0] >= 0 &&
        !tfl::is_constant(m, sg.tensors.at(static_cast<size_t>(o.inputs[0]))))
      ++q.float_regions;
    bool weighted = code == tfl::op::kConv2D || code == tfl::op::kDepthwiseConv2D || code == tfl::op::kFullyConnected;
    if (!weighted || o.inputs.size() < 2 || o.inputs[1] < 0) continue;
    const tfl::Tensor& w = sg.tensors.at(static_cast<size_t>(o.inputs[1]));
    if (w.type != tfl::TensorType::Int8 || !w.quantization || !w.quantization->affine()) continue;
    ++q.int8_weights;
    if (w.quantization->scale.size() > 1) ++q.per_channel;
    for (int64_t z : w.quantization->zero_point)
      if (z != 0) {
        ++q.asymmetric;
        break;
      }
  }
}

}  // namespace

TfliteInspection inspect_tflite(const std::vector<uint8_t>& bytes, const std::string& file) {
  tfl::Model m;
  try {
    m = tfl::read_model(bytes, file, tfl::ReadOptions{.lenient = true});
  } catch (const tfl::ModelError& e) {
    throw std::runtime_error(e.what());
  }
  TfliteInspection r;
  r.file = file;
  r.file_bytes = bytes.size();
  r.schema_version = m.version;
  r.num_subgraphs = m.subgraphs.size() > 1 ? static_cast<uint32_t>(m.subgraphs.size()) : 0;
  if (!m.subgraphs.empty()) {
    const tfl::SubGraph& sg = m.subgraphs[0];
    r.num_ops = static_cast<uint32_t>(sg.operators.size());
    for (int32_t i : sg.inputs)
      if (i >= 0 && static_cast<size_t>(i) < sg.tensors.size())
        r.inputs.push_back(value_of(sg.tensors[static_cast<size_t>(i)]));
    for (int32_t i : sg.outputs)
      if (i >= 0 && static_cast<size_t>(i) < sg.tensors.size())
        r.outputs.push_back(value_of(sg.tensors[static_cast<size_t>(i)]));
    add_operators(m, sg, r);
    add_quantization(m, sg, r.quantization);
  }
  // Model-level reasons (parts the reader does not carry, several subgraphs) come first.
  for (const frontend::tflite::ConversionReason& reason : frontend::tflite::conversion_reasons(m))
    r.reasons.push_back(reason.text());
  r.converts = r.reasons.empty();
  return r;
}

namespace {

// TFLite converters join every fused op's name into one: the text shows the start.
std::string short_name(const std::string& name) { return name.size() <= 48 ? name : name.substr(0, 45) + "..."; }

std::string quantization_rows(const TfliteQuantization& q) {
  TextTable t;
  std::string acts;
  for (size_t i = 0; i < q.activation_dtypes.size(); ++i) acts += (i ? ", " : "") + q.activation_dtypes[i];
  t.add({"activations", acts.empty() ? "none" : acts});
  if (q.int8_weights) {
    std::string w = plural(q.int8_weights, "int8 weight tensor", "int8 weight tensors") + ", ";
    if (q.per_channel == q.int8_weights)
      w += "per channel";
    else if (q.per_channel == 0)
      w += "per tensor";
    else
      w += std::to_string(q.per_channel) + " of " + std::to_string(q.int8_weights) + " per channel";
    w += q.asymmetric ? ", " + std::to_string(q.asymmetric) + " asymmetric" : ", symmetric";
    t.add({"weights", w});
  }
  if (q.float_regions) t.add({"float32", plural(q.float_regions, "region", "regions") + " after DEQUANTIZE"});
  return "quantization\n" + t.render();
}

}  // namespace

std::string render_text(const TfliteInspection& p, bool) {
  std::string out = p.file + "   TFLite, schema " + std::to_string(p.schema_version) + ", " +
                    plural(p.num_ops, "operator", "operators") + " in the file";
  if (p.num_subgraphs) out += ", " + plural(p.num_subgraphs, "subgraph", "subgraphs");
  out += ", " + format_bytes(p.file_bytes) + "\n";
  TextTable io;
  for (const TfliteValue& v : p.inputs) io.add({"input", v.name, format_shape(v.shape) + " " + v.dtype});
  for (const TfliteValue& v : p.outputs) io.add({"output", v.name, format_shape(v.shape) + " " + v.dtype});
  out += io.render();
  TextTable ops("");
  for (size_t c = 1; c <= 5; ++c) ops.right_align(c);
  ops.add({"operators", "count", "weights", "weight %", "MACs", "MAC %"});
  for (const TfliteOpType& o : p.op_types)
    ops.add({"  " + o.kind, std::to_string(o.count), format_bytes(o.weight_bytes),
             format_percent(o.weight_bytes, p.total_weight_bytes), format_count(o.macs),
             format_percent(o.macs, p.total_macs)});
  ops.add({"  total", std::to_string(p.num_ops), format_bytes(p.total_weight_bytes),
           p.total_weight_bytes ? "100.0%" : "-", format_count(p.total_macs), p.total_macs ? "100.0%" : "-"});
  out += ops.render();
  if (!p.largest_activations.empty()) {
    TextTable t;
    t.right_align(2);
    for (const TfliteValue& a : p.largest_activations)
      t.add({short_name(a.name), format_shape(a.shape) + " " + a.dtype, format_bytes(a.bytes), a.producer});
    out += "largest activations\n" + t.render();
  }
  out += quantization_rows(p.quantization);
  if (p.converts) return out + "converts yes\n";
  out += "converts no, " + plural(p.reasons.size(), "reason", "reasons") + "\n";
  for (size_t i = 0; i < std::min<size_t>(p.reasons.size(), 5); ++i) out += "  " + p.reasons[i] + "\n";
  if (p.reasons.size() > 5) out += "  and " + std::to_string(p.reasons.size() - 5) + " more; --json lists all\n";
  return out;
}

nlohmann::ordered_json to_json(const TfliteInspection& p) {
  using json = nlohmann::ordered_json;
  auto value = [](const TfliteValue& v) {
    json j = {{"name", v.name}, {"shape", v.shape}, {"dtype", v.dtype}, {"bytes", v.bytes}};
    if (!v.producer.empty()) j["producer"] = v.producer;
    return j;
  };
  json j;
  j["inspection_version"] = 1;
  j["format"] = "tflite";
  j["file"] = p.file;
  j["file_bytes"] = p.file_bytes;
  j["schema_version"] = p.schema_version;
  j["operators"] = p.num_ops;
  j["subgraphs"] = p.num_subgraphs;
  j["inputs"] = json::array();
  for (const TfliteValue& v : p.inputs) j["inputs"].push_back(value(v));
  j["outputs"] = json::array();
  for (const TfliteValue& v : p.outputs) j["outputs"].push_back(value(v));
  j["operator_types"] = json::array();
  for (const TfliteOpType& o : p.op_types)
    j["operator_types"].push_back(
        {{"type", o.kind}, {"count", o.count}, {"weight_bytes", o.weight_bytes}, {"macs", o.macs}});
  j["weight_bytes"] = p.total_weight_bytes;
  j["macs"] = p.total_macs;
  j["largest_activations"] = json::array();
  for (const TfliteValue& v : p.largest_activations) j["largest_activations"].push_back(value(v));
  const TfliteQuantization& q = p.quantization;
  j["quantization"] = {{"activation_dtypes", q.activation_dtypes},
                       {"int8_weight_tensors", q.int8_weights},
                       {"per_channel", q.per_channel},
                       {"asymmetric", q.asymmetric},
                       {"float_regions", q.float_regions}};
  j["converts"] = p.converts;
  j["reasons"] = p.reasons;
  return j;
}

}  // namespace tigris::report
