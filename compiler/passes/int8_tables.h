// int8 lookup tables. IR node "Table": one int8 input, attribute "table" = the 256 int8 outputs
// indexed by the input byte as uint8 (plan op TABLE, the entries its weight).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::passes {

// The int8 form of float elementwise node `node` of a QDQ graph whose one varying operand
// `x` is dequantized with `in` and whose output is quantized with `out` (both the int8 form:
// a uint8 zero point moved by 128): DequantizeLinear of each int8 value, the op as the float
// kernels compute it, QuantizeLinear (round half to even, saturate). nullopt when the op has
// no float plan form or a constant operand is not a single value.
std::optional<std::vector<uint8_t>> dequantized_op_table(const ir::Graph& g, int node, ir::TensorId x,
                                                         const ir::QuantParam& in, const ir::QuantParam& out);

// A table's bytes as the node's "table" attribute.
std::vector<int64_t> table_entries(const std::vector<uint8_t>& table);

}  // namespace tigris::passes
