// Values as the raw (little-endian, host-order) bytes that tests write into models, inputs and
// plans, and back.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace tigris::test {

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

inline std::vector<uint8_t> floats(const std::vector<float>& v) { return bytes_of(v); }

template <class T>
std::vector<T> values_of(const std::vector<uint8_t>& b) {
  std::vector<T> v(b.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), b.data(), v.size() * sizeof(T));
  return v;
}

}  // namespace tigris::test
