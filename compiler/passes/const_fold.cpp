// Constant nodes and constant subgraphs become weights; Shape of a static tensor is a constant.
#include <algorithm>

#include "compiler/ir/error.h"
#include "compiler/passes/const_eval.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

constexpr uint64_t kMaxFoldedBytes = 64ull << 20;  // do not materialize huge constants

std::optional<Value> constant_attribute(const ir::Node& n) {
  const auto& a = n.attrs;
  if (const ir::TensorValue* tv = a.get_tensor("value")) {
    ir::Tensor t;
    t.dtype = tv->dtype;
    t.shape = tv->shape;
    t.data = tv->data;
    return value_of(t);
  }
  if (a.has("value_float")) return Value{ir::DType::Float32, {}, {a.get_float("value_float", 0)}};
  if (a.has("value_int")) return Value{ir::DType::Int64, {}, {static_cast<double>(a.get_int("value_int", 0))}};
  if (a.has("value_floats")) {
    std::vector<float> f = a.get_floats("value_floats");
    return Value{ir::DType::Float32, {static_cast<int64_t>(f.size())}, std::vector<double>(f.begin(), f.end())};
  }
  if (a.has("value_ints")) {
    std::vector<int64_t> i = a.get_ints("value_ints");
    Value v{ir::DType::Int64, {static_cast<int64_t>(i.size())}, {}};
    for (int64_t x : i) v.v.push_back(static_cast<double>(x));
    return v;
  }
  return std::nullopt;
}

void make_constant(ir::Tensor& t, const Value& v) {
  t.constant = true;
  t.dtype = v.dtype;
  t.shape = v.shape;
  t.shape_known = true;
  t.data = encode_value(v);
}

// Values of a node's outputs when it can be folded, else nullopt. Nodes writing a graph
// output are left alone unless `outputs_too` (the model's outputs keep their producers).
std::optional<std::vector<Value>> fold(const ir::Graph& g, const ir::Node& n, bool outputs_too = false) {
  if (n.outputs.empty()) return std::nullopt;
  for (ir::TensorId out : n.outputs)
    if (out < 0 || (g.is_output(out) && !outputs_too)) return std::nullopt;
  if (n.op == "Constant" && n.domain.empty()) {
    std::optional<Value> v = constant_attribute(n);
    if (!v) return std::nullopt;
    return std::vector<Value>{*v};
  }
  std::vector<std::optional<Value>> inputs;
  for (ir::TensorId in : n.inputs) {
    if (in < 0) {
      inputs.emplace_back(std::nullopt);
      continue;
    }
    if (!g.tensor(in).constant) return std::nullopt;
    inputs.emplace_back(value_of(g.tensor(in)));
  }
  if (inputs.empty()) return std::nullopt;
  std::optional<std::vector<Value>> r = evaluate(n, inputs, g.opset);
  if (!r || r->size() < n.outputs.size()) return std::nullopt;
  for (const Value& v : *r)
    if (v.v.size() * ir::dtype_size(v.dtype) > kMaxFoldedBytes) return std::nullopt;
  return r;
}

}  // namespace

void fold_constants(ir::Graph& g) {
  std::vector<char> remove(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    std::optional<std::vector<Value>> values = fold(g, n);
    if (!values) continue;
    for (size_t k = 0; k < n.outputs.size(); ++k) make_constant(g.tensor(n.outputs[k]), (*values)[k]);
    remove[i] = 1;
  }
  erase_nodes(g, remove);
  g.compact();
}

void fold_constant_outputs(ir::Graph& g) {
  std::vector<char> remove(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (std::none_of(n.outputs.begin(), n.outputs.end(), [&](ir::TensorId o) { return o >= 0 && g.is_output(o); }))
      continue;
    std::optional<std::vector<Value>> values = fold(g, n, true);
    if (!values) continue;
    for (size_t k = 0; k < n.outputs.size(); ++k) make_constant(g.tensor(n.outputs[k]), (*values)[k]);
    remove[i] = 1;
  }
  erase_nodes(g, remove);
  g.compact();
}

void fold_shape_chains(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if (!n.domain.empty() || (n.op != "Shape" && n.op != "Size") || n.inputs.empty()) continue;
    const ir::Tensor& x = g.tensor(n.inputs[0]);
    // A graph output too (here, before the layout pass, the shape is in the model's order);
    // fold_constants leaves it a Constant node, produce_constant_outputs folds it.
    if (!x.shape_known || n.outputs.empty()) continue;
    Value v{ir::DType::Int64, {}, {}};
    if (n.op == "Size") {
      v.v = {static_cast<double>(x.elements())};
    } else {
      int64_t rank = x.rank();
      int64_t start = n.attrs.get_int("start", 0), end = n.attrs.get_int("end", rank);
      if (start < 0) start += rank;
      if (end < 0) end += rank;
      start = std::clamp<int64_t>(start, 0, rank);
      end = std::clamp<int64_t>(end, start, rank);
      for (int64_t d = start; d < end; ++d) v.v.push_back(static_cast<double>(x.shape[static_cast<size_t>(d)]));
      v.shape = {end - start};
    }
    // Turn the node into a Constant; fold_constants materializes it with the rest of the chain.
    ir::TensorValue tv{v.dtype, v.shape, encode_value(v)};
    n.op = "Constant";
    n.inputs.clear();
    n.attrs = {};
    n.attrs.set("value", tv);
  }
  fold_constants(g);
}

void produce_constant_outputs(ir::Graph& g) {
  fold_constant_outputs(g);
  std::vector<ir::Node> made;
  for (ir::TensorId& out : g.outputs) {
    if (out < 0 || !g.tensor(out).constant) continue;
    ir::Tensor value = g.tensor(out);
    const std::string name = value.name;
    if (!ir::dtype_storable(value.dtype))
      throw ir::CompileError(ir::ErrorKind::Unsupported,
                             "graph output '" + name + "' is a constant of " + ir::dtype_name(value.dtype) +
                                 " data (plans do not hold that dtype)",
                             {}, {name});
    if (value.elements() == 0)
      throw ir::CompileError(ir::ErrorKind::Unsupported,
                             "graph output '" + name + "' is a constant with no elements (plans hold no zero-size tensors)",
                             {}, {name});
    // A TFLite caller reads rank-3/4 outputs channels-last; the constant is in the IR's
    // channels-first order, and this path writes no transposed copy.
    if (value.caller_channels_last && (value.rank() == 3 || value.rank() == 4))
      throw ir::CompileError(ir::ErrorKind::Unsupported,
                             "graph output '" + name + "' is a rank-" + std::to_string(value.rank()) +
                                 " constant of a TFLite model (a channels-last constant output is not written)",
                             {}, {name});
    // The constant keeps its data under a new name; the output, a run-time tensor in the
    // model's axis order, keeps the name and is written by a Constant node reading it.
    ir::Tensor& c = g.tensor(out);
    c.name = g.unique_tensor_name(name + "_value");
    c.layout = ir::Layout::Model;
    value.constant = false;
    value.data.clear();
    value.layout = ir::Layout::Model;
    value.shape_known = true;
    const ir::TensorId from = out;
    out = g.add_tensor(std::move(value));
    ir::Node n;
    n.name = g.unique_node_name(name + "_constant");
    n.op = "Constant";
    n.inputs = {from};
    n.outputs = {out};
    made.push_back(std::move(n));
  }
  g.nodes.insert(g.nodes.end(), made.begin(), made.end());
}

}  // namespace tigris::passes
