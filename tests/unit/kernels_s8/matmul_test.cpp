// The int8 matrix product of the 1x1 convolution and the fully connected layer
// (kernels/s8/s8_matmul.cpp) against TFLite's reference formula written out below:
//   acc = bias[c] + sum_k w[c][k] * (x[r][k] - in_zp)                  (int32, wrapping)
//   y   = clamp(MultiplyByQuantizedMultiplier(acc, m[c], shift[c]) + out_zp, act_min, act_max)
// MultiplyByQuantizedMultiplier as TFLite writes it (SaturatingRoundingDoublingHighMul, then
// RoundingDivideByPOT). Shapes reach both row paths (weights widened once for several rows, read
// directly for one to a few), every input tail (k % 4) and channel tail (channels % 4), rows
// longer than the widened buffer, padded row strides, channel bands at every offset (weights,
// biases and factors of the global channels); then the kernels' CONV 1x1 and FULLY_CONNECTED
// calls (batches, output-channel bands, a factor the product refuses).
#include <gtest/gtest.h>

#include <random>

#include "kernels/s8/s8_matmul.h"
#include "s8_fixture.h"

using namespace s8test;

namespace mm_test {

int32_t tfl_srdhm(int32_t a, int32_t b)
{
    if (a == b && a == INT32_MIN) return INT32_MAX;
    const int64_t ab = (int64_t)a * b;
    const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
    return (int32_t)((ab + nudge) / (1ll << 31));
}

int32_t tfl_rdbpot(int32_t x, int e)
{
    const int32_t mask = (int32_t)((1ll << e) - 1), rem = x & mask, threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> e) + (rem > threshold ? 1 : 0);
}

int32_t tfl_mbqm(int32_t x, int32_t m, int shift)
{
    const int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
    return tfl_rdbpot(tfl_srdhm((int32_t)((uint32_t)x << left), m), right);
}

// A layer of `channels` output channels over k inputs; factors per channel or one per tensor.
struct Layer {
    int32_t k, channels;
    Bytes w;
    std::vector<int32_t> bias, mult, shift;  // bias empty: none
    int32_t in_zp, out_zp, act_min, act_max;
    int32_t m(int32_t c) const { return mult.size() == 1 ? mult[0] : mult[c]; }
    int32_t s(int32_t c) const { return shift.size() == 1 ? shift[0] : shift[c]; }
};

Layer random_layer(int32_t k, int32_t channels, bool per_channel, bool with_bias, std::mt19937 &rng)
{
    std::uniform_int_distribution<int> byte(-128, 127), zp(-128, 127), mult(1 << 29, (1 << 30) + (1 << 29)),
        shift(-12, 2), bias(-30000, 30000);
    Layer l;
    l.k = k;
    l.channels = channels;
    l.w.resize((size_t)k * channels);
    for (auto &v : l.w) v = (int8_t)byte(rng);
    for (int32_t c = 0; c < (per_channel ? channels : 1); c++) {
        l.mult.push_back(mult(rng));
        l.shift.push_back(shift(rng));
    }
    if (with_bias)
        for (int32_t c = 0; c < channels; c++) l.bias.push_back(bias(rng));
    l.in_zp = zp(rng);
    l.out_zp = zp(rng);
    l.act_min = -128 + (int32_t)(rng() % 20);
    l.act_max = 127 - (int32_t)(rng() % 20);
    return l;
}

// TFLite's output of channel c for the k inputs at x.
int8_t formula(const Layer &l, const int8_t *x, int32_t c)
{
    uint32_t acc = l.bias.empty() ? 0u : (uint32_t)l.bias[c];
    for (int32_t i = 0; i < l.k; i++) acc += (uint32_t)((int32_t)l.w[(size_t)c * l.k + i] * ((int32_t)x[i] - l.in_zp));
    int32_t v = tfl_mbqm((int32_t)acc, l.m(c), l.s(c)) + l.out_zp;
    v = v < l.act_min ? l.act_min : (v > l.act_max ? l.act_max : v);
    return (int8_t)v;
}

