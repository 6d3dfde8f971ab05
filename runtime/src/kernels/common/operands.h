// Operands of elementwise ops and MatMul at run time: tensor inputs and the op's constant
// (CONSTANT_OPERAND / short form, docs/operators.md §1), each as a view under the call's band.
// The same resolution as the loader's rule (plan/op_rules_util.h), plus data pointers.
#pragma once

#include "kernels/common/geometry.h"

namespace tigris_rt {
namespace kern {

struct OperandView {
    View view;
    uint8_t dtype;
    bool constant;
    const tigris_quant_param_t *quant;  // NULL when unquantized
};

// Resolves the op's n (2 or 3) operands against output 0 under `band`; -1 when they do not
// resolve or a tensor has no buffer.
int resolve_operand_views(const Call &call, uint8_t n, const Band &band, OperandView *out);

// Output 0 of the op as a view under `band`.
View output0_view(const Call &call, const Band &band);

}  // namespace kern
}  // namespace tigris_rt
