// Lowering: one normalized IR node -> one plan operator, as docs/operators.md defines it.
#pragma once

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/plan/weights.h"
#include "tigris.h"

namespace tigris::plan {

struct LoweredOp {
  uint8_t type = 0;                  // tigris_op_type_t
  std::vector<ir::TensorId> inputs;  // activations only (constants became weights)
  std::vector<ir::TensorId> outputs;
  tigris_spatial_t spatial{};
  uint16_t weight = TIGRIS_NONE;
  uint16_t bias = TIGRIS_NONE;
  uint8_t fused_act = TIGRIS_ACT_NONE;
  std::vector<std::pair<uint8_t, std::vector<uint8_t>>> attrs;  // (tigris_attr_kind_t, payload)
  // int8 ops: the output clamp (TFLite's activation range), and for conv-like ops the
  // requantization factors the plan stores on output 0's quant param (one per channel or one).
  int8_t act_min = -128;
  int8_t act_max = 127;
  std::vector<int32_t> out_multipliers;
  std::vector<int32_t> out_shifts;
  // int8 constant operand (CONSTANT_OPERAND): its quant param; emit adds it to the plan
  // and writes its index into the attribute (payload bytes 2..3).
  std::optional<ir::QuantParam> constant_quant;
};

// Throws ir::CompileError(Unsupported) naming the node and the reason when the plan has no
// form for it (no kernel, an attribute value the kernels do not take, a dtype...).
LoweredOp lower_node(const ir::Graph& g, const ir::Node& n, WeightTable& weights);

}  // namespace tigris::plan
