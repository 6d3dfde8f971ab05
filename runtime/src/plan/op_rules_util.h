// Helpers shared by the operator rule files (op_rules_*.cpp): a read-only view of one op
// with bounds-free accessors (the loader has already checked every index and range).
#pragma once

#include <stdint.h>
#include <string.h>

#include "common/le_bytes.h"
#include "common/op_attribute.h"
#include "kernels/kernel_set.h"
#include "ops/op_table.h"
#include "tigris.h"

namespace tigris_rt {
namespace rules {

constexpr uint8_t kMaxRank = 8;  // ranks above this are refused by every rule

struct OpView {
    const tigris_plan_t *plan;
    const tigris_op_t *op;
    uint16_t index;

    uint8_t num_in() const { return op->num_inputs; }
    uint8_t num_out() const { return op->num_outputs; }
    const tigris_tensor_t &in(uint8_t i) const { return plan->tensors[tigris_op_inputs(plan, op)[i]]; }
    const tigris_tensor_t &out(uint8_t i) const { return plan->tensors[tigris_op_outputs(plan, op)[i]]; }
    const int32_t *shape(const tigris_tensor_t &t) const { return tigris_tensor_shape(plan, &t); }
    // Attribute payload or NULL; `len` receives its length.
    const uint8_t *attr(uint8_t kind, uint8_t *len) const { return op_attribute(plan, index, kind, len); }
    bool has_weight() const { return op->weight_idx != TIGRIS_NONE; }
    bool has_bias() const { return op->bias_idx != TIGRIS_NONE; }
    uint32_t weight_bytes() const { return plan->weight_entries[op->weight_idx].size_bytes; }
    uint32_t bias_bytes() const { return plan->weight_entries[op->bias_idx].size_bytes; }
    uint32_t weight_bytes_at(uint16_t w) const { return plan->weight_entries[w].size_bytes; }
};

inline uint64_t elements(const OpView &v, const tigris_tensor_t &t)
{
    uint64_t n = 1;
    const int32_t *s = v.shape(t);
    for (uint8_t i = 0; i < t.ndim; ++i) n *= (uint64_t)s[i];
    return n;
}

inline bool same_shape(const OpView &v, const tigris_tensor_t &a, const tigris_tensor_t &b)
{
    if (a.ndim != b.ndim) return false;
    const int32_t *sa = v.shape(a), *sb = v.shape(b);
    for (uint8_t i = 0; i < a.ndim; ++i)
        if (sa[i] != sb[i]) return false;
    return true;
}

inline bool float_or_q8(uint8_t d) { return d == TIGRIS_DTYPE_FLOAT32 || d == TIGRIS_DTYPE_INT8; }
inline bool is_index_dtype(uint8_t d) { return d == TIGRIS_DTYPE_INT32 || d == TIGRIS_DTYPE_INT64; }
inline bool is_numeric(uint8_t d)
{
    return d == TIGRIS_DTYPE_FLOAT32 || d == TIGRIS_DTYPE_INT32 || d == TIGRIS_DTYPE_INT64 || d == TIGRIS_DTYPE_UINT8 ||
           d == TIGRIS_DTYPE_INT8;
}

// The loader rule of the op's row of the operator table (Rule::kNone without a row).
inline ops::Rule rule_of(const OpView &v)
{
    const ops::OpInfo *row = ops::op_info(v.op->op_type);
    return row != nullptr ? row->rule : ops::Rule::kNone;
}

// Bit of an attribute kind in an allowed-kinds mask.
constexpr uint32_t A(uint8_t kind) { return 1u << kind; }

// Per-op-family checks against the op's row of docs/operators.md: each answers the rules
// (ops::Rule) its file holds and kNotMine for the others.
enum Verdict { kNotMine, kBad, kOk };
Verdict check_spatial(const OpView &v);      // op_rules_spatial.cpp: conv, matrices, pools, resize
Verdict check_elementwise(const OpView &v);  // op_rules_elementwise.cpp: unary, binary, select, cast
Verdict check_shape_ops(const OpView &v);    // op_rules_shape.cpp: softmax, reductions, norms
Verdict check_movement(const OpView &v);     // op_rules_movement.cpp: movement, Constant
Verdict check_sequence(const OpView &v);     // op_rules_sequence.cpp: SVDF, LSTM, (detection)
bool check_detection(const OpView &v);       // op_rules_detection.cpp
Verdict check_signal_ops(const OpView &v);   // op_rules_signal.cpp: the signal library
// int8 additions (op_rules_quant.cpp), called for ops whose kernel dtype is quantized int8.
bool check_quant(const OpView &v);
// int16 (16x8) additions (op_rules_quant.cpp), for ops whose kernel dtype is quantized int16.
bool check_quant16(const OpView &v);

inline Verdict verdict(bool ok) { return ok ? kOk : kBad; }

// The file whose check answers each rule (check_family calls that one only). No default case:
// -Wswitch makes a new rule pick its file here.
enum class RuleFile : uint8_t { kNone, kControlFlow, kSpatial, kElementwise, kShape, kMovement, kSequence, kSignal };
constexpr RuleFile file_of(ops::Rule r)
{
    using ops::Rule;
    switch (r) {
    case Rule::kConv:
    case Rule::kConvTranspose:
    case Rule::kFullyConnected:
    case Rule::kMatMul:
    case Rule::kPool:
    case Rule::kGlobalPool:
    case Rule::kResize: return RuleFile::kSpatial;
    case Rule::kBinary:
    case Rule::kAddN:
    case Rule::kUnary: return RuleFile::kElementwise;
    case Rule::kSoftmax:
    case Rule::kNorm:
    case Rule::kReduce:
    case Rule::kArg:
    case Rule::kCumSum: return RuleFile::kShape;
    case Rule::kConcatSplit:
    case Rule::kPad:
    case Rule::kMirrorPad:
    case Rule::kTranspose:
    case Rule::kReshape:
    case Rule::kGather:
    case Rule::kEmbedding:
    case Rule::kGatherNd:
    case Rule::kStridedSlice:
    case Rule::kReverse:
    case Rule::kDynamicUpdateSlice:
    case Rule::kConstant: return RuleFile::kMovement;
    case Rule::kSvdf:
    case Rule::kLstm:
    case Rule::kDetection: return RuleFile::kSequence;
    case Rule::kSignal: return RuleFile::kSignal;
    case Rule::kControlFlow: return RuleFile::kControlFlow;
    case Rule::kNone: break;
    }
    return RuleFile::kNone;
}
// Whether an op this build keeps has its rule in `f`: a file none does is not called (nor linked).
constexpr bool file_built(RuleFile f)
{
    for (const ops::OpInfo &row : ops::kOpTable.rows)
        if (file_of(row.rule) == f && ops::row_built(row)) return true;
    return false;
}

// One case of a family's dispatch: the rule `check` of ops::Rule::R, referenced only when a
// built kernel family uses it (a TIGRIS_NO_KERNEL_<FAMILY> build links no rule it cannot use).
#define TIGRIS_RULE(R, check)                                      \
  case ops::Rule::R:                                               \
    if constexpr (rule_built(ops::Rule::R)) return verdict(check); \
    return kBad;

// One operand of an elementwise op or MatMul: a tensor input, or the constant named by
// weight_idx (shape from CONSTANT_OPERAND). Filled in place; never copy it (shape may point
// into dims).
struct Operand {
    const int32_t *shape;
    uint8_t rank;
    uint8_t dtype;
    bool constant;
    uint16_t quant;  // quant-param index (TIGRIS_NONE for float/bool)
    uint8_t input;   // index among the op's inputs, 0xFF for the constant
    int32_t dims[kMaxRank];
};
// Resolves n (2 or 3) operands (docs/operators.md §1 "Constant operands"); false when the op's
// inputs, weight and CONSTANT_OPERAND do not describe n operands of consistent sizes.
// Constant operand dtypes: Select's operand 0 is bool; otherwise the dtype of operand 0/1 that
// is a tensor. (op_rules_elementwise.cpp)
bool resolve_operands(const OpView &v, uint8_t n, Operand *ops);
// The output shape is exactly the numpy broadcast of the n operands.
bool broadcast_result_ok(const Operand *ops, uint8_t n, const int32_t *out, uint8_t out_rank);

// Common helpers (op_rules.cpp).
// AXES attribute: strictly increasing axes < rank; fills `axes`, returns count (0 when absent,
// -1 when malformed).
int read_axes(const OpView &v, uint8_t rank, uint8_t *axes);
// One optional axis (AXES with one entry), default `def`; -1 when malformed.
int read_single_axis(const OpView &v, uint8_t rank, int def);
// MOVEMENT attribute as an i32 count (payload length / 4), or -1 when absent or malformed.
int movement_count(const OpView &v);
int32_t movement_at(const OpView &v, int i);
// All data inputs and outputs share input 0's dtype.
bool all_same_dtype(const OpView &v);
// Shape checks for an operand broadcast to `out` (numpy rules, right-aligned).
bool broadcastable(const int32_t *s, uint8_t rank, const int32_t *out, uint8_t out_rank);

}  // namespace rules
}  // namespace tigris_rt
