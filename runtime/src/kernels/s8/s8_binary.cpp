// int8 ADD, SUB, MUL, MAXIMUM and MINIMUM with numpy broadcasting, as TFLite's
// reference integer kernels compute them:
//   ADD/SUB: a' = MBQM<1((a - za) * 2^20, m1, s1), b' likewise with (m2, s2);
//            y = clamp(MBQM<1(a' +/- b', mo, so) + zy, act_min, act_max)
//            (factors from BINARY_REQUANT when present, else derived as TFLM does)
//   MUL:     y = clamp(MBQM((a - za) * (b - zb), m, s) + zy, act_min, act_max), m,s of sa*sb/sy
//   MAXIMUM/MINIMUM: raw comparison (TFLite); operands whose quantization differs from
//            the output's are first requantized to it.
// A constant operand is the op's weight, placed and shaped by CONSTANT_OPERAND.
#include "kernels/s8/s8_fixed_point.h"
#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_s8 {
namespace {

struct Binary {
    Operand a, b, out;
    View va, vb, vo;  // va/vb broadcast to vo
};

// View of operand t within the output's (possibly banded) view `vo`. Banded calls
// (docs/operators.md §2): a tensor varying along the row axis is a band buffer; one of
// row extent 1 is read whole; a constant is read whole, at the band's global rows
// (out_row0, and out_col0 for width-tiled columns) when it varies along them.
int operand_view(const Operand &t, const tigris_tile_ctx_t &tile, const Operand &out, const View &vo,
                 View *v)
{
    View own;
    const tigris_tile_ctx_t whole = {};
    if (!tile.active) {
        if (band_view(t, whole, false, &own)) return kError;
        return broadcast_view(own, vo, v);
    }
    const int lead = out.rank - t.rank;
    const int row_axis = (out.rank >= 3 ? 1 : 0) - lead;
    const bool varies = row_axis >= 0 && t.dims[row_axis] != 1;
    if (t.index != TIGRIS_NONE) {
        if (varies && lead != 0) return kError;  // its row axis is not the output's
        if (band_view(t, varies ? tile : whole, false, &own)) return kError;
        return broadcast_view(own, vo, v);
    }
    if (band_view(t, whole, false, &own)) return kError;
    if (varies) {
        if (tile.out_row0 < 0 || tile.out_row0 + tile.out_h > t.dims[row_axis]) return kError;
        own.dims[row_axis] = tile.out_h;
        own.base += (int64_t)tile.out_row0 * own.strides[row_axis];
    }
    const int col_axis = 2 - lead;
    if (tile.width_tiled && out.rank == 4 && col_axis >= 0 && t.dims[col_axis] != 1) {
        if (tile.out_col0 < 0 || tile.out_col0 + tile.out_w > t.dims[col_axis]) return kError;
        own.dims[col_axis] = tile.out_w;
        own.base += (int64_t)tile.out_col0 * own.strides[col_axis];
    }
    return broadcast_view(own, vo, v);
}

// The constant operand (the op's weight) described by CONSTANT_OPERAND:
// u8 operand index, u8 rank r, u16 quant param, i32 dims[r]; r = 0 infers the shape
// from the element count (1 -> scalar, C -> [C], output elements -> output shape).
int constant_operand(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                     const Operand &out, int *position, Operand *c)
{
    uint8_t len = 0;
    const uint8_t *attr = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_CONSTANT_OPERAND, &len);
    if (attr == nullptr || len < 4 || op->weight_idx == TIGRIS_NONE) return kError;
    const int rank = attr[1];
    const uint16_t qidx = (uint16_t)(attr[2] | (attr[3] << 8));
    if (attr[0] > 1 || rank > kMaxRank || len < 4 + 4 * rank || qidx >= plan->num_quant_params ||
        op->weight_idx >= plan->header->num_weights)
        return kError;
    *position = attr[0];
    const tigris_weight_entry_t *w = &plan->weight_entries[op->weight_idx];
    *c = Operand();
    c->dtype = TIGRIS_DTYPE_INT8;
    c->quant = &plan->quant_params[qidx];
    c->quantized = true;
    c->scale = c->quant->scale;
    c->zero_point = c->quant->zero_point;
    c->data = (uint8_t *)tigris_weight_data(plan, w);
    c->elements = w->size_bytes;
    if (c->data == nullptr || out.rank == 0) return kError;
    if (rank > 0) {
        uint64_t n = 1;
        c->rank = (uint8_t)rank;
        for (int d = 0; d < rank; d++) {
            c->dims[d] = read_i32(attr + 4 + 4 * d);
            if (c->dims[d] <= 0) return kError;
            n *= (uint64_t)c->dims[d];
        }
        return n == w->size_bytes ? 0 : kError;
    }
    if (w->size_bytes == 1) {
        c->rank = 0;
    } else if (w->size_bytes == (uint32_t)out.dims[out.rank - 1]) {
        c->rank = 1;
        c->dims[0] = out.dims[out.rank - 1];
    } else if (w->size_bytes == out.elements) {
        c->rank = out.rank;
        for (int d = 0; d < out.rank; d++) c->dims[d] = out.dims[d];
    } else {
        return kError;
    }
    return 0;
}