// The product of rows x channels [ch0, ch0 + chans) of the layer: weights, bias and factors of
// the global channels.
tigris_s8::mm::Product product(const Layer &l, const int8_t *x, int32_t xs, int32_t rows, int32_t ch0, int32_t chans,
                               int8_t *y, int32_t ys)
{
    tigris_s8::mm::Product p{x, xs, rows, l.k, l.w.data() + (size_t)ch0 * l.k, chans, y, ys,
                             -l.in_zp, l.out_zp, l.act_min, l.act_max};
    p.per_tensor = l.mult.size() == 1;
    p.mult = l.mult.data() + (p.per_tensor ? 0 : ch0);
    p.shift = l.shift.data() + (p.per_tensor ? 0 : ch0);
    p.bias = l.bias.empty() ? nullptr : (const uint8_t *)(l.bias.data() + ch0);
    return p;
}

// Runs rows x channels [ch0, ch0 + chans) with padded strides; checks every output and that the
// padding bytes of the output rows are untouched.
void check_product(const Layer &l, int32_t rows, int32_t ch0, int32_t chans, int32_t x_pad, int32_t y_pad,
                   std::mt19937 &rng, const std::string &what)
{
    const int32_t xs = l.k + x_pad, ys = chans + y_pad;
    Bytes x((size_t)rows * xs);
    std::uniform_int_distribution<int> byte(-128, 127);
    for (auto &v : x) v = (int8_t)byte(rng);
    Bytes y((size_t)rows * ys, 0x5A);
    ASSERT_EQ(tigris_s8::mm::run(product(l, x.data(), xs, rows, ch0, chans, y.data(), ys)), 0) << what;
    for (int32_t r = 0; r < rows; r++) {
        for (int32_t c = 0; c < chans; c++)
            ASSERT_EQ(y[(size_t)r * ys + c], formula(l, x.data() + (size_t)r * xs, ch0 + c))
                << what << " row " << r << " channel " << c;
        for (int32_t c = chans; c < ys; c++) ASSERT_EQ(y[(size_t)r * ys + c], 0x5A) << what << " padding";
    }
}

std::string describe(int32_t rows, int32_t k, int32_t channels, int32_t ch0, int32_t chans)
{
    char s[120];
    snprintf(s, sizeof s, "rows %d k %d channels %d band %d+%d", rows, k, channels, ch0, chans);
    return s;
}

// The CONV 1x1 / FULLY_CONNECTED op of a layer on [rows, k] inputs through the int8 dispatcher.
struct OpCase {
    PlanFixture f;
    uint16_t in = 0, out = 0, op = 0;
};

void build_op(const Layer &l, bool conv, const std::vector<int32_t> &in_shape, const std::vector<int32_t> &out_shape,
              OpCase *o)
{
    o->in = o->f.tensor(in_shape, TIGRIS_DTYPE_INT8, o->f.quant(0.5f, l.in_zp));
    o->out = o->f.tensor(out_shape, TIGRIS_DTYPE_INT8, o->f.quant_channels(0.25f, l.out_zp, l.mult, l.shift));
    o->op = o->f.op(conv ? TIGRIS_OP_CONV : TIGRIS_OP_FULLY_CONN, {o->in}, {o->out});
    tigris_op_t &r = o->f.op_record(o->op);
    if (conv) {
        r.spatial.kernel_h = r.spatial.kernel_w = 1;
        r.spatial.stride_h = r.spatial.stride_w = 1;
        r.spatial.dilation_h = r.spatial.dilation_w = 1;
        r.spatial.group = 1;
    }
    r.weight_idx = o->f.weight_i8(l.w);
    if (!l.bias.empty()) r.bias_idx = o->f.weight_i32(l.bias);
    r.act_min = (int8_t)l.act_min;
    r.act_max = (int8_t)l.act_max;
    o->f.finalize();
}

}  // namespace mm_test

using namespace mm_test;

