// check_operator: the checks every op shares (counts, reserved byte, fused activation,
// int8 clamp range, attribute kinds valid for the op), then the op family's own rule.
#include "plan/op_rules.h"

#include "kernels/kernel_set.h"
#include "ops/op_table.h"
#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

// Every attribute attached to the op has a kind in `allowed`.
bool attributes_allowed(const OpView &v, uint32_t allowed)
{
    const tigris_plan_t *p = v.plan;
    uint32_t lo = 0, hi = p->num_op_attributes;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2u;
        if (p->op_attributes[mid].op_index < v.index) lo = mid + 1u;
        else hi = mid;
    }
    for (uint32_t i = lo; i < p->num_op_attributes && p->op_attributes[i].op_index == v.index; ++i) {
        uint8_t kind = p->op_attributes[i].type;
        if (kind >= 32 || (allowed & A(kind)) == 0) return false;
    }
    return true;
}

// Control flow: the executor runs it; the rule checks the operands it relies on.
bool check_control_flow(const OpView &v)
{
    uint8_t len = 0;
    const uint8_t *g = v.attr(TIGRIS_ATTR_SUBGRAPHS, &len);
    if (g == nullptr || len != 4) return false;
    for (int i = 0; i < 2; ++i) {
        uint16_t graph = rd_u16(g + 2 * i);
        if (graph == 0 || (v.plan->subgraphs != nullptr && graph >= v.plan->num_subgraphs)) return false;
    }
    if (v.op->op_type == TIGRIS_OP_IF) {
        const tigris_tensor_t &c = v.in(0);
        return c.dtype == TIGRIS_DTYPE_BOOL && elements(v, c) == 1;
    }
    if (v.num_in() != v.num_out()) return false;
    for (uint8_t i = 0; i < v.num_in(); ++i)
        if (v.in(i).dtype != v.out(i).dtype || v.in(i).size_bytes != v.out(i).size_bytes) return false;
    return true;
}

// The rule of the op's row, in the file of its family.
bool check_family(const OpView &v)
{
    // Only the file of the op's rule is asked (file_of); a file no kept op uses is never called.
#define TIGRIS_RULE_FILE(F, check) \
  case RuleFile::F:                \
    if constexpr (file_built(RuleFile::F)) return check == kOk; \
    return false;
    switch (file_of(rule_of(v))) {
    case RuleFile::kControlFlow:
        if constexpr (file_built(RuleFile::kControlFlow)) return check_control_flow(v);
        return false;
        TIGRIS_RULE_FILE(kSpatial, check_spatial(v))
        TIGRIS_RULE_FILE(kElementwise, check_elementwise(v))
        TIGRIS_RULE_FILE(kShape, check_shape_ops(v))
        TIGRIS_RULE_FILE(kMovement, check_movement(v))
        TIGRIS_RULE_FILE(kSequence, check_sequence(v))
        TIGRIS_RULE_FILE(kSignal, check_signal_ops(v))
    case RuleFile::kNone: break;
    }
    return false;
#undef TIGRIS_RULE_FILE
}

}  // namespace

int read_axes(const OpView &v, uint8_t rank, uint8_t *axes)
{
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_AXES, &len);
    if (a == nullptr) return 0;
    if (len == 0 || len > rank) return -1;
    for (uint8_t i = 0; i < len; ++i) {
        if (a[i] >= rank || (i > 0 && a[i] <= a[i - 1])) return -1;
        axes[i] = a[i];
    }
    return len;
}

int read_single_axis(const OpView &v, uint8_t rank, int def)
{
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_AXES, &len);
    if (a == nullptr) return def;
    if (len != 1 || a[0] >= rank) return -1;
    return a[0];
}

int movement_count(const OpView &v)
{
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_MOVEMENT, &len);
    if (a == nullptr || (len % 4u) != 0) return -1;
    return len / 4;
}

int32_t movement_at(const OpView &v, int i)
{
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_MOVEMENT, &len);
    return rd_i32(a + 4 * i);
}

