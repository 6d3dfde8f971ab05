// Concats of many inputs become trees of narrower Concats (concat_split.cpp).
#pragma once

#include <cstddef>

#include "compiler/ir/graph.h"

namespace tigris::passes {

// A Concat joins at most this many inputs after split_wide_concats (and in weight_split's
// trees): well under TIGRIS_MAX_STAGE_INPUTS, so a Concat and its neighbours fit one stage.
constexpr size_t kConcatFanIn = 8;

// Replace every Concat of more inputs than a stage may list (TIGRIS_MAX_STAGE_INPUTS) by a tree of Concats of at most
// kConcatFanIn inputs along the same axis; returns the number replaced.
int split_wide_concats(ir::Graph& g);

}  // namespace tigris::passes
