// Independent little-endian decoding of plan bytes for the writer tests: reads fields at
// explicit offsets from the format description, never through the tigris.h structs.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tigris_test {

struct ByteReader {
  const std::vector<uint8_t>& b;
  uint64_t get(size_t off, int n) const {
    if (off + static_cast<size_t>(n) > b.size()) throw std::out_of_range("read past the plan");
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | b[off + static_cast<size_t>(i)];
    return v;
  }
  uint8_t u8(size_t off) const { return static_cast<uint8_t>(get(off, 1)); }
  uint16_t u16(size_t off) const { return static_cast<uint16_t>(get(off, 2)); }
  uint32_t u32(size_t off) const { return static_cast<uint32_t>(get(off, 4)); }
  int32_t i32(size_t off) const { return static_cast<int32_t>(u32(off)); }
  std::string cstr(size_t off) const {
    std::string s;
    while (off < b.size() && b[off] != 0) s.push_back(static_cast<char>(b[off++]));
    return s;
  }

  // Section id -> absolute offset, read from the directory named by the header.
  std::map<uint32_t, uint32_t> directory() const {
    std::map<uint32_t, uint32_t> d;
    for (size_t at = u32(12);; at += 8) {
      uint32_t type = u32(at);
      if (type == 0) break;
      d[type] = u32(at + 4);
    }
    return d;
  }
  // Extent of a section: up to the next larger start or the end of the file.
  uint32_t section_end(uint32_t id) const {
    auto d = directory();
    uint32_t start = d.at(id), end = static_cast<uint32_t>(b.size());
    for (auto [t, off] : d)
      if (off > start && off < end) end = off;
    return end;
  }
};

}  // namespace tigris_test
