// Channel shuffle as a Gather: Reshape → Transpose → Reshape that only splits one axis into
// factors, permutes the factors and merges them back (ShuffleNet's [N, g, C/g, H, W] swap, any
// g, any factor order) is a permutation of that axis. It becomes one Gather along the axis with
// constant indices, so the 5-D tensors disappear: the layout pass stores the data channels-last
// like its neighbours and the Gather bands along rows like any channel-wise copy (each output
// row reads the same input row).
#include <cstring>
#include <numeric>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

// The one node reading `id` (only reader, not a model output), or -1.
int sole_reader(const ir::Graph& g, ir::TensorId id) {
  if (id < 0 || g.is_output(id)) return -1;
  std::vector<int> c = g.consumers(id);
  return c.size() == 1 ? c[0] : -1;
}

struct Shuffle {
  int split = -1, transpose = -1, merge = -1;  // node indices
  int64_t axis = 0;                            // the permuted axis of the data
  std::vector<int64_t> indices;                // output position k reads input position indices[k]
};

// The permutation of an axis of extent prod(factors) split into `factors`, permuted by `perm`
// (over the factors) and merged: iota reshaped, transposed and flattened.
std::vector<int64_t> factor_permutation(const std::vector<int64_t>& factors, const std::vector<int64_t>& perm) {
  const size_t m = factors.size();
  std::vector<int64_t> stride(m, 1), out_dims(m);
  for (size_t i = m - 1; i > 0; --i) stride[i - 1] = stride[i] * factors[i];
  for (size_t i = 0; i < m; ++i) out_dims[i] = factors[static_cast<size_t>(perm[i])];
  int64_t total = 1;
  for (int64_t f : factors) total *= f;
  std::vector<int64_t> idx(static_cast<size_t>(total));
  std::vector<int64_t> pos(m, 0);  // output coordinates, last fastest
  for (int64_t k = 0; k < total; ++k) {
    int64_t src = 0;
    for (size_t i = 0; i < m; ++i) src += pos[i] * stride[static_cast<size_t>(perm[i])];
    idx[static_cast<size_t>(k)] = src;
    for (size_t i = m; i-- > 0;) {
      if (++pos[i] < out_dims[i]) break;
      pos[i] = 0;
    }
  }
  return idx;
}

// Whether nodes i (Reshape), its reader (Transpose) and that one's reader (Reshape) form a
// permutation of one axis of node i's input; fills `s`.
bool match(const ir::Graph& g, int i, Shuffle* s) {
  const ir::Node& r1 = g.nodes[static_cast<size_t>(i)];
  if (r1.op != "Reshape" || !r1.domain.empty() || r1.inputs.empty() || r1.outputs.size() != 1) return false;
  const int t = sole_reader(g, r1.outputs[0]);
  if (t < 0 || g.nodes[static_cast<size_t>(t)].op != "Transpose") return false;
  const ir::Node& tr = g.nodes[static_cast<size_t>(t)];
  if (tr.outputs.size() != 1) return false;
  const int r = sole_reader(g, tr.outputs[0]);
  if (r < 0 || g.nodes[static_cast<size_t>(r)].op != "Reshape") return false;
  const ir::Node& r2 = g.nodes[static_cast<size_t>(r)];
  if (r2.outputs.size() != 1) return false;
  // A Gather copies bytes: every step must keep the dtype and the quantization (an int8 Reshape
  // or Transpose between different scales requantizes), and int16 plans move bytes only through
  // the ops they list.
  const ir::Tensor& in = g.tensor(r1.inputs[0]);
  if (in.dtype == ir::DType::Int16) return false;
  for (ir::TensorId t : {r1.outputs[0], tr.outputs[0], r2.outputs[0]})
    if (g.tensor(t).dtype != in.dtype || g.tensor(t).quant != in.quant) return false;
  const ir::Shape& x = in.shape;
  const ir::Shape& mid = g.tensor(r1.outputs[0]).shape;
  if (g.tensor(r2.outputs[0]).shape != x || x.empty() || mid.size() <= x.size()) return false;
  // mid = x[:a] + factors + x[a+1:]: one axis split into m factors.
  const size_t m = mid.size() - x.size() + 1;
  size_t a = 0;
  while (a < x.size() && mid[a] == x[a]) ++a;
  if (a == x.size()) return false;
  for (size_t k = a + 1; k < x.size(); ++k)
    if (mid[k + m - 1] != x[k]) return false;
  std::vector<int64_t> factors(mid.begin() + static_cast<std::ptrdiff_t>(a),
                               mid.begin() + static_cast<std::ptrdiff_t>(a + m));
  int64_t product = 1;
  for (int64_t f : factors) product *= f;
  if (product != x[a]) return false;
  // The Transpose permutes only the factors.
  std::vector<int64_t> perm = tr.attrs.get_ints("perm");
  if (perm.empty())
    for (size_t k = mid.size(); k-- > 0;) perm.push_back(static_cast<int64_t>(k));
  if (perm.size() != mid.size()) return false;
  std::vector<int64_t> inner;
  for (size_t k = 0; k < perm.size(); ++k) {
    const bool factor = k >= a && k < a + m;
    if (!factor && perm[k] != static_cast<int64_t>(k)) return false;
    if (factor) {
      if (perm[k] < static_cast<int64_t>(a) || perm[k] >= static_cast<int64_t>(a + m)) return false;
      inner.push_back(perm[k] - static_cast<int64_t>(a));
    }
  }
  std::vector<int64_t> identity(m);
  std::iota(identity.begin(), identity.end(), 0);
  if (inner == identity) return false;  // a plain copy: fold_reshapes' business
  s->split = i, s->transpose = t, s->merge = r;
  s->axis = static_cast<int64_t>(a);
  s->indices = factor_permutation(factors, inner);
  return true;
}

}  // namespace

void channel_shuffle_to_gather(ir::Graph& g) {
  std::vector<char> remove(g.nodes.size(), 0);
  bool changed = false;
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    Shuffle s;
    if (remove[i] || !match(g, static_cast<int>(i), &s)) continue;
    ir::Node& r2 = g.nodes[static_cast<size_t>(s.merge)];
    const ir::Node& r1 = g.nodes[i];
    std::vector<uint8_t> bytes(s.indices.size() * sizeof(int64_t));
    std::memcpy(bytes.data(), s.indices.data(), bytes.size());
    const ir::TensorId idx = add_constant(g, r1.name + "_shuffle", ir::DType::Int64,
                                          ir::Shape{static_cast<int64_t>(s.indices.size())}, std::move(bytes));
    ir::Node gather;
    gather.name = r2.name;
    gather.op = "Gather";
    gather.inputs = {r1.inputs[0], idx};
    gather.outputs = r2.outputs;
    gather.attrs.set("axis", s.axis);
    r2 = std::move(gather);  // in the merge's place: its readers follow it
    remove[i] = remove[static_cast<size_t>(s.transpose)] = 1;
    changed = true;
  }
  if (!changed) return;
  erase_nodes(g, remove);
  g.compact();
}

}  // namespace tigris::passes
