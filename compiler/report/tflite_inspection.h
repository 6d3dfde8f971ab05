// `tigris inspect MODEL.tflite`: an offline description of a TFLite file (subgraph 0):
// interface, operators with weights and MACs, the largest activations, how it is
// quantized, and whether the compiler converts it (every reason when it does not).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tigris::report {

struct TfliteValue {
  std::string name;
  std::vector<int64_t> shape;
  std::string dtype;  // "int8", "float32", ...
  uint64_t bytes = 0;
  std::string producer;  // "model input", or "step N KIND" (largest activations)
};

struct TfliteOpType {
  std::string kind;  // "CONV_2D", or a custom code
  uint32_t count = 0;
  uint64_t weight_bytes = 0;
  uint64_t macs = 0;
};

struct TfliteQuantization {
  std::vector<std::string> activation_dtypes;  // distinct, in first-use order
  uint32_t int8_weights = 0, per_channel = 0, asymmetric = 0;
  uint32_t float_regions = 0;  // DEQUANTIZE operators of activations (float sections)
};

struct TfliteInspection {
  std::string file;
  uint64_t file_bytes = 0;
  uint32_t schema_version = 0;
  uint32_t num_ops = 0, num_subgraphs = 0;
  std::vector<TfliteValue> inputs, outputs;
  std::vector<TfliteOpType> op_types;  // by first appearance
  uint64_t total_weight_bytes = 0, total_macs = 0;
  std::vector<TfliteValue> largest_activations;  // up to 5, largest first
  TfliteQuantization quantization;
  bool converts = false;
  std::vector<std::string> reasons;  // why it does not convert (operator index and kind)
};

// Reads `bytes` leniently. Throws std::runtime_error `<file>: ...` when they are not a
// readable TFLite model.
TfliteInspection inspect_tflite(const std::vector<uint8_t>& bytes, const std::string& file);

std::string render_text(const TfliteInspection& inspection, bool verbose);
nlohmann::ordered_json to_json(const TfliteInspection& inspection);

}  // namespace tigris::report
