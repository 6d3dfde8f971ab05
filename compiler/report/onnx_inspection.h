// `tigris inspect MODEL.onnx`: an offline description of an ONNX file from its
// protobuf alone. No checker, no shape inference, no external data is read:
// every shape is one the file declares, and figures it does not determine are unknown.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tigris::report {

struct OnnxValue {
  std::string name;
  std::vector<int64_t> shape;          // -1 for a dimension the file leaves free
  std::vector<std::string> dim_names;  // dim_param per axis ("" when fixed or absent)
  bool shape_known = false;            // the file declares a shape (possibly with free dims)
  int dtype = 0;
  bool initializer_default = false;  // a graph input that an initializer also provides
};

struct OnnxOpType {
  std::string type;  // "Conv", or "domain.Type" outside the default domain
  uint32_t count = 0;
  uint64_t weight_bytes = 0;
  std::optional<uint64_t> macs;  // unknown when any of its operators' MACs is
};

struct OnnxStep {
  uint32_t index = 0;
  std::string name, type;
  std::vector<std::string> inputs, outputs;
  std::optional<OnnxValue> output;  // the first output, when declared
  std::optional<uint64_t> output_bytes;
  uint64_t weight_bytes = 0;  // initializers first used here
  std::optional<uint64_t> macs;
  std::vector<std::string> attributes;  // "name=value", compact
};

struct OnnxActivation {
  std::string name;
  std::vector<int64_t> shape;
  int dtype = 0;
  uint64_t bytes = 0;
  std::string producer;  // "model input", or "step N Type"
};

struct OnnxInspection {
  std::string file;
  uint64_t file_bytes = 0;
  int64_t ir_version = 0;
  std::vector<std::pair<std::string, int64_t>> opsets;  // domain ("ai.onnx" for the default), version
  std::string producer, producer_version, graph_name;
  uint32_t num_ops = 0, num_subgraphs = 0;
  std::vector<OnnxValue> inputs, outputs;
  std::vector<OnnxOpType> op_types;
  uint64_t total_weight_bytes = 0;
  std::optional<uint64_t> total_macs;
  uint64_t known_macs = 0;
  std::vector<OnnxActivation> largest_activations;  // up to 5, largest first
  uint32_t dense_initializers = 0, sparse_initializers = 0, external_initializers = 0;
  uint64_t initializer_bytes = 0;
  uint32_t declared_intermediates = 0;  // value_info entries
  std::vector<OnnxStep> steps;
  std::vector<std::string> constants;      // Constant nodes: "name shape dtype"
  std::vector<std::string> external_data;  // "initializer -> location"
  std::vector<std::string> functions;      // local functions: "domain.name"
};

// Parses `bytes` as an ONNX ModelProto. Throws std::runtime_error
// `<file>: truncated or corrupt ONNX model (...)` when it is not one.
OnnxInspection inspect_onnx(const std::vector<uint8_t>& bytes, const std::string& file);

std::string render_text(const OnnxInspection& inspection, bool verbose);
nlohmann::ordered_json to_json(const OnnxInspection& inspection);

}  // namespace tigris::report
