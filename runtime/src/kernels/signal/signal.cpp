// The signal library's operators (docs/operators.md §3.9) on plan tensors: whole tensors,
// parameters from the SIGNAL attribute (int32 values, per opcode), tables from CONSTANTS.
// The loader's rule (plan/op_rules_signal.cpp) checked shapes, dtypes and table sizes; what
// depends on table contents (filter bank indices) is checked here before anything is written.
#include "kernels/signal/signal_kernels.h"

#include <string.h>

#include "common/le_bytes.h"
#include "kernels/signal/signal_math.h"

namespace tigris_rt {
namespace signal {

namespace {

// Weight k of the CONSTANTS attribute (NULL when absent).
const void *constant(const Call &c, int k, uint32_t *bytes)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(TIGRIS_ATTR_CONSTANTS, &len);
    if (p == nullptr || len < 2 * (k + 1)) return nullptr;
    const uint16_t w = rd_u16(p + 2 * k);
    if (w == TIGRIS_NONE || w >= c.plan->header->num_weights || c.plan->weight_entries == nullptr) return nullptr;
    *bytes = c.plan->weight_entries[w].size_bytes;
    return tigris_weight_data(c.plan, &c.plan->weight_entries[w]);
}

int32_t param(const Call &c, int k)
{
    uint8_t len = 0;
    const uint8_t *p = c.attr(TIGRIS_ATTR_SIGNAL, &len);
    return p != nullptr && len >= 4 * (k + 1) ? rd_i32(p + 4 * k) : 0;
}

int64_t count(const Call &c, const tigris_tensor_t &t)
{
    int64_t n = 1;
    const int32_t *s = c.shape(t);
    for (uint8_t i = 0; i < t.ndim; ++i) n *= s[i];
    return n;
}

int32_t last_dim(const Call &c, const tigris_tensor_t &t) { return t.ndim == 0 ? 1 : c.shape(t)[t.ndim - 1]; }

template <class T>
const T *in(const Call &c, uint8_t i)
{
    return reinterpret_cast<const T *>(c.in_ptr(i));
}
template <class T>
T *out(const Call &c, uint8_t i)
{
    return reinterpret_cast<T *>(c.out_ptr(i));
}

int window(const Call &c)
{
    uint32_t bytes = 0;
    const int16_t *w = static_cast<const int16_t *>(constant(c, 0, &bytes));
    const int32_t n = (int32_t)(bytes / 2);
    if (w == nullptr || n < 1) return -1;
    const int64_t total = count(c, c.in(0));
    for (int64_t i = 0; i + n <= total; i += n)
        tigris_signal::window(in<int16_t>(c, 0) + i, w, n, param(c, 0), out<int16_t>(c, 0) + i);
    return 0;
}

int fft_auto_scale(const Call &c)
{
    *out<int32_t>(c, 1) = tigris_signal::fft_auto_scale(in<int16_t>(c, 0), (int32_t)count(c, c.in(0)), out<int16_t>(c, 0));
    return 0;
}

int rfft(const Call &c)
{
    uint32_t bytes = 0;
    const int16_t *tw = static_cast<const int16_t *>(constant(c, 0, &bytes));
    const int32_t fft_length = param(c, 0), in_len = last_dim(c, c.in(0)), out_len = last_dim(c, c.out(0));
    if (tw == nullptr) return -1;
    const int64_t rows = count(c, c.in(0)) / in_len;
    for (int64_t r = 0; r < rows; ++r)
        if (!tigris_signal::rfft_int16(in<int16_t>(c, 0) + r * in_len, in_len, fft_length, tw,
                                       out<int16_t>(c, 0) + r * out_len))
            return -1;
    return 0;
}

int energy(const Call &c)
{
    // TFLM writes only bins [start, end); the others are zero here (TFLM leaves them as they were).
    uint32_t *y = out<uint32_t>(c, 0);
    memset(y, 0, (size_t)count(c, c.out(0)) * 4);
    tigris_signal::energy(in<int16_t>(c, 0), param(c, 0), param(c, 1), y);
    return 0;
}

int filter_bank(const Call &c)
{
    const int32_t channels = param(c, 0), bins = (int32_t)count(c, c.in(0));
    uint32_t b[5] = {};
    const int16_t *t[5];
    for (int k = 0; k < 5; ++k) t[k] = static_cast<const int16_t *>(constant(c, k, &b[k]));
    for (int k = 0; k < 5; ++k)
        if (t[k] == nullptr) return -1;
    const int32_t weights = (int32_t)(b[0] / 2);
    for (int32_t i = 0; i <= channels; ++i) {  // every index the sums read lies in its table
        const int32_t f = t[2][i], w = t[3][i], n = t[4][i];
        if (f < 0 || w < 0 || n < 0 || f + n > bins || w + n > weights) return -1;
    }
    const tigris_signal::FilterBank fb{t[0], t[1], t[2], t[3], t[4], channels};
    tigris_signal::filter_bank(fb, in<uint32_t>(c, 0), out<uint64_t>(c, 0));
    return 0;
}

int filter_bank_sqrt(const Call &c)
{
    const int32_t shift = *in<int32_t>(c, 1);
    if (shift < 0 || shift > 31) return -1;
    tigris_signal::filter_bank_sqrt(in<uint64_t>(c, 0), (int32_t)count(c, c.in(0)), shift, out<uint32_t>(c, 0));
    return 0;
}

int spectral_subtraction(const Call &c)
{
    tigris_signal::SpectralSubtraction p{};
    p.channels = (int32_t)count(c, c.in(0));
    p.smoothing = (uint32_t)param(c, 0), p.one_minus_smoothing = (uint32_t)param(c, 1);
    p.alternate_smoothing = (uint32_t)param(c, 2), p.alternate_one_minus_smoothing = (uint32_t)param(c, 3);
    p.min_signal_remaining = (uint32_t)param(c, 4), p.smoothing_bits = (uint32_t)param(c, 5);
    p.spectral_subtraction_bits = (uint32_t)param(c, 6), p.clamping = param(c, 7) != 0;
    // The noise estimate: last run's state in, this run's out (the kernel updates a copy).
    uint32_t *noise = out<uint32_t>(c, 1);
    memmove(noise, in<uint32_t>(c, 1), (size_t)p.channels * 4);
    tigris_signal::spectral_subtraction(p, in<uint32_t>(c, 0), out<uint32_t>(c, 0), noise);
    return 0;
}

int pcan(const Call &c)
{
    uint32_t bytes = 0;
    const int16_t *lut = static_cast<const int16_t *>(constant(c, 0, &bytes));
    if (lut == nullptr) return -1;
    tigris_signal::pcan(lut, param(c, 0), in<uint32_t>(c, 1), in<uint32_t>(c, 0), (int32_t)count(c, c.in(0)),
                        out<uint32_t>(c, 0));
    return 0;
}

int filter_bank_log(const Call &c)
{
    tigris_signal::filter_bank_log(in<uint32_t>(c, 0), (int32_t)count(c, c.in(0)), param(c, 1), param(c, 0),
                                   out<int16_t>(c, 0));
    return 0;
}

}  // namespace

int run(const Call &c)
{
    if (c.tiled()) return -1;
    for (uint8_t i = 0; i < c.op->num_inputs; ++i)
        if (c.in_ptr(i) == nullptr) return -1;
    switch (c.op->op_type) {
    case TIGRIS_OP_SIGNAL_WINDOW: return window(c);
    case TIGRIS_OP_SIGNAL_FFT_AUTO_SCALE: return fft_auto_scale(c);
    case TIGRIS_OP_SIGNAL_RFFT: return rfft(c);
    case TIGRIS_OP_SIGNAL_ENERGY: return energy(c);
    case TIGRIS_OP_SIGNAL_FILTER_BANK: return filter_bank(c);
    case TIGRIS_OP_SIGNAL_FILTER_BANK_SQRT: return filter_bank_sqrt(c);
    case TIGRIS_OP_SIGNAL_SPECTRAL_SUBTRACTION: return spectral_subtraction(c);
    case TIGRIS_OP_SIGNAL_PCAN: return pcan(c);
    case TIGRIS_OP_SIGNAL_FILTER_BANK_LOG: return filter_bank_log(c);
    default: return -1;
    }
}

}  // namespace signal
}  // namespace tigris_rt
