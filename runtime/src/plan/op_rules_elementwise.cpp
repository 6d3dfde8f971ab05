// Rules of the elementwise operators: binary arithmetic, comparisons, logical ops, Select,
// AddN, unary activations and math, Cast (docs/operators.md §1, §3.3).
#include <math.h>

#include "kernels/s8/s8_fixed_point.h"
#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

void tensor_operand(const OpView &v, uint8_t input, Operand &o)
{
    const tigris_tensor_t &t = v.in(input);
    o.input = input;
    o.shape = v.shape(t);
    o.rank = t.ndim;
    o.dtype = t.dtype;
    o.constant = false;
    o.quant = t.quant_param_idx;
}

// Shape of a short-form constant of `count` elements: scalar, per last output axis, or full.
bool implicit_constant_shape(const OpView &v, uint64_t count, Operand &o)
{
    const tigris_tensor_t &out = v.out(0);
    const int32_t *os = v.shape(out);
    if (count == 1 || (out.ndim > 0 && count == (uint64_t)os[out.ndim - 1])) {
        o.rank = 1;
        o.dims[0] = (int32_t)count;
    } else if (count == elements(v, out)) {
        o.rank = out.ndim;
        for (uint8_t i = 0; i < out.ndim; ++i) o.dims[i] = os[i];
    } else {
        return false;
    }
    o.shape = o.dims;
    return true;
}

// Data of dtype `d` in the op's dtype class (docs/operators.md §1: F, N, B; the rest any
// stored dtype); quantized int8 only where the contract has a quantized form (+q8),
// quantized int16 (16x8) where the row names an int16 kernel.
bool data_dtype_ok(const ops::OpInfo &row, uint8_t d, bool quantized)
{
    if (d == TIGRIS_DTYPE_INT8 && quantized) return row.q8;
    if (d == TIGRIS_DTYPE_INT16 && quantized) return row.s16 != ops::S16::kNone;
    switch (row.dtypes) {
    case ops::DtypeClass::kF: return d == TIGRIS_DTYPE_FLOAT32;
    case ops::DtypeClass::kN: return is_numeric(d);
    case ops::DtypeClass::kB: return d == TIGRIS_DTYPE_BOOL;
    case ops::DtypeClass::kA:
    case ops::DtypeClass::kSpecial: break;
    }
    return tigris_dtype_size(d) != 0;
}

bool is_comparison(uint8_t t)
{
    return t == TIGRIS_OP_EQUAL || t == TIGRIS_OP_LESS || t == TIGRIS_OP_LESS_EQUAL || t == TIGRIS_OP_GREATER ||
           t == TIGRIS_OP_GREATER_EQUAL;
}

// BINARY_REQUANT (stored factors of a quantized ADD/SUB/MUL, docs/plan-format.md): three
// (multiplier, shift) pairs, each one the fixed-point helpers take (a shift beyond 31 would
// shift an int32 by its width or more).
bool binary_requant_ok(const OpView &v)
{
    uint8_t len = 0;
    const uint8_t *r = v.attr(TIGRIS_ATTR_BINARY_REQUANT, &len);
    if (r == nullptr) return true;
    if (len != 24) return false;
    for (int k = 0; k < 3; ++k)
        if (!tigris_s8::factor_in_range(rd_i32(r + 8 * k), rd_i32(r + 8 * k + 4))) return false;
    return true;
}

bool check_binary(const OpView &v)
{
    uint8_t t = v.op->op_type;
    uint8_t n = t == TIGRIS_OP_SELECT_V2 ? 3 : 2;
    if (v.num_out() != 1 || v.has_bias()) return false;
    Operand opd[3];
    if (!resolve_operands(v, n, opd)) return false;
    const tigris_tensor_t &out = v.out(0);
    if (!broadcast_result_ok(opd, n, v.shape(out), out.ndim) || !binary_requant_ok(v)) return false;
    if (t == TIGRIS_OP_SELECT_V2)
        return opd[0].dtype == TIGRIS_DTYPE_BOOL && opd[1].dtype == out.dtype && opd[2].dtype == out.dtype;
    if (opd[0].dtype != opd[1].dtype) return false;
    const uint8_t d = opd[0].dtype;
    const bool quantized = opd[0].quant != TIGRIS_NONE || opd[1].quant != TIGRIS_NONE;
    const ops::OpInfo &row = *ops::op_info(t);
    if (is_comparison(t))
        return out.dtype == TIGRIS_DTYPE_BOOL && ((is_numeric(d) && (d != TIGRIS_DTYPE_INT8 || !quantized || row.q8)) ||
                                                  (t == TIGRIS_OP_EQUAL && d == TIGRIS_DTYPE_BOOL));
    return out.dtype == d && data_dtype_ok(row, d, quantized);
}

bool check_add_n(const OpView &v)
{
    if (v.num_out() != 1 || v.has_weight() || v.has_bias() || !all_same_dtype(v)) return false;
    const tigris_tensor_t &out = v.out(0);
    if (!is_numeric(out.dtype) || v.num_in() > 16) return false;
    Operand ops[16];
    for (uint8_t i = 0; i < v.num_in(); ++i) tensor_operand(v, i, ops[i]);
    return broadcast_result_ok(ops, v.num_in(), v.shape(out), out.ndim);
}

bool f32_attr_ok(const OpView &v, uint8_t kind, uint8_t count, bool required)
{
    uint8_t len = 0;
    const uint8_t *p = v.attr(kind, &len);
    if (p == nullptr) return !required;
    if (len != 4u * count) return false;
    for (uint8_t i = 0; i < count; ++i) {
        float f = rd_f32(p + 4 * i);
        if (isnan(f) || (kind == TIGRIS_ATTR_ALPHA && !isfinite(f))) return false;
    }
    return true;
}

