// ModelProto -> IR graph: tensors (initializers as constants), nodes, attributes.
#include <onnx/onnx_pb.h>

#include <map>
#include <set>

#include "compiler/frontend/onnx/importer.h"
#include "compiler/frontend/onnx/onnx_loader.h"
#include "compiler/frontend/onnx/tensor_proto.h"
#include "compiler/ir/error.h"

namespace tigris::frontend::onnx {

namespace {

using ir::CompileError;
using ir::ErrorKind;

std::string node_name(const ::onnx::NodeProto& n, size_t index, std::set<std::string>& used) {
  std::string base = n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
  std::string name = base;
  for (int i = 1; used.count(name); ++i) name = base + "_" + std::to_string(i);
  used.insert(name);
  return name;
}

int64_t default_opset(const ::onnx::ModelProto& model) {
  for (const auto& op : model.opset_import())
    if (op.domain().empty() || op.domain() == "ai.onnx") return op.version();
  return 0;
}

}  // namespace

ir::Attribute convert_attribute(const ::onnx::AttributeProto& a) {
  using A = ::onnx::AttributeProto;
  switch (a.type()) {
  case A::INT: return a.i();
  case A::FLOAT: return a.f();
  case A::STRING: return a.s();
  case A::INTS: return std::vector<int64_t>(a.ints().begin(), a.ints().end());
  case A::FLOATS: return std::vector<float>(a.floats().begin(), a.floats().end());
  case A::STRINGS: return std::vector<std::string>(a.strings().begin(), a.strings().end());
  case A::TENSOR: return tensor_from_proto(a.t());
  default:
    // Graphs of nodes other than If/Loop (Scan) and sparse tensors: the node is reported unsupported.
    return std::string("<unsupported attribute>");
  }
}

Importer::Importer(const ::onnx::GraphProto& graph_proto, Importer* outer) : g(graph_proto), parent(outer) {
  for (const auto& vi : g.input()) local.insert(vi.name());
  for (const auto& init : g.initializer()) local.insert(init.name());
  for (const auto& n : g.node())
    for (const auto& out : n.output()) local.insert(out);
  if (parent) {
    graph.format = parent->graph.format;
    graph.opset = parent->graph.opset;
  }
}

void Importer::collect_types() {
  for (const auto& vi : g.input()) types[vi.name()] = &vi.type();
  for (const auto& vi : g.value_info()) types[vi.name()] = &vi.type();
  for (const auto& vi : g.output()) types[vi.name()] = &vi.type();
}

// Fill dtype/shape of an activation from the inferred type, if known.
void Importer::apply_type(ir::Tensor& t) {
  auto it = types.find(t.name);
  if (it == types.end() || !it->second->has_tensor_type()) {
    t.shape_known = false;
    t.dtype = ir::DType::Undefined;
    return;
  }
  const auto& tt = it->second->tensor_type();
  t.dtype = ir::dtype_from_code(tt.elem_type());
  t.shape_known = tt.has_shape();
  if (!tt.has_shape()) return;
  for (const auto& dim : tt.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      t.shape.push_back(dim.dim_value());
    } else {
      t.shape_known = false;
      t.shape.push_back(1);
    }
  }
}

ir::TensorId Importer::activation(const std::string& name) {
  auto it = ids.find(name);
  if (it != ids.end()) return it->second;
  if (parent != nullptr && !local.count(name)) {
    const ir::TensorId outer = parent->activation(name);
    ir::Tensor t = parent->graph.tensor(outer);  // its type (and value, for a constant)
    const ir::TensorId id = graph.add_tensor(std::move(t));
    ids[name] = id;
    if (!graph.tensor(id).constant) captures.emplace_back(name, id);
    return id;
  }
  ir::Tensor t;
  t.name = name;
  apply_type(t);
  ir::TensorId id = graph.add_tensor(std::move(t));
  ids[name] = id;
  return id;
}

void Importer::import_initializers() {
  for (const auto& init : g.initializer()) {
    ir::TensorValue v = tensor_from_proto(init);
    ir::Tensor t;
    t.name = init.name();
    t.dtype = v.dtype;
    t.shape = v.shape;
    t.constant = true;
    t.data = std::move(v.data);
    std::string name = t.name;
    ids[name] = graph.add_tensor(std::move(t));
  }
}

void Importer::import_io() {
  for (const auto& vi : g.input()) {
    if (ids.count(vi.name()) && graph.tensor(ids[vi.name()]).constant) continue;  // initializer default
    graph.inputs.push_back(activation(vi.name()));
  }
  for (const auto& vi : g.output()) graph.outputs.push_back(activation(vi.name()));
}

void Importer::import_nodes() {
  std::set<std::string> used;
  for (int i = 0; i < g.node_size(); ++i) {
    const auto& n = g.node(i);
    ir::Node node;
    node.name = node_name(n, static_cast<size_t>(i), used);
    node.op = n.op_type();
    node.domain = n.domain() == "ai.onnx" ? "" : n.domain();
    if (!import_control(n, node)) {
      for (const auto& in : n.input()) node.inputs.push_back(in.empty() ? ir::kNoTensor : activation(in));
      for (const auto& out : n.output()) node.outputs.push_back(out.empty() ? ir::kNoTensor : activation(out));
      while (!node.outputs.empty() && node.outputs.back() == ir::kNoTensor) node.outputs.pop_back();
      for (const auto& a : n.attribute()) {
        if (a.type() == ::onnx::AttributeProto::GRAPH || a.type() == ::onnx::AttributeProto::GRAPHS)
          node.attrs.set("__subgraph", int64_t{1});
        node.attrs.set(a.name(), convert_attribute(a));
      }
    }
    graph.nodes.push_back(std::move(node));
  }
}

void Importer::import_body() {
  graph.name = g.name();
  collect_types();
  import_initializers();
  import_io();
  import_nodes();
}

ir::Graph import_graph(const ::onnx::ModelProto& model) {
  Importer im(model.graph());
  im.graph.name = model.graph().name();
  im.graph.format = "onnx";
  im.graph.opset = default_opset(model);
  im.graph.source_operators = static_cast<uint32_t>(model.graph().node_size());
  im.collect_types();
  im.import_initializers();
  im.import_io();
  im.import_nodes();
  return std::move(im.graph);
}

}  // namespace tigris::frontend::onnx
