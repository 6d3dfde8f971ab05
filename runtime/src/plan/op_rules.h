// Operator semantic checks (schema 4+): the contract each operator's kernels rely on.
// The loader calls check_operator() for every op after the structural checks; the rules
// follow docs/operators.md (inputs, outputs, weights, attributes and shapes per op type).
#pragma once

#include "tigris.h"

namespace tigris_rt {

// TIGRIS_OK, or TIGRIS_ERR_BAD_OPERATOR when op `op_index` breaks its operator's contract
// (or its opcode has no rule).
tigris_error_t check_operator(const tigris_plan_t *plan, uint16_t op_index);

}  // namespace tigris_rt
