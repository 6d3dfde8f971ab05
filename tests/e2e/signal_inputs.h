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

// One second of audio (16000 samples) for micro_speech's whole pipeline, integers only: a
// triangle sweep gated on and off every 125 ms, over quiet white noise.
constexpr int kSecond = 16000;
inline std::vector<int16_t> signal_second() {
  std::vector<int16_t> x(kSecond);
  uint32_t noise = 2024u;
  for (uint32_t t = 0; t < static_cast<uint32_t>(kSecond); ++t) {
    noise ^= noise << 13, noise ^= noise >> 17, noise ^= noise << 5;
    const int32_t phase = static_cast<int32_t>((t * (200u + t / 64u)) & 0xFFFFu);
    int32_t v = std::abs(phase - 32768) - 16384;  // +-16384
    if ((t / 2000u) % 2u == 1u) v /= 8;
    v += static_cast<int16_t>(noise >> 16) / 64;
    x[t] = static_cast<int16_t>(v);
  }
  return x;
}

}  // namespace tigris::test
