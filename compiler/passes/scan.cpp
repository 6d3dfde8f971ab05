// ONNX Scan unrolled over its sequence (static shapes: the sequence length is an extent).
//
// Step t runs a copy of the body: state inputs are the previous step's state outputs (the
// initial states first), scan inputs the slice t of each scan input (Gather at index t along
// axis 0), captured outer values themselves. Scan outputs are the steps' outputs, each
// reshaped to a leading extent of 1 and concatenated along axis 0; the final states are the
// last step's. Scan inputs and outputs along other axes or in reverse are refused.
// Scan 8 (a batch axis 0 before the sequence axis) is unrolled so for each batch element,
// the results stacked along the batch axis. An ONNX Loop with scan outputs and a constant
// trip count is unrolled the same way, its iteration number a constant per step.
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

TensorId activation(Graph& g, const std::string& base, const ir::Tensor& like, ir::Shape shape) {
  ir::Tensor t = like;
  t.name = g.unique_tensor_name(base);
  t.shape = std::move(shape);
  t.constant = false;
  t.data.clear();
  return g.add_tensor(std::move(t));
}

// x with its leading extent dropped (index >= 0: Gather of that index along axis 0) or a
// leading extent of 1 added (index < 0: Reshape).
TensorId leading(Graph& g, TensorId x, int64_t index, const std::string& base, std::vector<Node>& out) {
  ir::Shape shape = g.tensor(x).shape;
  if (index >= 0) {
    shape.erase(shape.begin());
    const TensorId y = activation(g, base, g.tensor(x), shape);
    Node gather = make(g, "Gather", base, {x, int64_constant(g, base + "_at", {index}, {})}, {y});
    gather.attrs.set("axis", int64_t{0});
    out.push_back(std::move(gather));
    return y;
  }
  shape.insert(shape.begin(), 1);
  const TensorId y = activation(g, base, g.tensor(x), shape);
  out.push_back(make(g, "Reshape", base, {x, int64_constant(g, base + "_shape", shape, {(int64_t)shape.size()})}, {y}));
  return y;
}

// Along axis 0: `parts` concatenated into `y` (a new tensor when y < 0); returns y.
TensorId concat(Graph& g, const std::vector<TensorId>& parts, TensorId y, const std::string& base,
                std::vector<Node>& out) {
  if (y < 0) {
    ir::Shape shape = g.tensor(parts.at(0)).shape;
    shape[0] = 0;
    for (TensorId p : parts) shape[0] += g.tensor(p).shape.at(0);
    y = activation(g, base, g.tensor(parts[0]), shape);
  }
  Node c = make(g, "Concat", base, parts, {y});
  c.attrs.set("axis", int64_t{0});
  out.push_back(std::move(c));
  return y;
}

// The body run once per element of the sequences' axis 0.
struct Unrolled {
  std::vector<TensorId> states;             // the last step's state outputs
  std::vector<std::vector<TensorId>> rows;  // per scan output, each step's output with a leading 1
};

