#include <onnx/onnx_pb.h>

#include <set>

#include "compiler/frontend/onnx/onnx_loader.h"
#include "compiler/ir/error.h"

namespace tigris::frontend::onnx {

namespace {

using ir::CompileError;
using ir::ErrorKind;

std::set<std::string> initializer_names(const ::onnx::GraphProto& g) {
  std::set<std::string> names;
  for (const auto& init : g.initializer()) names.insert(init.name());
  return names;
}

const InputShape* find_binding(const std::vector<InputShape>& shapes, const std::string& name) {
  for (const auto& s : shapes)
    if (s.name == name) return &s;
  return nullptr;
}

void bind_one(::onnx::ValueInfoProto& input, const InputShape* binding, std::vector<std::string>& warnings) {
  auto* tensor_type = input.mutable_type()->mutable_tensor_type();
  auto* shape = tensor_type->mutable_shape();
  const std::string& name = input.name();
  if (binding && static_cast<int>(binding->dims.size()) != shape->dim_size())
    throw CompileError(ErrorKind::Usage,
                       "--input-shape " + name + " gives " + std::to_string(binding->dims.size()) +
                           " dimensions; the input has " + std::to_string(shape->dim_size()),
                       {}, {name});
  for (int axis = 0; axis < shape->dim_size(); ++axis) {
    auto* dim = shape->mutable_dim(axis);
    bool fixed = dim->has_dim_value() && dim->dim_value() > 0;
    if (binding) {
      int64_t want = binding->dims[static_cast<size_t>(axis)];
      if (fixed && dim->dim_value() != want)
        throw CompileError(ErrorKind::Usage,
                           "--input-shape " + name + " sets axis " + std::to_string(axis) + " to " +
                               std::to_string(want) + "; the model fixes it to " + std::to_string(dim->dim_value()),
                           {}, {name});
      dim->set_dim_value(want);
      continue;
    }
    if (fixed) continue;
    std::string symbol = dim->has_dim_param() && !dim->dim_param().empty() ? " (" + dim->dim_param() + ")" : "";
    warnings.push_back("input '" + name + "' axis " + std::to_string(axis) + symbol +
                       " is unset; using 1 (--input-shape overrides)");
    dim->set_dim_value(1);
  }
}

}  // namespace

void bind_input_shapes(::onnx::ModelProto& model, const std::vector<InputShape>& input_shapes,
                       std::vector<std::string>& warnings) {
  auto* graph = model.mutable_graph();
  std::set<std::string> inits = initializer_names(*graph);
  std::set<std::string> inputs;
  for (auto& input : *graph->mutable_input()) {
    if (inits.count(input.name())) continue;
    inputs.insert(input.name());
    if (!input.type().has_tensor_type())
      throw CompileError(ErrorKind::Unsupported, "input '" + input.name() + "' is not a tensor", {}, {input.name()});
    if (!input.type().tensor_type().has_shape())
      throw CompileError(ErrorKind::Invalid, "input '" + input.name() + "' declares no shape; its rank is unknown", {},
                         {input.name()});
    bind_one(input, find_binding(input_shapes, input.name()), warnings);
  }
  for (const auto& s : input_shapes)
    if (!inputs.count(s.name))
      throw CompileError(ErrorKind::Usage, "--input-shape names '" + s.name + "', which is not a model input", {},
                         {s.name});
}

}  // namespace tigris::frontend::onnx
