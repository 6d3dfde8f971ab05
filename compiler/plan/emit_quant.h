// Quant params of an emitted plan: one per quantized tensor (scale, zero point and a
// default multiplier), the requantization factors of conv-like ops on their output's
// param, and the params of int8 constant operands (docs/operators.md §5).
#pragma once

#include <string>

#include "compiler/ir/quant.h"
#include "compiler/plan/lower.h"
#include "compiler/plan/plan_writer.h"

namespace tigris::plan {

// A per-tensor quant param appended to the plan; its index. Throws CompileError
// (Unsupported) for per-channel params (only weights are quantized per channel).
uint16_t add_quant(PlanDesc& p, const ir::QuantParam& q, const std::string& tensor);

// The int8 parts of a lowered op: clamp, output factors, constant-operand quant index.
// `output` is the plan index of the op's output 0; `attrs_from` the op's first AttrDesc.
void apply_int8(const LoweredOp& lo, const std::string& op_name, uint16_t output, size_t attrs_from, OpDesc& op,
                PlanDesc& p);

}  // namespace tigris::plan
