// A Concat of more inputs than a stage may list (TIGRIS_MAX_STAGE_INPUTS) can run only whole:
// it is replaced by a tree of Concats of at most kConcatFanIn inputs each (the same axis, the
// same bytes in the same order), so every node of the tree can be banded.
#include "compiler/passes/concat_split.h"

#include <string>
#include <vector>

#include "compiler/passes/pipeline.h"
#include "tigris_config.h"

namespace tigris::passes {

namespace {

struct ConcatTree {
  ir::Graph& g;
  const ir::Node& n;
  int64_t axis;
  std::vector<ir::Node> nodes;  // the replacement, in execution order

  // A tensor like the Concat's output holding `extent` along the axis.
  ir::TensorId piece(int64_t extent, size_t first) {
    ir::Tensor y = g.tensor(n.outputs[0]);
    y.name = g.unique_tensor_name(y.name + "_join" + std::to_string(first));
    y.shape[static_cast<size_t>(axis)] = extent;
    y.caller_channels_last = false;
    y.declared_dtype = ir::DType::Undefined;
    return g.add_tensor(std::move(y));
  }

  // Inputs [first, first + count) of the Concat joined into `out`.
  void emit(size_t first, size_t count, ir::TensorId out) {
    ir::Node c = n;
    c.name = g.unique_node_name(n.name + "_join" + std::to_string(first));
    c.inputs.clear();
    c.outputs = {out};
    // Few wide groups: each input is copied once more per tree level, and fewer joins are fewer stages.
    const size_t wide = (count + kConcatFanIn - 1) / kConcatFanIn;
    const size_t groups = count <= kConcatFanIn ? count : (wide < kConcatFanIn ? wide : kConcatFanIn);
    for (size_t i = 0, at = first; i < groups; ++i) {
      const size_t size = count / groups + (i < count % groups ? 1 : 0);
      if (size == 1) {
        c.inputs.push_back(n.inputs[at]);
      } else {
        int64_t extent = 0;
        for (size_t k = at; k < at + size; ++k) extent += g.tensor(n.inputs[k]).shape[static_cast<size_t>(axis)];
        const ir::TensorId p = piece(extent, at);
        emit(at, size, p);
        c.inputs.push_back(p);
      }
      at += size;
    }
    nodes.push_back(std::move(c));
  }
};

}  // namespace

int split_wide_concats(ir::Graph& g) {
  int split = 0;
  std::vector<ir::Node> nodes;
  for (const ir::Node& n : g.nodes) {
    const int rank = n.outputs.size() == 1 ? g.tensor(n.outputs[0]).rank() : 0;
    int64_t axis = n.attrs.get_int("axis", 0);
    if (axis < 0) axis += rank;
    if (n.op != "Concat" || n.inputs.size() <= TIGRIS_MAX_STAGE_INPUTS || axis < 0 || axis >= rank) {
      nodes.push_back(n);
      continue;
    }
    ConcatTree t{g, n, axis, {}};
    t.emit(0, n.inputs.size(), n.outputs[0]);
    for (ir::Node& p : t.nodes) nodes.push_back(std::move(p));
    ++split;
  }
  if (split == 0) return 0;
  g.nodes = std::move(nodes);
  g.compact();
  return split;
}

void split_wide_concats_pass(ir::Graph& g) { split_wide_concats(g); }

}  // namespace tigris::passes
