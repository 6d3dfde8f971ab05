// ONNX frontend: bytes -> checked, shape-inferred ModelProto -> IR graph.
//
// Steps: parse; refuse external data; onnx::checker; bind free input dimensions (to
// --input-shape, else 1 with a warning naming the input, axis and symbol); shape inference
// with data propagation (retried without it); static computations folded and shapes inferred
// again until nothing folds; import initializers as constant tensors, nodes with their
// attributes, inputs and outputs; every needed shape static, else the node that stops it named.
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

// ONNX shape inference with data propagation (retried without); CompileError(Invalid) naming `path`.
void infer_shapes(::onnx::ModelProto& model, const std::string& path);

// Fold static computations (shape arithmetic included) into initializers and infer shapes
// again, until nothing folds (static_shapes.cpp).
void fold_static_shapes(::onnx::ModelProto& model, const std::string& path);

// CompileError(Unsupported) when a tensor the model needs has no static shape, naming the
// node where static shapes stop and what stops them (the run-time operand's source).
void require_static_shapes(const ir::Graph& graph);

// Sequence and optional values of static length and presence -> lists of tensors, the
// sequence operators -> tensor operators (sequence_lowering.cpp); true when the model changed.
// CompileError(Unsupported), one line naming the node, for what is not static.
bool lower_sequences(::onnx::ModelProto& model);

// ModelProto (checked and shape-inferred) -> IR.
ir::Graph import_graph(const ::onnx::ModelProto& model);

}  // namespace tigris::frontend::onnx
