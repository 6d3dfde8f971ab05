// The arithmetic of TensorFlow Lite Micro's signal library (signal/src/*.cc at 90b983c2b),
// operation for operation so results are bit-exact, on plain arrays: the kernels
// (signal.cpp) and the unit tests call these. Unsigned tensors (TFLM's UINT32, UINT64) are
// held in int32 / int64 storage; these functions read and write them unsigned.
#pragma once

#include <stdint.h>

namespace tigris_signal {

// Most significant bit as TFLM's host build counts it: 1-based, and 32 (64) for zero.
uint32_t msb32(uint32_t x);
uint32_t msb64(uint64_t x);

// x * window >> shift, saturated to int16.
void window(const int16_t *x, const int16_t *w, int32_t n, int32_t shift, int16_t *y);
// Scales x up by the largest power of two that keeps max|x| in int16; returns the bits.
int32_t fft_auto_scale(const int16_t *x, int32_t n, int16_t *y);
// re^2 + im^2 of complex bins [start, end) into y (unsigned); bins outside are left alone.
void energy(const int16_t *spectrum, int32_t start, int32_t end, uint32_t *y);
// Triangular filter bank: channel c of `channels` sums weights and the previous channel's
// unweights over its bins; y[c] is the weighted sum of channel c + 1 (channel 0 is dropped).
struct FilterBank {
    const int16_t *weights, *unweights, *freq_starts, *weight_starts, *widths;
    int32_t channels;  // num_channels: the tables hold channels + 1 entries
};
void filter_bank(const FilterBank &fb, const uint32_t *x, uint64_t *y);
// Integer square roots, rounded to nearest as TFLM's Sqrt32 / Sqrt64.
uint16_t sqrt32(uint32_t x);
uint32_t sqrt64(uint64_t x);
void filter_bank_sqrt(const uint64_t *x, int32_t n, int32_t shift, uint32_t *y);
// Spectral subtraction with its noise estimate (the state, updated in place).
struct SpectralSubtraction {
    int32_t channels;
    uint32_t smoothing, one_minus_smoothing, alternate_smoothing, alternate_one_minus_smoothing;
    uint32_t min_signal_remaining, smoothing_bits, spectral_subtraction_bits;
    bool clamping;
};
void spectral_subtraction(const SpectralSubtraction &p, const uint32_t *x, uint32_t *y, uint32_t *noise);
// Per-channel auto gain control: gain from the noise estimate through a 125-entry table.
void pcan(const int16_t *gain_lut, int32_t snr_shift, const uint32_t *noise, const uint32_t *x, int32_t n,
          uint32_t *y);
// Fixed-point natural log, scaled by out_scale / 65536 (TFLM's Log32).
uint32_t log32(uint32_t x, uint32_t out_scale);
void filter_bank_log(const uint32_t *x, int32_t n, int32_t output_scale, int32_t correction_bits, int16_t *y);

// kissfft's int16 real FFT (FIXED_POINT 16, kiss_fftr) of `fft_length` samples: x holds
// `x_length` <= fft_length samples (the rest are zeros), y fft_length / 2 + 1 complex bins
// (re, im interleaved). `twiddles` holds the half-length complex FFT's fft_length / 2
// twiddles then kiss_fftr's fft_length / 4 super twiddles, as kissfft computes them
// (rfft_twiddles). false when fft_length / 2 has a prime factor above 5.
bool rfft_supported(int32_t fft_length);
bool rfft_int16(const int16_t *x, int32_t x_length, int32_t fft_length, const int16_t *twiddles, int16_t *y);
// The twiddle table rfft_int16 takes: 3 * fft_length / 2 int16 values (host code and tests).
void rfft_twiddles(int32_t fft_length, int16_t *twiddles);

}  // namespace tigris_signal
