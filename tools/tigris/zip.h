// Minimal ZIP archives for .npz: read stored and deflated members (zip64 fields
// included), write stored members. CRC-32 and inflate come from zlib.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tigris::cli {

struct ZipMember {
  std::string name;
  std::vector<uint8_t> data;
};

// Failure `<where>: <what>` on anything malformed, encrypted, or of another compression method.
std::vector<ZipMember> read_zip(const std::vector<uint8_t>& bytes, const std::string& where);

// An archive of stored (uncompressed) members, as numpy.savez writes.
std::vector<uint8_t> write_zip(const std::vector<ZipMember>& members);

}  // namespace tigris::cli