bool all_same_dtype(const OpView &v)
{
    uint8_t d = v.in(0).dtype;
    for (uint8_t i = 0; i < v.num_in(); ++i)
        if (v.in(i).dtype != d) return false;
    for (uint8_t i = 0; i < v.num_out(); ++i)
        if (v.out(i).dtype != d) return false;
    return true;
}

bool broadcastable(const int32_t *s, uint8_t rank, const int32_t *out, uint8_t out_rank)
{
    if (rank > out_rank) return false;
    for (uint8_t i = 0; i < rank; ++i) {
        int32_t d = s[rank - 1 - i], o = out[out_rank - 1 - i];
        if (d != 1 && d != o) return false;
    }
    return true;
}

}  // namespace rules

tigris_error_t check_operator(const tigris_plan_t *plan, uint16_t op_index)
{
    using namespace rules;
    if (plan == nullptr || op_index >= plan->header->num_ops) return TIGRIS_ERR_BAD_OPERATOR;
    OpView v{plan, &plan->ops[op_index], op_index};
    const tigris_op_t *op = v.op;
    const ops::OpInfo *row = ops::op_info(op->op_type);
    if (row == nullptr) return TIGRIS_ERR_BAD_OPERATOR;                 // an opcode without a row
    if (!ops::row_built(*row)) return TIGRIS_ERR_KERNEL_DISABLED;  // its kernels and rule left out
    if ((op->num_inputs < 1 && op->op_type != TIGRIS_OP_CONSTANT) || op->num_outputs < 1 || op->reserved != 0)
        return TIGRIS_ERR_BAD_OPERATOR;
    if (op->fused_act > TIGRIS_ACT_RELU6) return TIGRIS_ERR_BAD_OPERATOR;
    if (op->fused_act != TIGRIS_ACT_NONE && (row->traits & ops::kTraitFusedAct) == 0) return TIGRIS_ERR_BAD_OPERATOR;
    for (uint8_t i = 0; i < op->num_inputs; ++i)
        if (v.in(i).ndim > kMaxRank) return TIGRIS_ERR_BAD_OPERATOR;
    for (uint8_t i = 0; i < op->num_outputs; ++i)
        if (v.out(i).ndim > kMaxRank) return TIGRIS_ERR_BAD_OPERATOR;
    if (!attributes_allowed(v, row->attrs)) return TIGRIS_ERR_BAD_OPERATOR;
    const uint8_t kernel_dtype = op->num_inputs > 0 ? op_kernel_dtype(plan, op) : 0;
    const bool quantized = op->num_inputs > 0 && tigris_tensor_quant(plan, &v.in(0)) != nullptr;
    bool int8_op = kernel_dtype == TIGRIS_DTYPE_INT8 && quantized;
    bool int16_op = kernel_dtype == TIGRIS_DTYPE_INT16 && quantized;
    // A build without the int16 kernels (TIGRIS_NO_KERNEL_INT16) refuses here, before any rule,
    // a quantized int16 op, an int16 op it has no kernel for (as check_kernels, step 32, would)
    // and an op writing quantized int16 data (the int8 softmax's int16 form): so the rules and
    // kernels of such a build keep no int16 path.
    if (!int16_built() && (int16_op || op_writes_int16(plan, op) ||
                           (kernel_dtype == TIGRIS_DTYPE_INT16 && !kernel_enabled(op->op_type, kernel_dtype))))
        return TIGRIS_ERR_KERNEL_DISABLED;
    if (int8_op && op->act_min > op->act_max) return TIGRIS_ERR_BAD_OPERATOR;
    if (!check_family(v)) return TIGRIS_ERR_BAD_OPERATOR;
    if (int8_op && !check_quant(v)) return TIGRIS_ERR_BAD_OPERATOR;
    if (int16_op && !check_quant16(v)) return TIGRIS_ERR_BAD_OPERATOR;
    return TIGRIS_OK;
}

}  // namespace tigris_rt
