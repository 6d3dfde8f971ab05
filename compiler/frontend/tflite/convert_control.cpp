// TFLite IF and WHILE -> the IR's If and While (ir/graph.h), each subgraph they run imported
// by an importer of its own (an IF/WHILE inside it recursively) into the graph's subgraphs.
//
// As TensorFlow Lite Micro runs them (kernels/if.cc, while.cc): IF's input 0 is a one-element
// bool; the other inputs are copied into the chosen subgraph's inputs and its outputs into
// IF's outputs. WHILE's inputs, its outputs, the condition subgraph's inputs and the body's
// inputs and outputs are the loop variables, in one order; the condition gives one bool.
// TFLite Micro copies bytes between tensors of one type and byte size; plans hold static
// shapes, so here each pair must agree in dtype and shape (a body that changes a variable's
// shape is refused).
#include "compiler/frontend/tflite/importer.h"

#include <algorithm>

#include "compiler/ir/layout.h"

namespace tigris::frontend::tflite {

namespace {

std::string graph_name(const char* role, int32_t index) {
  return std::string(role) + " subgraph " + std::to_string(index);
}

// Subgraph `index` as an IR graph; refuses an index out of range, a subgraph running itself
// (directly or through the ones enclosing it) and a subgraph with an operator that does not
// convert (its reason).
ir::Graph import_subgraph(Importer& imp, const char* role, int32_t index) {
  const tfl::Model& m = imp.model();
  if (index < 0 || static_cast<size_t>(index) >= m.subgraphs.size())
    refuse(std::string(role) + " subgraph index " + std::to_string(index) + " is out of range for " +
           std::to_string(m.subgraphs.size()) + " subgraphs");
  std::vector<size_t> chain = imp.enclosing();
  chain.push_back(imp.subgraph());
  if (std::find(chain.begin(), chain.end(), static_cast<size_t>(index)) != chain.end())
    refuse(graph_name(role, index) + " runs a graph that runs it (recursion)");
  Importer sub(m, imp.path(), static_cast<size_t>(index), std::move(chain));
  ir::Graph g = sub.run_nested();
  if (!sub.reasons.empty()) refuse(graph_name(role, index) + ", " + sub.reasons[0].text());
  return g;
}

// "float32 [1, 2, 2, 3]": dtype and shape in TFLite's axis order.
std::string describe(const ir::Tensor& t) {
  const int r = t.rank();
  const ir::Shape shape = r == 3 || r == 4 ? ir::permute_shape(t.shape, ir::to_channels_last_perm(r)) : t.shape;
  std::string s = ir::dtype_name(t.dtype) + " [";
  for (size_t k = 0; k < shape.size(); ++k) s += (k ? ", " : "") + std::to_string(shape[k]);
  return s + "]";
}

// Refuses unless `inner` (of graph `g`) has `outer`'s (of imp.g) dtype and shape.
void check_same(const Importer& imp, ir::TensorId outer, const ir::Graph& g, ir::TensorId inner,
                const std::string& what) {
  const ir::Tensor& a = imp.g.tensor(outer);
  const ir::Tensor& b = g.tensor(inner);
  if (a.dtype != b.dtype || a.shape != b.shape)
    refuse(what + " is " + describe(b) + " where the operator has " + describe(a) +
           " (plans hold static shapes: a subgraph may not change them)");
}

void check_count(size_t have, size_t want, const std::string& what) {
  if (have != want) refuse(what + " has " + std::to_string(have) + " where the operator has " + std::to_string(want));
}

void convert_if(Importer& imp) {
  auto* o = imp.op().options.get<tfl::IfOptions>();
  if (o == nullptr) refuse("IF without its options (then_subgraph_index, else_subgraph_index)");
  if (imp.num_inputs() < 1 || imp.input(0) < 0) refuse("IF has no condition");
  const int32_t cond = imp.input(0);
  if (imp.type(cond) != tfl::TensorType::Bool || tfl::element_count(imp.tensor(cond).shape) != 1)
    refuse("the condition '" + imp.tensor(cond).name + "' is not a one-element bool");
  std::vector<ir::TensorId> in{imp.operand(cond)}, out;
  for (size_t k = 1; k < imp.num_inputs(); ++k) in.push_back(imp.operand(imp.input(k)));
  for (size_t k = 0; k < imp.op().outputs.size(); ++k) out.push_back(imp.act(imp.output(k)));
  ir::Graph branches[2] = {import_subgraph(imp, "then", o->then_subgraph_index),
                           import_subgraph(imp, "else", o->else_subgraph_index)};
  const int32_t index[2] = {o->then_subgraph_index, o->else_subgraph_index};
  for (int b = 0; b < 2; ++b) {
    const ir::Graph& g = branches[b];
    const std::string name = graph_name(b == 0 ? "then" : "else", index[b]);
    check_count(g.inputs.size(), in.size() - 1, name + "'s input count");
    check_count(g.outputs.size(), out.size(), name + "'s output count");
    for (size_t k = 0; k < g.inputs.size(); ++k)
      check_same(imp, in[k + 1], g, g.inputs[k], name + "'s input " + std::to_string(k));
    for (size_t k = 0; k < g.outputs.size(); ++k)
      check_same(imp, out[k], g, g.outputs[k], name + "'s output " + std::to_string(k));
  }
  ir::Node& n = imp.add_node("If", in, out);
  for (int b = 0; b < 2; ++b) {
    n.attrs.set(b == 0 ? "then_graph" : "else_graph", static_cast<int64_t>(imp.g.subgraphs.size()));
    imp.g.subgraphs.push_back(std::move(branches[b]));
  }
}

void convert_while(Importer& imp) {
  auto* o = imp.op().options.get<tfl::WhileOptions>();
  if (o == nullptr) refuse("WHILE without its options (cond_subgraph_index, body_subgraph_index)");
  check_count(imp.op().outputs.size(), imp.num_inputs(), "WHILE's output count");
  std::vector<ir::TensorId> in, out;
  for (size_t k = 0; k < imp.num_inputs(); ++k) {
    in.push_back(imp.operand(imp.input(k)));
    out.push_back(imp.act(imp.output(k)));
    check_same(imp, in[k], imp.g, out[k], "output " + std::to_string(k));
  }
  ir::Graph cond = import_subgraph(imp, "cond", o->cond_subgraph_index);
  ir::Graph body = import_subgraph(imp, "body", o->body_subgraph_index);
  const std::string cond_name = graph_name("cond", o->cond_subgraph_index);
  const std::string body_name = graph_name("body", o->body_subgraph_index);
  check_count(cond.inputs.size(), in.size(), cond_name + "'s input count");
  check_count(body.inputs.size(), in.size(), body_name + "'s input count");
  check_count(body.outputs.size(), in.size(), body_name + "'s output count");
  for (size_t k = 0; k < in.size(); ++k) {
    check_same(imp, in[k], cond, cond.inputs[k], cond_name + "'s input " + std::to_string(k));
    check_same(imp, in[k], body, body.inputs[k], body_name + "'s input " + std::to_string(k));
    check_same(imp, in[k], body, body.outputs[k], body_name + "'s output " + std::to_string(k));
  }
  if (cond.outputs.size() != 1 || cond.tensor(cond.outputs[0]).dtype != ir::DType::Bool ||
      cond.tensor(cond.outputs[0]).elements() != 1)
    refuse(cond_name + " does not give one one-element bool");
  ir::Node& n = imp.add_node("While", in, out);
  n.attrs.set("cond_graph", static_cast<int64_t>(imp.g.subgraphs.size()));
  imp.g.subgraphs.push_back(std::move(cond));
  n.attrs.set("body_graph", static_cast<int64_t>(imp.g.subgraphs.size()));
  imp.g.subgraphs.push_back(std::move(body));
}

}  // namespace

void register_control(std::map<int32_t, Converter>& table) {
  table[tfl::op::kIf] = convert_if;
  table[tfl::op::kWhile] = convert_while;
}

}  // namespace tigris::frontend::tflite