int binary_operands(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index,
                    const tigris_mem_t *mem, Binary *p)
{
    if (output_operand(plan, op, mem, 0, &p->out) || p->out.dtype != TIGRIS_DTYPE_INT8) return kError;
    if (op->num_inputs >= 2) {
        if (input_operand(plan, op, mem, 0, &p->a) || input_operand(plan, op, mem, 1, &p->b)) return kError;
    } else {
        Operand t, c;
        int position = 0;
        if (input_operand(plan, op, mem, 0, &t) ||
            constant_operand(plan, op, op_index, p->out, &position, &c))
            return kError;
        p->a = position == 0 ? c : t;
        p->b = position == 0 ? t : c;
    }
    if (p->a.dtype != TIGRIS_DTYPE_INT8 || p->b.dtype != TIGRIS_DTYPE_INT8) return kError;
    const tigris_tile_ctx_t &tile = mem->tile;
    if (band_view(p->out, tile, true, &p->vo)) return kError;
    if (operand_view(p->a, tile, p->out, p->vo, &p->va) || operand_view(p->b, tile, p->out, p->vo, &p->vb))
        return kError;
    // Same-rank views are required by for_each_element; lift the output's if needed.
    return p->va.rank == p->vo.rank && p->vb.rank == p->vo.rank ? 0 : kError;
}

// ADD / SUB factors: BINARY_REQUANT (m1, s1, m2, s2, mo, so) or TFLM's derivation.
void add_sub_factors(const tigris_plan_t *plan, uint16_t op_index, const Binary &p, bool is_sub,
                     AddSubParams *f)
{
    if (is_sub) sub_params(p.a.scale, p.a.zero_point, p.b.scale, p.b.zero_point, p.out.scale, p.out.zero_point, f);
    else add_params(p.a.scale, p.a.zero_point, p.b.scale, p.b.zero_point, p.out.scale, p.out.zero_point, f);
    uint8_t len = 0;
    const uint8_t *r = tigris_op_attribute_data(plan, op_index, TIGRIS_ATTR_BINARY_REQUANT, &len);
    if (r != nullptr && len >= 24) {
        f->input1_multiplier = read_i32(r);
        f->input1_shift = read_i32(r + 4);
        f->input2_multiplier = read_i32(r + 8);
        f->input2_shift = read_i32(r + 12);
        f->output_multiplier = read_i32(r + 16);
        f->output_shift = read_i32(r + 20);
    }
}

