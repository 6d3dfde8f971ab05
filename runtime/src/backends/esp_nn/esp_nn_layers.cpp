// The ops the ESP-NN adapter forwards (docs/backends.md §2): the resolved layer
// (backends/common/accel_layers.h) as esp-nn arguments, one image per call. esp-nn takes one
// padding per axis (before); its ESP32-S3 kernels pad both sides by it, or only the end when
// it is zero, so a window whose padding after exceeds the padding before is run on a copy of
// the image padded explicitly (zero point) in the workspace, with no padding left to apply.
#include <string.h>

#if defined(ESP_PLATFORM)
#  include "sdkconfig.h"
#endif
#include "backends/esp_nn/esp_nn_internal.h"
#include "esp_nn.h"

#if defined(CONFIG_NN_SKIP_NUDGE) || defined(SKIP_NUDGE)
#  error "TiGrIS needs esp-nn's bit-exact requantization: disable CONFIG_NN_SKIP_NUDGE"
#endif

namespace tigris_esp {

using namespace tigris_accel;

namespace {

// One image as esp-nn receives it.
struct ConvArgs {
    data_dims_t in, filter, out;
    conv_params_t conv;
    dw_conv_params_t dw;
    bool direct;         // false: the image is copied padded into the workspace first
    uint64_t pad_bytes;  // that copy
};

// What the adapter hands esp-nn: groups only through depthwise (esp-nn's 1x1 paths ignore
// them), channel multipliers on single images, fewer unread columns than a stride.
bool forwardable(const ConvLayer &l)
{
    if (!l.depthwise && l.groups != 1) return false;
    if (l.depthwise && l.ch_mult > 1 && l.g.n > 1) return false;
    return l.win.extra_w < l.win.s_w;
}

bool padded_at_all(const Window &w) { return (w.pad_top | w.pad_bottom | w.pad_left | w.pad_right) != 0; }

// Padding esp-nn applies itself: none; only after (pads the end from the output extent);
// or after no larger than before (pads both sides by it). (A 1x1 window is never padded
// here: padding before a 1x1 window would leave outputs of padding only, which
// tight_window refuses, and its padding after is then zero too. esp-nn's generic 1x1 path
// ignores padding, so this matters.)
bool direct_padding(const Window &w)
{
    if (!padded_at_all(w)) return true;
    const bool none_before = w.pad_top == 0 && w.pad_left == 0;
    return none_before || (w.pad_bottom <= w.pad_top && w.pad_right <= w.pad_left);
}

void conv_args(const ConvLayer &l, bool direct, ConvArgs *a)
{
    const Window &w = l.win;
    const int32_t in_h = direct ? w.in_h : w.pad_top + w.in_h + w.pad_bottom;
    const int32_t in_w = direct ? w.in_w : w.pad_left + w.in_w + w.pad_right;
    const data_2d_t pad = direct ? data_2d_t{w.pad_left, w.pad_top} : data_2d_t{0, 0};
    const data_2d_t stride{w.s_w, w.s_h}, dilation{1, 1};
    const act_params_t act{l.act_min, l.act_max};
    a->in = data_dims_t{in_w, in_h, l.g.c_in, 1};
    a->out = data_dims_t{w.out_w, w.out_h, l.g.c_out, 1};
    a->filter = l.depthwise ? data_dims_t{w.k_w, w.k_h, l.g.c_out, 1} : data_dims_t{w.k_w, w.k_h, l.g.c_in, l.g.c_out};
    a->conv = conv_params_t{l.in_offset, l.out_offset, stride, pad, dilation, act};
    a->dw = dw_conv_params_t{l.in_offset, l.out_offset, l.ch_mult, stride, pad, dilation, act};
    a->direct = direct;
    a->pad_bytes = direct ? 0 : (uint64_t)in_h * (uint64_t)in_w * (uint64_t)l.g.c_in;
}

int64_t vendor_need(const ConvArgs &a, bool depthwise)
{
    const int n = depthwise ? esp_nn_get_depthwise_conv_scratch_size(&a.in, &a.filter, &a.out, &a.dw)
                            : esp_nn_get_conv_scratch_size(&a.in, &a.filter, &a.out, &a.conv);
    return n < 0 ? -1 : n;
}

bool channel_factors(const Requant &rq, int32_t channels, const Workspace &ws, quant_data_t *q)
{
    if (!rq.per_tensor) {
        q->shift = const_cast<int32_t *>(rq.shift);
        q->mult = const_cast<int32_t *>(rq.mult);
        return true;
    }
    if (ws.expand == nullptr || (uint32_t)channels > ws.expand_channels) return false;
    int32_t *m = ws.expand, *s = ws.expand + ws.expand_channels;
    for (int32_t ch = 0; ch < channels; ch++) m[ch] = rq.mult0, s[ch] = rq.shift0;
    q->shift = s;
    q->mult = m;
    return true;
}

// Copy one image (rows of `row` elements apart) into `dst` with its padding made explicit.
void pad_image(const int8_t *src, int64_t row, const ConvLayer &l, int8_t *dst)
{
    const Window &w = l.win;
    const int32_t c = l.g.c_in, width = (w.pad_left + w.in_w + w.pad_right) * c;
    const int fill = (int8_t)(-l.in_offset);  // the input zero point: contributes nothing
    memset(dst, fill, (size_t)w.pad_top * width);
    dst += (int64_t)w.pad_top * width;
    for (int32_t r = 0; r < w.in_h; r++, dst += width) {
        memset(dst, fill, (size_t)w.pad_left * c);
        memcpy(dst + w.pad_left * c, src + r * row, (size_t)w.in_w * c);
        memset(dst + (w.pad_left + w.in_w) * c, fill, (size_t)w.pad_right * c);
    }
    memset(dst, fill, (size_t)w.pad_bottom * width);
}

int forward_conv(const Call &c, const Workspace &ws)
{
    ConvLayer l;
    if (conv_layer(c, &l) || l.weights == nullptr || !forwardable(l) || ((uintptr_t)l.weights & 15u)) return kFallback;
    ConvArgs a;
    conv_args(l, direct_padding(l.win), &a);
    int8_t *x = input_data(c, 0), *y = output_data(c, 0);
    quant_data_t q;
    const int64_t need = vendor_need(a, l.depthwise);
    if (x == nullptr || y == nullptr || need < 0 || need > ws.vendor_size || a.pad_bytes > ws.pad_size ||
        !channel_factors(l.rq, l.g.c_out, ws, &q))
        return kFallback;
    if (l.depthwise) esp_nn_set_depthwise_conv_scratch_buf(ws.vendor);
    else esp_nn_set_conv_scratch_buf(ws.vendor);
    for (int32_t n = 0; n < l.g.n; n++) {
        const int8_t *xn = x + n * l.g.in_batch + l.g.in_row_start * l.g.in_row;
        int8_t *yn = y + n * l.g.out_batch + l.g.out_row_start * l.g.out_row;
        if (!a.direct) {
            pad_image(xn, l.g.in_row, l, ws.pad);
            xn = ws.pad;
        }
        if (l.depthwise) esp_nn_depthwise_conv_s8(&a.in, xn, &a.filter, l.weights, l.bias, &a.out, yn, &a.dw, &q);
        else esp_nn_conv_s8(&a.in, xn, &a.filter, l.weights, l.bias, &a.out, yn, &a.conv, &q);
    }
    return 0;
}

int forward_fc(const Call &c)
{
    FcLayer l;
    if (fc_layer(c, &l) || l.weights == nullptr) return kFallback;
    const int8_t *x = input_data(c, 0);
    int8_t *y = output_data(c, 0);
    if (x == nullptr || y == nullptr) return kFallback;
    x += (int64_t)l.in_row0 * l.in_c;
    y += (int64_t)l.out_row0 * l.out_c;
    const uint16_t in_c = (uint16_t)l.in_c, out_c = (uint16_t)l.out_c;
    for (int32_t r = 0; r < l.rows; r++, x += l.in_c, y += l.out_c) {
        if (l.rq.per_tensor) {
            esp_nn_fully_connected_s8(x, l.in_offset, in_c, l.weights, 0, l.bias, y, out_c, l.out_offset, l.rq.shift0,
                                      l.rq.mult0, l.act_min, l.act_max);
        } else {
            esp_nn_fully_connected_per_ch_s8(x, l.in_offset, in_c, l.weights, 0, l.bias, y, out_c, l.out_offset,
                                             l.rq.shift, l.rq.mult, l.act_min, l.act_max);
        }
    }
    return 0;
}

// ESP32-S3 pools accumulate in int16: at most 256 taps per window.
constexpr int32_t kMaxPoolTaps = 256;

int forward_pool(const Call &c)
{
    PoolLayer l;
    if (avg_pool_layer(c, &l)) return kFallback;
    const Window &w = l.win;
    if (w.k_h * w.k_w > kMaxPoolTaps || w.extra_w >= w.s_w || !direct_padding(w)) return kFallback;
    const int8_t *x = input_data(c, 0);
    int8_t *y = output_data(c, 0);
    if (x == nullptr || y == nullptr) return kFallback;
    const int32_t full_h = c.shape(c.in(0))[1];  // untiled: rows past in_h stay in the image
    for (int32_t n = 0; n < l.n; n++) {
        esp_nn_avg_pool_s8(x + (int64_t)n * full_h * w.in_w * l.c, (uint16_t)w.in_w, (uint16_t)w.in_h,
                           y + (int64_t)n * w.out_h * w.out_w * l.c, (uint16_t)w.out_w, (uint16_t)w.out_h,
                           (uint16_t)w.s_w, (uint16_t)w.s_h, (uint16_t)w.k_w, (uint16_t)w.k_h, (uint16_t)w.pad_left,
                           (uint16_t)w.pad_top, l.act_min, l.act_max, (uint16_t)l.c);
    }
    return 0;
}

int forward_mul(const Call &c)
{
    MulLayer l;
    if (mul_layer(c, &l)) return kFallback;
    const int8_t *a = input_data(c, 0), *b = input_data(c, 1);
    int8_t *y = output_data(c, 0);
    if (a == nullptr || b == nullptr || y == nullptr) return kFallback;
    for (int32_t s = 0; s < l.segments; s++) {
        const int64_t in = l.in_first + s * l.in_seg_stride;
        esp_nn_mul_elementwise_s8(a + in, b + in, l.in1_offset, l.in2_offset, y + l.out_first + s * l.out_seg_stride,
                                  l.out_offset, l.mult, l.shift, l.act_min, l.act_max, l.count);
    }
    return 0;
}

}  // namespace

bool op_needs(const Call &c, OpNeeds *n)
{
    *n = OpNeeds{};
    switch (c.op->op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE: break;
    case TIGRIS_OP_FULLY_CONN: {
        FcLayer l;
        return fc_layer(c, &l) == 0;
    }
    case TIGRIS_OP_AVG_POOL: {
        PoolLayer l;
        return avg_pool_layer(c, &l) == 0;
    }
    case TIGRIS_OP_MUL: {
        MulLayer l;
        return mul_layer(c, &l) == 0;
    }
    default: return false;
    }
    ConvLayer l;
    if (conv_layer(c, &l) || !forwardable(l)) return false;
    ConvArgs direct, padded;
    conv_args(l, true, &direct);
    conv_args(l, false, &padded);
    // Bands of a padded op may need the padded copy even when the whole image does not.
    int64_t need = direct_padding(l.win) ? vendor_need(direct, l.depthwise) : 0;
    if (padded_at_all(l.win)) {
        const int64_t p = vendor_need(padded, l.depthwise);
        if (p < 0) return false;
        if (p > need) need = p;
        n->pad = padded.pad_bytes;
    }
    if (need < 0) return false;
    (l.depthwise ? n->dw_vendor : n->conv_vendor) = (uint64_t)need;
    n->expand_channels = l.rq.per_tensor ? (uint64_t)l.g.c_out : 0;
    n->weights = l.weights;
    return true;
}

int forward(const Call &c, const Workspace &ws)
{
    switch (c.op->op_type) {
    case TIGRIS_OP_CONV:
    case TIGRIS_OP_DEPTHWISE: return forward_conv(c, ws);
    case TIGRIS_OP_FULLY_CONN: return forward_fc(c);
    case TIGRIS_OP_AVG_POOL: return forward_pool(c);
    case TIGRIS_OP_MUL: return forward_mul(c);
    default: return kFallback;
    }
}

}  // namespace tigris_esp
