// Pooling and elementwise side of the adapters' shared analysis (accel_layers.h).
#include "backends/common/accel_layers.h"

#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"

namespace tigris_accel {

namespace {

constexpr uint8_t kRoundingAvgPool = 0x1;  // POOL_ROUNDING bit0 (docs/operators.md §3.2)
constexpr uint8_t kCountIncludePad = 0x2;  // POOL_ROUNDING bit1

uint8_t pool_flags(const Call &c)
{
    uint8_t len = 0;
    const uint8_t *f = c.attr(TIGRIS_ATTR_POOL_ROUNDING, &len);
    return f != nullptr && len >= 1 ? f[0] : 0;
}

// Input 0 and output 0 are quantized int8 with one shared quantization.
bool same_int8_quant(const Call &c)
{
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    if (in.dtype != TIGRIS_DTYPE_INT8 || out.dtype != TIGRIS_DTYPE_INT8) return false;
    const tigris_quant_param_t *qi = tigris_tensor_quant(c.plan, &in), *qo = tigris_tensor_quant(c.plan, &out);
    return qi != nullptr && qo != nullptr &&
           tigris_s8::same_quant(qi->scale, qi->zero_point, qo->scale, qo->zero_point);
}

bool activation_ok(const Call &c) { return c.op->act_min <= c.op->act_max; }

}  // namespace

int avg_pool_layer(const Call &c, PoolLayer *l)
{
    SpatialGeom g;
    if (c.op->op_type != TIGRIS_OP_AVG_POOL || c.tiled() || !same_int8_quant(c) || !activation_ok(c)) return kFallback;
    if (tigris_rt::kern::spatial_geometry(c, &g) || g.c_in != g.c_out || !tight_window(g, &l->win)) return kFallback;
    const tigris_spatial_t &sp = c.op->spatial;
    const bool padded = (sp.pad_top | sp.pad_bottom | sp.pad_left | sp.pad_right) != 0;
    if ((pool_flags(c) & kCountIncludePad) && padded) return kFallback;
    const int32_t dims[] = {g.n, g.c_in, g.in_h, g.in_w, g.out_h, g.out_w, g.k_h, g.k_w, g.s_h, g.s_w};
    for (int32_t d : dims)
        if (d > kMaxDim) return kFallback;
    l->n = g.n, l->c = g.c_in;
    l->act_min = c.op->act_min, l->act_max = c.op->act_max;
    return 0;
}

int global_avg_layer(const Call &c, PoolLayer *l)
{
    if (c.op->op_type != TIGRIS_OP_GLOBAL_AVG || c.tiled() || !same_int8_quant(c) || !activation_ok(c))
        return kFallback;
    if (!(pool_flags(c) & kRoundingAvgPool)) return kFallback;  // TFLite MEAN rounding: reference only
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    if (in.ndim != 3 && in.ndim != 4) return kFallback;
    const int32_t *s = c.shape(in);
    const int32_t n = s[0], h = s[1], w = in.ndim == 4 ? s[2] : 1, ch = s[in.ndim - 1];
    const int32_t dims[] = {n, h, w, ch};
    for (int32_t d : dims)
        if (d < 1 || d > kMaxDim) return kFallback;
    if ((int64_t)h * w > 0x7FFFFF || out.size_bytes != (uint32_t)(n * ch)) return kFallback;
    l->n = n, l->c = ch;
    l->win = Window{h, w, 1, 1, h, w, 1, 1, 0, 0, 0, 0, 0};
    l->act_min = c.op->act_min, l->act_max = c.op->act_max;
    return 0;
}

namespace {

bool same_shape(const tigris_plan_t *plan, const tigris_tensor_t &a, const tigris_tensor_t &b)
{
    if (a.ndim != b.ndim) return false;
    const int32_t *sa = tigris_tensor_shape(plan, &a), *sb = tigris_tensor_shape(plan, &b);
    for (int d = 0; d < a.ndim; d++)
        if (sa[d] != sb[d] || sa[d] < 1) return false;
    return true;
}

// Two int8 tensor operands with output 0's shape (no constant operand, no broadcast).
bool same_shape_binary(const Call &c)
{
    if (c.op->num_inputs != 2 || c.op->weight_idx != TIGRIS_NONE) return false;
    const tigris_tensor_t &a = c.in(0), &b = c.in(1), &y = c.out(0);
    if (a.dtype != TIGRIS_DTYPE_INT8 || b.dtype != TIGRIS_DTYPE_INT8 || y.dtype != TIGRIS_DTYPE_INT8) return false;
    return same_shape(c.plan, a, y) && same_shape(c.plan, b, y);
}

// Whole tensors, a stripe band (rows of axis 1, rank >= 3) or a 2-D tile of an NHWC tensor
// whose band buffers are exactly the tile's columns wide (the pointwise case: in_w == out_w,
// so each image's rows of the tile are one run): `segments` x `count`.
bool elementwise_segments(const Call &c, MulLayer *l)
{
    const tigris_tensor_t &y = c.out(0);
    const int32_t *s = c.shape(y);
    uint64_t elements = 1, inner = 1;
    for (int d = 0; d < y.ndim; d++) elements *= (uint64_t)s[d];
    for (int d = 2; d < y.ndim; d++) inner *= (uint64_t)s[d];
    if (elements > 0x7FFFFFFFu) return false;
    if (!c.tiled()) {
        l->segments = 1, l->count = (int32_t)elements;
        l->in_first = l->out_first = l->in_seg_stride = l->out_seg_stride = 0;
        return true;
    }
    const tigris_tile_ctx_t &t = c.tile();
    if (t.row_tiled || t.chan_tiled || t.transposed_tile || t.band_on_columns || t.reduce_acc != nullptr) return false;
    if (t.width_tiled) {
        if (y.ndim != 4 || t.in_w != t.out_w || t.out_w < 1 || t.out_w > s[2]) return false;
        inner = (uint64_t)t.out_w * (uint64_t)s[3];
    }
    if (y.ndim < 3 || t.out_h < 1 || t.in_row_start < 0 || t.out_row_start < 0 || t.out_h > s[1]) return false;
    l->segments = s[0];
    l->count = (int32_t)((uint64_t)t.out_h * inner);
    l->in_first = (int64_t)t.in_row_start * (int64_t)inner;
    l->out_first = (int64_t)t.out_row_start * (int64_t)inner;
    l->in_seg_stride = (int64_t)(t.in_row_start + t.out_h) * (int64_t)inner;
    l->out_seg_stride = (int64_t)(t.out_row_start + t.out_h) * (int64_t)inner;
    return true;
}

// The tensor's scale and zero point, or false. A quant param holds one scale and zero point;
// its channels are the requantization factors of the op that writes the tensor (a
// convolution's per-channel output), which an elementwise op does not read — neither does
// the reference kernel.
bool per_tensor_quant(const Call &c, const tigris_tensor_t &t, float *scale, int32_t *zp)
{
    const tigris_quant_param_t *q = tigris_tensor_quant(c.plan, &t);
    if (q == nullptr || q->zero_point < -128 || q->zero_point > 127) return false;
    *scale = q->scale, *zp = q->zero_point;
    return true;
}

}  // namespace

int mul_layer(const Call &c, MulLayer *l)
{
    if (c.op->op_type != TIGRIS_OP_MUL || !same_shape_binary(c) || !activation_ok(c)) return kFallback;
    float sa, sb, sy;
    int32_t za, zb, zy;
    if (!per_tensor_quant(c, c.in(0), &sa, &za) || !per_tensor_quant(c, c.in(1), &sb, &zb) ||
        !per_tensor_quant(c, c.out(0), &sy, &zy))
        return kFallback;
    int shift = 0;
    tigris_s8::mul_params(sa, sb, sy, &l->mult, &shift);  // as the reference kernel: derived,
    uint8_t len = 0;                                      // or BINARY_REQUANT's result pair
    const uint8_t *r = c.attr(TIGRIS_ATTR_BINARY_REQUANT, &len);
    if (r != nullptr && len >= 24) {
        l->mult = tigris_rt::rd_i32(r + 16);
        shift = tigris_rt::rd_i32(r + 20);
    }
    if (shift < -31 || shift > 15 || l->mult == INT32_MIN) return kFallback;
    l->shift = shift;
    l->in1_offset = -za, l->in2_offset = -zb, l->out_offset = zy;
    l->act_min = c.op->act_min, l->act_max = c.op->act_max;
    return elementwise_segments(c, l) ? 0 : kFallback;
}

int add_layer(const Call &c, AddLayer *l)
{
    if (c.op->op_type != TIGRIS_OP_ADD || !same_shape_binary(c) || !activation_ok(c)) return kFallback;
    float sa, sb, sy;
    int32_t za, zb, zy;
    if (!per_tensor_quant(c, c.in(0), &sa, &za) || !per_tensor_quant(c, c.in(1), &sb, &zb) ||
        !per_tensor_quant(c, c.out(0), &sy, &zy))
        return kFallback;
    tigris_s8::AddSubParams f;  // as the reference kernel: derived, or BINARY_REQUANT's three pairs
    tigris_s8::add_params(sa, za, sb, zb, sy, zy, &f);
    uint8_t len = 0;
    const uint8_t *r = c.attr(TIGRIS_ATTR_BINARY_REQUANT, &len);
    if (r != nullptr && len >= 24) {
        f.input1_multiplier = tigris_rt::rd_i32(r), f.input1_shift = tigris_rt::rd_i32(r + 4);
        f.input2_multiplier = tigris_rt::rd_i32(r + 8), f.input2_shift = tigris_rt::rd_i32(r + 12);
        f.output_multiplier = tigris_rt::rd_i32(r + 16), f.output_shift = tigris_rt::rd_i32(r + 20);
    }
    // Shifts <= 0 keep CMSIS-NN's left shift of (x - zp) << 20 from overflowing; INT32_MIN
    // multipliers are where its doubling multiply does not saturate as TFLite's does.
    const int32_t mults[] = {f.input1_multiplier, f.input2_multiplier, f.output_multiplier};
    const int32_t shifts[] = {f.input1_shift, f.input2_shift, f.output_shift};
    for (int i = 0; i < 3; i++)
        if (mults[i] == INT32_MIN || shifts[i] < -31 || shifts[i] > 0) return kFallback;
    l->in1_mult = f.input1_multiplier, l->in1_shift = f.input1_shift;
    l->in2_mult = f.input2_multiplier, l->in2_shift = f.input2_shift;
    l->left_shift = f.left_shift;
    MulLayer &m = l->seg;
    m.mult = f.output_multiplier, m.shift = f.output_shift;
    m.in1_offset = f.input1_offset, m.in2_offset = f.input2_offset, m.out_offset = f.output_offset;
    m.act_min = c.op->act_min, m.act_max = c.op->act_max;
    return elementwise_segments(c, &m) ? 0 : kFallback;
}

int min_max_layer(const Call &c, MulLayer *l)
{
    const uint8_t type = c.op->op_type;
    if ((type != TIGRIS_OP_MAXIMUM && type != TIGRIS_OP_MINIMUM) || !same_shape_binary(c)) return kFallback;
    const tigris_quant_param_t *qa = tigris_tensor_quant(c.plan, &c.in(0)), *qb = tigris_tensor_quant(c.plan, &c.in(1));
    const tigris_quant_param_t *qy = tigris_tensor_quant(c.plan, &c.out(0));
    if (qa == nullptr || qb == nullptr || qy == nullptr) return kFallback;
    if (!tigris_s8::same_quant(qa->scale, qa->zero_point, qy->scale, qy->zero_point) ||
        !tigris_s8::same_quant(qb->scale, qb->zero_point, qy->scale, qy->zero_point))
        return kFallback;
    *l = MulLayer{};
    return elementwise_segments(c, l) ? 0 : kFallback;
}

}  // namespace tigris_accel
