// Control flow: the graphs of If/While nodes are normalized like the main graph, then the
// constants the runtime cannot copy are made tensors.
//
// The runtime binds a graph's inputs and outputs by copying tensors; a constant is a weight,
// not a tensor. So a constant operand of an If/While, or a constant a subgraph gives as an
// output (an ONNX branch that is one Constant node), is computed by a few exact nodes from a
// one-element run-time tensor at hand (else a run-time operand's first element):
// Sub(c, Mul(Cast(Cast(src, bool), T), 0)) (x - 0 is x for every x, -0 and NaN included),
// for bool Or(c, And(Cast(src, bool), false)). An If's
// branches without a one-element input get the condition as one more operand.
#include <algorithm>

#include "compiler/ir/error.h"
#include "compiler/passes/pipeline.h"

namespace tigris::passes {

namespace {

using ir::CompileError;
using ir::DType;
using ir::ErrorKind;
using ir::Graph;
using ir::Node;
using ir::TensorId;

TensorId new_tensor(Graph& g, const std::string& base, const ir::Shape& shape, DType dtype) {
  ir::Tensor t;
  t.name = g.unique_tensor_name(base);
  t.shape = shape;
  t.dtype = dtype;
  return g.add_tensor(std::move(t));
}

TensorId zero_of(Graph& g, const std::string& base, DType dtype) {
  ir::Tensor t;
  t.name = g.unique_tensor_name(base);
  t.dtype = dtype;
  t.constant = true;
  t.data.assign(ir::dtype_size(dtype), 0);
  return g.add_tensor(std::move(t));
}

Node node(Graph& g, const std::string& op, const std::string& base, std::vector<TensorId> in, TensorId out) {
  Node n;
  n.name = g.unique_node_name(base);
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = {out};
  return n;
}

// Right-aligned broadcast of two shapes whose extents are equal or 1.
ir::Shape broadcast(const ir::Shape& a, const ir::Shape& b) {
  ir::Shape r(std::max(a.size(), b.size()), 1);
  for (size_t i = 0; i < r.size(); ++i) {
    const int64_t x = i < a.size() ? a[a.size() - 1 - i] : 1, y = i < b.size() ? b[b.size() - 1 - i] : 1;
    r[r.size() - 1 - i] = std::max(x, y);
  }
  return r;
}

// Nodes making constant `c` a tensor from `src` (one element, run time); returns the tensor.
TensorId materialize(Graph& g, TensorId c, TensorId src, std::vector<Node>& out) {
  const ir::Tensor ct = g.tensor(c);
  const ir::Tensor st = g.tensor(src);
  const std::string base = ct.name + "_value";
  TensorId b = src;
  if (st.dtype != DType::Bool) {
    b = new_tensor(g, base + "_flag", st.shape, DType::Bool);
    Node cast = node(g, "Cast", base + "_flag", {src}, b);
    cast.attrs.set("to", static_cast<int64_t>(DType::Bool));
    out.push_back(std::move(cast));
  }
  // A constant operand of rank 0 is read as [1] by the runtime (CONSTANT_OPERAND), so
  // rank-0 results are computed as [1]; a result whose shape is not the constant's (src of
  // a higher rank) is reshaped to it (the same elements: src has one).
  const ir::Shape small = st.rank() == 0 ? ir::Shape{1} : st.shape;
  const ir::Shape wide = broadcast(ct.rank() == 0 ? ir::Shape{1} : ct.shape, small);
  TensorId value = new_tensor(g, base, wide, ct.dtype);
  if (ct.dtype == DType::Bool) {
    TensorId off = new_tensor(g, base + "_off", small, DType::Bool);
    out.push_back(node(g, "And", base + "_off", {b, zero_of(g, base + "_false", DType::Bool)}, off));
    out.push_back(node(g, "Or", base, {c, off}, value));
  } else {
    TensorId num = new_tensor(g, base + "_num", st.shape, ct.dtype);
    Node to_num = node(g, "Cast", base + "_num", {b}, num);
    to_num.attrs.set("to", static_cast<int64_t>(ct.dtype));
    out.push_back(std::move(to_num));
    TensorId zero = new_tensor(g, base + "_zero", small, ct.dtype);
    out.push_back(node(g, "Mul", base + "_zero", {num, zero_of(g, base + "_0", ct.dtype)}, zero));
    out.push_back(node(g, "Sub", base, {c, zero}, value));
  }
  if (wide == ct.shape) return value;
  TensorId scalar = new_tensor(g, base + "_scalar", ct.shape, ct.dtype);
  out.push_back(node(g, "Reshape", base + "_scalar", {value}, scalar));
  return scalar;
}

bool one_element(const Graph& g, TensorId id) {
  return id >= 0 && !g.tensor(id).constant && g.tensor(id).shape_known && g.tensor(id).elements() == 1;
}

TensorId one_element_input(const Graph& g) {
  for (TensorId id : g.inputs)
    if (one_element(g, id)) return id;
  return ir::kNoTensor;
}

// A one-element run-time tensor from run-time operand x of any size: its first element
// (Reshape to [N], Gather of index 0). Which element does not matter: materialize reads only
// that the tensor exists.
TensorId first_element(Graph& g, TensorId x, std::vector<Node>& out) {
  const ir::Tensor xt = g.tensor(x);
  TensorId flat = new_tensor(g, xt.name + "_flat", {xt.elements()}, xt.dtype);
  out.push_back(node(g, "Reshape", xt.name + "_flat", {x}, flat));
  ir::Tensor index;
  index.name = g.unique_tensor_name(xt.name + "_first_index");
  index.dtype = DType::Int64;
  index.shape = {1};
  index.constant = true;
  index.data.assign(8, 0);
  const TensorId at = g.add_tensor(std::move(index));
  TensorId first = new_tensor(g, xt.name + "_first", {1}, xt.dtype);
  Node gather = node(g, "Gather", xt.name + "_first", {flat, at}, first);
  gather.attrs.set("axis", int64_t{0});
  out.push_back(std::move(gather));
  return first;
}

// Constant outputs of `sub` become tensors computed at its start.
void materialize_outputs(Graph& sub, TensorId src) {
  std::vector<Node> made;
  for (TensorId& out : sub.outputs) {
    if (!sub.tensor(out).constant) continue;
    TensorId value = materialize(sub, out, src, made);
    sub.tensor(value).name = sub.tensor(out).name;  // the graph's output keeps its name
    sub.tensor(out).name = sub.unique_tensor_name(sub.tensor(out).name + "_constant");
    out = value;
  }
  sub.nodes.insert(sub.nodes.begin(), made.begin(), made.end());
}

bool has_constant_output(const Graph& g) {
  return std::any_of(g.outputs.begin(), g.outputs.end(), [&](TensorId id) { return g.tensor(id).constant; });
}

// An If whose branch needs a one-element input and has none: pass the condition too.
void give_branches_the_condition(Graph& g, Node& n) {
  const TensorId cond = n.inputs.at(0);
  n.inputs.push_back(cond);
  for (int k : ir::control_graphs(n)) {
    Graph& sub = g.subgraphs.at(static_cast<size_t>(k));
    ir::Tensor t = g.tensor(cond);
    t.name = sub.unique_tensor_name(t.name);
    sub.inputs.push_back(sub.add_tensor(std::move(t)));
  }
}

void materialize_node(Graph& g, size_t index, std::vector<Node>& before) {
  Node& n = g.nodes[index];
  if (n.attrs.has("__unsupported")) return;  // reported by lowering
  const std::vector<int> graphs = ir::control_graphs(n);
  for (int k : graphs)
    if (k < 0 || static_cast<size_t>(k) >= g.subgraphs.size())
      throw CompileError(ErrorKind::Internal, n.op + " '" + n.name + "': no such subgraph", {n.name});
  // Operands: from a one-element run-time operand of the node.
  TensorId src = ir::kNoTensor;
  for (TensorId id : n.inputs)
    if (one_element(g, id)) src = src == ir::kNoTensor ? id : src;
  // None: the first element of a run-time operand, when a constant needs one.
  const auto needs_source = [&](TensorId id) { return id >= 0 && g.tensor(id).constant; };
  if (src == ir::kNoTensor && std::any_of(n.inputs.begin(), n.inputs.end(), needs_source))
    for (TensorId id : n.inputs)
      if (id >= 0 && !g.tensor(id).constant && g.tensor(id).shape_known && g.tensor(id).elements() > 0) {
        src = first_element(g, id, before);
        break;
      }
  for (TensorId& id : n.inputs) {
    if (id < 0 || !g.tensor(id).constant) continue;
    if (src == ir::kNoTensor)
      throw CompileError(ErrorKind::Unsupported,
                         n.op + " '" + n.name + "': operand '" + g.tensor(id).name +
                             "' is a constant and no one-element run-time operand can carry it",
                         {n.name}, {g.tensor(id).name});
    id = materialize(g, id, src, before);
  }
  // Outputs of its graphs.
  for (int k : graphs) fold_constant_outputs(g.subgraphs[static_cast<size_t>(k)]);
  bool needs = false;
  for (int k : graphs) needs = needs || has_constant_output(g.subgraphs[static_cast<size_t>(k)]);
  if (!needs) return;
  if (n.op == "If") {
    bool all_have = true;
    for (int k : graphs) all_have = all_have && one_element_input(g.subgraphs[static_cast<size_t>(k)]) >= 0;
    if (!all_have) give_branches_the_condition(g, n);
  }
  for (int k : graphs) {
    Graph& sub = g.subgraphs[static_cast<size_t>(k)];
    if (!has_constant_output(sub)) continue;
    TensorId from = one_element_input(sub);
    if (from < 0)
      throw CompileError(ErrorKind::Unsupported,
                         n.op + " '" + n.name + "': a graph gives a constant and has no one-element input to carry it",
                         {n.name});
    materialize_outputs(sub, from);
  }
}

}  // namespace

void materialize_control_constants(Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    if (!ir::is_control_flow(g.nodes[i])) continue;
    std::vector<Node> before;
    materialize_node(g, i, before);
    g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i), before.begin(), before.end());
    i += before.size();
  }
}

}  // namespace tigris::passes
