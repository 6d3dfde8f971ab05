// TensorFlow Lite Micro's signal library arithmetic (signal/src/*.cc): every shift, width and
// wrap as TFLM's C++ does it, so results match bit for bit. The FFT is in signal_rfft.cpp.
#include "kernels/signal/signal_math.h"

namespace tigris_signal {

uint32_t msb32(uint32_t x) { return x == 0 ? 32u : 32u - (uint32_t)__builtin_clz(x); }
uint32_t msb64(uint64_t x) { return x == 0 ? 64u : 64u - (uint32_t)__builtin_clzll(x); }

void window(const int16_t *x, const int16_t *w, int32_t n, int32_t shift, int16_t *y)
{
    for (int32_t i = 0; i < n; ++i) {
        const int32_t v = ((int32_t)x[i] * w[i]) >> shift;
        y[i] = (int16_t)(v < INT16_MIN ? INT16_MIN : (v > INT16_MAX ? INT16_MAX : v));
    }
}

int32_t fft_auto_scale(const int16_t *x, int32_t n, int16_t *y)
{
    // MaxAbs16: -x is formed in int and stored back in int16 (-(-32768) wraps to -32768).
    int16_t max = 0;
    for (int32_t i = 0; i < n; ++i) {
        if (x[i] > max)
            max = x[i];
        else if (-x[i] > max)
            max = (int16_t)-x[i];
    }
    int32_t bits = 16 - (int32_t)msb32((uint32_t)(int32_t)max) - 1;
    if (bits <= 0) bits = 0;
    for (int32_t i = 0; i < n; ++i) y[i] = (int16_t)(x[i] * (1 << bits));
    return bits;
}

void energy(const int16_t *spectrum, int32_t start, int32_t end, uint32_t *y)
{
    for (int32_t i = start; i < end; ++i) {
        const int32_t re = spectrum[2 * i], im = spectrum[2 * i + 1];
        y[i] = (uint32_t)(re * re) + (uint32_t)(im * im);
    }
}

void filter_bank(const FilterBank &fb, const uint32_t *x, uint64_t *y)
{
    // Channel i's weighted sum goes to y[i - 1]; its unweighted sum starts channel i + 1.
    uint64_t weighted = 0, unweighted = 0;
    for (int32_t i = 0; i < fb.channels + 1; ++i) {
        const int16_t freq = fb.freq_starts[i], start = fb.weight_starts[i];
        for (int32_t j = 0; j < fb.widths[i]; ++j) {
            const uint64_t v = x[freq + j];
            weighted += (uint64_t)(int64_t)fb.weights[start + j] * v;
            unweighted += (uint64_t)(int64_t)fb.unweights[start + j] * v;
        }
        if (i > 0) y[i - 1] = weighted;
        weighted = unweighted;
        unweighted = 0;
    }
}

uint16_t sqrt32(uint32_t num)
{
    if (num == 0) return 0;
    uint32_t res = 0;
    int max_bit = (32 - (int)msb32(num)) | 1;
    uint32_t bit = 1u << (31 - max_bit);
    for (int it = (31 - max_bit) / 2 + 1; it > 0; --it) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != 0xFFFF) ++res;
    return (uint16_t)res;
}

uint32_t sqrt64(uint64_t num)
{
    if ((num >> 32) == 0) return sqrt32((uint32_t)num);
    uint64_t res = 0;
    int max_bit = (64 - (int)msb64(num)) | 1;
    uint64_t bit = (uint64_t)1 << (63 - max_bit);
    for (int it = (63 - max_bit) / 2 + 1; it > 0; --it) {
        if (num >= res + bit) {
            num -= res + bit;
            res = (res >> 1) + bit;
        } else {
            res >>= 1;
        }
        bit >>= 2;
    }
    if (num > res && res != 0xFFFFFFFFull) ++res;
    return (uint32_t)res;
}

void filter_bank_sqrt(const uint64_t *x, int32_t n, int32_t shift, uint32_t *y)
{
    for (int32_t i = 0; i < n; ++i) y[i] = sqrt64(x[i]) >> shift;
}

void spectral_subtraction(const SpectralSubtraction &p, const uint32_t *x, uint32_t *y, uint32_t *noise)
{
    for (int32_t i = 0; i < p.channels; ++i) {
        const bool odd = (i & 1) != 0;
        const uint32_t s = odd ? p.alternate_smoothing : p.smoothing;
        const uint32_t oms = odd ? p.alternate_one_minus_smoothing : p.one_minus_smoothing;
        const uint32_t signal = x[i] << p.smoothing_bits;
        noise[i] = (uint32_t)(((uint64_t)signal * s + (uint64_t)noise[i] * oms) >> p.spectral_subtraction_bits);
        uint32_t estimate = noise[i];
        if (estimate > signal) {
            estimate = signal;
            if (p.clamping) noise[i] = estimate;
        }
        const uint32_t floor = (uint32_t)(((uint64_t)x[i] * p.min_signal_remaining) >> p.spectral_subtraction_bits);
        const uint32_t subtracted = (signal - estimate) >> p.smoothing_bits;
        y[i] = subtracted > floor ? subtracted : floor;
    }
}

