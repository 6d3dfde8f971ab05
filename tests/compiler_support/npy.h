// Minimal .npy reader for tests: little-endian float32 / int64, C order (versions 1-3).
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

namespace tigris::test {

struct NpyArray {
  std::string descr;  // "<f4", "<i8", ...
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;  // raw element bytes

  std::vector<float> floats() const {
    std::vector<float> v(data.size() / 4);
    if (!v.empty()) std::memcpy(v.data(), data.data(), v.size() * 4);
    return v;
  }
};

inline NpyArray read_npy(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (b.size() < 10 || std::memcmp(b.data(), "\x93NUMPY", 6) != 0) throw std::runtime_error(path + ": not .npy");
  size_t header_len = b[6] == 1 ? b[8] | (b[9] << 8) : b[8] | (b[9] << 8) | (b[10] << 16) | (size_t(b[11]) << 24);
  size_t start = b[6] == 1 ? 10 : 12;
  std::string header(b.begin() + static_cast<std::ptrdiff_t>(start),
                     b.begin() + static_cast<std::ptrdiff_t>(start + header_len));
  NpyArray a;
  size_t d = header.find("'descr'");
  size_t q1 = header.find('\'', header.find(':', d) + 1), q2 = header.find('\'', q1 + 1);
  a.descr = header.substr(q1 + 1, q2 - q1 - 1);
  if (header.find("'fortran_order': False") == std::string::npos) throw std::runtime_error(path + ": Fortran order");
  size_t s = header.find('(', header.find("'shape'")), e = header.find(')', s);
  std::string dims = header.substr(s + 1, e - s - 1);
  for (size_t p = 0; p < dims.size();) {
    size_t comma = dims.find(',', p);
    std::string tok = dims.substr(p, comma == std::string::npos ? std::string::npos : comma - p);
    if (tok.find_first_of("0123456789") != std::string::npos) a.shape.push_back(std::stoll(tok));
    if (comma == std::string::npos) break;
    p = comma + 1;
  }
  a.data.assign(b.begin() + static_cast<std::ptrdiff_t>(start + header_len), b.end());
  return a;
}

}  // namespace tigris::test
