// ONNX frontend: bytes -> checked, shape-inferred ModelProto -> IR graph.
//
// Steps: parse; refuse external data; onnx::checker; bind free input dimensions (to
// --input-shape, else 1 with a warning naming the input, axis and symbol); shape inference
// with data propagation (retried without it); import initializers as constant tensors,
// nodes with their attributes, inputs and outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace onnx {
class ModelProto;
}

namespace tigris::frontend::onnx {

struct InputShape {
  std::string name;
  std::vector<int64_t> dims;
};

// `path` names the model in messages. Warnings are appended to `warnings`.
ir::Graph load_onnx(const std::vector<uint8_t>& bytes, const std::string& path,
                    const std::vector<InputShape>& input_shapes, std::vector<std::string>& warnings);

// Bind every free (symbolic, unknown or non-positive) dimension of the model's inputs.
void bind_input_shapes(::onnx::ModelProto& model, const std::vector<InputShape>& input_shapes,
                       std::vector<std::string>& warnings);

// ModelProto (checked and shape-inferred) -> IR.
ir::Graph import_graph(const ::onnx::ModelProto& model);

}  // namespace tigris::frontend::onnx
