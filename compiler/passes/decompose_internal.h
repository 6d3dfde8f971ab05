// Decomposition rules shared by decompose.cpp and decompose_more/select/math.cpp.
#pragma once

#include <functional>
#include <map>
#include <string>

#include "compiler/ir/graph.h"
#include "compiler/passes/rewrite.h"

namespace tigris::passes {

// Rewrites node `index` through `r` and returns true, or returns false (node kept).
using DecomposeFn = std::function<bool(ir::Graph&, size_t, Rewrite&)>;

// Attributes holding one value, for the rewritten nodes.
inline ir::Attributes attr(const std::string& name, ir::Attribute v) {
  ir::Attributes a;
  a.set(name, std::move(v));
  return a;
}

void add_more_decompositions(std::map<std::string, DecomposeFn>& table);
void add_select_decompositions(std::map<std::string, DecomposeFn>& table);  // decompose_select.cpp
void add_math_decompositions(std::map<std::string, DecomposeFn>& table);    // decompose_math.cpp (after "Pow")

}  // namespace tigris::passes
