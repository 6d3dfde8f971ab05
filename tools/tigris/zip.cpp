#include "tools/tigris/zip.h"

#include <zlib.h>

#include <algorithm>
#include <limits>

#include "tools/tigris/cli_errors.h"

namespace tigris::cli {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kEnd64Sig = 0x06064b50;
constexpr uint32_t kEnd64LocatorSig = 0x07064b50;

// Bounds-checked little-endian reads over the archive.
class Reader {
 public:
  Reader(const std::vector<uint8_t>& bytes, const std::string& where) : b_(bytes), where_(where) {}
  void need(uint64_t off, uint64_t len) const {
    if (off > b_.size() || len > b_.size() - off) fail("truncated archive");
  }
  uint16_t u16(uint64_t off) const {
    need(off, 2);
    return static_cast<uint16_t>(b_[off] | (b_[off + 1] << 8));
  }
  uint32_t u32(uint64_t off) const {
    need(off, 4);
    return static_cast<uint32_t>(u16(off)) | (static_cast<uint32_t>(u16(off + 2)) << 16);
  }
  uint64_t u64(uint64_t off) const { return u32(off) | (static_cast<uint64_t>(u32(off + 4)) << 32); }
  std::string str(uint64_t off, uint64_t len) const {
    need(off, len);
    return std::string(reinterpret_cast<const char*>(b_.data() + off), len);
  }
  [[noreturn]] void fail(const std::string& what) const { throw Failure(where_ + ": " + what); }
  const std::vector<uint8_t>& bytes() const { return b_; }

 private:
  const std::vector<uint8_t>& b_;
  const std::string& where_;
};

struct Directory {
  uint64_t entries = 0;
  uint64_t offset = 0;
};

Directory find_directory(const Reader& r) {
  const auto& b = r.bytes();
  if (b.size() < 22) r.fail("not a zip archive (too short)");
  const uint64_t lowest = b.size() > 22 + 65535 ? b.size() - 22 - 65535 : 0;
  for (uint64_t pos = b.size() - 22;; --pos) {
    if (r.u32(pos) == kEndSig) {
      Directory d{r.u16(pos + 10), r.u32(pos + 16)};
      // A zip64 locator sits just before the end record when the counts overflowed.
      if (pos >= 20 && r.u32(pos - 20) == kEnd64LocatorSig) {
        const uint64_t end64 = r.u64(pos - 20 + 8);
        if (r.u32(end64) != kEnd64Sig) r.fail("bad zip64 end record");
        d.entries = r.u64(end64 + 32);
        d.offset = r.u64(end64 + 48);
      }
      return d;
    }
    if (pos == lowest) break;
  }
  r.fail("not a zip archive (no end of central directory)");
}

std::vector<uint8_t> inflate_raw(const uint8_t* src, uint64_t src_len, uint64_t out_len, const Reader& r,
                                 const std::string& name) {
  if (src_len > std::numeric_limits<uInt>::max() || out_len > std::numeric_limits<uInt>::max()) {
    r.fail("member " + name + " is too large");
  }
  // Deflate expands at most 1032:1 (zlib's limit): a larger declared size is corrupt, and is
  // refused before it is allocated (a few hundred bytes must not make us zero 4 GiB).
  if (out_len / 1032 > src_len + 1) {
    r.fail("member " + name + " declares " + std::to_string(out_len) + " bytes, more than its " +
           std::to_string(src_len) + " deflated bytes can hold");
  }
  std::vector<uint8_t> out(out_len);
  z_stream z{};
  if (inflateInit2(&z, -MAX_WBITS) != Z_OK) r.fail("cannot start inflate");
  z.next_in = const_cast<Bytef*>(src);
  z.avail_in = static_cast<uInt>(src_len);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out_len);
  const int rc = inflate(&z, Z_FINISH);
  const uint64_t produced = z.total_out;
  inflateEnd(&z);
  if (rc != Z_STREAM_END || produced != out_len) r.fail("member " + name + ": corrupt deflate data");
  return out;
}

