#include "tools/tigris/state_file.h"

#include <cstring>

#include "tools/tigris/cli_errors.h"

namespace tigris::cli {

namespace {

constexpr char kStateMagic[8] = {'T', 'G', 'R', 'S', 'S', 'T', 'A', 'T'};
constexpr uint32_t kFormat = 1;
constexpr size_t kHeaderBytes = 24;

uint64_t read_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = v << 8 | p[i];
  return v;
}

void append_le(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

}  // namespace

OutputKind state_file_kind() {
  return {"a TiGrIS state file",
          [](std::string_view head) { return head.substr(0, 8) == std::string_view(kStateMagic, 8); }};
}

uint64_t plan_fingerprint(const std::vector<uint8_t>& plan_bytes) {
  uint64_t h = 1469598103934665603ull;
  for (uint8_t b : plan_bytes) h = (h ^ b) * 1099511628211ull;
  return h;
}

std::optional<std::vector<uint8_t>> read_state_file(const std::string& path, uint64_t fingerprint, size_t state_bytes) {
  if (!path_exists(path)) return std::nullopt;
  return decode_state_file(read_file(path), path, fingerprint, state_bytes);
}

std::vector<uint8_t> decode_state_file(const std::vector<uint8_t>& bytes, const std::string& path, uint64_t fingerprint,
                                       size_t state_bytes) {
  if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kStateMagic, 8) != 0)
    throw Failure(path +
                  ": not a TiGrIS state file (delete it, or name another file, to start from the initial values)");
  const uint64_t format = read_le(bytes.data() + 8, 4), size = read_le(bytes.data() + 12, 4);
  if (format != kFormat) throw Failure(path + ": state file format " + std::to_string(format) + " is not supported");
  if (read_le(bytes.data() + 16, 8) != fingerprint || size != state_bytes)
    throw Failure(path + ": holds the state of another plan (delete it to start from this plan's initial values)");
  if (bytes.size() != kHeaderBytes + size)
    throw Failure(path + ": state file is damaged (" + std::to_string(bytes.size() - kHeaderBytes) +
                  " state bytes, header says " + std::to_string(size) + ")");
  return std::vector<uint8_t>(bytes.begin() + kHeaderBytes, bytes.end());
}

std::vector<uint8_t> encode_state_file(uint64_t fingerprint, const std::vector<uint8_t>& state) {
  std::vector<uint8_t> out(kStateMagic, kStateMagic + 8);
  append_le(out, kFormat, 4);
  append_le(out, state.size(), 4);
  append_le(out, fingerprint, 8);
  out.insert(out.end(), state.begin(), state.end());
  return out;
}

}  // namespace tigris::cli
