// The signal library's arithmetic (runtime/src/kernels/signal) on hand-derived values: the
// window of a constant, the auto scale of a known maximum, the energy of a known spectrum,
// the filter bank of a one-hot spectrum, square roots, two steps of spectral subtraction,
// PCAN's gain, logs against the natural log, and the fixed-point FFT against a DFT computed
// here in double precision (bit-exactness with TFLM is the e2e references' job).
#include <gtest/gtest.h>

#include <cmath>

#include "kernels/signal/signal_math.h"

namespace {

using namespace tigris_signal;

TEST(SignalMath, WindowOfAConstantSaturates) {
  const int16_t x[4] = {1000, 1000, 1000, 1000}, w[4] = {0, 4096, 8192, 32767};
  int16_t y[4];
  window(x, w, 4, 12, y);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 1000);
  EXPECT_EQ(y[2], 2000);
  EXPECT_EQ(y[3], 7999);  // 1000 * 32767 / 4096 = 7999.75, shifted down
  const int16_t big[2] = {32767, -32768}, one[2] = {32767, 32767};
  window(big, one, 2, 0, y);
  EXPECT_EQ(y[0], 32767);
  EXPECT_EQ(y[1], -32768);
}

TEST(SignalMath, AutoScaleKeepsTheMaximumInInt16) {
  const int16_t x[3] = {100, -300, 50};
  int16_t y[3];
  EXPECT_EQ(fft_auto_scale(x, 3, y), 6);  // 300 < 512: 16 - 9 - 1 bits
  EXPECT_EQ(y[0], 6400);
  EXPECT_EQ(y[1], -19200);
  EXPECT_EQ(y[2], 3200);
  const int16_t zeros[2] = {0, 0}, lowest[2] = {5, -32768};
  EXPECT_EQ(fft_auto_scale(zeros, 2, y), 0);
  // -(-32768) wraps back to -32768 in int16, whose bit count is 32: no scaling
  EXPECT_EQ(fft_auto_scale(lowest, 2, y), 0);
  EXPECT_EQ(y[1], -32768);
}

TEST(SignalMath, EnergyOfAKnownSpectrum) {
  const int16_t spectrum[8] = {3, 4, 1, -2, 0, 0, -32768, -32768};
  uint32_t y[4] = {7, 7, 7, 7};
  energy(spectrum, 0, 2, y);
  EXPECT_EQ(y[0], 25u);
  EXPECT_EQ(y[1], 5u);
  EXPECT_EQ(y[2], 7u);  // outside [start, end): left alone
  energy(spectrum, 3, 4, y);
  EXPECT_EQ(y[3], 2147483648u);  // 2 * 2^30 wraps int32 as TFLM's sum does; read unsigned
}

TEST(SignalMath, FilterBankOfAOneHotSpectrum) {
  // Two channels (three table entries, the first one dropped): channel 1 covers bins 1-2,
  // channel 2 bins 3-4. Bin 2 is channel 1's second bin (weight index 2).
  const int16_t weights[5] = {10, 20, 3000, 40, 50}, unweights[5] = {1, 2, 1096, 4, 5};
  const int16_t freq[3] = {0, 1, 3}, wstart[3] = {0, 1, 3}, widths[3] = {1, 2, 2};
  const uint32_t x[5] = {0, 0, 1000, 0, 0};
  uint64_t y[2];
  filter_bank({weights, unweights, freq, wstart, widths, 2}, x, y);
  EXPECT_EQ(y[0], 3000000u);  // channel 1 weighted
  EXPECT_EQ(y[1], 1096000u);  // channel 2 starts from channel 1's unweighted sum
}

