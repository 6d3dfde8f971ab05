// TFLite frontend: a .tflite FlatBuffer (read by export/tflite, our own schema) -> IR graph.
//
// The IR keeps ONNX semantics (spatial operators see channels-first tensors), so every
// rank-3/4 TFLite activation (NHWC / NLC) becomes a channels-first IR tensor and each
// operator is rewritten in those terms (weights re-laid out, axes mapped, explicit
// transposes where an operator depends on TFLite's axis order, e.g. RESHAPE). Boundary
// tensors of rank 3/4 are marked `caller_channels_last`: the layout pass stores them
// channels-last, which is TFLite's own order, so callers pass their NHWC arrays unchanged.
// int8 tensors keep their quantization (per tensor, or per channel for weights).
//
// A model that cannot be converted is refused whole: every reason is listed with the
// operator index and kind. Operator-level reasons become placeholder nodes (marked
// `__unsupported`) so analyze can list them; model-level reasons (several subgraphs, parts
// of the schema the reader does not carry) throw CompileError(Unsupported).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::tflite {
struct Model;
}

namespace tigris::frontend::tflite {

// One reason a model does not convert. operator_index is -1 for model-level reasons.
struct ConversionReason {
  int operator_index = -1;
  std::string kind;          // TFLite operator kind ("SQUARED_DIFFERENCE"), "" for model-level
  std::string reason;        // without the index and kind
  std::string text() const;  // "operator 7 (SQUARED_DIFFERENCE): no conversion" / the reason
};

// Every reason the model does not convert (empty: it converts). Does not throw for a model
// the reader accepted (lenient read).
std::vector<ConversionReason> conversion_reasons(const tigris::tflite::Model& model);

// bytes -> IR graph. `path` names the model in messages. Throws CompileError: Parse (not a
// readable TFLite file), Unsupported (model-level reasons, all listed in one line).
ir::Graph load_tflite(const std::vector<uint8_t>& bytes, const std::string& path, std::vector<std::string>& warnings);

// The same from a model already read (lenient read: uncarried parts are model-level reasons).
ir::Graph import_tflite(const tigris::tflite::Model& model, const std::string& path);

}  // namespace tigris::frontend::tflite
