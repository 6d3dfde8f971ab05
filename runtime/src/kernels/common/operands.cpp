// Run-time operand resolution on top of the loader's rule.
#include "kernels/common/operands.h"

#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace kern {

View output0_view(const Call &call, const Band &band)
{
    const tigris_tensor_t &out = call.out(0);
    return output_view(band, call.out_ptr(0), call.shape(out), out.ndim, (uint8_t)tigris_dtype_size(out.dtype));
}

int resolve_operand_views(const Call &call, uint8_t n, const Band &band, OperandView *out)
{
    rules::OpView v{call.plan, call.op, call.op_index};
    rules::Operand ops[3];
    if (n > 3 || !rules::resolve_operands(v, n, ops)) return -1;
    const tigris_tensor_t &o = call.out(0);
    const int32_t *os = call.shape(o);
    for (uint8_t k = 0; k < n; ++k) {
        const rules::Operand &op = ops[k];
        uint8_t elem = (uint8_t)tigris_dtype_size(op.dtype);
        out[k].dtype = op.dtype;
        out[k].constant = op.constant;
        out[k].quant = op.quant != TIGRIS_NONE && op.quant < call.plan->num_quant_params
                           ? &call.plan->quant_params[op.quant]
                           : nullptr;
        if (op.constant) {
            const void *data = call.weight();
            if (data == nullptr) return -1;
            out[k].view = whole_view(data, op.shape, op.rank, elem);
        } else {
            const void *data = call.in_ptr(op.input);
            if (data == nullptr) return -1;
            out[k].view = input_view(band, data, op.shape, op.rank, elem, os, o.ndim);
        }
    }
    return 0;
}

}  // namespace kern
}  // namespace tigris_rt
