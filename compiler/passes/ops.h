// What the passes need to know about an operator's axes: how the layout pass treats it.
#pragma once

#include <string>

#include "compiler/ir/graph.h"

namespace tigris::passes {

enum class LayoutRule {
  Spatial,      // reads input 0 and writes output 0 channels-last (conv, pools, resize...)
  Elementwise,  // operands broadcast to the output; any layout, all the same
  Axis,         // one data layout in and out; its axis attributes are remapped
  Transpose,    // any layout in, model order out (the permutation absorbs the conversion)
  ModelOrder,   // needs the model's axis order (reshape, matmul, gather...)
};

LayoutRule layout_rule(const ir::Graph& g, const ir::Node& n);

}  // namespace tigris::passes
