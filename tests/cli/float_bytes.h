// float32 input bytes for the tests that run built programs (codegen, examples).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace tigris::clitest {

// `count` float32 values in [-1, 1) from a fixed linear congruential sequence, as bytes.
inline std::vector<uint8_t> float_input(size_t count, uint32_t seed = 12345) {
  std::vector<uint8_t> bytes(count * 4);
  for (size_t i = 0; i < count; ++i) {
    seed = seed * 1664525u + 1013904223u;
    const float v = static_cast<float>(seed >> 8) / 8388608.0f - 1.0f;
    std::memcpy(bytes.data() + i * 4, &v, 4);
  }
  return bytes;
}

// The bytes of float32 values.
inline std::vector<uint8_t> floats(const std::vector<float>& v) {
  std::vector<uint8_t> bytes(v.size() * 4);
  std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

}  // namespace tigris::clitest
