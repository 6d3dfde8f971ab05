// Display names of the plan's operator types (tigris_op_type_t wire values): the operator
// table's names (runtime/src/ops/op_table.h).
#pragma once

#include <string>

namespace tigris::report {

// ONNX-style name: 1 -> "Conv", 9 -> "Gemm", 83 -> "Sum"; unknown -> "op N".
std::string op_type_name(int op_type);

// "relu", "relu6" or "" for none.
std::string fused_activation_name(int act);

}  // namespace tigris::report
