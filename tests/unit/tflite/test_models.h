// Helpers for tests that read the shared models folder.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace tigris::test {

inline std::string models_dir() { return TIGRIS_MODELS_DIR; }
inline std::string tflite_path(const std::string& name) { return models_dir() + "/tflite/" + name + ".tflite"; }
inline bool have_models() { return TIGRIS_HAVE_MODELS != 0; }

// The data bytes of a .npy file (format 1.0 / 2.0), header skipped.
inline std::vector<uint8_t> npy_payload(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) return {};
  size_t header = bytes[6] == 1 ? 10 + (bytes[8] | bytes[9] << 8)
                                : 12 + (bytes[8] | bytes[9] << 8 | bytes[10] << 16 | bytes[11] << 24);
  return std::vector<uint8_t>(bytes.begin() + static_cast<long>(header), bytes.end());
}

}  // namespace tigris::test
