// Rules of TensorFlow Lite Micro's signal library operators (docs/operators.md §3.9): operand
// counts, dtypes (TFLM's UINT32 / UINT64 held as int32 / int64), shapes, the SIGNAL attribute's
// length and ranges, and the CONSTANTS tables' sizes.
#include "kernels/signal/signal_math.h"
#include "plan/op_rules_util.h"

namespace tigris_rt {
namespace rules {

namespace {

constexpr uint8_t kI16 = TIGRIS_DTYPE_INT16, kI32 = TIGRIS_DTYPE_INT32, kI64 = TIGRIS_DTYPE_INT64;

// The SIGNAL attribute holds exactly n int32 values (none: absent).
bool params(const OpView &v, uint8_t n, int32_t *p)
{
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_SIGNAL, &len);
    if (n == 0) return a == nullptr;
    if (a == nullptr || len != 4u * n) return false;
    for (uint8_t i = 0; i < n; ++i) p[i] = rd_i32(a + 4 * i);
    return true;
}

// CONSTANTS with exactly n present entries; their sizes in `bytes` (none: absent).
bool tables(const OpView &v, uint8_t n, uint32_t *bytes)
{
    uint8_t len = 0;
    const uint8_t *a = v.attr(TIGRIS_ATTR_CONSTANTS, &len);
    if (v.has_weight() || v.has_bias()) return false;
    if (n == 0) return a == nullptr;
    if (a == nullptr || len != 2u * n) return false;
    for (uint8_t i = 0; i < n; ++i) {
        const uint16_t w = rd_u16(a + 2 * i);
        if (w == TIGRIS_NONE || w >= v.plan->header->num_weights) return false;
        bytes[i] = v.weight_bytes_at(w);
    }
    return true;
}

bool io(const OpView &v, uint8_t n_in, uint8_t n_out) { return v.num_in() == n_in && v.num_out() == n_out; }

bool vector_of(const OpView &v, const tigris_tensor_t &t, uint8_t dtype, int64_t n = -1)
{
    return t.dtype == dtype && t.ndim == 1 && (n < 0 || v.shape(t)[0] == n);
}

int32_t last(const OpView &v, const tigris_tensor_t &t) { return t.ndim == 0 ? 1 : v.shape(t)[t.ndim - 1]; }

bool check_window(const OpView &v)
{
    int32_t shift;
    uint32_t b;
    if (!io(v, 1, 1) || !params(v, 1, &shift) || !tables(v, 1, &b)) return false;
    const tigris_tensor_t &x = v.in(0), &y = v.out(0);
    return x.dtype == kI16 && x.ndim >= 1 && same_shape(v, x, y) && y.dtype == kI16 && shift >= 0 && shift <= 31 &&
           b == 2u * (uint32_t)last(v, x);
}

bool check_auto_scale(const OpView &v)
{
    const tigris_tensor_t &x = v.in(0);
    return io(v, 1, 2) && params(v, 0, nullptr) && tables(v, 0, nullptr) && vector_of(v, x, kI16) &&
           same_shape(v, x, v.out(0)) && v.out(0).dtype == kI16 && v.out(1).dtype == kI32 && elements(v, v.out(1)) == 1;
}

bool check_rfft(const OpView &v)
{
    int32_t n;
    uint32_t b;
    if (!io(v, 1, 1) || !params(v, 1, &n) || !tables(v, 1, &b)) return false;
    const tigris_tensor_t &x = v.in(0), &y = v.out(0);
    if (x.dtype != kI16 || y.dtype != kI16 || x.ndim < 1 || x.ndim != y.ndim) return false;
    if (!tigris_signal::rfft_supported(n) || last(v, x) > n || last(v, y) != n + 2 || b != 3u * (uint32_t)n) return false;
    for (uint8_t i = 0; i + 1 < x.ndim; ++i)
        if (v.shape(x)[i] != v.shape(y)[i]) return false;
    return true;
}

bool check_energy(const OpView &v)
{
    int32_t p[2];
    if (!io(v, 1, 1) || !params(v, 2, p) || !tables(v, 0, nullptr)) return false;
    const tigris_tensor_t &x = v.in(0), &y = v.out(0);
    if (!vector_of(v, x, kI16) || !vector_of(v, y, kI32) || v.shape(x)[0] % 2 != 0) return false;
    const int32_t bins = v.shape(x)[0] / 2;
    return p[0] >= 0 && p[0] <= p[1] && p[1] <= bins && v.shape(y)[0] >= p[1];
}

bool check_filter_bank(const OpView &v)
{
    int32_t channels;
    uint32_t b[5];
    if (!io(v, 1, 1) || !params(v, 1, &channels) || !tables(v, 5, b)) return false;
    if (!vector_of(v, v.in(0), kI32) || !vector_of(v, v.out(0), kI64, channels) || channels < 1) return false;
    // weights and unweights alike; starts and widths one entry per channel and the extra first one
    const uint32_t per_channel = 2u * ((uint32_t)channels + 1u);
    return b[0] == b[1] && b[0] % 2 == 0 && b[2] == per_channel && b[3] == per_channel && b[4] == per_channel;
}

bool check_sqrt(const OpView &v)
{
    const tigris_tensor_t &x = v.in(0);
    return io(v, 2, 1) && params(v, 0, nullptr) && tables(v, 0, nullptr) && vector_of(v, x, kI64) &&
           v.in(1).dtype == kI32 && elements(v, v.in(1)) == 1 && vector_of(v, v.out(0), kI32, v.shape(x)[0]);
}

bool check_spectral_subtraction(const OpView &v)
{
    int32_t p[8];
    if (!io(v, 2, 2) || !params(v, 8, p) || !tables(v, 0, nullptr)) return false;
    const tigris_tensor_t &x = v.in(0);
    if (!vector_of(v, x, kI32)) return false;
    const int32_t n = v.shape(x)[0];
    for (uint8_t i = 0; i < 2; ++i)
        if (!vector_of(v, v.in(i), kI32, n) || !vector_of(v, v.out(i), kI32, n)) return false;
    // smoothing_bits and spectral_subtraction_bits are shifts of 32- and 64-bit values
    return p[5] >= 0 && p[5] <= 31 && p[6] >= 0 && p[6] <= 63 && (p[7] == 0 || p[7] == 1);
}

bool check_pcan(const OpView &v)
{
    int32_t shift;
    uint32_t b;
    if (!io(v, 2, 1) || !params(v, 1, &shift) || !tables(v, 1, &b)) return false;
    const tigris_tensor_t &x = v.in(0);
    if (!vector_of(v, x, kI32)) return false;
    const int32_t n = v.shape(x)[0];
    // the gain table: 3 entries below 3, then 4 per octave up to bit 32 (TFLM's 125)
    return vector_of(v, v.in(1), kI32, n) && vector_of(v, v.out(0), kI32, n) && b == 2u * 125u && shift >= 0 &&
           shift <= 63;
}

bool check_log(const OpView &v)
{
    int32_t p[2];
    if (!io(v, 1, 1) || !params(v, 2, p) || !tables(v, 0, nullptr)) return false;
    const tigris_tensor_t &x = v.in(0);
    return vector_of(v, x, kI32) && vector_of(v, v.out(0), kI16, v.shape(x)[0]) && p[0] >= 0 && p[0] <= 31;
}

bool check_signal(const OpView &v)
{
    switch (v.op->op_type) {
    case TIGRIS_OP_SIGNAL_WINDOW: return check_window(v);
    case TIGRIS_OP_SIGNAL_FFT_AUTO_SCALE: return check_auto_scale(v);
    case TIGRIS_OP_SIGNAL_RFFT: return check_rfft(v);
    case TIGRIS_OP_SIGNAL_ENERGY: return check_energy(v);
    case TIGRIS_OP_SIGNAL_FILTER_BANK: return check_filter_bank(v);
    case TIGRIS_OP_SIGNAL_FILTER_BANK_SQRT: return check_sqrt(v);
    case TIGRIS_OP_SIGNAL_SPECTRAL_SUBTRACTION: return check_spectral_subtraction(v);
    case TIGRIS_OP_SIGNAL_PCAN: return check_pcan(v);
    case TIGRIS_OP_SIGNAL_FILTER_BANK_LOG: return check_log(v);
    default: return false;
    }
}

}  // namespace

Verdict check_signal_ops(const OpView &v)
{
    switch (rule_of(v)) {
        TIGRIS_RULE(kSignal, check_signal(v))
    default: return kNotMine;
    }
}

}  // namespace rules
}  // namespace tigris_rt
