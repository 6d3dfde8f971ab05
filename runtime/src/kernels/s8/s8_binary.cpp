// int8 ADD, SUB, MUL, MAXIMUM and MINIMUM with numpy broadcasting, as TFLite's
// reference integer kernels compute them:
//   ADD/SUB: a' = MBQM((a - za) * 2^20, m1, s1), b' likewise with (m2, s2);
//            y = clamp(MBQM(a' +/- b', mo, so) + zy, act_min, act_max)
//            (TFLite's "smaller than one" form, equal to MBQM for the shifts <= 0 TFLite allows)
//            (factors from BINARY_REQUANT when present, else derived as TFLM does)
//            ADD with one operand's factor (2^30, 0) (TFLM's derivation always) runs its
//            contiguous rows in the fast path of s8_add.h, same bytes.
//   MUL:     y = clamp(MBQM((a - za) * (b - zb), m, s) + zy, act_min, act_max), m,s of sa*sb/sy
//            (or BINARY_REQUANT's result pair)
//   MAXIMUM/MINIMUM: raw comparison (TFLite); operands whose quantization differs from
//            the output's are first requantized to it.
// A constant operand is the op's weight, placed and shaped by CONSTANT_OPERAND; operands
// and bands resolve through kernels/common (operands.h, walk.h).
#include "kernels/common/operands.h"
#include "kernels/common/walk.h"
#include "kernels/s8/s8_add.h"
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_s8 {
namespace {

// Quantization of one operand.
struct Q {
    float scale = 1.0f;
    int32_t zp = 0;
};

// The op's two operands and output under the call's band, as a walk (0 = output).
struct Binary {
    Q a, b, out;
    kern::Walk walk;
};

// Folds each axis into the next where every operand steps over it as over one longer row (the
// same elements in the same order), so a dense operand pair is one row, not one per channel run.
void binary_merge_axes(kern::Walk *w)
{
    int r = w->rank - 1;
    for (int a = w->rank - 2; a >= 0; a--) {
        bool dense = true;
        for (int k = 0; k < w->n; k++) dense = dense && w->stride[k][a] == w->stride[k][r] * w->shape[r];
        if (!dense) {
            r--;
            if (r != a) {
                w->shape[r] = w->shape[a];
                for (int k = 0; k < w->n; k++) w->stride[k][r] = w->stride[k][a];
            }
            continue;
        }
        w->shape[r] *= w->shape[a];
    }
    // axes r.. hold the merged walk; move them to the front
    const int drop = r;
    w->rank -= drop;
    for (int a = 0; a < w->rank; a++) {
        w->shape[a] = w->shape[a + drop];
        for (int k = 0; k < w->n; k++) w->stride[k][a] = w->stride[k][a + drop];
    }
}

int binary_operands(const Call &c, Binary *p)
{
    const kern::Band band = kern::pointwise_band(c.mem);
    kern::OperandView ops[2];
    if (kern::resolve_operand_views(c, 2, band, ops)) return kError;
    const tigris_tensor_t &out = c.out(0);
    if (out.dtype != TIGRIS_DTYPE_INT8 || ops[0].dtype != TIGRIS_DTYPE_INT8 || ops[1].dtype != TIGRIS_DTYPE_INT8)
        return kError;
    if (c.out_ptr(0) == nullptr || ops[0].quant == nullptr || ops[1].quant == nullptr) return kError;
    quant_values(ops[0].quant, &p->a.scale, &p->a.zp);
    quant_values(ops[1].quant, &p->b.scale, &p->b.zp);
    quant_values(tigris_tensor_quant(c.plan, &out), &p->out.scale, &p->out.zp);
    kern::walk_init(&p->walk, kern::output0_view(c, band));
    if (!kern::walk_add(&p->walk, ops[0].view) || !kern::walk_add(&p->walk, ops[1].view)) return kError;
    binary_merge_axes(&p->walk);
    return 0;
}

// Calls fn(a, b) -> int8 for every output element.
template <typename Fn>
void each(const Binary &p, Fn fn)
{
    kern::walk_rows(p.walk, [&](uint8_t *const *ptr, const int64_t *st, int32_t n) {
        for (int32_t i = 0; i < n; i++) {
            *(int8_t *)(ptr[0] + i * st[0]) =
                fn(*(const int8_t *)(ptr[1] + i * st[1]), *(const int8_t *)(ptr[2] + i * st[2]));
        }
    });
}

// ADD / SUB factors: BINARY_REQUANT (m1, s1, m2, s2, mo, so) or TFLM's derivation.
void add_sub_factors(const Call &c, const Binary &p, bool is_sub, AddSubParams *f)
{
    if (is_sub) sub_params(p.a.scale, p.a.zp, p.b.scale, p.b.zp, p.out.scale, p.out.zp, f);
    else add_params(p.a.scale, p.a.zp, p.b.scale, p.b.zp, p.out.scale, p.out.zp, f);
    uint8_t len = 0;
    const uint8_t *r = c.attr(TIGRIS_ATTR_BINARY_REQUANT, &len);
    if (r != nullptr && len >= 24) {
        f->input1_multiplier = rd_i32(r);
        f->input1_shift = rd_i32(r + 4);
        f->input2_multiplier = rd_i32(r + 8);
        f->input2_shift = rd_i32(r + 12);
        f->output_multiplier = rd_i32(r + 16);
        f->output_shift = rd_i32(r + 20);
    }
}

int add_sub(const Call &c, bool is_sub)
{
    Binary p;
    if (binary_operands(c, &p)) return kError;
    AddSubParams f;
    add_sub_factors(c, p, is_sub, &f);
    const int32_t lo = c.op->act_min, hi = c.op->act_max;
    const auto formula = [&](int32_t a, int32_t b) {
        const int32_t sa = wrap_shl(f.input1_offset + a, f.left_shift);
        const int32_t sb = wrap_shl(f.input2_offset + b, f.left_shift);
        const int32_t ra = multiply_by_quantized_multiplier(sa, f.input1_multiplier, f.input1_shift);
        const int32_t rb = multiply_by_quantized_multiplier(sb, f.input2_multiplier, f.input2_shift);
        const int32_t raw = is_sub ? wrap_sub(ra, rb) : wrap_add(ra, rb);
        const int32_t out =
            wrap_add(multiply_by_quantized_multiplier(raw, f.output_multiplier, f.output_shift), f.output_offset);
        return (int8_t)clamp_i32(out, lo, hi);
    };
    // ADD with TFLite's factors: contiguous rows (every same-shape pair) take the fast path.
    add_fast::Prepared fast;
    const bool fast_ok = !is_sub && add_fast::prepare(f, lo, hi, &fast);
    kern::walk_rows(p.walk, [&](uint8_t *const *ptr, const int64_t *st, int32_t n) {
        if (fast_ok && st[0] == 1 && st[1] == 1 && st[2] == 1) {
            add_fast::run(fast, (const int8_t *)ptr[1], (const int8_t *)ptr[2], (int8_t *)ptr[0], n);
            return;
        }
        for (int32_t i = 0; i < n; i++)
            *(int8_t *)(ptr[0] + i * st[0]) =
                formula(*(const int8_t *)(ptr[1] + i * st[1]), *(const int8_t *)(ptr[2] + i * st[2]));
    });
    return 0;
}

// Requantize x of one operand to the output quantization (identity when equal).
struct ToOutput {
    bool active = false;
    int32_t zp = 0, out_zp = 0, m = 0;
    int shift = 0;
    int32_t apply(int32_t x) const
    {
        if (!active) return x;
        return clamp_s8(wrap_add(multiply_by_quantized_multiplier(x - zp, m, shift), out_zp));
    }
};

ToOutput to_output(const Q &t, const Q &out)
{
    ToOutput r;
    if (same_quant(t.scale, t.zp, out.scale, out.zp)) return r;
    r.active = true;
    r.zp = t.zp;
    r.out_zp = out.zp;
    rescale_multiplier(t.scale, out.scale, &r.m, &r.shift);
    return r;
}

int min_max(const Call &c, bool is_max)
{
    Binary p;
    if (binary_operands(c, &p)) return kError;
    const ToOutput ra = to_output(p.a, p.out), rb = to_output(p.b, p.out);
    each(p, [&](int32_t a, int32_t b) {
        const int32_t x1 = ra.apply(a), x2 = rb.apply(b);
        return (int8_t)(is_max ? (x1 > x2 ? x1 : x2) : (x1 < x2 ? x1 : x2));
    });
    return 0;
}

}  // namespace

int add(const Call &c) { return add_sub(c, false); }

int sub(const Call &c) { return add_sub(c, true); }

int mul(const Call &c)
{
    Binary p;
    if (binary_operands(c, &p)) return kError;
    int32_t m = 0;
    int s = 0;
    mul_params(p.a.scale, p.b.scale, p.out.scale, &m, &s);
    uint8_t len = 0;
    const uint8_t *r = c.attr(TIGRIS_ATTR_BINARY_REQUANT, &len);
    if (r != nullptr && len >= 24) {  // MUL uses the result pair only
        m = rd_i32(r + 16);
        s = rd_i32(r + 20);
    }
    const int32_t za = p.a.zp, zb = p.b.zp, zy = p.out.zp, lo = c.op->act_min, hi = c.op->act_max;
    each(p, [&](int32_t a, int32_t b) {
        const int32_t prod = wrap_mul(a - za, b - zb);
        return (int8_t)clamp_i32(wrap_add(zy, multiply_by_quantized_multiplier(prod, m, s)), lo, hi);
    });
    return 0;
}

int maximum(const Call &c) { return min_max(c, true); }

int minimum(const Call &c) { return min_max(c, false); }

}  // namespace tigris_s8
