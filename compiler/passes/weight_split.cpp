#include "compiler/passes/weight_split.h"

#include <algorithm>
#include <cstring>

#include "compiler/passes/concat_split.h"

namespace tigris::passes {

uint64_t aligned_weight_bytes(uint64_t bytes) { return (bytes + 15) / 16 * 16; }

namespace {

// The op's constant weight (input 1) and optional bias (input 2), when it can be split.
struct Splittable {
  ir::TensorId weight = ir::kNoTensor;
  ir::TensorId bias = ir::kNoTensor;
  int64_t channels = 0;    // output channels (weight axis 0, output's last axis)
  uint64_t row_bytes = 0;  // weight bytes per output channel
};

bool float_constant(const ir::Graph& g, ir::TensorId id) {
  return id >= 0 && g.tensor(id).constant && g.tensor(id).dtype == ir::DType::Float32 && !g.tensor(id).quant;
}

bool splittable(const ir::Graph& g, const ir::Node& n, Splittable& s) {
  if (n.op == "Conv") {
    if (n.attrs.get_int("group", 1) != 1) return false;
  } else if (n.op != "Gemm" || n.attrs.get_int("transB", 0) != 1) {
    return false;
  }
  if (n.inputs.size() < 2 || n.outputs.size() != 1 || n.inputs[0] < 0) return false;
  const ir::Tensor& x = g.tensor(n.inputs[0]);
  const ir::Tensor& y = g.tensor(n.outputs[0]);
  if (x.constant || x.dtype != ir::DType::Float32 || x.quant || y.dtype != ir::DType::Float32 || y.quant) return false;
  if (!float_constant(g, n.inputs[1]) || !y.shape_known || y.shape.empty()) return false;
  const ir::Tensor& w = g.tensor(n.inputs[1]);
  if (w.shape.empty() || w.shape[0] != y.shape.back() || w.shape[0] < 2) return false;
  s.weight = n.inputs[1];
  s.channels = w.shape[0];
  s.row_bytes = w.bytes() / static_cast<uint64_t>(s.channels);
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
    if (!float_constant(g, n.inputs[2]) || g.tensor(n.inputs[2]).elements() != s.channels) return false;
    s.bias = n.inputs[2];
  }
  return true;
}

uint64_t part_bytes(const Splittable& s, int64_t channels) {
  uint64_t c = static_cast<uint64_t>(channels);
  return aligned_weight_bytes(c * s.row_bytes) + (s.bias >= 0 ? aligned_weight_bytes(c * 4) : 0);
}

// Channels [first, first + count) of constant `id` (sliced on axis 0).
ir::TensorId slice_constant(ir::Graph& g, ir::TensorId id, int64_t first, int64_t count, const std::string& suffix) {
  const ir::Tensor& whole = g.tensor(id);
  ir::Tensor t;  // not a copy of `whole`: its data may be megabytes
  t.name = g.unique_tensor_name(whole.name + suffix);
  t.dtype = whole.dtype;
  t.shape = whole.shape;
  t.shape[0] = count;
  t.layout = whole.layout;
  t.constant = true;
  const uint64_t row = whole.data.size() / static_cast<uint64_t>(whole.shape[0]);
  t.data.assign(whole.data.begin() + static_cast<std::ptrdiff_t>(row * static_cast<uint64_t>(first)),
                whole.data.begin() + static_cast<std::ptrdiff_t>(row * static_cast<uint64_t>(first + count)));
  return g.add_tensor(std::move(t));
}


struct Splitter {
  ir::Graph& g;
  const ir::Node& n;
  const Splittable& s;
  int64_t width;                // channels per part (the last part may have fewer)
  std::vector<ir::Node> nodes;  // the replacement, in execution order

  int64_t channels_of(int64_t part, int64_t count) const {
    return std::min(s.channels, (part + count) * width) - part * width;
  }

  // A tensor like the op's output with `channels` on its last axis.
  ir::TensorId slice_output(int64_t channels, const std::string& suffix) {
    ir::Tensor y = g.tensor(n.outputs[0]);
    y.name = g.unique_tensor_name(y.name + suffix);
    y.shape.back() = channels;
    y.caller_channels_last = false;
    y.declared_dtype = ir::DType::Undefined;
    return g.add_tensor(std::move(y));
  }

  void emit_part(int64_t k, ir::TensorId out) {
    const std::string suffix = "_part" + std::to_string(k);
    const int64_t first = k * width, count = channels_of(k, 1);
    ir::Node p = n;
    p.name = g.unique_node_name(n.name + suffix);
    p.inputs[1] = slice_constant(g, s.weight, first, count, suffix);
    if (s.bias >= 0) p.inputs[2] = slice_constant(g, s.bias, first, count, suffix);
    p.outputs = {out};
    nodes.push_back(std::move(p));
  }

  // Parts [first, first + count) writing `out` (their channels, in order).
  void emit(int64_t first, int64_t count, ir::TensorId out) {
    if (count == 1) return emit_part(first, out);
    ir::Node concat;
    concat.name = g.unique_node_name(n.name + "_concat" + std::to_string(first));
    concat.op = "Concat";
    concat.outputs = {out};
    concat.attrs.set("axis", static_cast<int64_t>(g.tensor(out).rank() - 1));  // stored order: channels last
    // A stage holds TIGRIS_MAX_STAGE_INPUTS: more parts are joined by a tree of Concats.
    const int64_t groups = std::min(static_cast<int64_t>(kConcatFanIn), count);
    for (int64_t i = 0, at = first; i < groups; ++i) {
      const int64_t size = count / groups + (i < count % groups ? 1 : 0);
      ir::TensorId piece =
          slice_output(channels_of(at, size), "_part" + std::to_string(at) + "_" + std::to_string(size));
      emit(at, size, piece);
      concat.inputs.push_back(piece);
      at += size;
    }
    nodes.push_back(std::move(concat));
  }
};

}  // namespace

int split_wide_weights(ir::Graph& g, uint64_t reserve) {
  int split = 0;
  std::vector<ir::Node> nodes;
  for (const ir::Node& n : g.nodes) {
    Splittable s;
    if (!splittable(g, n, s) || part_bytes(s, s.channels) <= reserve || part_bytes(s, 1) > reserve) {
      nodes.push_back(n);
      continue;
    }
    int64_t parts = 2;
    while (part_bytes(s, (s.channels + parts - 1) / parts) > reserve) ++parts;
    const int64_t width = (s.channels + parts - 1) / parts;
    Splitter sp{g, n, s, width, {}};
    sp.emit(0, (s.channels + width - 1) / width, n.outputs[0]);
    for (ir::Node& p : sp.nodes) nodes.push_back(std::move(p));
    ++split;
  }
  if (split == 0) return 0;
  g.nodes = std::move(nodes);
  g.compact();
  return split;
}

}  // namespace tigris::passes
