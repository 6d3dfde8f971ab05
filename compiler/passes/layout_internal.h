// Pieces of the layout pass (layout.cpp), split by concern.
#pragma once

#include "compiler/ir/graph.h"

namespace tigris::passes {

// Give lower-rank operands of elementwise ops the output's rank (leading 1s): constants by
// reshaping their data, activations through an inserted Reshape (attribute __layout_helper).
void expand_broadcast_ranks(ir::Graph& g);

// Rewrite an Axis-rule node's axis attributes from model order to the stored order of its
// (channels-last) input 0.
void remap_axes_to_stored(const ir::Graph& g, ir::Node& n);

// A permutation of `shape` that moves no data (only extent-1 axes change place).
bool moves_no_data(const ir::Shape& shape, const std::vector<int64_t>& perm);

}  // namespace tigris::passes