TEST(S8Matmul, EqualsTheReferenceFormula)
{
    std::mt19937 rng(2024);
    const int32_t row_counts[] = {1, 2, 3, 4, 5, 9, 16};
    const int32_t ks[] = {1, 3, 4, 5, 8, 13, 16, 31, 64, 127, 128, 129, 200};
    const int32_t channel_counts[] = {1, 2, 3, 4, 5, 7, 8, 13};
    int n = 0;
    for (int32_t rows : row_counts)
        for (int32_t k : ks)
            for (int32_t channels : channel_counts) {
                const Layer l = random_layer(k, channels, n % 3 != 0, n % 4 != 1, rng);
                check_product(l, rows, 0, channels, n % 3, (n / 3) % 3, rng, describe(rows, k, channels, 0, channels));
                if (HasFatalFailure()) return;
                n++;
            }
}

// Channel bands of every width at every offset: weights, biases and factors of the global
// channels ch0 + c, output rows `chans` wide.
TEST(S8Matmul, ChannelBandsReadGlobalChannels)
{
    std::mt19937 rng(77);
    for (int32_t k : {7, 24, 150}) {
        const Layer l = random_layer(k, 11, true, true, rng);
        for (int32_t rows : {1, 3, 6})
            for (int32_t chans = 1; chans <= 11; chans++)
                for (int32_t ch0 = 0; ch0 + chans <= 11; ch0++) {
                    check_product(l, rows, ch0, chans, 0, 0, rng, describe(rows, k, 11, ch0, chans));
                    if (HasFatalFailure()) return;
                }
    }
}

// Accumulators near the int32 range and beyond (they wrap), the largest multipliers, right
// shifts up to 31 and left shifts that wrap.
TEST(S8Matmul, ExtremeAccumulatorsAndFactors)
{
    std::mt19937 rng(5);
    for (int32_t rows : {1, 8})
        for (int32_t k : {6, 64, 300}) {
            Layer l;
            l.k = k;
            l.channels = 7;
            l.w.assign((size_t)k * 7, 127);
            for (size_t i = 0; i < l.w.size(); i += 5) l.w[i] = -128;
            l.bias = {INT32_MAX - 1000, INT32_MIN + 1000, 0, 1 << 30, -(1 << 30), 12345, INT32_MAX};
            l.mult = {INT32_MAX, 1 << 30, 1, 1518500250, 1 << 30, 1 << 29, INT32_MAX};
            l.shift = {-31, 31, 0, 1, -1, 5, 30};
            l.in_zp = 127;
            l.out_zp = -3;
            l.act_min = -128;
            l.act_max = 127;
            check_product(l, rows, 0, 7, 1, 2, rng, describe(rows, k, 7, 0, 7));
            if (HasFatalFailure()) return;
            l.in_zp = -128;  // x - zp up to 255
            check_product(l, rows, 2, 5, 0, 0, rng, describe(rows, k, 7, 2, 5));
            if (HasFatalFailure()) return;
        }
}

// The saturating multiplier INT32_MIN and a shift out of range are refused (kGeneric), for the
// caller's generic path.
TEST(S8Matmul, RefusesTheSaturatingMultiplier)
{
    std::mt19937 rng(6);
    Layer l = random_layer(8, 6, true, true, rng);
    l.mult[5] = INT32_MIN;
    Bytes x(8 * 4, 1), y(6 * 4, 0);
    EXPECT_EQ(tigris_s8::mm::run(product(l, x.data(), 8, 4, 0, 6, y.data(), 6)), tigris_s8::mm::kGeneric);
    l.mult[5] = 1 << 30;
    l.shift[2] = 32;  // outside kMinShift..kMaxShift
    EXPECT_EQ(tigris_s8::mm::run(product(l, x.data(), 8, 1, 0, 6, y.data(), 6)), tigris_s8::mm::kGeneric);
}

