// BatchNormalization (inference): folded into the preceding Conv / ConvTranspose when it is
// the conv's only reader, else rewritten as Mul(scale) + Add(shift) per channel.
#include <algorithm>
#include <cmath>
#include <optional>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

struct Affine {
  std::vector<float> scale, shift;  // y = x * scale[c] + shift[c]
};

std::optional<Affine> bn_affine(const ir::Graph& g, const ir::Node& n) {
  if (n.inputs.size() < 5) return std::nullopt;
  for (size_t i = 1; i < 5; ++i)
    if (!is_const(g, n.inputs[i])) return std::nullopt;
  std::vector<float> gamma = const_floats(g.tensor(n.inputs[1])), beta = const_floats(g.tensor(n.inputs[2]));
  std::vector<float> mean = const_floats(g.tensor(n.inputs[3])), var = const_floats(g.tensor(n.inputs[4]));
  double eps = n.attrs.get_float("epsilon", 1e-5f);
  size_t c = gamma.size();
  if (beta.size() != c || mean.size() != c || var.size() != c) return std::nullopt;
  Affine a;
  for (size_t i = 0; i < c; ++i) {
    double s = gamma[i] / std::sqrt(static_cast<double>(var[i]) + eps);
    a.scale.push_back(static_cast<float>(s));
    a.shift.push_back(static_cast<float>(beta[i] - mean[i] * s));
  }
  return a;
}

// Fold into the conv producing the BN input. `channel_axis` of the weight: 0 Conv, 1 ConvTranspose.
bool fold_into_conv(ir::Graph& g, size_t bn_index, const Affine& a) {
  const ir::Node& bn = g.nodes[bn_index];
  int p = g.producer(bn.inputs[0]);
  if (p < 0 || !single_consumer(g, bn.inputs[0], static_cast<int>(bn_index))) return false;
  ir::Node& conv = g.nodes[static_cast<size_t>(p)];
  bool transpose = conv.op == "ConvTranspose";
  if ((conv.op != "Conv" && !transpose) || !conv.domain.empty() || conv.inputs.size() < 2) return false;
  if (transpose && conv.attrs.get_int("group", 1) != 1) return false;
  if (!is_const(g, conv.inputs[1]) || g.tensor(conv.inputs[1]).dtype != ir::DType::Float32) return false;
  ir::TensorId bias_id = input_or_none(conv, 2);
  if (bias_id >= 0 && !is_const(g, bias_id)) return false;

  const ir::Tensor w = g.tensor(conv.inputs[1]);
  int64_t channels = static_cast<int64_t>(a.scale.size());
  int64_t axis = transpose ? 1 : 0;
  if (w.rank() < 2 || w.shape[static_cast<size_t>(axis)] != channels) return false;
  std::vector<float> wv = const_floats(w);
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < w.shape.size(); ++d) inner *= w.shape[d];
  for (size_t i = 0; i < wv.size(); ++i)
    wv[i] *= a.scale[static_cast<size_t>((static_cast<int64_t>(i) / inner) % channels)];
  std::vector<float> bias(static_cast<size_t>(channels), 0.0f);
  if (bias_id >= 0) bias = const_floats(g.tensor(bias_id));
  for (size_t c = 0; c < bias.size(); ++c) bias[c] = bias[c] * a.scale[c] + a.shift[c];

  ir::TensorId new_w = add_float_constant(g, w.name + "_bn", w.shape, wv);
  ir::TensorId new_b = add_float_constant(g, g.nodes[bn_index].name + "_bias", {channels}, bias);
  ir::Node& c2 = g.nodes[static_cast<size_t>(p)];
  c2.inputs.resize(3);
  c2.inputs[1] = new_w;
  c2.inputs[2] = new_b;
  c2.outputs[0] = g.nodes[bn_index].outputs[0];
  return true;
}

}  // namespace

void fold_batchnorm(ir::Graph& g) {
  std::vector<char> remove(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    ir::Node& n = g.nodes[i];
    if (n.op != "BatchNormalization" || !n.domain.empty() || n.inputs.empty()) continue;
    if (n.outputs.size() > 1) continue;  // training outputs: left for the support check
    std::optional<Affine> a = bn_affine(g, n);
    if (!a) continue;
    if (fold_into_conv(g, i, *a)) {
      remove[i] = 1;
      continue;
    }
    // Standalone: y = x * scale + shift, constants shaped [C, 1, ..] to broadcast on axis 1.
    const ir::Tensor x = g.tensor(n.inputs[0]);
    ir::Shape cshape(static_cast<size_t>(std::max(x.rank() - 1, 1)), 1);
    cshape[0] = static_cast<int64_t>(a->scale.size());
    ir::TensorId s = add_float_constant(g, n.name + "_scale", cshape, a->scale);
    ir::TensorId t = add_float_constant(g, n.name + "_shift", cshape, a->shift);
    ir::TensorId mid = add_activation(g, x.name + "_scaled", x.dtype, g.tensor(g.nodes[i].outputs[0]).shape);
    ir::Node mul;
    mul.name = g.nodes[i].name;
    mul.op = "Mul";
    mul.inputs = {g.nodes[i].inputs[0], s};
    mul.outputs = {mid};
    ir::Node add;
    add.name = g.unique_node_name(g.nodes[i].name + "_shift");
    add.op = "Add";
    add.inputs = {mid, t};
    add.outputs = {g.nodes[i].outputs[0]};
    g.nodes[i] = mul;
    g.nodes.insert(g.nodes.begin() + static_cast<std::ptrdiff_t>(i + 1), add);
    remove.insert(remove.begin() + static_cast<std::ptrdiff_t>(i + 1), 0);
    ++i;
  }
  erase_nodes(g, remove);
  g.compact();
}

}  // namespace tigris::passes
