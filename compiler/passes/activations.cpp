// Activations: x·sigmoid(x) and x·hardsigmoid(x) fused into SiLU and hard-swish (one tensor live
// instead of three), Clip relabelled, Relu/Relu6 fused into their producer.
#include <cmath>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

// The node producing `id` when its only reader is node `reader` and it is no run output.
int sole_producer(const ir::Graph& g, ir::TensorId id, size_t reader) {
  const int p = g.producer(id);
  if (p < 0 || g.is_output(id)) return -1;
  const std::vector<int> readers = g.consumers(id);
  return readers.size() == 1 && readers[0] == static_cast<int>(reader) ? p : -1;
}

// y = x * gate(x): the gate's node index (Sigmoid, or HardSigmoid with hard-swish's
// alpha 1/6 and beta 1/2) and its kind, or -1.
int swish_gate(const ir::Graph& g, size_t mul, const char** fused) {
  const ir::Node& m = g.nodes[mul];
  if (m.op != "Mul" || !m.domain.empty() || m.inputs.size() != 2 || m.outputs.size() != 1) return -1;
  for (int k = 0; k < 2; ++k) {
    const ir::TensorId x = m.inputs[static_cast<size_t>(k)], gate = m.inputs[static_cast<size_t>(1 - k)];
    const int p = sole_producer(g, gate, mul);
    if (p < 0 || g.nodes[static_cast<size_t>(p)].inputs.size() != 1 || g.nodes[static_cast<size_t>(p)].inputs[0] != x)
      continue;
    const ir::Node& n = g.nodes[static_cast<size_t>(p)];
    if (n.op == "Sigmoid") {
      *fused = "Silu";
      return p;
    }
    if (n.op == "HardSigmoid" && std::fabs(n.attrs.get_float("alpha", 0.2f) - 1.0f / 6.0f) < 1e-6f &&
        n.attrs.get_float("beta", 0.5f) == 0.5f) {
      *fused = "HardSwish";
      return p;
    }
  }
  return -1;
}

}  // namespace

void fuse_swish(ir::Graph& g) {
  std::vector<char> remove(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& n = g.nodes[i];
    const bool silu =
        (n.op == "Silu" || n.op == "SiLU" || n.op == "Swish") && n.inputs.size() == 1 && n.outputs.size() == 1;
    if (silu && g.tensor(n.inputs[0]).dtype == ir::DType::Float32) {
      n.op = "Silu";
      n.domain.clear();
      continue;
    }
    if (silu) {  // quantized: Sigmoid and Mul, each requantized as the model states
      const ir::Tensor x = g.tensor(n.inputs[0]);
      ir::TensorId sig = add_activation(g, x.name + "_sigmoid", x.dtype, x.shape);
      ir::Node s;
      s.name = n.name;
      s.op = "Sigmoid";
      s.inputs = {n.inputs[0]};
      s.outputs = {sig};
      ir::Node m;
      m.name = g.unique_node_name(n.name + "_mul");
      m.op = "Mul";
      m.inputs = {n.inputs[0], sig};
      m.outputs = {n.outputs[0]};
      g.nodes[i] = s;
      g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i + 1), m);
      remove.insert(remove.begin() + static_cast<std::ptrdiff_t>(i + 1), 0);
      ++i;
      continue;
    }
    const char* fused = nullptr;
    const int gate = swish_gate(g, i, &fused);
    if (gate < 0 || g.tensor(n.outputs[0]).dtype != ir::DType::Float32) continue;
    const ir::TensorId x = g.nodes[static_cast<size_t>(gate)].inputs[0];
    n.op = fused;
    n.inputs = {x};
    n.attrs = {};
    remove[static_cast<size_t>(gate)] = 1;
  }
  erase_nodes(g, remove);
  g.compact();
}

void clip_to_relu(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if (n.op != "Clip" || !n.domain.empty() || n.inputs.size() != 1) continue;
    if (g.tensor(n.inputs[0]).dtype != ir::DType::Float32) continue;
    float lo = n.attrs.get_float("min", -INFINITY), hi = n.attrs.get_float("max", INFINITY);
    if (lo == 0.0f && hi == 6.0f) {
      n.op = "Relu6";
      n.attrs = {};
    } else if (lo == 0.0f && std::isinf(hi) && hi > 0) {
      n.op = "Relu";
      n.attrs = {};
    }
  }
}

void fuse_activations(ir::Graph& g) {
  std::vector<char> remove(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& act = g.nodes[i];
    if ((act.op != "Relu" && act.op != "Relu6") || !act.domain.empty() || act.inputs.size() != 1) continue;
    ir::TensorId x = act.inputs[0];
    int p = g.producer(x);
    if (p < 0 || !single_consumer(g, x, static_cast<int>(i))) continue;
    ir::Node& prod = g.nodes[static_cast<size_t>(p)];
    static const char* fusable[] = {"Conv", "DepthwiseConv", "Conv1D", "Gemm", "Add"};
    bool ok = false;
    for (const char* op : fusable) ok = ok || prod.op == op;
    if (!ok || prod.attrs.has("fused_activation") || prod.outputs.size() != 1) continue;
    if (g.tensor(x).dtype != ir::DType::Float32) continue;
    prod.attrs.set("fused_activation", act.op);
    prod.outputs[0] = act.outputs[0];
    remove[i] = 1;
  }
  erase_nodes(g, remove);
  g.compact();
}

}  // namespace tigris::passes