// The CONV 1x1 (batch 2) and FULLY_CONNECTED kernels take the product; a layer with the
// saturating multiplier takes the generic loops; both equal the formula.
TEST(S8Matmul, Conv1x1AndFullyConnectedCalls)
{
    std::mt19937 rng(8);
    for (int variant = 0; variant < 3; variant++) {
        Layer l = random_layer(20, 9, variant != 1, variant != 2, rng);
        if (variant == 2) l.mult[0] = INT32_MIN;
        const int32_t n = 2, h = 3, w = 5;
        std::uniform_int_distribution<int> byte(-128, 127);
        Bytes x((size_t)n * h * w * l.k);
        for (auto &v : x) v = (int8_t)byte(rng);
        const int32_t rows = n * h * w;
        Bytes expected((size_t)rows * l.channels);
        for (int32_t r = 0; r < rows; r++)
            for (int32_t c = 0; c < l.channels; c++)
                expected[(size_t)r * l.channels + c] = formula(l, x.data() + (size_t)r * l.k, c);
        for (bool conv : {true, false}) {
            OpCase o;
            if (conv) {
                build_op(l, true, {n, h, w, l.k}, {n, h, w, l.channels}, &o);
            } else {
                build_op(l, false, {rows, l.k}, {rows, l.channels}, &o);
            }
            Bytes y(expected.size(), 0);
            o.f.bind(o.in, x.data());
            o.f.bind(o.out, y.data());
            ASSERT_EQ(o.f.run(o.op), 0);
            EXPECT_EQ(y, expected) << (conv ? "conv" : "fully connected") << " variant " << variant;
        }
    }
}

// A FULLY_CONNECTED output-channel band (chan_mix) over row bands: columns [chan0, + chans),
// packed, from the global columns' weights, biases and factors.
TEST(S8Matmul, FullyConnectedChannelBands)
{
    std::mt19937 rng(9);
    const Layer l = random_layer(37, 10, true, true, rng);
    const int32_t rows = 6;
    std::uniform_int_distribution<int> byte(-128, 127);
    Bytes x((size_t)rows * l.k);
    for (auto &v : x) v = (int8_t)byte(rng);
    OpCase o;
    build_op(l, false, {rows, l.k}, {rows, l.channels}, &o);
    for (int32_t chans : {1, 3, 4, 10})
        for (int32_t chan0 = 0; chan0 + chans <= l.channels; chan0 += chans) {
            Bytes yb((size_t)rows * chans, 0);
            tigris_tile_ctx_t t{};
            t.active = 1;
            t.row_tiled = 1;
            t.chan_tiled = 1;
            t.chan_mix = 1;
            t.chan0 = chan0;
            t.chans = chans;
            t.in_h = rows;
            t.out_h = rows;
            o.f.bind(o.in, x.data());
            o.f.bind(o.out, yb.data());
            ASSERT_EQ(o.f.run(o.op, t), 0) << "chan0 " << chan0 << " chans " << chans;
            for (int32_t r = 0; r < rows; r++)
                for (int32_t c = 0; c < chans; c++)
                    ASSERT_EQ(yb[(size_t)r * chans + c], formula(l, x.data() + (size_t)r * l.k, chan0 + c))
                        << "chan0 " << chan0 << " chans " << chans << " row " << r;
        }
}

