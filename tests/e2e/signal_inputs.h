// Audio frames for TensorFlow Lite Micro's audio preprocessor (480 int16 samples at 16 kHz),
// in integer arithmetic only so a scratch TFLM probe reproduces them exactly: step k of a
// 12-step sequence is silence (0-1), a rising triangle sweep at full scale (2-4), full-scale
// white noise (5-7), alternating extremes (8), full-scale DC (9), quiet noise (10-11).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <vector>

namespace tigris::test {

constexpr int kSignalSteps = 12;
constexpr int kFrame = 480;

inline std::vector<int16_t> signal_frame(int k) {
  std::vector<int16_t> x(kFrame, 0);
  uint32_t noise = 12345u + static_cast<uint32_t>(k);  // xorshift32
  for (int n = 0; n < kFrame; ++n) {
    noise ^= noise << 13, noise ^= noise >> 17, noise ^= noise << 5;
    int32_t v = 0;
    if (k >= 2 && k <= 4) {
      const uint32_t t = static_cast<uint32_t>((k - 2) * kFrame + n);
      const int32_t phase = static_cast<int32_t>((t * (64u + t / 4u)) & 0xFFFFu);
      v = std::abs(phase - 32768) * 2 - 32768;
    } else if (k >= 5 && k <= 7) {
      v = static_cast<int16_t>(noise >> 16);
    } else if (k == 8) {
      v = n % 2 ? 32767 : -32768;
    } else if (k == 9) {
      v = 32767;
    } else if (k >= 10) {
      v = static_cast<int16_t>(noise >> 16) / 256;
    }
    x[static_cast<size_t>(n)] = static_cast<int16_t>(v > 32767 ? 32767 : v);
  }
  return x;
}

}  // namespace tigris::test
