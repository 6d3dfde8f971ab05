#include "compiler/ir/graph.h"

#include <algorithm>

namespace tigris::ir {

TensorId Graph::add_tensor(Tensor t) {
  tensors.push_back(std::move(t));
  return static_cast<TensorId>(tensors.size() - 1);
}

std::string Graph::unique_tensor_name(const std::string& base) const {
  if (find_tensor(base) == kNoTensor) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (find_tensor(candidate) == kNoTensor) return candidate;
  }
}

std::string Graph::unique_node_name(const std::string& base) const {
  auto taken = [&](const std::string& n) {
    return std::any_of(nodes.begin(), nodes.end(), [&](const Node& node) { return node.name == n; });
  };
  if (!taken(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!taken(candidate)) return candidate;
  }
}

TensorId Graph::find_tensor(const std::string& name) const {
  for (size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return static_cast<TensorId>(i);
  return kNoTensor;
}

std::vector<TensorId> Graph::run_inputs() const {
  std::vector<TensorId> ids = inputs;
  for (const StateVar& v : state) ids.push_back(v.input);
  return ids;
}

std::vector<TensorId> Graph::run_outputs() const {
  std::vector<TensorId> ids = outputs;
  for (const StateVar& v : state)
    if (v.output != kNoTensor) ids.push_back(v.output);
  return ids;
}

bool Graph::is_input(TensorId id) const {
  if (std::find(inputs.begin(), inputs.end(), id) != inputs.end()) return true;
  return std::any_of(state.begin(), state.end(), [&](const StateVar& v) { return v.input == id; });
}

bool Graph::is_output(TensorId id) const {
  if (std::find(outputs.begin(), outputs.end(), id) != outputs.end()) return true;
  return std::any_of(state.begin(), state.end(), [&](const StateVar& v) { return v.output == id; });
}

bool Graph::is_state(TensorId id) const {
  return id != kNoTensor &&
         std::any_of(state.begin(), state.end(), [&](const StateVar& v) { return v.input == id || v.output == id; });
}

int Graph::producer(TensorId id) const {
  for (size_t n = 0; n < nodes.size(); ++n)
    for (TensorId out : nodes[n].outputs)
      if (out == id) return static_cast<int>(n);
  return -1;
}

std::vector<int> Graph::consumers(TensorId id) const {
  std::vector<int> result;
  for (size_t n = 0; n < nodes.size(); ++n) {
    const auto& in = nodes[n].inputs;
    if (std::find(in.begin(), in.end(), id) != in.end()) result.push_back(static_cast<int>(n));
  }
  return result;
}

void Graph::replace_uses(TensorId from, TensorId to) {
  for (Node& node : nodes)
    for (TensorId& in : node.inputs)
      if (in == from) in = to;
}

void Graph::compact() {
  std::vector<char> used(tensors.size(), 0);
  auto mark = [&](TensorId id) {
    if (id >= 0) used[static_cast<size_t>(id)] = 1;
  };
  for (const Node& node : nodes) {
    for (TensorId id : node.inputs) mark(id);
    for (TensorId id : node.outputs) mark(id);
  }
  for (TensorId id : run_inputs()) mark(id);
  for (TensorId id : run_outputs()) mark(id);

  std::vector<TensorId> remap(tensors.size(), kNoTensor);
  std::vector<Tensor> kept;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (!used[i]) continue;
    remap[i] = static_cast<TensorId>(kept.size());
    kept.push_back(std::move(tensors[i]));
  }
  tensors = std::move(kept);
  auto apply = [&](TensorId& id) {
    if (id >= 0) id = remap[static_cast<size_t>(id)];
  };
  for (Node& node : nodes) {
    for (TensorId& id : node.inputs) apply(id);
    for (TensorId& id : node.outputs) apply(id);
  }
  for (TensorId& id : inputs) apply(id);
  for (TensorId& id : outputs) apply(id);
  for (StateVar& v : state) {
    apply(v.input);
    apply(v.output);
  }
}

bool is_control_flow(const Node& n) { return n.domain.empty() && (n.op == "If" || n.op == "While"); }

std::vector<int> control_graphs(const Node& n) {
  if (!is_control_flow(n)) return {};
  const bool is_if = n.op == "If";
  return {static_cast<int>(n.attrs.get_int(is_if ? "then_graph" : "cond_graph", -1)),
          static_cast<int>(n.attrs.get_int(is_if ? "else_graph" : "body_graph", -1))};
}

bool has_control_flow(const Graph& g) {
  return std::any_of(g.nodes.begin(), g.nodes.end(), [](const Node& n) { return is_control_flow(n); });
}

}  // namespace tigris::ir
