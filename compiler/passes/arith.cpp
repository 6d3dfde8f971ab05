// Arithmetic with constants into the forms the kernels take: Neg -> Mul(-1),
// Sub(x, c) -> Add(x, -c), Div(x, c) -> Mul(x, 1/c) (each constant converted once, however
// many readers it has; not a Div marked "exact_division", a QuantizeLinear's), and a per-channel constant Add after
// Conv/Gemm folded into the bias.
#include <map>
#include <optional>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

bool float_op(const ir::Graph& g, const ir::Node& n) {
  return n.domain.empty() && !n.inputs.empty() && n.inputs[0] >= 0 && g.tensor(n.inputs[0]).dtype == ir::DType::Float32;
}

// A converted copy of constant `c`, made once per (constant, kind).
ir::TensorId converted(ir::Graph& g, std::map<std::pair<ir::TensorId, char>, ir::TensorId>& cache, ir::TensorId c,
                       char kind) {
  auto key = std::make_pair(c, kind);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const ir::Tensor t = g.tensor(c);
  std::vector<float> v = const_floats(t);
  for (float& x : v) x = kind == 'n' ? -x : 1.0f / x;
  ir::TensorId id = add_float_constant(g, t.name + (kind == 'n' ? "_neg" : "_recip"), t.shape, v);
  cache[key] = id;
  return id;
}

// Bias operand when `c` is constant and varies only along `axis` of an output of rank `rank`
// with `channels` channels; nullopt otherwise.
std::optional<std::vector<float>> per_channel(const ir::Tensor& c, int rank, int axis, int64_t channels) {
  if (!c.constant || c.dtype != ir::DType::Float32 || c.rank() > rank) return std::nullopt;
  std::vector<float> v = const_floats(c);
  if (v.size() == 1) return std::vector<float>(static_cast<size_t>(channels), v[0]);
  int offset = rank - c.rank();
  for (int d = 0; d < c.rank(); ++d) {
    int64_t extent = c.shape[static_cast<size_t>(d)];
    if (d + offset == axis ? extent != channels : extent != 1) return std::nullopt;
  }
  return v;
}

bool has_bias_slot(const ir::Node& p) {
  static const char* ops[] = {"Conv", "ConvTranspose", "Gemm"};
  for (const char* op : ops)
    if (p.op == op && p.domain.empty()) return true;
  return false;
}

bool fold_add_into_bias(ir::Graph& g, size_t i) {
  const ir::Node& add = g.nodes[i];
  if (add.inputs.size() != 2) return false;
  for (int side = 0; side < 2; ++side) {
    ir::TensorId x = add.inputs[static_cast<size_t>(side)], c = add.inputs[static_cast<size_t>(1 - side)];
    int p = g.producer(x);
    if (p < 0 || !is_const(g, c) || !single_consumer(g, x, static_cast<int>(i))) continue;
    const ir::Node& prod = g.nodes[static_cast<size_t>(p)];
    if (!has_bias_slot(prod) || prod.inputs.size() < 2) continue;
    const ir::Tensor& xt = g.tensor(x);
    if (g.tensor(add.outputs[0]).shape != xt.shape || xt.rank() < 2) continue;
    ir::TensorId old_bias = input_or_none(prod, 2);
    if (old_bias >= 0 && !is_const(g, old_bias)) continue;
    int64_t channels = xt.shape[1];
    std::optional<std::vector<float>> extra = per_channel(g.tensor(c), xt.rank(), 1, channels);
    if (!extra) continue;
    std::vector<float> bias(static_cast<size_t>(channels), 0.0f);
    if (old_bias >= 0) bias = const_floats(g.tensor(old_bias));
    for (size_t k = 0; k < bias.size(); ++k) bias[k] += (*extra)[k];
    ir::TensorId nb = add_float_constant(g, prod.name + "_bias", {channels}, bias);
    ir::Node& pr = g.nodes[static_cast<size_t>(p)];
    if (pr.inputs.size() < 3)
      pr.inputs.push_back(nb);
    else
      pr.inputs[2] = nb;
    pr.outputs[0] = g.nodes[i].outputs[0];
    return true;
  }
  return false;
}

}  // namespace

void fold_constant_arithmetic(ir::Graph& g) {
  std::map<std::pair<ir::TensorId, char>, ir::TensorId> cache;
  for (ir::Node& n : g.nodes) {
    if (!float_op(g, n)) continue;
    if (n.op == "Neg" && n.inputs.size() == 1) {
      n.op = "Mul";
      n.inputs.push_back(add_float_constant(g, n.name + "_minus1", {}, {-1.0f}));
    } else if (n.op == "Sub" && n.inputs.size() == 2 && is_const(g, n.inputs[1])) {
      n.op = "Add";
      n.inputs[1] = converted(g, cache, n.inputs[1], 'n');
    } else if (n.op == "Div" && n.inputs.size() == 2 && is_const(g, n.inputs[1]) && !n.attrs.has("exact_division")) {
      n.op = "Mul";
      n.inputs[1] = converted(g, cache, n.inputs[1], 'r');
    }
  }
  g.compact();
}

void fold_bias(ir::Graph& g) {
  std::vector<char> remove(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].op == "Add" && float_op(g, g.nodes[i]) && fold_add_into_bias(g, i)) remove[i] = 1;
  erase_nodes(g, remove);
  g.compact();
}

}  // namespace tigris::passes
