// Spatial attributes (kernel, strides, dilations, pads) in one explicit form.
#pragma once

#include <string>

#include "compiler/ir/graph.h"

namespace tigris::passes {

// Rewrite a Conv / ConvTranspose / pool node's attributes to explicit `kernel_shape`,
// `strides`, `dilations` and `pads` ([begins..., ends...]), resolving auto_pad and (pools)
// ceil_mode into pads. Spatial rank from the input tensor (rank - 2).
void make_spatial_explicit(const ir::Graph& g, ir::Node& n);

// MaxPool, AveragePool or LpPool: a windowed pool (not the global ones).
inline bool is_pool(const std::string& op) { return op == "MaxPool" || op == "AveragePool" || op == "LpPool"; }

}  // namespace tigris::passes
