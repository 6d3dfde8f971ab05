// The compiler's graph IR: tensors, nodes in execution order, model inputs and outputs.
//
// Identifiers are indices (TensorId into Graph::tensors); nodes refer to tensors by id,
// so the IR has no pointers and no hash containers: copying a graph is a value copy and
// every walk over it is deterministic. Passes edit `nodes` and `tensors` in place; a pass
// that removes tensors calls Graph::compact() to renumber them in their original order.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/ir/attribute.h"
#include "compiler/ir/dtype.h"
#include "compiler/ir/layout.h"
#include "compiler/ir/quant.h"
#include "compiler/ir/shape.h"

namespace tigris::ir {

using TensorId = int32_t;
inline constexpr TensorId kNoTensor = -1;  // an absent optional operand

struct Tensor {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;              // extents in the current (after the layout pass: stored) order
  bool shape_known = true;  // false when shape inference could not tell (shape unusable)
  Layout layout = Layout::Model;
  std::optional<QuantParam> quant;
  bool constant = false;      // a weight/initializer: `data` holds its value
  std::vector<uint8_t> data;  // constant value, little-endian, row-major in `shape`
  // The caller's arrays for this boundary tensor are channels-last (TFLite models); ONNX: false.
  bool caller_channels_last = false;
  // Boundary tensors: the dtype the model declares when the stored one differs (a float32
  // input quantized inside a QDQ model is stored int8; a uint8 boundary is stored int8).
  // Undefined = the stored dtype. The runtime converts (tigris_input_write/output_read).
  DType declared_dtype = DType::Undefined;

  int64_t elements() const { return num_elements(shape); }
  uint64_t bytes() const { return static_cast<uint64_t>(elements()) * dtype_size(dtype); }
  int rank() const { return static_cast<int>(shape.size()); }
};

struct Node {
  std::string name;
  std::string op;                // ONNX op type, or an internal one (see passes/ops.h)
  std::string domain;            // "" = the default ONNX domain
  std::vector<TensorId> inputs;  // kNoTensor for an omitted optional input
  std::vector<TensorId> outputs;
  Attributes attrs;
};

// A variable kept from one run to the next (TFLite variable tensors, resource variables): the
// plan's STATE entry. `input` holds the value a run starts with (the runtime binds it from the
// caller's state buffer); `output` is the tensor whose value the run leaves for the next run.
struct StateVar {
  std::string name;
  TensorId input = kNoTensor;
  TensorId output = kNoTensor;   // kNoTensor: the run leaves the variable unchanged
  std::vector<uint8_t> initial;  // the value before the first run; empty = zeros
};

struct Graph {
  std::string name;
  std::string format = "onnx";  // source format: "onnx" or "tflite"
  int64_t opset = 0;            // default-domain opset the model imports
  // Operators as the file writes them (ONNX nodes of the main graph, TFLite subgraph-0
  // operators), before normalization fuses, folds or adds any.
  uint32_t source_operators = 0;
  std::vector<Tensor> tensors;
  std::vector<Node> nodes;       // a topological order; the schedule runs them in this order
  std::vector<TensorId> inputs;  // model inputs (never constants)
  std::vector<TensorId> outputs;
  std::vector<StateVar> state;
  // Graphs run by this graph's control-flow nodes (see control_graphs()). Each has its own
  // tensors; its inputs and outputs are bound by position to the node's operands and results.
  std::vector<Graph> subgraphs;

  TensorId add_tensor(Tensor t);
  // A tensor name not used yet, derived from `base` ("base", "base_1", ...).
  std::string unique_tensor_name(const std::string& base) const;
  std::string unique_node_name(const std::string& base) const;
  // The tensor with this name, or kNoTensor.
  TensorId find_tensor(const std::string& name) const;

  Tensor& tensor(TensorId id) { return tensors.at(static_cast<size_t>(id)); }
  const Tensor& tensor(TensorId id) const { return tensors.at(static_cast<size_t>(id)); }

  // What a run starts from (model inputs, then state inputs) and what it leaves behind
  // (model outputs, then state outputs): the roots every pass and the scheduler keep.
  std::vector<TensorId> run_inputs() const;
  std::vector<TensorId> run_outputs() const;
  bool is_input(TensorId id) const;   // of the run: a model or state input
  bool is_output(TensorId id) const;  // of the run: a model or state output
  bool is_state(TensorId id) const;   // a state variable's input or output

  // Index of the node producing `id`, or -1 (model inputs, constants).
  int producer(TensorId id) const;
  // Indices of the nodes reading `id`, in node order (a node reading it twice appears once).
  std::vector<int> consumers(TensorId id) const;
  // Replace every node input reading `from` by `to` (model outputs are left alone:
  // their names are the model's interface).
  void replace_uses(TensorId from, TensorId to);

  // Drop tensors no node, input or output refers to; renumber the rest in order.
  void compact();
};

// Control flow: an "If" node (input 0 the one-element bool condition, then its operands)
// names its branches by the attributes then_graph / else_graph; a "While" node (operands =
// results = loop variables) names cond_graph / body_graph. The values are indices into the
// graph's `subgraphs`. Both run their graphs as the runtime does (docs/executor.md).
bool is_control_flow(const Node& n);
// The node's two graph indices in the order the plan writes them (If: then, else; While:
// condition, body); empty for other nodes.
std::vector<int> control_graphs(const Node& n);
// Whether the graph or any graph nested in it holds a control-flow node.
bool has_control_flow(const Graph& g);

}  // namespace tigris::ir