TEST(SignalMath, SquareRootsRoundToNearest) {
  EXPECT_EQ(sqrt32(0), 0);
  EXPECT_EQ(sqrt32(16), 4);
  EXPECT_EQ(sqrt32(20), 4);  // 4.47
  EXPECT_EQ(sqrt32(21), 5);  // 4.58
  EXPECT_EQ(sqrt32(0xFFFFFFFFu), 0xFFFF);
  EXPECT_EQ(sqrt64(1ull << 40), 1u << 20);
  EXPECT_EQ(sqrt64(1ull << 62), 1u << 31);
  EXPECT_EQ(sqrt64((1ull << 40) + (1ull << 20) + 1), (1u << 20) + 1);  // past n^2 + n: rounds up
  const uint64_t x[2] = {10000, 1ull << 40};
  uint32_t y[2];
  filter_bank_sqrt(x, 2, 2, y);
  EXPECT_EQ(y[0], 25u);
  EXPECT_EQ(y[1], 1u << 18);
}

TEST(SignalMath, SpectralSubtractionCarriesItsNoiseEstimate) {
  SpectralSubtraction p{};
  p.channels = 2;
  p.smoothing = p.alternate_smoothing = 1638;  // 0.1 at 14 bits
  p.one_minus_smoothing = p.alternate_one_minus_smoothing = 14746;
  p.min_signal_remaining = 1638;
  p.smoothing_bits = 10;
  p.spectral_subtraction_bits = 14;
  const uint32_t x[2] = {1000, 0};
  uint32_t y[2], noise[2] = {0, 0};
  spectral_subtraction(p, x, y, noise);
  EXPECT_EQ(noise[0], 102375u);  // 1024000 * 1638 / 16384
  EXPECT_EQ(y[0], 900u);         // (1024000 - 102375) >> 10
  EXPECT_EQ(noise[1], 0u);
  EXPECT_EQ(y[1], 0u);
  spectral_subtraction(p, x, y, noise);
  EXPECT_EQ(noise[0], 194514u);  // (1024000 * 1638 + 102375 * 14746) >> 14
  EXPECT_EQ(y[0], 810u);
  // An estimate above the signal: the output falls to the floor; clamping pulls the estimate down.
  p.channels = 1;
  const uint32_t small[1] = {10};
  uint32_t n1[1] = {1000000};
  spectral_subtraction(p, small, y, n1);
  EXPECT_EQ(n1[0], 901048u);  // (10240 * 1638 + 1000000 * 14746) >> 14: not clamped
  EXPECT_EQ(y[0], 0u);        // floor 10 * 1638 >> 14 = 0
  p.clamping = true;
  n1[0] = 1000000;
  spectral_subtraction(p, small, y, n1);
  EXPECT_EQ(n1[0], 10u << 10);
}

TEST(SignalMath, PcanGainAndShrink) {
  int16_t lut[125] = {};
  lut[0] = lut[1] = 4096;
  lut[2] = 100, lut[3] = 200, lut[4] = 300;
  const uint32_t noise[4] = {1, 0, 0, 3}, x[4] = {1000, 10, 100, 64};
  uint32_t y[4];
  pcan(lut, 6, noise, x, 4, y);
  EXPECT_EQ(y[0], 936u);  // snr 64000 >= 8192: (64000 >> 6) - 64
  EXPECT_EQ(y[1], 0u);    // snr 640: 640^2 >> 20
  EXPECT_EQ(y[2], 39u);   // snr 6400: 6400^2 >> 20
  // noise 3: octave 2, fraction 512 of 1024 -> gain ((300*512 >> 5) + (200 << 5)) * 512,
  // rounded >> 15, + 100 = 275; snr 64 * 275 >> 6 = 275; 275^2 >> 20 = 0
  EXPECT_EQ(y[3], 0u);
  const uint32_t x2[1] = {4096}, n2[1] = {3};
  pcan(lut, 6, n2, x2, 1, y);
  EXPECT_EQ(y[0], 211u);  // snr 4096 * 275 >> 6 = 17600 >= 8192: (17600 >> 6) - 64
}