ZipMember read_member(const Reader& r, uint64_t& pos) {
  if (r.u32(pos) != kCentralSig) r.fail("bad central directory entry");
  const uint16_t flags = r.u16(pos + 8);
  const uint16_t method = r.u16(pos + 10);
  const uint32_t crc = r.u32(pos + 16);
  uint64_t csize = r.u32(pos + 20);
  uint64_t usize = r.u32(pos + 24);
  const uint16_t name_len = r.u16(pos + 28);
  const uint16_t extra_len = r.u16(pos + 30);
  const uint16_t comment_len = r.u16(pos + 32);
  uint64_t local = r.u32(pos + 42);
  const std::string name = r.str(pos + 46, name_len);
  // Zip64 extra field: the 64-bit values of whichever fields hold 0xFFFFFFFF, in this order.
  for (uint64_t e = pos + 46 + name_len, end = e + extra_len; e + 4 <= end;) {
    const uint16_t id = r.u16(e), len = r.u16(e + 2);
    if (id == 0x0001) {
      uint64_t f = e + 4;
      if (usize == 0xFFFFFFFFu) {
        usize = r.u64(f);
        f += 8;
      }
      if (csize == 0xFFFFFFFFu) {
        csize = r.u64(f);
        f += 8;
      }
      if (local == 0xFFFFFFFFu) {
        local = r.u64(f);
      }
    }
    e += 4u + len;
  }
  pos += 46u + name_len + extra_len + comment_len;
  if (flags & 0x1u) r.fail("member " + name + " is encrypted");
  if (r.u32(local) != kLocalSig) r.fail("member " + name + ": bad local header");
  const uint64_t data = local + 30u + r.u16(local + 26) + r.u16(local + 28);
  r.need(data, csize);
  const uint8_t* src = r.bytes().data() + data;
  ZipMember m{name, {}};
  if (method == 0) {
    if (csize != usize) r.fail("member " + name + ": stored sizes disagree");
    m.data.assign(src, src + csize);
  } else if (method == 8) {
    m.data = inflate_raw(src, csize, usize, r, name);
  } else {
    r.fail("member " + name + " uses compression method " + std::to_string(method) +
           " (only stored and deflated members are read)");
  }
  uLong actual = crc32(0L, Z_NULL, 0);
  for (uint64_t done = 0; done < m.data.size();) {
    const uInt step = static_cast<uInt>(std::min<uint64_t>(m.data.size() - done, 1u << 30));
    actual = crc32(actual, m.data.data() + done, step);
    done += step;
  }
  if (actual != crc) r.fail("member " + name + ": CRC mismatch");
  return m;
}

void put16(std::vector<uint8_t>& out, uint32_t v) {
  out.push_back(static_cast<uint8_t>(v));
  out.push_back(static_cast<uint8_t>(v >> 8));
}

void put32(std::vector<uint8_t>& out, uint32_t v) {
  put16(out, v & 0xFFFFu);
  put16(out, v >> 16);
}

}  // namespace

std::vector<ZipMember> read_zip(const std::vector<uint8_t>& bytes, const std::string& where) {
  const Reader r(bytes, where);
  const Directory dir = find_directory(r);
  std::vector<ZipMember> members;
  uint64_t pos = dir.offset;
  for (uint64_t i = 0; i < dir.entries; ++i) members.push_back(read_member(r, pos));
  return members;
}

std::vector<uint8_t> write_zip(const std::vector<ZipMember>& members) {
  std::vector<uint8_t> out, central;
  for (const ZipMember& m : members) {
    if (m.data.size() >= 0xFFFFFFFFu || out.size() + m.data.size() >= 0xFFFFFFFFu || m.name.size() > 0xFFFFu ||
        members.size() >= 0xFFFFu) {
      throw Failure("archive member " + m.name + " is too large for a plain zip file");
    }
    const uint32_t crc =
        static_cast<uint32_t>(crc32(crc32(0L, Z_NULL, 0), m.data.data(), static_cast<uInt>(m.data.size())));
    const uint32_t size = static_cast<uint32_t>(m.data.size());
    const uint32_t offset = static_cast<uint32_t>(out.size());
    // Local header: version 2.0, no flags, stored, DOS date 1980-01-01 00:00.
    put32(out, kLocalSig);
    put16(out, 20);
    put16(out, 0);
    put16(out, 0);
    put16(out, 0);
    put16(out, 0x21);
    put32(out, crc);
    put32(out, size);
    put32(out, size);
    put16(out, static_cast<uint32_t>(m.name.size()));
    put16(out, 0);
    out.insert(out.end(), m.name.begin(), m.name.end());
    out.insert(out.end(), m.data.begin(), m.data.end());

    put32(central, kCentralSig);
    put16(central, 0x0314);
    put16(central, 20);  // made by Unix, v2.0
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0x21);
    put32(central, crc);
    put32(central, size);
    put32(central, size);
    put16(central, static_cast<uint32_t>(m.name.size()));
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put32(central, 0644u << 16);
    put32(central, offset);
    central.insert(central.end(), m.name.begin(), m.name.end());
  }
  const uint32_t dir_offset = static_cast<uint32_t>(out.size());
  out.insert(out.end(), central.begin(), central.end());
  put32(out, kEndSig);
  put16(out, 0);
  put16(out, 0);
  put16(out, static_cast<uint32_t>(members.size()));
  put16(out, static_cast<uint32_t>(members.size()));
  put32(out, static_cast<uint32_t>(central.size()));
  put32(out, dir_offset);
  put16(out, 0);
  return out;
}

}  // namespace tigris::cli
