// The ops the CMSIS-NN adapter forwards (docs/backends.md §2): the resolved layer
// (backends/common/accel_layers.h) turned into CMSIS-NN's argument structs, one image per
// call (band buffers have their own batch strides), with per-tensor factors expanded into
// the reservation's arrays. Anything CMSIS-NN refuses goes back to the reference kernels.
#include <string.h>

#include "arm_nnfunctions.h"
#include "backends/cmsis_nn/cmsis_nn_internal.h"
#include "kernels/s8/s8_add.h"
#include "kernels/s8/s8_conv_im2col.h"
#include "kernels/s8/s8_depthwise.h"
#include "kernels/s8/s8_matmul.h"

#if defined(CMSIS_NN_USE_SINGLE_ROUNDING)
#  error \
      "TiGrIS needs CMSIS-NN's default double rounding (bit-exact with TFLite): undefine CMSIS_NN_USE_SINGLE_ROUNDING"
#endif

namespace tigris_cmsis {

using namespace tigris_accel;

namespace {

struct ConvArgs {
    cmsis_nn_conv_params conv;
    cmsis_nn_dw_conv_params dw;
    cmsis_nn_dims in, filter, bias, out;
};

void conv_args(const ConvLayer &l, ConvArgs *a)
{
    const Window &w = l.win;
    const cmsis_nn_activation act{l.act_min, l.act_max};
    const cmsis_nn_tile stride{w.s_w, w.s_h}, pad{w.pad_left, w.pad_top}, dilation{1, 1};
    a->in = cmsis_nn_dims{1, w.in_h, w.in_w, l.g.c_in};
    a->out = cmsis_nn_dims{1, w.out_h, w.out_w, l.g.c_out};
    a->bias = cmsis_nn_dims{1, 1, 1, l.g.c_out};
    a->conv = cmsis_nn_conv_params{l.in_offset, l.out_offset, stride, pad, dilation, act};
    a->dw = cmsis_nn_dw_conv_params{l.in_offset, l.out_offset, l.ch_mult, stride, pad, dilation, act};
    a->filter = l.depthwise ? cmsis_nn_dims{1, w.k_h, w.k_w, l.g.c_out}
                            : cmsis_nn_dims{l.g.c_out, w.k_h, w.k_w, l.g.c_in / l.groups};
}

int64_t conv_need(const ConvArgs &a, bool depthwise)
{
    const int32_t n = depthwise ? arm_depthwise_conv_wrapper_s8_get_buffer_size(&a.dw, &a.in, &a.filter, &a.out)
                                : arm_convolve_wrapper_s8_get_buffer_size(&a.conv, &a.in, &a.filter, &a.out);
    return n < 0 ? -1 : n;
}

// The layer's per-channel factor arrays: the plan's, or the per-tensor pair expanded.
bool channel_factors(const Requant &rq, int32_t channels, const Workspace &ws, cmsis_nn_per_channel_quant_params *q)
{
    if (!rq.per_tensor) {
        q->multiplier = const_cast<int32_t *>(rq.mult);
        q->shift = const_cast<int32_t *>(rq.shift);
        return true;
    }
    if (ws.expand == nullptr || (uint32_t)channels > ws.expand_channels) return false;
    int32_t *m = ws.expand, *s = ws.expand + ws.expand_channels;
    for (int32_t ch = 0; ch < channels; ch++) m[ch] = rq.mult0, s[ch] = rq.shift0;
    q->multiplier = m;
    q->shift = s;
    return true;
}

cmsis_nn_context vendor_context(const Workspace &ws, int64_t need)
{
    return cmsis_nn_context{need > 0 ? (void *)ws.vendor : nullptr, (int32_t)need};
}

// A depthwise channel band's weights: the band's channels of every tap, gathered into the
// vendor scratch after the kernel's own `need` bytes (CMSIS-NN reads them dense); NULL when
// the reservation has no room for them, and the call falls back.
const int8_t *band_weights(const ConvLayer &l, const Workspace &ws, int64_t need)
{
    if (!l.depthwise || l.w_stride == l.g.c_out) return l.weights;
    const int64_t taps = (int64_t)l.win.k_h * l.win.k_w, at = (int64_t)tigris_accel::align16((uint64_t)need);
    if (ws.vendor == nullptr || at + taps * l.g.c_out > (int64_t)ws.vendor_size) return nullptr;
    int8_t *dst = (int8_t *)ws.vendor + at;
    for (int64_t t = 0; t < taps; t++) memcpy(dst + t * l.g.c_out, l.weights + t * l.w_stride, (size_t)l.g.c_out);
    return dst;
}

// A 1x1 convolution (stride 1, unpadded, one group) over at most this many pixels per image
// goes to CMSIS-NN's vector-matrix kernel instead of its 1x1 convolution: on the DSP path the
// convolution's matrix kernel sums every weight row again on each call (the input offset's
// share), which on a band tile of a few pixels costs as much as the products; the vector kernel
// adds the offset to the inputs. Same arithmetic (TFLite's), same bytes. Not on Helium, whose
// vector kernel wants those sums precomputed in the scratch.
constexpr int32_t kFewPixels = 4;

// A 1x1 convolution of one group, stride 1, unpadded, whose pixels are dense rows of each image.
bool pointwise(const ConvLayer &l)
{
    const Window &w = l.win;
    return !l.depthwise && l.groups == 1 && w.k_h == 1 && w.k_w == 1 && w.s_h == 1 && w.s_w == 1 && w.pad_top == 0 &&
           w.pad_left == 0 && w.pad_bottom == 0 && w.pad_right == 0 && w.out_h == w.in_h && w.out_w == w.in_w &&
           l.g.in_row == (int64_t)w.in_w * l.g.c_in && l.g.out_row == (int64_t)w.out_w * l.g.c_out;
}

bool few_pixel_pointwise(const ConvLayer &l)
{
#if defined(ARM_MATH_MVEI)
    (void)l;
    return false;
#else
    return pointwise(l) && (int64_t)l.win.out_h * l.win.out_w <= kFewPixels;
#endif
}

// The int8 matrix product of the reference kernels (kernels/s8/s8_matmul.h) computes 1x1
// convolutions and fully connected layers on builds with the DSP extension and without Helium
// (Cortex-M4/M7/M33), where it executes fewer instructions than CMSIS-NN's
// arm_convolve_1x1_s8_fast / arm_nn_mat_mult_nt_t_s8 (docs/backends.md §2). Plain-C builds (the
// host's, whose tests compare CMSIS-NN's bytes with the reference's), Helium builds and builds
// without the product (TIGRIS_NO_FAST_MATMUL) keep CMSIS-NN.
#if defined(ARM_MATH_DSP) && !defined(ARM_MATH_MVEI) && !defined(TIGRIS_NO_FAST_MATMUL)
constexpr bool kOwnMatmul = true;
#else
constexpr bool kOwnMatmul = false;
#endif

// The shapes where the product beats CMSIS-NN's kernels on the Cortex-M4: several rows with
// the weights widened once (packs), or one to three rows with the inputs widened once
// (few_rows; per-channel factors read unprepared there, as CMSIS-NN's per-channel vector kernel
// reads them) (docs/backends.md §2).
bool own_matmul_shape(int32_t rows, int32_t k, int32_t channels)
{
    return tigris_s8::mm::packs(rows, k) || tigris_s8::mm::few_rows(rows, k, channels);
}

// The product of the resolved layer (weights, bias and factors already at the band's first
// channel) over `rows` rows of x.
tigris_s8::mm::Product own_product(const Requant &rq, const int8_t *weights, const int32_t *bias, int32_t rows,
                                   int32_t k, int32_t channels, int32_t in_offset, int32_t out_offset, int32_t act_min,
                                   int32_t act_max)
{
    tigris_s8::mm::Product p{nullptr, k, rows, k, weights, channels, nullptr, channels, in_offset, out_offset,
                             act_min, act_max};
    p.per_tensor = rq.per_tensor;
    p.mult = rq.per_tensor ? &rq.mult0 : rq.mult;
    p.shift = rq.per_tensor ? &rq.shift0 : rq.shift;
    p.bias = (const uint8_t *)bias;
    return p;
}

// 0 done; tigris_accel::kFallback when a factor is one the product refuses (the caller then
// runs CMSIS-NN, which rewrites every output).
int own_pointwise(const ConvLayer &l, const int8_t *x, int8_t *y)
{
    tigris_s8::mm::Product p = own_product(l.rq, l.weights, l.bias, l.win.out_h * l.win.out_w, l.g.c_in, l.g.c_out,
                                           l.in_offset, l.out_offset, l.act_min, l.act_max);
    for (int32_t n = 0; n < l.g.n; n++) {
        p.x = x + n * l.g.in_batch + l.g.in_row_start * l.g.in_row;
        p.y = y + n * l.g.out_batch + l.g.out_row_start * l.g.out_row;
        if (tigris_s8::mm::run(p) != 0) return kFallback;
    }
    return 0;
}

// The pixels of each image as rows of a fully connected layer (no scratch on the DSP path).
int forward_pointwise_rows(const ConvLayer &l, const int8_t *x, int8_t *y, const cmsis_nn_per_channel_quant_params &q)
{
    const int32_t pixels = l.win.out_h * l.win.out_w;
    const cmsis_nn_fc_params fc{l.in_offset, 0, l.out_offset, cmsis_nn_activation{l.act_min, l.act_max}};
    const cmsis_nn_dims in{pixels, 1, 1, l.g.c_in}, filter{l.g.c_in, 1, 1, l.g.c_out}, bias{1, 1, 1, l.g.c_out},
        out{pixels, 1, 1, l.g.c_out};
    const cmsis_nn_context none{nullptr, 0};
    for (int32_t n = 0; n < l.g.n; n++) {
        const int8_t *xn = x + n * l.g.in_batch + l.g.in_row_start * l.g.in_row;
        int8_t *yn = y + n * l.g.out_batch + l.g.out_row_start * l.g.out_row;
        if (arm_fully_connected_per_channel_s8(&none, &fc, &q, &in, xn, &filter, l.weights, &bias, l.bias, &out, yn) !=
            ARM_CMSIS_NN_SUCCESS)
            return kFallback;
    }
    return 0;
}

// A KxK convolution of one group (any window but 1x1, whose pointwise paths stay CMSIS-NN's)
// runs on our im2col kernel (kernels/s8/s8_conv_im2col.h) on DSP builds without Helium: fewer
// instructions than arm_convolve_s8 on the Cortex-M4 (docs/performance.md). Its int16 buffer
// is the vendor scratch reserved for the layer (arm_convolve_s8's 4 x K bytes, K rounded up to 4, on that path);
// a smaller reservation or factors it refuses leave the call to CMSIS-NN.
bool kxk_on_im2col(const ConvLayer &l)
{
#if defined(ARM_MATH_DSP) && !defined(ARM_MATH_MVEI)
    return !l.depthwise && l.groups == 1 && (l.win.k_h > 1 || l.win.k_w > 1);
#else
    (void)l;
    return false;
#endif
}

int forward_im2col(const ConvLayer &l, const int8_t *x, int8_t *y, const Workspace &ws, int64_t need)
{
    const bool pt = l.rq.per_tensor;
    const tigris_s8::im2col::Conv c{
        &l.g,
        x,
        y,
        l.weights,
        l.bias,
        pt ? &l.rq.mult0 : l.rq.mult,
        pt ? &l.rq.shift0 : l.rq.shift,
        pt ? 0 : 1,
        l.in_offset,
        l.out_offset,
        l.act_min,
        l.act_max,
        true};  // conv_layer checked every factor (multiplier != INT32_MIN, shift in [-31, 30])
    return tigris_s8::im2col::run(c, ws.vendor, need) == 0 ? 0 : kFallback;
}

int forward_conv(const Call &c, const Workspace &ws)
{
    ConvLayer l;
    if (conv_layer(c, &l, ws.factors_checked, true) || l.weights == nullptr) return kFallback;
    int8_t *x = input_data(c, 0), *y = output_data(c, 0);
    if (kOwnMatmul && x != nullptr && y != nullptr && pointwise(l) &&
        own_matmul_shape(l.win.out_h * l.win.out_w, l.g.c_in, l.g.c_out) && own_pointwise(l, x, y) == 0)
        return 0;
    ConvArgs a;
    conv_args(l, &a);
    const int64_t need = conv_need(a, l.depthwise);
    cmsis_nn_per_channel_quant_params q;
    if (x == nullptr || y == nullptr || need < 0 || need > ws.vendor_size || !channel_factors(l.rq, l.g.c_out, ws, &q))
        return kFallback;
    const int8_t *weights = band_weights(l, ws, need);
    if (weights == nullptr) return kFallback;
    const cmsis_nn_context ctx = vendor_context(ws, need);
    if (few_pixel_pointwise(l)) return forward_pointwise_rows(l, x, y, q);
    if (kxk_on_im2col(l) && forward_im2col(l, x, y, ws, need) == 0) return 0;
    for (int32_t n = 0; n < l.g.n; n++) {
        const int8_t *xn = x + n * l.g.in_batch + l.g.in_row_start * l.g.in_row;
        int8_t *yn = y + n * l.g.out_batch + l.g.out_row_start * l.g.out_row;
        const arm_cmsis_nn_status st = l.depthwise
                                           ? arm_depthwise_conv_wrapper_s8(&ctx, &a.dw, &q, &a.in, xn, &a.filter,
                                                                           weights, &a.bias, l.bias, &a.out, yn)
                                           : arm_convolve_wrapper_s8(&ctx, &a.conv, &q, &a.in, xn, &a.filter, weights,
                                                                     &a.bias, l.bias, &a.out, yn);
        if (st != ARM_CMSIS_NN_SUCCESS) return kFallback;
    }
    return 0;
}

struct FcArgs {
    cmsis_nn_fc_params fc;
    cmsis_nn_dims in, filter, bias, out;
};

void fc_args(const FcLayer &l, FcArgs *a)
{
    a->fc = cmsis_nn_fc_params{l.in_offset, 0, l.out_offset, cmsis_nn_activation{l.act_min, l.act_max}};
    a->in = cmsis_nn_dims{l.rows, 1, 1, l.in_c};
    a->filter = cmsis_nn_dims{l.in_c, 1, 1, l.out_c};
    a->bias = cmsis_nn_dims{1, 1, 1, l.out_c};
    a->out = cmsis_nn_dims{l.rows, 1, 1, l.out_c};
}

int forward_fc(const Call &c, const Workspace &ws)
{
    FcLayer l;
    if (fc_layer(c, &l, ws.factors_checked, true) || l.weights == nullptr) return kFallback;
    int8_t *x = input_data(c, 0), *y = output_data(c, 0);
    FcArgs a;
    fc_args(l, &a);
    const int64_t need = arm_fully_connected_s8_get_buffer_size(&a.filter);
    if (x == nullptr || y == nullptr || need < 0 || need > ws.vendor_size) return kFallback;
    const cmsis_nn_context ctx = vendor_context(ws, need);
    if (need > 0) {  // Helium: kernel sums (bias folded in) precomputed in the scratch
        arm_vector_sum_s8((int32_t *)ws.vendor, l.in_c, l.out_c, l.weights, l.in_offset, 0, l.bias);
    }
    x += (int64_t)l.in_row0 * l.in_c;
    y += (int64_t)l.out_row0 * l.out_c;
    if (kOwnMatmul && own_matmul_shape(l.rows, l.in_c, l.out_c)) {
        tigris_s8::mm::Product p =
            own_product(l.rq, l.weights, l.bias, l.rows, l.in_c, l.out_c, l.in_offset, l.out_offset, l.act_min, l.act_max);
        p.x = x;
        p.y = y;
        if (tigris_s8::mm::run(p) == 0) return 0;
    }
    arm_cmsis_nn_status st;
    if (l.rq.per_tensor) {
        const cmsis_nn_per_tensor_quant_params q{l.rq.mult0, l.rq.shift0};
        st = arm_fully_connected_s8(&ctx, &a.fc, &q, &a.in, x, &a.filter, l.weights, &a.bias, l.bias, &a.out, y);
    } else {
        const cmsis_nn_per_channel_quant_params q{const_cast<int32_t *>(l.rq.mult), const_cast<int32_t *>(l.rq.shift)};
        st = arm_fully_connected_per_channel_s8(&ctx, &a.fc, &q, &a.in, x, &a.filter, l.weights, &a.bias, l.bias,
                                                &a.out, y);
    }
    return st == ARM_CMSIS_NN_SUCCESS ? 0 : kFallback;
}

int forward_pool(const Call &c, const Workspace &ws, const PoolLayer &l)
{
    const Window &w = l.win;
    const cmsis_nn_pool_params p{cmsis_nn_tile{w.s_w, w.s_h}, cmsis_nn_tile{w.pad_left, w.pad_top},
                                 cmsis_nn_activation{l.act_min, l.act_max}};
    const cmsis_nn_dims in{1, w.in_h, w.in_w, l.c}, filter{1, w.k_h, w.k_w, 1}, out{1, w.out_h, w.out_w, l.c};
    const int64_t need = arm_avgpool_s8_get_buffer_size(w.out_w, l.c);
    int8_t *x = input_data(c, 0), *y = output_data(c, 0);
    if (x == nullptr || y == nullptr || need < 0 || need > ws.vendor_size) return kFallback;
    const cmsis_nn_context ctx = vendor_context(ws, need);
    // Untiled: images are dense; the rows past in_h (never read) stay in the batch stride.
    const tigris_tensor_t &ti = c.in(0);
    const int32_t full_h = c.shape(ti)[1];
    for (int32_t n = 0; n < l.n; n++) {
        const int8_t *xn = x + (int64_t)n * full_h * w.in_w * l.c;
        int8_t *yn = y + (int64_t)n * w.out_h * w.out_w * l.c;
        if (arm_avgpool_s8(&ctx, &p, &in, xn, &filter, &out, yn) != ARM_CMSIS_NN_SUCCESS) return kFallback;
    }
    return 0;
}

int forward_elementwise(const Call &c, const MulLayer &l)
{
    const int8_t *a = input_data(c, 0), *b = input_data(c, 1);
    int8_t *y = output_data(c, 0);
    if (a == nullptr || b == nullptr || y == nullptr) return kFallback;
    const uint8_t type = c.op->op_type;
    const cmsis_nn_dims dims{1, 1, 1, l.count};
    const cmsis_nn_context none{nullptr, 0};
    for (int32_t s = 0; s < l.segments; s++) {
        const int8_t *as = a + l.in_first + s * l.in_seg_stride, *bs = b + l.in_first + s * l.in_seg_stride;
        int8_t *ys = y + l.out_first + s * l.out_seg_stride;
        arm_cmsis_nn_status st;
        if (type == TIGRIS_OP_MUL) {
            st = arm_elementwise_mul_s8(as, bs, l.in1_offset, l.in2_offset, ys, l.out_offset, l.mult, l.shift,
                                        l.act_min, l.act_max, l.count);
        } else if (type == TIGRIS_OP_MAXIMUM) {
            st = arm_maximum_s8(&none, as, &dims, bs, &dims, ys, &dims);
        } else {
            st = arm_minimum_s8(&none, as, &dims, bs, &dims, ys, &dims);
        }
        if (st != ARM_CMSIS_NN_SUCCESS) return kFallback;
    }
    return 0;
}

// (x - zp) << left_shift in CMSIS-NN's DSP path masks the sum to 16 bits first: the same
// 32-bit value for left_shift >= 16 (add_layer's 20), so its bytes equal the reference's.
int forward_add(const Call &c, const AddLayer &l)
{
    const int8_t *a = input_data(c, 0), *b = input_data(c, 1);
    int8_t *y = output_data(c, 0);
    const MulLayer &m = l.seg;
    if (a == nullptr || b == nullptr || y == nullptr || l.left_shift < 16 || l.left_shift > 23) return kFallback;
#if defined(ARM_MATH_DSP) && !defined(ARM_MATH_MVEI)
    // DSP builds without Helium: the int8 reference's fast ADD (kernels/s8/s8_add.h), same bytes,
    // fewer instructions than arm_elementwise_add_s8 (docs/backends.md §2), for TFLite's factors.
    tigris_s8::AddSubParams f;
    f.input1_offset = m.in1_offset, f.input2_offset = m.in2_offset, f.output_offset = m.out_offset;
    f.left_shift = l.left_shift;
    f.input1_multiplier = l.in1_mult, f.input1_shift = l.in1_shift;
    f.input2_multiplier = l.in2_mult, f.input2_shift = l.in2_shift;
    f.output_multiplier = m.mult, f.output_shift = m.shift;
    tigris_s8::add_fast::Prepared fast;
    if (tigris_s8::add_fast::prepare(f, m.act_min, m.act_max, &fast)) {
        for (int32_t s = 0; s < m.segments; s++) {
            const int64_t in = m.in_first + s * m.in_seg_stride, out = m.out_first + s * m.out_seg_stride;
            tigris_s8::add_fast::run(fast, a + in, b + in, y + out, m.count);
        }
        return 0;
    }
#endif
    for (int32_t s = 0; s < m.segments; s++) {
        const int64_t in = m.in_first + s * m.in_seg_stride, out = m.out_first + s * m.out_seg_stride;
        if (arm_elementwise_add_s8(a + in, b + in, m.in1_offset, l.in1_mult, l.in1_shift, m.in2_offset, l.in2_mult,
                                   l.in2_shift, l.left_shift, y + out, m.out_offset, m.mult, m.shift, m.act_min,
                                   m.act_max, m.count) != ARM_CMSIS_NN_SUCCESS)
            return kFallback;
    }
    return 0;
}

}  // namespace

bool depthwise_on_reference(const Call &c)
{
#if defined(ARM_MATH_DSP) && !defined(ARM_MATH_MVEI) && !defined(TIGRIS_NO_BLOCKED_DEPTHWISE)
    if (c.op->op_type != TIGRIS_OP_DEPTHWISE || c.op->num_inputs < 1 || c.op->num_outputs < 1) return false;
    const tigris_tensor_t &ti = c.in(0), &to = c.out(0);
    if (ti.ndim != 4 || to.ndim != 4 || c.shape(ti)[3] != c.shape(to)[3]) return false;  // rank, multiplier
    const tigris_spatial_t &sp = c.op->spatial;
    return (int32_t)sp.kernel_h * sp.kernel_w <= tigris_s8::dw_m1::kMaxTaps;
#else
    (void)c;
    return false;
#endif
}

int64_t op_vendor_need(const Call &c, bool factors_checked, uint32_t *expand_channels)
{
    *expand_channels = 0;
    switch (c.op->op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE: {
        if (depthwise_on_reference(c)) return -1;
        ConvLayer l;
        if (conv_layer(c, &l, factors_checked)) return -1;
        ConvArgs a;
        conv_args(l, &a);
        if (l.rq.per_tensor) *expand_channels = (uint32_t)l.g.c_out;
        return conv_need(a, l.depthwise);
    }
    case TIGRIS_OP_FULLY_CONN: {
        FcLayer l;
        if (fc_layer(c, &l, factors_checked)) return -1;
        FcArgs a;
        fc_args(l, &a);
        return arm_fully_connected_s8_get_buffer_size(&a.filter);
    }
    case TIGRIS_OP_AVG_POOL:
    case TIGRIS_OP_GLOBAL_AVG: {
        PoolLayer l;
        const int rc = c.op->op_type == TIGRIS_OP_AVG_POOL ? avg_pool_layer(c, &l) : global_avg_layer(c, &l);
        return rc ? -1 : arm_avgpool_s8_get_buffer_size(l.win.out_w, l.c);
    }
    default: return -1;
    }
}

int forward(const Call &c, const Workspace &ws)
{
    PoolLayer pool;
    MulLayer mul;
    AddLayer add;
    switch (c.op->op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE: return depthwise_on_reference(c) ? kFallback : forward_conv(c, ws);
    case TIGRIS_OP_FULLY_CONN: return forward_fc(c, ws);
    case TIGRIS_OP_AVG_POOL: return avg_pool_layer(c, &pool) ? kFallback : forward_pool(c, ws, pool);
    case TIGRIS_OP_GLOBAL_AVG: return global_avg_layer(c, &pool) ? kFallback : forward_pool(c, ws, pool);
    case TIGRIS_OP_ADD: return add_layer(c, &add) ? kFallback : forward_add(c, add);
    case TIGRIS_OP_MUL: return mul_layer(c, &mul) ? kFallback : forward_elementwise(c, mul);
    case TIGRIS_OP_MAXIMUM:
    case TIGRIS_OP_MINIMUM: return min_max_layer(c, &mul) ? kFallback : forward_elementwise(c, mul);
    default: return kFallback;
    }
}

}  // namespace tigris_cmsis
