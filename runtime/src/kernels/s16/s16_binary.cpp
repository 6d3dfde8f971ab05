// int16 ADD, SUB and MUL with numpy broadcasting, as TFLite Micro's reference kernels
// compute them (the int8 formulas with int16 ranges):
//   ADD/SUB: a' = MBQM((a - za) * 2^15, m1, s1), b' likewise; y = clamp(MBQM(a' +/- b', mo, so) + zy)
//            (factors from BINARY_REQUANT when present, else derived as TFLM does; TFLM's
//            int16 ADD always takes this general path, whatever pot_scale_int16 says)
//   MUL:     y = clamp(MBQM((a - za) * (b - zb), m, s) + zy), m,s of sa*sb/sy
// The clamp is int16's, narrowed by fused_act (ADD) from the output quantization.
#include <string.h>

#include "common/le_bytes.h"
#include "kernels/common/operands.h"
#include "kernels/common/walk.h"
#include "kernels/s16/s16_kernels.h"
#include "kernels/s16/s16_params.h"
#include "kernels/s8/s8_fixed_point.h"

namespace tigris_s16 {
namespace {

namespace kern = tigris_rt::kern;
using namespace tigris_s8;

struct Q {
    float scale = 1.0f;
    int32_t zp = 0;
};

struct Binary {
    Q a, b, out;
    kern::Walk walk;
};

int binary_operands(const Call &c, Binary *p)
{
    const kern::Band band = kern::pointwise_band(c.mem);
    kern::OperandView ops[2];
    if (kern::resolve_operand_views(c, 2, band, ops)) return kError;
    const tigris_tensor_t &out = c.out(0);
    if (out.dtype != TIGRIS_DTYPE_INT16 || ops[0].dtype != TIGRIS_DTYPE_INT16 || ops[1].dtype != TIGRIS_DTYPE_INT16)
        return kError;
    if (c.out_ptr(0) == nullptr || ops[0].quant == nullptr || ops[1].quant == nullptr) return kError;
    quant_values(ops[0].quant, &p->a.scale, &p->a.zp);
    quant_values(ops[1].quant, &p->b.scale, &p->b.zp);
    quant_values(tigris_tensor_quant(c.plan, &out), &p->out.scale, &p->out.zp);
    kern::walk_init(&p->walk, kern::output0_view(c, band));
    return kern::walk_add(&p->walk, ops[0].view) && kern::walk_add(&p->walk, ops[1].view) ? 0 : kError;
}

template <typename Fn>
void each(const Binary &p, Fn fn)
{
    kern::walk_rows(p.walk, [&](uint8_t *const *ptr, const int64_t *st, int32_t n) {
        for (int32_t i = 0; i < n; i++) {
            *(int16_t *)(ptr[0] + i * st[0]) =
                fn(*(const int16_t *)(ptr[1] + i * st[1]), *(const int16_t *)(ptr[2] + i * st[2]));
        }
    });
}

// BINARY_REQUANT (m1, s1, m2, s2, mo, so) overrides the derived factors.
void stored_factors(const Call &c, AddSubParams *f)
{
    uint8_t len = 0;
    const uint8_t *r = c.attr(TIGRIS_ATTR_BINARY_REQUANT, &len);
    if (r == nullptr || len < 24) return;
    f->input1_multiplier = tigris_rt::rd_i32(r);
    f->input1_shift = tigris_rt::rd_i32(r + 4);
    f->input2_multiplier = tigris_rt::rd_i32(r + 8);
    f->input2_shift = tigris_rt::rd_i32(r + 12);
    f->output_multiplier = tigris_rt::rd_i32(r + 16);
    f->output_shift = tigris_rt::rd_i32(r + 20);
}

int add_sub(const Call &c, bool is_sub)
{
    Binary p;
    if (binary_operands(c, &p)) return kError;
    AddSubParams f;
    if (is_sub) tigris_s16::sub_params(p.a.scale, p.a.zp, p.b.scale, p.b.zp, p.out.scale, p.out.zp, &f);
    else tigris_s16::add_params(p.a.scale, p.a.zp, p.b.scale, p.b.zp, p.out.scale, p.out.zp, &f);
    stored_factors(c, &f);
    int32_t lo, hi;
    activation_range(c.op->fused_act, p.out.scale, p.out.zp, &lo, &hi);
    each(p, [&](int32_t a, int32_t b) {
        const int32_t sa = wrap_shl(f.input1_offset + a, f.left_shift);
        const int32_t sb = wrap_shl(f.input2_offset + b, f.left_shift);
        const int32_t ra = multiply_by_quantized_multiplier_smaller_than_one(sa, f.input1_multiplier, f.input1_shift);
        const int32_t rb = multiply_by_quantized_multiplier_smaller_than_one(sb, f.input2_multiplier, f.input2_shift);
        const int32_t raw = is_sub ? wrap_sub(ra, rb) : wrap_add(ra, rb);
        const int32_t out =
            wrap_add(multiply_by_quantized_multiplier_smaller_than_one(raw, f.output_multiplier, f.output_shift),
                     f.output_offset);
        return (int16_t)clamp_i32(out, lo, hi);
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
        m = tigris_rt::rd_i32(r + 16);
        s = tigris_rt::rd_i32(r + 20);
    }
    int32_t lo, hi;
    activation_range(c.op->fused_act, p.out.scale, p.out.zp, &lo, &hi);
    const int32_t za = p.a.zp, zb = p.b.zp, zy = p.out.zp;
    each(p, [&](int32_t a, int32_t b) {
        const int32_t prod = wrap_mul(a - za, b - zb);
        return (int16_t)clamp_i32(wrap_add(zy, multiply_by_quantized_multiplier(prod, m, s)), lo, hi);
    });
    return 0;
}

}  // namespace tigris_s16
