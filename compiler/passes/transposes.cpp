// After layout assignment: axis attributes and Transpose permutations into the stored
// order, redundant transposes and reshapes folded.
#include <algorithm>
#include <numeric>

#include "compiler/passes/layout_internal.h"
#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

// Stored permutation of a Transpose: q[j] = Pin^-1[perm[Pout[j]]], where P maps stored axes
// to model axes (identity for model order).
std::vector<int64_t> stored_perm(const std::vector<int64_t>& perm, ir::Layout in, ir::Layout out) {
  int rank = static_cast<int>(perm.size());
  std::vector<int64_t> identity(static_cast<size_t>(rank));
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<int64_t> pin = in == ir::Layout::ChannelsLast ? ir::to_channels_last_perm(rank) : identity;
  std::vector<int64_t> pout = out == ir::Layout::ChannelsLast ? ir::to_channels_last_perm(rank) : identity;
  std::vector<int64_t> inv(static_cast<size_t>(rank));
  for (int j = 0; j < rank; ++j) inv[static_cast<size_t>(pin[static_cast<size_t>(j)])] = j;
  std::vector<int64_t> q(static_cast<size_t>(rank));
  for (int j = 0; j < rank; ++j)
    q[static_cast<size_t>(j)] = inv[static_cast<size_t>(perm[static_cast<size_t>(pout[static_cast<size_t>(j)])])];
  return q;
}

void check_perm(const ir::Graph& g, const ir::Node& n, const std::vector<int64_t>& perm) {
  const ir::Tensor& x = g.tensor(n.inputs.at(0));
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> identity(perm.size());
  std::iota(identity.begin(), identity.end(), 0);
  if (static_cast<int>(perm.size()) != x.rank() || sorted != identity)
    throw node_error(n, "perm is not a permutation of the input's " + std::to_string(x.rank()) + " axes");
  if (ir::permute_shape(x.shape, perm) != g.tensor(n.outputs.at(0)).shape)
    throw node_error(n, "output shape does not match the permuted input");
}

// A reader of `id` that can take the tensor before a copy (Reshape) in its place.
bool reads_bytes_only(const ir::Node& n, ir::TensorId id) {
  return (n.op == "Reshape" && n.inputs.at(0) == id) || (n.op == "Gemm" && n.inputs.at(0) == id);
}

}  // namespace

void remap_axes(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if (!n.attrs.has("__remap_axes")) continue;
    n.attrs.erase("__remap_axes");
    remap_axes_to_stored(g, n);
  }
}

void transpose_permutations(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if (n.op != "Transpose" || n.inputs.empty()) continue;
    std::vector<int64_t> perm = n.attrs.get_ints("perm");
    int rank = g.tensor(n.inputs[0]).rank();
    if (perm.empty())
      for (int i = rank; i-- > 0;) perm.push_back(i);
    for (int64_t& p : perm) p = normalize_axis(p, rank, n);
    if (n.attrs.has("__perm_layouts")) {
      std::vector<int64_t> l = n.attrs.get_ints("__perm_layouts");
      perm = stored_perm(perm, static_cast<ir::Layout>(l.at(0)), static_cast<ir::Layout>(l.at(1)));
      n.attrs.erase("__perm_layouts");
    }
    check_perm(g, n, perm);
    n.attrs.set("perm", perm);
    if (moves_no_data(g.tensor(n.inputs[0]).shape, perm)) {  // a plain copy
      n.op = "Reshape";
      n.attrs = {};
      n.attrs.set("shape", g.tensor(n.outputs[0]).shape);
    }
  }
}

void fold_reshapes(ir::Graph& g) {
  // A Reshape whose readers only look at bytes (another Reshape, a Gemm's input) is bypassed.
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& r = g.nodes[i];
    if (r.op != "Reshape" || r.inputs.size() != 1 || g.is_output(r.outputs[0])) continue;
    ir::TensorId src = r.inputs[0], dst = r.outputs[0];
    if (g.tensor(src).dtype != g.tensor(dst).dtype || g.tensor(src).quant != g.tensor(dst).quant) continue;
    std::vector<int> readers = g.consumers(dst);
    bool ok = !readers.empty();
    for (int c : readers) ok = ok && reads_bytes_only(g.nodes[static_cast<size_t>(c)], dst);
    if (!ok) continue;
    for (int c : readers) g.nodes[static_cast<size_t>(c)].inputs[0] = src;
  }
  remove_unused(g);
}

}  // namespace tigris::passes
