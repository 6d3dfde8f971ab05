// If / While: executor-level operators (docs/operators.md rows 87, 88). Their SUBGRAPHS
// attribute is written here with the node's own graph indices (into Graph::subgraphs);
// emission replaces them by the plan's graph numbers once every graph has one.
#include "compiler/plan/lower_internal.h"

namespace tigris::plan::detail {

namespace {

void control(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  const std::vector<int> graphs = ir::control_graphs(n);
  for (int k : graphs)
    if (k < 0 || static_cast<size_t>(k) >= g.subgraphs.size()) unsupported(n, "no graph for a branch or body");
  for (ir::TensorId id : n.inputs) {
    if (id < 0) unsupported(n, "an absent operand");
    if (g.tensor(id).constant) unsupported(n, "operand '" + g.tensor(id).name + "' is a constant");
  }
  if (n.op == "If") {
    const ir::Tensor& c = g.tensor(n.inputs.at(0));
    if (c.dtype != ir::DType::Bool || c.elements() != 1) unsupported(n, "the condition is not one bool");
  }
  op.type = n.op == "If" ? TIGRIS_OP_IF : TIGRIS_OP_WHILE;
  op.inputs = n.inputs;
  Payload p;
  p.u16(static_cast<uint64_t>(graphs[0])).u16(static_cast<uint64_t>(graphs[1]));
  add_attr(op, TIGRIS_ATTR_SUBGRAPHS, p);
}

}  // namespace

void register_control(std::map<std::string, LowerFn>& t) {
  t["If"] = control;
  t["While"] = control;
}

}  // namespace tigris::plan::detail
