// Shape arithmetic folded in the ModelProto, so ONNX shape inference sees constants.
//
// Exporters compute extents at run time from Shape: PyTorch writes chunk() as
// Shape -> Gather -> Add -> Div -> Mul feeding Slice bounds. ONNX shape inference cannot see
// through that chain, so the Slice (and all that follows) has no static shape. Each round
// imports the model, folds what is static with the passes' own folding (Shape of a tensor of
// known shape, constant subgraphs: passes/const_fold.cpp), writes the folded values back as
// initializers and infers shapes again, until nothing folds. What still has no static shape is
// reported at the node that stops the folding.
#include <onnx/onnx_pb.h>

#include <set>

#include "compiler/frontend/onnx/onnx_loader.h"
#include "compiler/ir/error.h"
#include "compiler/passes/pipeline.h"

namespace tigris::frontend::onnx {

namespace {

using ir::CompileError;
using ir::ErrorKind;

constexpr int kMaxRounds = 16;

bool complete_type(const ::onnx::ValueInfoProto& vi) {
  if (!vi.type().has_tensor_type() || !vi.type().tensor_type().has_shape()) return false;
  for (const auto& d : vi.type().tensor_type().shape().dim())
    if (!d.has_dim_value() || d.dim_value() < 0) return false;
  return true;
}

// Some node output has no static shape after inference.
bool any_unknown_shape(const ::onnx::GraphProto& g) {
  std::set<std::string> known;
  for (const auto& init : g.initializer()) known.insert(init.name());
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()})
    for (const auto& vi : *list)
      if (complete_type(vi)) known.insert(vi.name());
  for (const auto& n : g.node())
    for (const auto& out : n.output())
      if (!out.empty() && !known.count(out)) return true;
  return false;
}

::onnx::TensorProto to_proto(const ir::Tensor& t) {
  ::onnx::TensorProto p;
  p.set_name(t.name);
  p.set_data_type(static_cast<int32_t>(t.dtype));
  for (int64_t d : t.shape) p.add_dims(d);
  p.set_raw_data(std::string(t.data.begin(), t.data.end()));
  return p;
}

// Shapes the import knows and inference does not (the scan outputs of a Loop with a constant
// trip count: onnx/control_import.cpp) written as value_info, so inference carries them on.
// Returns whether any was written.
bool add_import_shapes(::onnx::GraphProto& graph, const ir::Graph& g) {
  std::set<std::string> complete;
  for (const auto* list : {&graph.input(), &graph.value_info(), &graph.output()})
    for (const auto& vi : *list)
      if (complete_type(vi)) complete.insert(vi.name());
  bool added = false;
  for (const ir::Node& n : g.nodes)
    for (ir::TensorId out : n.outputs) {
      if (out < 0) continue;
      const ir::Tensor& t = g.tensor(out);
      if (!t.shape_known || t.constant || t.dtype == ir::DType::Undefined || complete.count(t.name)) continue;
      ::onnx::ValueInfoProto* vi = nullptr;
      for (auto& v : *graph.mutable_value_info())
        if (v.name() == t.name) vi = &v;
      if (vi == nullptr) vi = graph.add_value_info();
      vi->Clear();
      vi->set_name(t.name);
      auto* tt = vi->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(static_cast<int32_t>(t.dtype));
      auto* shape = tt->mutable_shape();
      for (int64_t d : t.shape) shape->add_dim()->set_dim_value(d);
      complete.insert(t.name);
      added = true;
    }
  return added;
}

// One round: fold on an imported copy, move what folded into the proto. Returns whether any
// node folded or any shape was added.
bool fold_round(::onnx::ModelProto& model) {
  ir::Graph g = import_graph(model);
  std::vector<std::string> names;  // IR node name of each proto node (import keeps the order)
  for (const ir::Node& n : g.nodes) names.push_back(n.name);
  passes::fold_shape_chains(g);
  std::set<std::string> kept;
  for (const ir::Node& n : g.nodes) kept.insert(n.name);

  auto* graph = model.mutable_graph();
  std::set<std::string> initializers;
  for (const auto& init : graph->initializer()) initializers.insert(init.name());
  ::google::protobuf::RepeatedPtrField<::onnx::NodeProto> remaining;
  bool folded = false;
  for (int i = 0; i < graph->node_size(); ++i) {
    const ::onnx::NodeProto& n = graph->node(i);
    if (kept.count(names[static_cast<size_t>(i)])) {
      *remaining.Add() = n;
      continue;
    }
    folded = folded || n.op_type() != "Constant";
    for (const std::string& out : n.output()) {
      ir::TensorId id = out.empty() ? ir::kNoTensor : g.find_tensor(out);
      if (id == ir::kNoTensor || initializers.count(out)) continue;  // nobody reads it
      const ir::Tensor& t = g.tensor(id);
      if (!t.constant) throw CompileError(ErrorKind::Internal, "folded node '" + n.name() + "' left '" + out + "'");
      *graph->add_initializer() = to_proto(t);
      // Before IR 4 shape inference types initializers through the graph inputs only.
      if (model.ir_version() < 4) {
        auto* in = graph->add_input();
        in->set_name(out);
        auto* tt = in->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(static_cast<int32_t>(t.dtype));
        auto* shape = tt->mutable_shape();
        for (int64_t d : t.shape) shape->add_dim()->set_dim_value(d);
      }
    }
  }
  graph->mutable_node()->Swap(&remaining);
  // A value_info of a name now an initializer (one without a shape, say, that inference
  // wrote before the value folded) would hide the initializer's complete type from inference.
  std::set<std::string> now;
  for (const auto& init : graph->initializer()) now.insert(init.name());
  ::google::protobuf::RepeatedPtrField<::onnx::ValueInfoProto> infos;
  infos.Swap(graph->mutable_value_info());
  for (const auto& vi : infos)
    if (!now.count(vi.name()) || initializers.count(vi.name())) *graph->add_value_info() = vi;
  return add_import_shapes(*graph, g) || folded;
}