// One input, one output of the same shape; data of the row's dtype class kept, or any pair
// of stored dtypes (Cast).
bool check_unary(const OpView &v)
{
    // TABLE: quantized int8 in and out, the 256-entry int8 table as the weight.
    if (v.op->op_type == TIGRIS_OP_TABLE)
        return v.num_in() == 1 && v.num_out() == 1 && !v.has_bias() && v.has_weight() && v.weight_bytes() == 256u &&
               same_shape(v, v.in(0), v.out(0)) && v.in(0).dtype == TIGRIS_DTYPE_INT8 &&
               v.out(0).dtype == TIGRIS_DTYPE_INT8 && v.in(0).quant_param_idx != TIGRIS_NONE &&
               v.out(0).quant_param_idx != TIGRIS_NONE;
    // int16 LOGISTIC / TANH carry their 256-entry uint16 sigmoid table as the weight.
    const bool table = (v.op->op_type == TIGRIS_OP_SIGMOID || v.op->op_type == TIGRIS_OP_TANH) && v.num_in() == 1 &&
                       v.in(0).dtype == TIGRIS_DTYPE_INT16;
    if (table && (!v.has_weight() || v.weight_bytes() != 512u)) return false;
    if (v.num_in() != 1 || v.num_out() != 1 || (v.has_weight() && !table) || v.has_bias()) return false;
    const tigris_tensor_t &in = v.in(0), &out = v.out(0);
    if (!same_shape(v, in, out)) return false;
    const uint8_t d = in.dtype;
    if (v.op->op_type == TIGRIS_OP_CAST) return tigris_dtype_size(d) != 0 && tigris_dtype_size(out.dtype) != 0;
    if (!data_dtype_ok(*ops::op_info(v.op->op_type), d, in.quant_param_idx != TIGRIS_NONE)) return false;
    if (out.dtype != d) return false;
    switch (v.op->op_type) {
    case TIGRIS_OP_CLIP: return f32_attr_ok(v, TIGRIS_ATTR_CLIP_BOUNDS, 2, true);
    case TIGRIS_OP_LEAKY_RELU:
    case TIGRIS_OP_ELU: return f32_attr_ok(v, TIGRIS_ATTR_ALPHA, 1, false);
    default: return true;
    }
}

}  // namespace

bool resolve_operands(const OpView &v, uint8_t n, Operand *ops)
{
    uint8_t len = 0;
    const uint8_t *p = v.attr(TIGRIS_ATTR_CONSTANT_OPERAND, &len);
    if (v.num_in() == n) {
        if (v.has_weight() || p != nullptr) return false;
        for (uint8_t i = 0; i < n; ++i) tensor_operand(v, i, ops[i]);
        return true;
    }
    if (v.num_in() + 1 != n || !v.has_weight()) return false;
    uint8_t cidx = 1, rank = 0;
    uint16_t quant = TIGRIS_NONE;
    if (p != nullptr) {
        if (len < 4) return false;
        cidx = p[0];
        rank = p[1];
        quant = rd_u16(p + 2);
        if (cidx >= n || rank > kMaxRank || len != 4u + 4u * rank) return false;
        if (quant != TIGRIS_NONE && quant >= v.plan->num_quant_params) return false;
    } else if (n != 2) {
        return false;
    }
    for (uint8_t i = 0, t = 0; i < n; ++i)
        if (i != cidx) tensor_operand(v, t++, ops[i]);
    Operand &c = ops[cidx];
    c.constant = true;
    c.quant = quant;
    c.input = 0xFF;
    bool select = v.op->op_type == TIGRIS_OP_SELECT_V2;
    c.dtype = select ? (cidx == 0 ? (uint8_t)TIGRIS_DTYPE_BOOL : ops[3 - cidx].dtype) : ops[1 - cidx].dtype;
    if (p == nullptr && c.dtype != TIGRIS_DTYPE_FLOAT32) return false;
    uint32_t es = tigris_dtype_size(c.dtype);
    uint32_t bytes = v.weight_bytes();
    if (es == 0 || bytes % es != 0) return false;
    if (rank == 0) return implicit_constant_shape(v, bytes / es, c);
    uint64_t count = 1;
    for (uint8_t i = 0; i < rank; ++i) {
        c.dims[i] = rd_i32(p + 4 + 4 * i);
        if (c.dims[i] <= 0) return false;
        count *= (uint64_t)c.dims[i];
    }
    c.rank = rank;
    c.shape = c.dims;
    return count * es == bytes;
}

bool broadcast_result_ok(const Operand *ops, uint8_t n, const int32_t *out, uint8_t out_rank)
{
    for (uint8_t k = 0; k < n; ++k)
        if (!broadcastable(ops[k].shape, ops[k].rank, out, out_rank)) return false;
    for (uint8_t i = 0; i < out_rank; ++i) {
        int32_t od = out[out_rank - 1 - i];
        if (od == 1) continue;
        bool from_operand = false;
        for (uint8_t k = 0; k < n; ++k)
            if (i < ops[k].rank && ops[k].shape[ops[k].rank - 1 - i] == od) from_operand = true;
        if (!from_operand) return false;
    }
    return true;
}

Verdict check_elementwise(const OpView &v)
{
    switch (rule_of(v)) {
        TIGRIS_RULE(kBinary, check_binary(v))
        TIGRIS_RULE(kAddN, check_add_n(v))
        TIGRIS_RULE(kUnary, check_unary(v))
    default: return kNotMine;
    }
}

}  // namespace rules
}  // namespace tigris_rt