// The few-row path (one to three rows: inputs widened once, weight bytes masked in place, sums
// 256 times the products per chunk of kFewChunk inputs): every k from 8 to 40, the chunk edges
// (127..129, 255..257, 383..385, 511..513, the buffer's 768), rows longer than the buffer (the
// direct path), channel counts with a moved-back last block, channel bands at several offsets.
TEST(S8Matmul, FewRowsEqualTheFormula)
{
    std::mt19937 rng(31);
    std::vector<int32_t> ks;
    for (int32_t k = 8; k <= 40; k++) ks.push_back(k);
    for (int32_t k : {63, 64, 65, 127, 128, 129, 255, 256, 257, 383, 384, 385, 511, 512, 513, 640, 700, 767, 768, 769})
        ks.push_back(k);
    int n = 0, few = 0;
    for (int32_t rows = 1; rows <= tigris_s8::mm::kFewMaxRows; rows++)
        for (int32_t k : ks)
            for (int32_t channels : {4, 5, 7, 8, 13}) {
                const Layer l = random_layer(k, channels, n % 3 != 0, n % 4 != 1, rng);
                few += tigris_s8::mm::few_rows(rows, k, channels) ? 1 : 0;
                check_product(l, rows, 0, channels, n % 3, (n / 3) % 3, rng, describe(rows, k, channels, 0, channels));
                if (HasFatalFailure()) return;
                if (channels == 13) {
                    for (int32_t ch0 : {1, 3, 6}) {
                        check_product(l, rows, ch0, 13 - ch0, 0, 1, rng, describe(rows, k, channels, ch0, 13 - ch0));
                        if (HasFatalFailure()) return;
                    }
                }
                n++;
            }
    EXPECT_GT(few, n / 2);  // most of the shapes above take the few-row path
    EXPECT_TRUE(tigris_s8::mm::few_rows(1, 768, 4));
    EXPECT_FALSE(tigris_s8::mm::few_rows(1, 769, 4));
    EXPECT_FALSE(tigris_s8::mm::few_rows(3, 257, 4));
    EXPECT_FALSE(tigris_s8::mm::few_rows(2, 64, 3));
    EXPECT_TRUE(tigris_s8::mm::few_rows(tigris_s8::mm::kFewMaxRows, 96, 4));
    EXPECT_FALSE(tigris_s8::mm::few_rows(tigris_s8::mm::kFewMaxRows + 1, 64, 4));
}

// The largest per-chunk sums the few-row path must hold: weights -128 (and 127) against inputs
// whose offset sum is +-383 or +-255 (in_offset +-255 and +-128), every product of a chunk the
// same sign, over rows of several chunks so that the int32 sum wraps with a large bias.
TEST(S8Matmul, FewRowsExtremeSums)
{
    std::mt19937 rng(32);
    for (int32_t k : {128, 256, 257, 512, 640, 768})
        for (int32_t in_zp : {-255, 255, -128, 127})
            for (int8_t wv : {(int8_t)-128, (int8_t)127}) {
                Layer l;
                l.k = k;
                l.channels = 6;
                l.w.assign((size_t)k * 6, wv);
                for (size_t i = 3; i < l.w.size(); i += 11) l.w[i] = (int8_t)(wv == 127 ? -128 : 127);  // row 0 stays uniform
                for (int32_t i = 0; i < k; i++) l.w[(size_t)5 * k + i] = (int8_t)-128;
                l.bias = {INT32_MAX - 5, INT32_MIN + 5, 0, 1 << 30, -(1 << 30), 7};
                l.mult = {INT32_MAX, 1 << 30, 1518500250, 1 << 29, INT32_MAX, 1 << 30};
                // Shifts of -1 and above make their blocks prepare factors; every other run
                // reads them unprepared (requant_raw_ok) in both blocks.
                if (in_zp % 2)
                    l.shift = {-31, 0, -1, 3, -20, -8};
                else
                    l.shift = {-31, -2, -3, -2, -20, -8};
                l.in_zp = in_zp;
                l.out_zp = 2;
                l.act_min = -128;
                l.act_max = 127;
                const int32_t xs = k;
                const int32_t most = tigris_s8::mm::kFewMaxRows;
                for (int32_t rows : {1, 768 / k > most ? most : 768 / k}) {
                    Bytes x((size_t)rows * xs);
                    const int8_t xv = in_zp < 0 ? (int8_t)127 : (int8_t)-128;  // |x - in_zp| = 383, 255, 256 or 255
                    for (auto &v : x) v = xv;
                    if (rows > 1)
                        for (int32_t i = 0; i < k; i++) x[(size_t)xs + i] = (int8_t)(i % 2 ? 127 : -128);
                    Bytes y((size_t)rows * 6, 0x5A);
                    ASSERT_EQ(tigris_s8::mm::run(product(l, x.data(), xs, rows, 0, 6, y.data(), 6)), 0);
                    for (int32_t r = 0; r < rows; r++)
                        for (int32_t c = 0; c < 6; c++)
                            ASSERT_EQ(y[(size_t)r * 6 + c], formula(l, x.data() + (size_t)r * xs, c))
                                << "k " << k << " in_zp " << in_zp << " w " << (int)wv << " row " << r << " channel " << c;
                }
            }
    (void)rng;
}