// Step t runs a copy of the body: state inputs are the previous step's state outputs
// (`state` first), scan inputs the slice t of each sequence, captured values themselves.
Unrolled unroll_steps(Graph& g, const std::string& name, const Graph& body, std::vector<TensorId> state,
                      const std::vector<TensorId>& sequences, const std::vector<TensorId>& captures,
                      std::vector<Node>& out) {
  const size_t states = state.size(), scans = sequences.size();
  const int64_t steps = g.tensor(sequences.at(0)).shape.at(0);
  Unrolled r;
  r.rows.resize(body.outputs.size() - states);
  for (int64_t t = 0; t < steps; ++t) {
    const std::string step = name + "_step" + std::to_string(t);
    std::vector<TensorId> map(body.tensors.size(), ir::kNoTensor);
    auto copy = [&](TensorId id) {
      if (map[static_cast<size_t>(id)] != ir::kNoTensor) return map[static_cast<size_t>(id)];
      ir::Tensor c = body.tensor(id);
      c.name = g.unique_tensor_name(step + "_" + c.name);
      return map[static_cast<size_t>(id)] = g.add_tensor(std::move(c));
    };
    for (size_t s = 0; s < states; ++s) map[static_cast<size_t>(body.inputs[s])] = state[s];
    for (size_t k = 0; k < captures.size(); ++k)
      map[static_cast<size_t>(body.inputs[states + scans + k])] = captures[k];
    for (size_t m = 0; m < scans; ++m) {
      const TensorId slice = copy(body.inputs[states + m]);
      Node gather =
          make(g, "Gather", step + "_slice", {sequences[m], int64_constant(g, step + "_t", {t}, {})}, {slice});
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
    for (size_t k = 0; k < r.rows.size(); ++k)
      r.rows[k].push_back(leading(g, copy(body.outputs[states + k]), -1, step + "_row" + std::to_string(k), out));
  }
  r.states = std::move(state);
  return r;
}

std::vector<TensorId> slice(const std::vector<TensorId>& v, size_t first, size_t count) {
  return std::vector<TensorId>(v.begin() + static_cast<std::ptrdiff_t>(first),
                               v.begin() + static_cast<std::ptrdiff_t>(first + count));
}

bool static_operands(const Graph& g, const std::vector<TensorId>& ids) {
  return std::all_of(ids.begin(), ids.end(), [&](TensorId id) { return id >= 0 && g.tensor(id).shape_known; });
}

// The reason Scan n (opset 9 on) cannot be unrolled, or "".
std::string refusal(const Graph& g, const Node& n, const Graph& body, size_t scans, size_t captures) {
  if (!all_zero(n.attrs.get_ints("scan_input_axes")) || !all_zero(n.attrs.get_ints("scan_output_axes")))
    return "scan axes other than 0";
  if (!all_zero(n.attrs.get_ints("scan_input_directions")) || !all_zero(n.attrs.get_ints("scan_output_directions")))
    return "reverse scan directions";
  if (scans == 0 || n.inputs.size() < scans + captures) return "no scan input";
  const size_t states = n.inputs.size() - scans - captures;
  if (body.inputs.size() != n.inputs.size() || body.outputs.size() != n.outputs.size() || body.outputs.size() < states)
    return "body inputs or outputs do not match the node's";
  if (!static_operands(g, n.inputs)) return "an operand shape is not static";
  return "";
}

std::vector<Node> unroll(Graph& g, const Node& n, const Graph& body, size_t scans, size_t captures) {
  const size_t states = n.inputs.size() - scans - captures;
  std::vector<Node> out;
  Unrolled r = unroll_steps(g, n.name, body, slice(n.inputs, 0, states), slice(n.inputs, states, scans),
                            slice(n.inputs, states + scans, captures), out);
  for (size_t s = 0; s < states; ++s)
    if (n.outputs[s] >= 0) out.push_back(make(g, "Identity", n.name + "_final", {r.states[s]}, {n.outputs[s]}));
  for (size_t k = 0; k < r.rows.size(); ++k)
    if (n.outputs[states + k] >= 0) concat(g, r.rows[k], n.outputs[states + k], n.name + "_scan", out);
  return out;
}

// Scan 8: operands (sequence_lens, states..., scans..., captures...), each with a batch axis 0
// and the sequence on axis 1 of the scan inputs. Unrolled batch by batch; sequence_lens
// must be absent or a constant giving every batch the whole sequence.
std::string refusal_8(const Graph& g, const Node& n, const Graph& body, size_t scans, size_t captures) {
  if (!all_zero(n.attrs.get_ints("directions"))) return "reverse scan directions";
  if (scans == 0 || n.inputs.size() < 1 + scans + captures) return "no scan input";
  const size_t states = n.inputs.size() - 1 - scans - captures;
  if (body.inputs.size() != n.inputs.size() - 1 || body.outputs.size() != n.outputs.size() ||
      body.outputs.size() < states)
    return "body inputs or outputs do not match the node's";
  const std::vector<TensorId> operands = slice(n.inputs, 1, n.inputs.size() - 1);
  if (!static_operands(g, operands)) return "an operand shape is not static";
  const std::vector<TensorId> batched = slice(operands, 0, states + scans);
  const int64_t batch = g.tensor(batched[0]).rank() > 0 ? g.tensor(batched[0]).shape[0] : -1;
  for (TensorId id : batched)
    if (g.tensor(id).rank() < 1 || g.tensor(id).shape[0] != batch) return "operands without one batch axis";
  const TensorId first_scan = operands[states];
  if (g.tensor(first_scan).rank() < 2) return "a scan input without a sequence axis";
  const TensorId lens = n.inputs[0];
  if (lens < 0) return "";
  const ir::Tensor& lt = g.tensor(lens);
  if (!lt.constant) return "sequence_lens computed at run time";
  const int64_t length = g.tensor(first_scan).shape[1];
  const size_t size = ir::dtype_size(lt.dtype);
  if (size != 4 && size != 8) return "sequence_lens is not an integer tensor";
  for (size_t k = 0; k + size <= lt.data.size(); k += size) {
    int64_t v = 0;
    if (size == 8) {
      std::memcpy(&v, lt.data.data() + k, 8);
    } else {
      int32_t v32;
      std::memcpy(&v32, lt.data.data() + k, 4);
      v = v32;
    }
    if (v != length)
      return "sequence_lens shorter than the sequence (the scan outputs past a batch's length are left open)";
  }
  return "";
}

std::vector<Node> unroll_8(Graph& g, const Node& n, const Graph& body, size_t scans, size_t captures) {
  const size_t states = n.inputs.size() - 1 - scans - captures;
  const std::vector<TensorId> operands = slice(n.inputs, 1, n.inputs.size() - 1);
  const int64_t batch = g.tensor(operands[0]).shape[0];
  std::vector<Node> out;
  std::vector<std::vector<TensorId>> per_batch(n.outputs.size());
  for (int64_t b = 0; b < batch; ++b) {
    const std::string name = n.name + "_batch" + std::to_string(b);
    std::vector<TensorId> state, sequences;
    for (size_t s = 0; s < states; ++s) state.push_back(leading(g, operands[s], b, name + "_state", out));
    for (size_t m = 0; m < scans; ++m) sequences.push_back(leading(g, operands[states + m], b, name + "_scan", out));
    Unrolled r = unroll_steps(g, name, body, state, sequences, slice(operands, states + scans, captures), out);
    for (size_t s = 0; s < states; ++s) per_batch[s].push_back(leading(g, r.states[s], -1, name + "_final", out));
    for (size_t k = 0; k < r.rows.size(); ++k) {
      const TensorId sequence = concat(g, r.rows[k], ir::kNoTensor, name + "_scanned", out);
      per_batch[states + k].push_back(leading(g, sequence, -1, name + "_scanned_row", out));
    }
  }
  for (size_t k = 0; k < n.outputs.size(); ++k)
    if (n.outputs[k] >= 0) concat(g, per_batch[k], n.outputs[k], n.name + "_output", out);
  return out;
}

bool nonzero_constant(const Graph& g, TensorId id) {
  const ir::Tensor& t = g.tensor(id);
  return t.constant && !t.data.empty() && std::all_of(t.data.begin(), t.data.end(), [](uint8_t b) { return b != 0; });
}

// Whether the body's condition output is its condition input (through Identities) or true.
bool stays_true(const Graph& body) {
  TensorId c = body.outputs.at(0);
  for (int hops = 0; hops < 64; ++hops) {
    if (c == body.inputs.at(1)) return true;
    if (nonzero_constant(body, c)) return true;
    const int p = body.producer(c);
    if (p < 0 || body.nodes[static_cast<size_t>(p)].op != "Identity") return false;
    c = body.nodes[static_cast<size_t>(p)].inputs.at(0);
  }
  return false;
}

// An ONNX Loop with scan outputs and a constant trip count M (onnx/control_import.cpp):
// operands (M, cond, v..., captured...), results (v_final..., scans...); body inputs (iter,
// cond, v..., captured...), outputs (cond, v..., scans...). Unrolled over M steps when the
// condition is true at the start and stays true.
std::string loop_refusal(const Graph& g, const Node& n, const Graph& body, size_t captures) {
  if (n.inputs.size() < 2 + captures || body.inputs.size() != n.inputs.size() ||
      body.outputs.size() + 1 + captures <= n.inputs.size() || n.outputs.size() + 1 != body.outputs.size())
    return "body inputs or outputs do not match the node's";
  if (n.inputs[0] < 0 || g.tensor(n.inputs[0]).elements() != 1)
    return "scan outputs: their extent is the trip count, known only at run time";
  if (!g.tensor(n.inputs[0]).constant)
    return "operand '" + g.tensor(n.inputs[0]).name +
           "' is computed at run time: scan outputs need a constant trip count (their extent)";
  int64_t m = 0;
  std::memcpy(&m, g.tensor(n.inputs[0]).data.data(), std::min<size_t>(8, g.tensor(n.inputs[0]).data.size()));
  if (m < 1) return "scan outputs of a trip count below 1 are empty";
  if (n.inputs[1] >= 0 && !g.tensor(n.inputs[1]).constant)
    return "operand '" + g.tensor(n.inputs[1]).name +
           "' is computed at run time: scan outputs need a constant condition (the iterations, and so their "
           "extent, depend on it)";
  if (n.inputs[1] >= 0 && !nonzero_constant(g, n.inputs[1])) return "scan outputs of a loop that never runs are empty";
  if (!stays_true(body))
    return "scan outputs with a condition the body computes: the iterations, and so their extent, are known only "
           "at run time";
  if (!static_operands(g, slice(n.inputs, 2, n.inputs.size() - 2))) return "an operand shape is not static";
  return "";
}

std::vector<Node> unroll_loop(Graph& g, const Node& n, const Graph& loop_body, size_t captures) {
  const size_t carried = n.inputs.size() - 2 - captures;
  int64_t m = 0;
  std::memcpy(&m, g.tensor(n.inputs[0]).data.data(), 8);
  // The body with its inputs as unroll_steps takes them: states (cond, v...), the iteration
  // number as a sequence (0 .. M - 1), captured values.
  Graph body = loop_body;
  const std::vector<TensorId> in = loop_body.inputs;
  body.inputs = slice(in, 1, 1 + carried);
  body.inputs.push_back(in[0]);
  for (size_t k = 0; k < captures; ++k) body.inputs.push_back(in[2 + carried + k]);
  TensorId cond = n.inputs[1];
  if (cond < 0) {
    ir::Tensor t = loop_body.tensor(in[1]);
    t.name = g.unique_tensor_name(n.name + "_go");
    t.constant = true;
    t.data.assign(static_cast<size_t>(t.elements()), 1);
    cond = g.add_tensor(std::move(t));
  }
  std::vector<TensorId> states{cond};
  for (size_t k = 0; k < carried; ++k) states.push_back(n.inputs[2 + k]);
  std::vector<int64_t> numbers(static_cast<size_t>(m));
  for (int64_t t = 0; t < m; ++t) numbers[static_cast<size_t>(t)] = t;
  const TensorId iterations = int64_constant(g, n.name + "_iterations", numbers, {m});
  std::vector<Node> out;
  Unrolled r = unroll_steps(g, n.name, body, states, {iterations}, slice(n.inputs, 2 + carried, captures), out);
  for (size_t k = 0; k < carried; ++k)
    if (n.outputs[k] >= 0) out.push_back(make(g, "Identity", n.name + "_final", {r.states[1 + k]}, {n.outputs[k]}));
  for (size_t k = 0; k < r.rows.size(); ++k)
    if (n.outputs[carried + k] >= 0) concat(g, r.rows[k], n.outputs[carried + k], n.name + "_scan", out);
  return out;
}

}  // namespace

