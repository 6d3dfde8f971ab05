// Convolution side of the adapters' shared analysis (accel_layers.h): the int8 ownership
// rule, the trimmed window of one image and the CONV / DEPTHWISE resolution.
#include "backends/common/accel_layers.h"

#include <string.h>

#include "kernels/kernel_set.h"

namespace tigris_accel {

namespace {

bool quantized_int8(const tigris_plan_t *plan, uint16_t tensor)
{
    if (tensor >= plan->header->num_tensors) return false;
    const tigris_tensor_t *t = &plan->tensors[tensor];
    return t->dtype == TIGRIS_DTYPE_INT8 && tigris_tensor_quant(plan, t) != nullptr;
}

bool in_int8_range(int32_t v) { return v >= -128 && v <= 127; }

// One axis: input extent `in`, output `out`, kernel, stride, padding before. The outputs read
// input [0, needed); `used` = min(in, needed), the rest of needed is padding after and the
// rest of in is unread.
bool tight_axis(int32_t in, int32_t out, int32_t k, int32_t s, int32_t pad, int32_t *used, int32_t *pad_after)
{
    if (in < 1 || out < 1 || k < 1 || s < 1 || pad < 0 || pad >= k) return false;
    const int64_t last_start = (int64_t)(out - 1) * s - pad;
    if (last_start >= in) return false;  // the last window lies in the padding
    const int64_t needed = last_start + k;
    *used = needed < in ? (int32_t)needed : in;
    *pad_after = (int32_t)(needed - *used);
    return true;
}

bool dims_in_range(const SpatialGeom &g)
{
    const int32_t v[] = {g.n, g.c_in, g.c_out, g.in_h, g.in_w, g.out_h, g.out_w, g.k_h, g.k_w, g.s_h, g.s_w};
    for (int32_t x : v)
        if (x < 1 || x > kMaxDim) return false;
    return true;
}

}  // namespace

bool op_indices_valid(const tigris_plan_t *plan, const tigris_op_t *op)
{
    const uint16_t *ins = tigris_op_inputs(plan, op), *outs = tigris_op_outputs(plan, op);
    for (uint8_t i = 0; i < op->num_inputs; i++)
        if (ins[i] >= plan->header->num_tensors) return false;
    for (uint8_t i = 0; i < op->num_outputs; i++)
        if (outs[i] >= plan->header->num_tensors) return false;
    return true;
}

bool int8_op(const tigris_plan_t *plan, const tigris_op_t *op)
{
    if (op->num_inputs == 0 || op->num_outputs == 0 || op->op_type == TIGRIS_OP_CAST) return false;
    if (!op_indices_valid(plan, op) || tigris_rt::op_kernel_dtype(plan, op) != TIGRIS_DTYPE_INT8) return false;
    return quantized_int8(plan, tigris_op_inputs(plan, op)[0]);
}

bool tight_window(const SpatialGeom &g, Window *w)
{
    if (g.d_h != 1 || g.d_w != 1) return false;
    w->k_h = g.k_h, w->k_w = g.k_w, w->s_h = g.s_h, w->s_w = g.s_w;
    w->out_h = g.out_h, w->out_w = g.out_w;
    w->pad_top = g.pad_top, w->pad_left = g.pad_left;
    int32_t used_w = 0;
    if (!tight_axis(g.in_h, g.out_h, g.k_h, g.s_h, g.pad_top, &w->in_h, &w->pad_bottom) ||
        !tight_axis(g.in_w, g.out_w, g.k_w, g.s_w, g.pad_left, &used_w, &w->pad_right))
        return false;
    w->in_w = g.in_w;
    w->extra_w = g.in_w - used_w;
    return true;
}

namespace {

bool factor_ok(int32_t m, int32_t s) { return m != INT32_MIN && s >= -31 && s <= 30; }

// Every factor of quant param q is one the vendors take.
bool factors_in_range(const tigris_plan_t *plan, const tigris_quant_param_t *q)
{
    const int32_t *m = tigris_quant_multipliers(plan, q), *s = tigris_quant_shifts(plan, q);
    for (uint32_t ch = 0; ch < q->num_channels; ch++)
        if (!factor_ok(m[ch], s[ch])) return false;
    return true;
}

// The output quant's factors for `channels` channels (their ranges checked unless
// `factors_checked`: plan_factors_in_range held for the plan).
bool layer_requant(const tigris_plan_t *plan, const tigris_tensor_t &out, int32_t channels, bool factors_checked,
                   Requant *r)
{
    const tigris_quant_param_t *q = tigris_tensor_quant(plan, &out);
    if (q == nullptr || plan->quant_data == nullptr) return false;
    const int32_t *m = tigris_quant_multipliers(plan, q), *s = tigris_quant_shifts(plan, q);
    r->per_tensor = q->num_channels == 1;
    if (r->per_tensor) {
        r->mult = r->shift = nullptr;
        r->mult0 = m[0], r->shift0 = s[0];
        return factor_ok(m[0], s[0]);
    }
    if (q->num_channels != channels) return false;
    r->mult = m, r->shift = s;
    r->mult0 = r->shift0 = 0;
    return factors_checked || factors_in_range(plan, q);
}

// Quantization and activation common to the conv-like layers.
bool io_quant(const Call &c, int32_t channels, bool factors_checked, int32_t *in_offset, int32_t *out_offset,
              Requant *rq)
{
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    if (in.dtype != TIGRIS_DTYPE_INT8 || out.dtype != TIGRIS_DTYPE_INT8) return false;
    const tigris_quant_param_t *qi = tigris_tensor_quant(c.plan, &in), *qo = tigris_tensor_quant(c.plan, &out);
    if (qi == nullptr || qo == nullptr || !in_int8_range(qi->zero_point) || !in_int8_range(qo->zero_point))
        return false;
    if (c.op->act_min > c.op->act_max) return false;
    *in_offset = -qi->zero_point;
    *out_offset = qo->zero_point;
    return layer_requant(c.plan, out, channels, factors_checked, rq);
}

// Weight bytes and bias of the op; the bias must be 4-aligned int32 (the vendors read it so).
bool layer_weights(const Call &c, uint64_t w_bytes, int32_t channels, const int8_t **w, const int32_t **bias)
{
    const tigris_plan_t *plan = c.plan;
    if (plan->weight_entries == nullptr || c.op->weight_idx >= plan->header->num_weights) return false;
    const tigris_weight_entry_t &we = plan->weight_entries[c.op->weight_idx];
    if (we.size_bytes < w_bytes) return false;
    *w = (const int8_t *)tigris_weight_data(plan, &we);
    *bias = nullptr;
    if (c.op->bias_idx == TIGRIS_NONE) return true;
    if (c.op->bias_idx >= plan->header->num_weights) return false;
    const tigris_weight_entry_t &be = plan->weight_entries[c.op->bias_idx];
    if (be.size_bytes < (uint64_t)channels * 4u) return false;
    *bias = (const int32_t *)tigris_weight_data(plan, &be);
    return *bias == nullptr || ((uintptr_t)*bias & 3u) == 0;
}

}  // namespace

bool plan_factors_in_range(const tigris_plan_t *plan)
{
    if (plan == nullptr || plan->header == nullptr || plan->ops == nullptr || plan->quant_data == nullptr) return false;
    for (uint16_t i = 0; i < plan->header->num_ops; i++) {
        const tigris_op_t *op = &plan->ops[i];
        const uint8_t type = op->op_type;
        if (type != TIGRIS_OP_CONV && type != TIGRIS_OP_DEPTHWISE && type != TIGRIS_OP_FULLY_CONN) continue;
        if (!int8_op(plan, op)) continue;
        const tigris_tensor_t &out = plan->tensors[tigris_op_outputs(plan, op)[0]];
        const tigris_quant_param_t *q = tigris_tensor_quant(plan, &out);
        if (q != nullptr && !factors_in_range(plan, q)) return false;
    }
    return true;
}

int conv_layer(const Call &c, ConvLayer *l, bool factors_checked, bool chan_bands)
{
    const uint8_t type = c.op->op_type;
    if (type != TIGRIS_OP_CONV && type != TIGRIS_OP_DEPTHWISE) return kFallback;
    l->depthwise = type == TIGRIS_OP_DEPTHWISE;
    // A channel band: a depthwise one separable (chan_mix 0), a Conv one mixing (chan_mix 1);
    // the reference kernels refuse the other pairings.
    l->chan_band = c.tiled() && c.tile().chan_tiled;
    if (l->chan_band && c.tile().chan_partial) return kFallback;  // an input-channel band: the reference's
    if (l->chan_band && (!chan_bands || (c.tile().chan_mix != 0) == l->depthwise)) return kFallback;
    if (tigris_rt::kern::spatial_geometry(c, &l->g) || !dims_in_range(l->g) || !tight_window(l->g, &l->win))
        return kFallback;
    const SpatialGeom &g = l->g;
    const tigris_tensor_t &out = c.out(0);
    if (out.ndim < 1) return kFallback;
    const int32_t layer_c = l->chan_band ? c.shape(out)[out.ndim - 1] : g.c_out;
    l->chan0 = l->chan_band ? g.chan0 : 0;
    if (layer_c < 1 || l->chan0 < 0 || l->chan0 + g.c_out > layer_c) return kFallback;
    uint64_t w_bytes = 0;
    int64_t w_offset = 0;  // weight bytes before channel chan0
    if (l->depthwise) {
        if (g.c_out % g.c_in != 0) return kFallback;
        l->groups = g.c_in;
        l->ch_mult = g.c_out / g.c_in;
        if (l->chan_band && l->ch_mult != 1) return kFallback;
        w_bytes = (uint64_t)g.k_h * g.k_w * layer_c;
        w_offset = l->chan0;
    } else {
        l->groups = c.op->spatial.group > 1 ? c.op->spatial.group : 1;
        l->ch_mult = 0;
        if (l->chan_band && l->groups != 1) return kFallback;
        if (g.c_in % l->groups != 0 || g.c_out % l->groups != 0) return kFallback;
        w_bytes = (uint64_t)layer_c * g.k_h * g.k_w * (g.c_in / l->groups);
        w_offset = (int64_t)l->chan0 * g.k_h * g.k_w * g.c_in;
    }
    l->w_stride = l->depthwise ? layer_c : 0;
    if (!io_quant(c, layer_c, factors_checked, &l->in_offset, &l->out_offset, &l->rq)) return kFallback;
    if (!l->rq.per_tensor) l->rq.mult += l->chan0, l->rq.shift += l->chan0;
    l->act_min = c.op->act_min;
    l->act_max = c.op->act_max;
    if (!layer_weights(c, w_bytes, layer_c, &l->weights, &l->bias)) return kFallback;
    if (l->weights != nullptr) l->weights += w_offset;
    if (l->bias != nullptr) l->bias += l->chan0;
    return 0;
}

int fc_layer(const Call &c, FcLayer *l, bool factors_checked, bool chan_bands)
{
    if (c.op->op_type != TIGRIS_OP_FULLY_CONN) return kFallback;
    // An output-channel band (chan_mix, a rank-2 output as the reference takes it): columns
    // [chan0, chan0 + chans) of the layer's, their weights, biases and factors.
    const bool chan_band = c.tiled() && c.tile().chan_tiled;
    // An input-channel band (chan_partial, float32 or int8) is the reference's.
    if (chan_band && c.tile().chan_partial) return kFallback;
    if (chan_band && (!chan_bands || !c.tile().chan_mix || c.out(0).ndim != 2)) return kFallback;
    const tigris_tensor_t &in = c.in(0), &out = c.out(0);
    if (out.ndim < 1 || in.ndim < 1) return kFallback;
    const int32_t *is = c.shape(in), *os = c.shape(out);
    uint64_t in_n = 1, out_n = 1;
    for (int d = 0; d < in.ndim; d++) in_n *= (uint64_t)(is[d] > 0 ? is[d] : 0);
    for (int d = 0; d < out.ndim; d++) out_n *= (uint64_t)(os[d] > 0 ? os[d] : 0);
    l->out_c = os[out.ndim - 1];
    if (l->out_c < 1 || l->out_c > kMaxDim || out_n == 0 || out_n % (uint64_t)l->out_c != 0) return kFallback;
    const uint64_t full_rows = out_n / (uint64_t)l->out_c;
    if (in_n == 0 || in_n % full_rows != 0 || in_n / full_rows > (uint64_t)kMaxDim) return kFallback;
    l->in_c = (int32_t)(in_n / full_rows);
    const tigris_rt::kern::RowBand band = tigris_rt::kern::row_band(c.mem, (int32_t)full_rows);
    if (c.tiled() && !band.active) return kFallback;
    if (band.rows < 1 || band.in_row_start < 0 || band.out_row_start < 0) return kFallback;
    l->rows = band.rows, l->in_row0 = band.in_row_start, l->out_row0 = band.out_row_start;
    if (!io_quant(c, l->out_c, factors_checked, &l->in_offset, &l->out_offset, &l->rq)) return kFallback;
    l->act_min = c.op->act_min;
    l->act_max = c.op->act_max;
    if (!layer_weights(c, (uint64_t)l->out_c * l->in_c, l->out_c, &l->weights, &l->bias)) return kFallback;
    if (chan_band) {
        const int32_t chan0 = c.tile().chan0, chans = c.tile().chans;
        if (chan0 < 0 || chans < 1 || chan0 + chans > l->out_c) return kFallback;
        if (l->weights != nullptr) l->weights += (int64_t)chan0 * l->in_c;
        if (l->bias != nullptr) l->bias += chan0;
        if (!l->rq.per_tensor) l->rq.mult += chan0, l->rq.shift += chan0;
        l->out_c = chans;
    }
    return 0;
}

int8_t *input_data(const Call &c, uint8_t i) { return (int8_t *)tigris_mem_tensor_ptr(c.mem, c.in_index(i)); }

int8_t *output_data(const Call &c, uint8_t i) { return (int8_t *)tigris_mem_tensor_ptr(c.mem, c.out_index(i)); }

ScanCall::ScanCall(const tigris_plan_t *plan, uint16_t op_index)
{
    memset(&mem, 0, sizeof mem);
    call.plan = plan;
    call.op = &plan->ops[op_index];
    call.op_index = op_index;
    call.mem = &mem;
}

}  // namespace tigris_accel
