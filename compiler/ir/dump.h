// A readable text form of a graph (tests, debugging, `inspect -v`).
#pragma once

#include <string>

#include "compiler/ir/graph.h"

namespace tigris::ir {

std::string to_text(const Graph& g);

}  // namespace tigris::ir
