// What `tigris inspect` says about a file's bytes (a plan, an ONNX or a TFLite model,
// told apart by their bytes), as text, verbose text and JSON. The CLI prints one of them;
// the Python module returns all three. Failure for bytes that are none of the three.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tigris::cli {

struct Inspection {
  std::string kind;  // "plan", "onnx" or "tflite"
  std::string text, verbose_text;
  nlohmann::ordered_json json;
};

// `file` names the bytes in the report and in messages.
Inspection inspect_bytes(const std::string& file, const std::vector<uint8_t>& bytes);

}  // namespace tigris::cli
