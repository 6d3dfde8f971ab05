#include "compiler/frontend/onnx/onnx_loader.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include "compiler/ir/error.h"

namespace tigris::frontend::onnx {

namespace {

using ir::CompileError;
using ir::ErrorKind;

// The ONNX checker's and shape inference's messages span lines (the checker's "input 'x' of
// node:\nname: ... OpType: ...\n is not output of any previous nodes."): one complete line.
std::string one_line(const std::string& s) {
  std::string line;
  for (const char c : s) {
    const bool space = c == '\n' || c == '\r' || c == ' ' || c == '\t';
    if (space && (line.empty() || line.back() == ' ')) continue;
    line += space ? ' ' : c;
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  return line;
}

void refuse_external_data(const ::onnx::ModelProto& model, const std::string& path) {
  for (const auto& init : model.graph().initializer())
    if (init.data_location() == ::onnx::TensorProto::EXTERNAL)
      throw CompileError(ErrorKind::Unsupported,
                         path + ": initializer '" + init.name() +
                             "' keeps its data in an external file; external data is not supported "
                             "(save the model with its weights inside)",
                         {}, {init.name()});
}

void check(const ::onnx::ModelProto& model, const std::string& path) {
  try {
    ::onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    throw CompileError(ErrorKind::Invalid, path + ": invalid ONNX model: " + one_line(e.what()));
  }
}

}  // namespace

void infer_shapes(::onnx::ModelProto& model, const std::string& path) {
  ::onnx::ModelProto backup = model;
  try {
    ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(),
                                         ::onnx::ShapeInferenceOptions(true, 1, true));
    return;
  } catch (const std::exception&) {
    model = std::move(backup);  // data propagation (or strict mode) failed: retry without
  }
  try {
    ::onnx::shape_inference::InferShapes(model, ::onnx::OpSchemaRegistry::Instance(),
                                         ::onnx::ShapeInferenceOptions(false, 0, false));
  } catch (const std::exception& e) {
    throw CompileError(ErrorKind::Invalid, path + ": shape inference failed: " + one_line(e.what()));
  }
}

ir::Graph load_onnx(const std::vector<uint8_t>& bytes, const std::string& path,
                    const std::vector<InputShape>& input_shapes, std::vector<std::string>& warnings) {
  ::onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
    throw CompileError(ErrorKind::Parse, path + ": not a valid ONNX model (truncated or corrupt protobuf)");
  if (!model.has_graph()) throw CompileError(ErrorKind::Parse, path + ": not a valid ONNX model (no graph)");
  refuse_external_data(model, path);
  check(model, path);
  bind_input_shapes(model, input_shapes, warnings);
  infer_shapes(model, path);
  try {
    if (lower_sequences(model)) infer_shapes(model, path);
  } catch (const CompileError& e) {
    throw CompileError(e.kind(), path + ": " + e.what(), e.ops(), e.tensors());
  }
  fold_static_shapes(model, path);
  ir::Graph graph;
  try {
    graph = import_graph(model);
    require_static_shapes(graph);
  } catch (const CompileError& e) {
    throw CompileError(e.kind(), path + ": " + e.what(), e.ops(), e.tensors());
  }
  if (graph.name.empty()) graph.name = "model";
  return graph;
}

}  // namespace tigris::frontend::onnx