int add_sub(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
            bool is_sub)
{
    Binary p;
    if (binary_operands(plan, op, op_index, mem, &p)) return kError;
    AddSubParams f;
    add_sub_factors(plan, op_index, p, is_sub, &f);
    const int8_t *a = (const int8_t *)p.va.base;
    const int8_t *b = (const int8_t *)p.vb.base;
    int8_t *y = (int8_t *)p.vo.base;
    const int32_t lo = op->act_min, hi = op->act_max;
    for_each_element(p.vo, &p.va, &p.vb, [&](int32_t oo, int32_t ao, int32_t bo) {
        const int32_t sa = wrap_shl(f.input1_offset + a[ao], f.left_shift);
        const int32_t sb = wrap_shl(f.input2_offset + b[bo], f.left_shift);
        const int32_t ra = multiply_by_quantized_multiplier_smaller_than_one(sa, f.input1_multiplier, f.input1_shift);
        const int32_t rb = multiply_by_quantized_multiplier_smaller_than_one(sb, f.input2_multiplier, f.input2_shift);
        const int32_t raw = is_sub ? wrap_sub(ra, rb) : wrap_add(ra, rb);
        const int32_t out = wrap_add(
            multiply_by_quantized_multiplier_smaller_than_one(raw, f.output_multiplier, f.output_shift),
            f.output_offset);
        y[oo] = (int8_t)clamp_i32(out, lo, hi);
    });
    return 0;
}

// Requantize x of operand t to the output quantization (identity when equal).
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

ToOutput to_output(const Operand &t, const Operand &out)
{
    ToOutput r;
    if (same_quant(t, out)) return r;
    r.active = true;
    r.zp = t.zero_point;
    r.out_zp = out.zero_point;
    rescale_multiplier(t.scale, out.scale, &r.m, &r.shift);
    return r;
}

int min_max(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem,
            bool is_max)
{
    Binary p;
    if (binary_operands(plan, op, op_index, mem, &p)) return kError;
    const ToOutput ra = to_output(p.a, p.out), rb = to_output(p.b, p.out);
    const int8_t *a = (const int8_t *)p.va.base;
    const int8_t *b = (const int8_t *)p.vb.base;
    int8_t *y = (int8_t *)p.vo.base;
    for_each_element(p.vo, &p.va, &p.vb, [&](int32_t oo, int32_t ao, int32_t bo) {
        const int32_t x1 = ra.apply(a[ao]), x2 = rb.apply(b[bo]);
        y[oo] = (int8_t)(is_max ? (x1 > x2 ? x1 : x2) : (x1 < x2 ? x1 : x2));
    });
    return 0;
}

}  // namespace

int add(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    return add_sub(plan, op, op_index, mem, false);
}

int sub(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    return add_sub(plan, op, op_index, mem, true);
}

int mul(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    Binary p;
    if (binary_operands(plan, op, op_index, mem, &p)) return kError;
    int32_t m = 0;
    int s = 0;
    mul_params(p.a.scale, p.b.scale, p.out.scale, &m, &s);
    const int32_t za = p.a.zero_point, zb = p.b.zero_point, zy = p.out.zero_point;
    const int8_t *a = (const int8_t *)p.va.base;
    const int8_t *b = (const int8_t *)p.vb.base;
    int8_t *y = (int8_t *)p.vo.base;
    const int32_t lo = op->act_min, hi = op->act_max;
    for_each_element(p.vo, &p.va, &p.vb, [&](int32_t oo, int32_t ao, int32_t bo) {
        const int32_t prod = wrap_mul(a[ao] - za, b[bo] - zb);
        y[oo] = (int8_t)clamp_i32(wrap_add(zy, multiply_by_quantized_multiplier(prod, m, s)), lo, hi);
    });
    return 0;
}

int maximum(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    return min_max(plan, op, op_index, mem, true);
}

int minimum(const tigris_plan_t *plan, const tigris_op_t *op, uint16_t op_index, tigris_mem_t *mem)
{
    return min_max(plan, op, op_index, mem, false);
}

}  // namespace tigris_s8