namespace {

constexpr int kPcanSnrBits = 12, kPcanOutputBits = 6;

int16_t wide_dynamic(uint32_t x, const int16_t *lut)
{
    if (x <= 2) return lut[x];
    const int16_t interval = (int16_t)msb32(x);
    lut += 4 * interval - 6;
    const int16_t frac = (int16_t)(((interval < 11) ? (x << (11 - interval)) : (x >> (interval - 11))) & 0x3FF);
    int32_t r = ((int32_t)lut[2] * frac) >> 5;
    r += (int32_t)((uint32_t)lut[1] << 5);
    r = (int32_t)((uint32_t)r * (uint32_t)(int32_t)frac);
    r = (r + (1 << 14)) >> 15;
    r += lut[0];
    return (int16_t)r;
}

uint32_t pcan_shrink(uint32_t x)
{
    if (x < (2u << kPcanSnrBits)) return (x * x) >> (2 + 2 * kPcanSnrBits - kPcanOutputBits);
    return (x >> (kPcanSnrBits - kPcanOutputBits)) - (1u << kPcanOutputBits);
}

// log2(1 + k/128) - k/128 in units of 2^-16 for k = 0..128 (and a closing 0): the segment
// corrections of TFLM's Log32.
const uint16_t kLogLut[] = {
    0,    224,  442,  654,  861,  1063, 1259, 1450, 1636, 1817, 1992, 2163, 2329, 2490, 2646, 2797, 2944,
    3087, 3224, 3358, 3487, 3611, 3732, 3848, 3960, 4068, 4172, 4272, 4368, 4460, 4549, 4633, 4714, 4791,
    4864, 4934, 5001, 5063, 5123, 5178, 5231, 5280, 5326, 5368, 5408, 5444, 5477, 5507, 5533, 5557, 5578,
    5595, 5610, 5622, 5631, 5637, 5640, 5641, 5638, 5633, 5626, 5615, 5602, 5586, 5568, 5547, 5524, 5498,
    5470, 5439, 5406, 5370, 5332, 5291, 5249, 5203, 5156, 5106, 5054, 5000, 4944, 4885, 4825, 4762, 4697,
    4630, 4561, 4490, 4416, 4341, 4264, 4184, 4103, 4020, 3935, 3848, 3759, 3668, 3575, 3481, 3384, 3286,
    3186, 3084, 2981, 2875, 2768, 2659, 2549, 2437, 2323, 2207, 2090, 1971, 1851, 1729, 1605, 1480, 1353,
    1224, 1094, 963,  830,  695,  559,  421,  282,  142,  0,    0};
constexpr int kLogSegmentsLog2 = 7, kLogScaleLog2 = 16;
constexpr uint32_t kLogScale = 65536, kLogCoeff = 45426;  // ln(2) * 2^16

uint32_t log2_fraction(uint32_t x, uint32_t log2x)
{
    int32_t frac = (int32_t)(x - (uint32_t)(1ull << log2x));
    if (log2x < (uint32_t)kLogScaleLog2)
        frac = (int32_t)((uint32_t)frac << (kLogScaleLog2 - log2x));
    else
        frac >>= log2x - kLogScaleLog2;
    const uint32_t seg = (uint32_t)frac >> (kLogScaleLog2 - kLogSegmentsLog2);
    const uint32_t seg_unit = (1u << kLogScaleLog2) >> kLogSegmentsLog2;
    const int32_t c0 = kLogLut[seg], c1 = kLogLut[seg + 1];
    const int32_t seg_base = (int32_t)(seg_unit * seg);
    const int32_t rel = ((c1 - c0) * (frac - seg_base)) >> kLogScaleLog2;
    return (uint32_t)(frac + c0 + rel);
}

}  // namespace

void pcan(const int16_t *gain_lut, int32_t snr_shift, const uint32_t *noise, const uint32_t *x, int32_t n,
          uint32_t *y)
{
    for (int32_t i = 0; i < n; ++i) {
        const uint32_t gain = (uint32_t)(int32_t)wide_dynamic(noise[i], gain_lut);
        const uint32_t snr = (uint32_t)(((uint64_t)x[i] * gain) >> snr_shift);
        y[i] = pcan_shrink(snr);
    }
}

uint32_t log32(uint32_t x, uint32_t out_scale)
{
    const uint32_t integer = msb32(x) - 1;
    const uint32_t fraction = log2_fraction(x, integer);
    const uint32_t log2 = (integer << kLogScaleLog2) + fraction;
    const uint32_t round = kLogScale / 2;
    const uint32_t loge = (uint32_t)(((uint64_t)kLogCoeff * log2 + round) >> kLogScaleLog2);
    return (out_scale * loge + round) >> kLogScaleLog2;
}

void filter_bank_log(const uint32_t *x, int32_t n, int32_t output_scale, int32_t correction_bits, int16_t *y)
{
    for (int32_t i = 0; i < n; ++i) {
        const uint32_t scaled = x[i] << correction_bits;
        if (scaled > 1) {
            const uint32_t v = log32(scaled, (uint32_t)output_scale);
            y[i] = (int16_t)(v < (uint32_t)INT16_MAX ? v : (uint32_t)INT16_MAX);
        } else {
            y[i] = 0;
        }
    }
}

}  // namespace tigris_signal