void unroll_scans(ir::Graph& g) {
  std::vector<char> unrolled(g.subgraphs.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node n = g.nodes[i];
    if ((n.op != "Scan" && n.op != "Loop") || !n.domain.empty() || !n.attrs.has("body_graph") ||
        n.attrs.has("__unsupported"))
      continue;
    const size_t k = static_cast<size_t>(n.attrs.get_int("body_graph", -1));
    if (k >= g.subgraphs.size()) continue;
    if (n.op == "Loop") {
      const size_t captures = static_cast<size_t>(n.attrs.get_int("captures", 0));
      const std::string why = loop_refusal(g, n, g.subgraphs[k], captures);
      if (!why.empty()) {
        g.nodes[i].attrs.set("__unsupported", why);
        continue;
      }
      std::vector<Node> with = unroll_loop(g, n, g.subgraphs[k], captures);
      g.nodes.erase(g.nodes.begin() + static_cast<std::ptrdiff_t>(i));
      g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i), with.begin(), with.end());
      i += with.size();
      --i;
      unrolled[k] = 1;
      continue;
    }
    const size_t scans = static_cast<size_t>(n.attrs.get_int("num_scan_inputs", 0));
    const size_t captures = static_cast<size_t>(n.attrs.get_int("captures", 0));
    const bool batched = n.attrs.get_int("batched", 0) != 0;  // Scan 8
    const std::string why =
        batched ? refusal_8(g, n, g.subgraphs[k], scans, captures) : refusal(g, n, g.subgraphs[k], scans, captures);
    if (!why.empty()) {
      g.nodes[i].attrs.set("__unsupported", "Scan: " + why);
      continue;
    }
    std::vector<Node> with =
        batched ? unroll_8(g, n, g.subgraphs[k], scans, captures) : unroll(g, n, g.subgraphs[k], scans, captures);
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
