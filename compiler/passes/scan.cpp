// ONNX Scan unrolled over its sequence (static shapes: the sequence length is an extent).
//
// Step t runs a copy of the body: state inputs are the previous step's state outputs (the
// initial states first), scan inputs the slice t of each scan input (Gather at index t along
// axis 0), captured outer values themselves. Scan outputs are the steps' outputs, each
// reshaped to a leading extent of 1 and concatenated along axis 0; the final states are the
// last step's. Scan inputs and outputs along other axes or in reverse are refused.
#include <algorithm>
#include <cstring>

#include "compiler/ir/error.h"
#include "compiler/passes/pipeline.h"

namespace tigris::passes {

namespace {

using ir::Graph;
using ir::Node;
using ir::TensorId;

bool all_zero(const std::vector<int64_t>& v) {
  return std::all_of(v.begin(), v.end(), [](int64_t x) { return x == 0; });
}

TensorId int64_constant(Graph& g, const std::string& base, const std::vector<int64_t>& values, ir::Shape shape) {
  ir::Tensor t;
  t.name = g.unique_tensor_name(base);
  t.dtype = ir::DType::Int64;
  t.shape = std::move(shape);
  t.constant = true;
  t.data.resize(values.size() * 8);
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return g.add_tensor(std::move(t));
}

Node make(Graph& g, const std::string& op, const std::string& base, std::vector<TensorId> in,
          std::vector<TensorId> out) {
  Node n;
  n.name = g.unique_node_name(base);
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  return n;
}

// The reason node n (a Scan) cannot be unrolled, or "".
std::string refusal(const Graph& g, const Node& n, const Graph& body, size_t scans, size_t captures) {
  if (!all_zero(n.attrs.get_ints("scan_input_axes")) || !all_zero(n.attrs.get_ints("scan_output_axes")))
    return "scan axes other than 0";
  if (!all_zero(n.attrs.get_ints("scan_input_directions")) || !all_zero(n.attrs.get_ints("scan_output_directions")))
    return "reverse scan directions";
  if (scans == 0 || n.inputs.size() < scans + captures) return "no scan input";
  const size_t states = n.inputs.size() - scans - captures;
  if (body.inputs.size() != n.inputs.size() || body.outputs.size() != n.outputs.size() || body.outputs.size() < states)
    return "body inputs or outputs do not match the node's";
  for (TensorId id : n.inputs)
    if (id < 0 || !g.tensor(id).shape_known) return "an operand shape is not static";
  return "";
}

// Unroll node `index`; returns the nodes replacing it.
std::vector<Node> unroll(Graph& g, const Node& n, const Graph& body, size_t scans, size_t captures) {
  const size_t states = n.inputs.size() - scans - captures;
  const int64_t steps = g.tensor(n.inputs[states]).shape.at(0);
  std::vector<Node> out;
  std::vector<TensorId> state(n.inputs.begin(), n.inputs.begin() + static_cast<std::ptrdiff_t>(states));
  std::vector<std::vector<TensorId>> scanned(body.outputs.size() - states);
  for (int64_t t = 0; t < steps; ++t) {
    const std::string step = n.name + "_step" + std::to_string(t);
    std::vector<TensorId> map(body.tensors.size(), ir::kNoTensor);
    auto copy = [&](TensorId id) {
      if (map[static_cast<size_t>(id)] != ir::kNoTensor) return map[static_cast<size_t>(id)];
      ir::Tensor c = body.tensor(id);
      c.name = g.unique_tensor_name(step + "_" + c.name);
      return map[static_cast<size_t>(id)] = g.add_tensor(std::move(c));
    };
    for (size_t s = 0; s < states; ++s) map[static_cast<size_t>(body.inputs[s])] = state[s];
    for (size_t k = 0; k < captures; ++k)
      map[static_cast<size_t>(body.inputs[states + scans + k])] = n.inputs[states + scans + k];
    for (size_t m = 0; m < scans; ++m) {
      const TensorId slice = copy(body.inputs[states + m]);
      Node gather = make(g, "Gather", step + "_slice", {n.inputs[states + m], int64_constant(g, step + "_t", {t}, {})},
                         {slice});
      gather.attrs.set("axis", int64_t{0});
      out.push_back(std::move(gather));
    }
    for (const Node& bn : body.nodes) {
      Node c = bn;
      c.name = g.unique_node_name(step + "_" + bn.name);
      for (TensorId& id : c.inputs)
        if (id >= 0) id = copy(id);
      for (TensorId& id : c.outputs)
        if (id >= 0) id = copy(id);
      out.push_back(std::move(c));
    }
    for (size_t s = 0; s < states; ++s) state[s] = copy(body.outputs[s]);
    for (size_t k = 0; k < scanned.size(); ++k) {
      const TensorId y = copy(body.outputs[states + k]);
      ir::Shape shape = g.tensor(y).shape;
      shape.insert(shape.begin(), 1);
      ir::Tensor row = g.tensor(y);
      row.name = g.unique_tensor_name(step + "_row" + std::to_string(k));
      row.shape = shape;
      row.constant = false;
      row.data.clear();
      const TensorId r = g.add_tensor(std::move(row));
      out.push_back(make(g, "Reshape", step + "_row", {y, int64_constant(g, step + "_shape", shape, {(int64_t)shape.size()})},
                         {r}));
      scanned[k].push_back(r);
    }
  }
  for (size_t s = 0; s < states; ++s)
    if (n.outputs[s] >= 0) out.push_back(make(g, "Identity", n.name + "_final", {state[s]}, {n.outputs[s]}));
  for (size_t k = 0; k < scanned.size(); ++k) {
    if (n.outputs[states + k] < 0) continue;
    Node concat = make(g, "Concat", n.name + "_scan", scanned[k], {n.outputs[states + k]});
    concat.attrs.set("axis", int64_t{0});
    out.push_back(std::move(concat));
  }
  return out;
}

}  // namespace

void unroll_scans(ir::Graph& g) {
  std::vector<char> unrolled(g.subgraphs.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node n = g.nodes[i];
    if (n.op != "Scan" || !n.domain.empty() || !n.attrs.has("body_graph")) continue;
    const size_t k = static_cast<size_t>(n.attrs.get_int("body_graph", -1));
    if (k >= g.subgraphs.size()) continue;
    const size_t scans = static_cast<size_t>(n.attrs.get_int("num_scan_inputs", 0));
    const size_t captures = static_cast<size_t>(n.attrs.get_int("captures", 0));
    const std::string why = refusal(g, n, g.subgraphs[k], scans, captures);
    if (!why.empty()) {
      g.nodes[i].attrs.set("__unsupported", "Scan: " + why);
      continue;
    }
    std::vector<Node> with = unroll(g, n, g.subgraphs[k], scans, captures);
    g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(i));
    g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i), with.begin(), with.end());
    i += with.size();
    --i;
    unrolled[k] = 1;
  }
  // Drop the unrolled bodies; renumber the graphs the remaining nodes name.
  std::vector<int64_t> number(g.subgraphs.size(), -1);
  std::vector<Graph> kept;
  for (size_t k = 0; k < g.subgraphs.size(); ++k) {
    if (unrolled[k]) continue;
    number[k] = static_cast<int64_t>(kept.size());
    kept.push_back(std::move(g.subgraphs[k]));
  }
  g.subgraphs = std::move(kept);
  for (Node& n : g.nodes)
    for (const char* attr : {"then_graph", "else_graph", "cond_graph", "body_graph"})
      if (n.attrs.has(attr)) {
        const int64_t old = n.attrs.get_int(attr, -1);
        if (old >= 0 && static_cast<size_t>(old) < number.size()) n.attrs.set(attr, number[static_cast<size_t>(old)]);
      }
}

}  // namespace tigris::passes
