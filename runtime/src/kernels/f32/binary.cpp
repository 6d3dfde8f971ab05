// Binary elementwise ops with numpy broadcasting and constant operands: arithmetic on
// float32/int32/int64/uint8, comparisons (bool out), logical ops, Select, AddN.
#include "kernels/f32/elementwise.h"
#include "kernels/f32/kernels_f32.h"

namespace tigris_rt {
namespace f32 {

namespace {

bool is_nan(float x) { return x != x; }

float float_op(uint8_t op, float a, float b)
{
    switch (op) {
    case TIGRIS_OP_ADD: return a + b;
    case TIGRIS_OP_SUB: return a - b;
    case TIGRIS_OP_MUL: return a * b;
    case TIGRIS_OP_DIV: return a / b;
    case TIGRIS_OP_SQUARED_DIFFERENCE: return (a - b) * (a - b);
    case TIGRIS_OP_MAXIMUM: return is_nan(a) || is_nan(b) ? NAN : (a > b ? a : b);
    case TIGRIS_OP_MINIMUM: return is_nan(a) || is_nan(b) ? NAN : (a < b ? a : b);
    case TIGRIS_OP_FLOOR_DIV: return floorf(a / b);
    case TIGRIS_OP_FLOOR_MOD: {
        float r = fmodf(a, b);
        return (r != 0.0f && ((r < 0.0f) != (b < 0.0f))) ? r + b : r;
    }
    case TIGRIS_OP_PRELU: return a < 0.0f ? a * b : a;
    default: return NAN;
    }
}

// Integer arithmetic wraps (computed unsigned); division by zero fails.
template <typename T>
bool int_op(uint8_t op, T a, T b, T *r)
{
    typedef typename Unsigned<T>::type U;
    switch (op) {
    case TIGRIS_OP_ADD: *r = (T)((U)a + (U)b); return true;
    case TIGRIS_OP_SUB: *r = (T)((U)a - (U)b); return true;
    case TIGRIS_OP_MUL: *r = (T)((U)a * (U)b); return true;
    case TIGRIS_OP_MAXIMUM: *r = a > b ? a : b; return true;
    case TIGRIS_OP_MINIMUM: *r = a < b ? a : b; return true;
    default: break;
    }
    if (b == 0) {
        *r = 0;
        return false;
    }
    bool neg = false;
    if constexpr (Unsigned<T>::is_signed) {
        if (b == (T)-1) {  // avoid the overflowing MIN / -1
            *r = op == TIGRIS_OP_FLOOR_MOD ? 0 : (T)(0 - (U)a);
            return op == TIGRIS_OP_DIV || op == TIGRIS_OP_FLOOR_DIV || op == TIGRIS_OP_FLOOR_MOD;
        }
        neg = a % b != 0 && ((a % b < 0) != (b < 0));
    }
    T q = a / b, m = a % b;
    switch (op) {
    case TIGRIS_OP_DIV: *r = q; return true;
    case TIGRIS_OP_FLOOR_DIV: *r = neg ? q - 1 : q; return true;
    case TIGRIS_OP_FLOOR_MOD: *r = neg ? m + b : m; return true;
    default: return false;
    }
}

template <typename T>
bool compare(uint8_t op, T a, T b)
{
    switch (op) {
    case TIGRIS_OP_EQUAL: return a == b;
    case TIGRIS_OP_LESS: return a < b;
    case TIGRIS_OP_LESS_EQUAL: return a <= b;
    case TIGRIS_OP_GREATER: return a > b;
    default: return a >= b;
    }
}

template <typename T>
int arithmetic(const kern::Walk &w, uint8_t op)
{
    return map2<T, T>(w, [op](T a, T b, T *r) { return int_op<T>(op, a, b, r); });
}

template <typename T>
int comparison(const kern::Walk &w, uint8_t op)
{
    return map2<T, uint8_t>(w, [op](T a, T b, uint8_t *r) {
        *r = compare<T>(op, a, b) ? 1 : 0;
        return true;
    });
}

bool is_comparison(uint8_t t) { return t >= TIGRIS_OP_EQUAL && t <= TIGRIS_OP_GREATER_EQUAL; }

int two_operands(const Call &c, const kern::Walk &w, uint8_t dtype)
{
    uint8_t op = c.op->op_type;
    if (op == TIGRIS_OP_LOGICAL_AND || op == TIGRIS_OP_LOGICAL_OR) {
        if (dtype != TIGRIS_DTYPE_BOOL) return -1;
        bool is_and = op == TIGRIS_OP_LOGICAL_AND;
        return map2<uint8_t, uint8_t>(w, [is_and](uint8_t a, uint8_t b, uint8_t *r) {
            *r = is_and ? (a && b) : (a || b);
            return true;
        });
    }
    if (is_comparison(op)) {
        switch (dtype) {
        case TIGRIS_DTYPE_FLOAT32: return comparison<float>(w, op);
        case TIGRIS_DTYPE_INT32: return comparison<int32_t>(w, op);
        case TIGRIS_DTYPE_INT64: return comparison<int64_t>(w, op);
        case TIGRIS_DTYPE_UINT8:
        case TIGRIS_DTYPE_BOOL: return comparison<uint8_t>(w, op);
        default: return -1;
        }
    }
    switch (dtype) {
    case TIGRIS_DTYPE_FLOAT32: {
        uint8_t act = op == TIGRIS_OP_ADD ? c.op->fused_act : 0;
        return map2<float, float>(w, [op, act](float a, float b, float *r) {
            *r = fused(float_op(op, a, b), act);
            return true;
        });
    }
    case TIGRIS_DTYPE_INT32: return arithmetic<int32_t>(w, op);
    case TIGRIS_DTYPE_INT64: return arithmetic<int64_t>(w, op);
    case TIGRIS_DTYPE_UINT8: return arithmetic<uint8_t>(w, op);
    default: return -1;
    }
}

// Select: byte copy of the chosen element.
int select(const kern::Walk &w, uint32_t elem)
{
    kern::walk_rows(w, [elem](uint8_t *const *p, const int64_t *st, int32_t n) {
        for (int32_t i = 0; i < n; ++i) {
            const uint8_t *src = p[1][i * st[1]] ? p[2] + i * st[2] : p[3] + i * st[3];
            memcpy(p[0] + i * st[0], src, elem);
        }
    });
    return 0;
}

}  // namespace

int binary(const Call &c)
{
    bool sel = c.op->op_type == TIGRIS_OP_SELECT_V2;
    int n = sel ? 3 : 2;
    kern::Band band = kern::pointwise_band(c.mem);
    kern::OperandView ops[3];
    kern::Walk w;
    if (c.out_ptr(0) == nullptr || kern::resolve_operand_views(c, (uint8_t)n, band, ops) != 0 ||
        start_walk(c, band, ops, n, &w) != 0)
        return -1;
    if (sel) return select(w, tigris_dtype_size(c.out(0).dtype));
    if (ops[0].quant != nullptr || ops[1].quant != nullptr) return -1;  // quantized: int8 kernels
    return two_operands(c, w, ops[0].dtype);
}

int add_n(const Call &c)
{
    kern::Band band = kern::pointwise_band(c.mem);
    const tigris_tensor_t &out = c.out(0);
    const int32_t *os = c.shape(out);
    uint8_t elem = (uint8_t)tigris_dtype_size(out.dtype);
    kern::View ov = kern::output0_view(c, band);
    for (uint8_t k = 0; k < c.op->num_inputs; ++k) {
        const tigris_tensor_t &t = c.in(k);
        if (c.in_ptr(k) == nullptr || ov.data == nullptr) return -1;
        kern::View iv = kern::input_view(band, c.in_ptr(k), c.shape(t), t.ndim, elem, os, out.ndim);
        kern::Walk w;
        kern::walk_init(&w, ov);
        if (k == 0) {
            if (!kern::walk_add(&w, iv)) return -1;
            kern::walk_rows(w, [elem](uint8_t *const *p, const int64_t *st, int32_t cnt) {
                for (int32_t i = 0; i < cnt; ++i) memcpy(p[0] + i * st[0], p[1] + i * st[1], elem);
            });
            continue;
        }
        if (!kern::walk_add(&w, ov) || !kern::walk_add(&w, iv)) return -1;
        int rc;
        switch (out.dtype) {
        case TIGRIS_DTYPE_FLOAT32:
            rc = map2<float, float>(w, [](float a, float b, float *r) {
                *r = a + b;
                return true;
            });
            break;
        case TIGRIS_DTYPE_INT32: rc = arithmetic<int32_t>(w, TIGRIS_OP_ADD); break;
        case TIGRIS_DTYPE_INT64: rc = arithmetic<int64_t>(w, TIGRIS_OP_ADD); break;
        case TIGRIS_DTYPE_UINT8: rc = arithmetic<uint8_t>(w, TIGRIS_OP_ADD); break;
        default: return -1;
        }
        if (rc != 0) return rc;
    }
    return 0;
}

}  // namespace f32
}  // namespace tigris_rt
