#include "compiler/report/op_names.h"

#include "ops/op_table.h"

namespace tigris::report {

std::string op_type_name(int op_type) {
  const tigris_rt::ops::OpDef* row =
      op_type >= 0 && op_type <= 255 ? tigris_rt::ops::op_def(static_cast<uint8_t>(op_type)) : nullptr;
  if (row != nullptr) return row->name;
  return "op " + std::to_string(op_type);
}

std::string fused_activation_name(int act) {
  switch (act) {
  case TIGRIS_ACT_RELU: return "relu";
  case TIGRIS_ACT_RELU6: return "relu6";
  default: return "";
  }
}

}  // namespace tigris::report
