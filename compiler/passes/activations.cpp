// Activations: SiLU expanded, Clip relabelled, Relu/Relu6 fused into their producer.
#include <cmath>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

void expand_silu(ir::Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node n = g.nodes[i];
    if ((n.op != "Silu" && n.op != "SiLU" && n.op != "Swish") || n.inputs.size() != 1 || n.outputs.size() != 1)
      continue;
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
    ++i;
  }
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