// ---- what stops the folding ----

bool is_integer(ir::DType t) {
  return t == ir::DType::Int64 || t == ir::DType::Int32 || t == ir::DType::Int16 || t == ir::DType::Int8 ||
         t == ir::DType::UInt8 || t == ir::DType::UInt16 || t == ir::DType::UInt32 || t == ir::DType::UInt64 ||
         t == ir::DType::Bool;
}

std::string node_label(const ir::Node& n) { return n.op + " '" + n.name + "'"; }

// Why tensor `id` (non-constant) is not known at compile time: the node that stops it.
// Walks back through integer (shape-like) values; the node reached that reads run-time data,
// or whose inputs are all constants but that the constant evaluator does not handle, stops it.
std::string stopper(const ir::Graph& g, ir::TensorId id, int depth = 0) {
  const ir::Tensor& t = g.tensor(id);
  int p = g.producer(id);
  if (p < 0) return "model input '" + t.name + "', a run-time value";
  const ir::Node& n = g.nodes[static_cast<size_t>(p)];
  std::vector<ir::TensorId> dynamic;
  for (ir::TensorId in : n.inputs)
    if (in >= 0 && !g.tensor(in).constant) dynamic.push_back(in);
  if (!n.domain.empty()) return node_label(n) + " of domain '" + n.domain + "', which is not evaluated at compile time";
  if (dynamic.empty()) return node_label(n) + ", which the compiler does not evaluate at compile time";
  if (n.op == "Shape" || n.op == "Size") {
    const ir::Tensor& x = g.tensor(n.inputs[0]);
    return node_label(n) + ", whose input '" + x.name + "' has no static shape";
  }
  for (ir::TensorId in : dynamic)
    if (!is_integer(g.tensor(in).dtype) || depth > 64)
      return node_label(n) + ", which reads run-time data '" + g.tensor(in).name + "'";
  return stopper(g, dynamic[0], depth + 1);
}

// Tensors some live node reads or that are model outputs.
std::vector<char> live_tensors(const ir::Graph& g) {
  std::vector<char> live(g.tensors.size(), 0);
  for (ir::TensorId id : g.outputs) live[static_cast<size_t>(id)] = 1;
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const ir::Node& n = g.nodes[i];
    bool used = false;
    for (ir::TensorId o : n.outputs) used = used || (o >= 0 && live[static_cast<size_t>(o)]);
    if (!used) continue;
    for (ir::TensorId in : n.inputs)
      if (in >= 0) live[static_cast<size_t>(in)] = 1;
  }
  return live;
}

// The cause for node `n` (its inputs static, an output not).
std::string cause(const ir::Graph& g, const ir::Node& n) {
  std::string what = node_label(n) + ": its output shape is not static";
  if (!n.domain.empty()) return what + " (operator of domain '" + n.domain + "')";
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    ir::TensorId in = n.inputs[i];
    if (in < 0 || g.tensor(in).constant || !is_integer(g.tensor(in).dtype) || i == 0) continue;
    return what + ": operand '" + g.tensor(in).name + "' is computed at run time; it comes from " + stopper(g, in);
  }
  return what + " (it depends on run-time values)";
}

}  // namespace

void fold_static_shapes(::onnx::ModelProto& model, const std::string& path) {
  for (int round = 0; round < kMaxRounds && any_unknown_shape(model.graph()); ++round) {
    bool folded = false;
    try {
      folded = fold_round(model);
    } catch (const CompileError& e) {
      throw CompileError(e.kind(), path + ": " + e.what(), e.ops(), e.tensors());
    }
    if (!folded) break;
    infer_shapes(model, path);
  }
}

void require_static_shapes(const ir::Graph& g) {
  std::vector<char> live = live_tensors(g);
  std::vector<char> unknown(g.tensors.size(), 0);
  std::vector<std::string> causes, ops;
  for (const ir::Node& n : g.nodes) {
    bool inputs_known = true;
    for (ir::TensorId in : n.inputs)
      if (in >= 0 && unknown[static_cast<size_t>(in)]) inputs_known = false;
    bool out_unknown = false;
    for (ir::TensorId o : n.outputs) {
      if (o < 0 || g.tensor(o).shape_known) continue;
      unknown[static_cast<size_t>(o)] = 1;
      out_unknown = out_unknown || live[static_cast<size_t>(o)];
    }
    if (!out_unknown || !inputs_known) continue;
    causes.push_back(cause(g, n));
    ops.push_back(n.name);
  }
  if (causes.empty()) return;
  std::string msg = causes[0];
  for (size_t i = 1; i < causes.size(); ++i) msg += "; " + causes[i];
  throw CompileError(ErrorKind::Unsupported, msg, ops);
}

}  // namespace tigris::frontend::onnx