TEST(SignalMath, LogFollowsTheNaturalLog) {
  EXPECT_EQ(log32(65536, 1), 11u);    // ln 65536 = 11.09
  EXPECT_EQ(log32(65536, 64), 710u);  // 709.78
  EXPECT_EQ(log32(2, 1024), 710u);    // 1024 ln 2 = 709.78
  // Between the table's 128 segment points TFLM interpolates with a 2^16 (not 2^9) step, so
  // log2 is off by up to 224 / 65536 there: within 3 units of 1024 ln x.
  for (uint32_t x : {3u, 100u, 129u, 1000u, 40000u, 123456789u, 0xFFFFFFFFu}) {
    const double expect = 1024.0 * std::log(static_cast<double>(x));
    EXPECT_NEAR(static_cast<double>(log32(x, 1024)), expect, 3.0) << x;
  }
  const uint32_t x[4] = {0, 1, 2, 0xFFFFFFFFu};
  int16_t y[4];
  filter_bank_log(x, 4, 1024, 0, y);
  EXPECT_EQ(y[0], 0);
  EXPECT_EQ(y[1], 0);  // not above 1
  EXPECT_EQ(y[2], 710);
  EXPECT_NEAR(y[3], 22713, 3);  // 1024 ln(2^32 - 1) = 22713.05
  filter_bank_log(x + 3, 1, 2000, 0, y);
  EXPECT_EQ(y[0], 32767);  // 2000 ln(2^32 - 1) = 44361: saturates
}

// The int16 FFT against a double-precision DFT scaled by 1 / fft_length (kissfft's fixed
// point divides by the radix at every stage and by 2 in the real split).
void expect_fft_near_dft(const std::vector<int16_t>& x, int32_t n, double tolerance) {
  std::vector<int16_t> tw(static_cast<size_t>(3 * n / 2)), y(static_cast<size_t>(n + 2));
  rfft_twiddles(n, tw.data());
  ASSERT_TRUE(rfft_int16(x.data(), static_cast<int32_t>(x.size()), n, tw.data(), y.data()));
  for (int32_t k = 0; k <= n / 2; ++k) {
    double re = 0, im = 0;
    for (size_t t = 0; t < x.size(); ++t) {
      const double phase = -2 * M_PI * k * static_cast<double>(t) / n;
      re += x[t] * std::cos(phase) / n;
      im += x[t] * std::sin(phase) / n;
    }
    EXPECT_NEAR(y[static_cast<size_t>(2 * k)], re, tolerance) << "bin " << k << " of " << n;
    EXPECT_NEAR(y[static_cast<size_t>(2 * k + 1)], im, tolerance) << "bin " << k << " of " << n;
  }
}

TEST(SignalMath, RfftMatchesTheDft) {
  // Twiddles as kissfft rounds them: cos/sin of -2 pi i / (n/2) times 32767.
  int16_t tw[24];
  rfft_twiddles(16, tw);
  EXPECT_EQ(tw[0], 32767);
  EXPECT_EQ(tw[1], 0);
  EXPECT_EQ(tw[4], 0);  // i = 2 of 8: -pi/2
  EXPECT_EQ(tw[5], -32767);
  // A constant: all of it in bin 0.
  expect_fft_near_dft(std::vector<int16_t>(16, 1000), 16, 2);
  // A cosine at bin 3 of 512 (the audio front end's length, radix 4): half its amplitude there,
  // within the rounding kissfft's int16 arithmetic adds over its five stages (measured 6.2).
  std::vector<int16_t> c(480);
  for (size_t t = 0; t < c.size(); ++t) c[t] = static_cast<int16_t>(std::lround(20000 * std::cos(2 * M_PI * 3 * t / 512.0)));
  expect_fft_near_dft(c, 512, 8);
  // Mixed radices 2, 3 and 5 (half length 30), a short input zero-padded.
  std::vector<int16_t> r(50);
  for (size_t t = 0; t < r.size(); ++t) r[t] = static_cast<int16_t>((t * 7919) % 20000) - 10000;
  expect_fft_near_dft(r, 60, 3);
  EXPECT_FALSE(rfft_supported(2 * 7));  // radix 7 is refused
  EXPECT_TRUE(rfft_supported(512));
}

}  // namespace
