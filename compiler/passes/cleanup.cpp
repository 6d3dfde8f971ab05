// Identity-like nodes and dead code.
#include <algorithm>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

// Make readers of `out` read `in` instead, when `out` is not part of the model interface.
// Returns false when the node must stay (it copies a model input or constant to an output).
bool forward(ir::Graph& g, ir::TensorId in, ir::TensorId out) {
  if (!g.is_output(out)) {
    g.replace_uses(out, in);
    return true;
  }
  int producer = g.producer(in);
  if (producer < 0 || g.is_output(in)) return false;
  // `out` is a model output: let the producer of `in` write `out` directly.
  for (ir::TensorId& o : g.nodes[static_cast<size_t>(producer)].outputs)
    if (o == in) o = out;
  g.replace_uses(in, out);
  return true;
}

// A Cast to the dtype its input has already (PyTorch's QDQ export writes one, uint8 to uint8,
// after every QuantizeLinear) is an Identity.
bool is_same_type_cast(const ir::Graph& g, const ir::Node& n) {
  if (n.op != "Cast" || n.inputs.empty() || n.inputs[0] < 0 || n.outputs.empty()) return false;
  ir::DType from = g.tensor(n.inputs[0]).dtype;
  return from != ir::DType::Undefined && n.attrs.get_int("to", 0) == static_cast<int64_t>(from);
}

// A Pad that adds nothing (PyTorch's AvgPool2d export writes one with all-zero pads): its
// pads (the attribute before opset 11, a constant operand from then on) are all zero and its
// output has its input's shape.
bool is_noop_pad(const ir::Graph& g, const ir::Node& n) {
  if (n.op != "Pad" || n.inputs.empty() || n.inputs[0] < 0 || n.outputs.empty() || n.outputs[0] < 0) return false;
  std::vector<int64_t> pads = n.attrs.get_ints("pads", {});
  if (n.inputs.size() > 1 && n.inputs[1] >= 0) {
    if (!g.tensor(n.inputs[1]).constant) return false;
    pads = const_ints(g.tensor(n.inputs[1]));
  }
  const ir::Tensor &x = g.tensor(n.inputs[0]), &y = g.tensor(n.outputs[0]);
  return !pads.empty() && std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; }) && x.shape_known &&
         y.shape_known && x.shape == y.shape && x.dtype == y.dtype;
}

bool is_identity_like(const ir::Graph& g, const ir::Node& n) {
  return n.domain.empty() && (n.op == "Identity" || n.op == "Dropout" || is_same_type_cast(g, n) || is_noop_pad(g, n));
}

}  // namespace

void remove_identities(ir::Graph& g) {
  std::vector<char> remove(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& n = g.nodes[i];
    if (!is_identity_like(g, n) || n.inputs.empty() || n.outputs.empty()) continue;
    if (n.op == "Dropout" && n.outputs.size() > 1 && n.outputs[1] != ir::kNoTensor &&
        (!g.consumers(n.outputs[1]).empty() || g.is_output(n.outputs[1])))
      continue;  // the mask is read: left for the support check to name
    if (forward(g, n.inputs[0], n.outputs[0])) {
      remove[i] = 1;
    } else if (g.tensor(n.inputs[0]).constant && g.tensor(n.inputs[0]).dtype == g.tensor(n.outputs[0]).dtype) {
      // A copy of a constant to a model output: the output is that constant (a graph's
      // constant outputs are produced by produce_constant_outputs, or for an If/While's
      // graphs by materialize_control_constants).
      ir::Tensor& out = g.tensor(n.outputs[0]);
      const ir::Tensor& in = g.tensor(n.inputs[0]);
      out.constant = true;
      out.shape = in.shape;
      out.shape_known = true;
      out.data = in.data;
      remove[i] = 1;
    } else {
      // A copy of a model input (or constant) to a model output: a same-shape Reshape.
      n.op = "Reshape";
      n.inputs.resize(1);
      n.outputs.resize(1);
      n.attrs = {};
      n.attrs.set("shape", g.tensor(n.outputs[0]).shape);
    }
  }
  erase_nodes(g, remove);
  g.compact();
}

void remove_unused(ir::Graph& g) {
  // Walk backwards: a node is live when any output is a model or state output or read by a live node.
  std::vector<char> live_tensor(g.tensors.size(), 0);
  for (ir::TensorId id : g.run_outputs()) live_tensor[static_cast<size_t>(id)] = 1;
  std::vector<char> remove(g.nodes.size(), 0);
  for (size_t i = g.nodes.size(); i-- > 0;) {
    const ir::Node& n = g.nodes[i];
    bool live = std::any_of(n.outputs.begin(), n.outputs.end(),
                            [&](ir::TensorId o) { return o >= 0 && live_tensor[static_cast<size_t>(o)]; });
    if (!live) {
      remove[i] = 1;
      continue;
    }
    for (ir::TensorId in : n.inputs)
      if (in >= 0) live_tensor[static_cast<size_t>(in)] = 1;
  }
  erase_nodes(g, remove);
  g.compact();
}

}  // namespace tigris::passes
