// FlexBuffer layout (flatbuffers' flexbuffers.h, read for facts): the last byte is the root's
// byte width, the one before it the root's packed type (type << 2 | log2 of the width of the
// data it points to), and the root value sits just before them. Scalars are stored inline in
// their parent's width; everything else is an unsigned offset back from where it is stored.
// A vector is preceded by its length; an untyped vector's elements are followed by one packed
// type byte each; a map is a vector of values preceded by [keys vector offset, keys byte
// width, length], its keys a typed vector of offsets to NUL-terminated strings.
#include "export/tflite/flexbuffer.h"

#include <cstring>

namespace tigris::tflite {

namespace {

enum Type : uint8_t {
  kNull = 0,
  kInt = 1,
  kUInt = 2,
  kFloat = 3,
  kKey = 4,
  kString = 5,
  kIndirectInt = 6,
  kIndirectUInt = 7,
  kIndirectFloat = 8,
  kMap = 9,
  kVector = 10,
  kVectorInt = 11,
  kVectorUInt = 12,
  kVectorFloat = 13,
  kVectorInt2 = 16,
  kVectorFloat4 = 24,
  kBlob = 25,
  kBool = 26,
  kVectorBool = 36,
};

class Reader {
 public:
  explicit Reader(std::span<const uint8_t> b) : b_(b) {}

  uint64_t uint_at(uint64_t pos, uint64_t width) const {
    check_width(width);
    need(pos, width);
    uint64_t v = 0;
    for (uint64_t k = 0; k < width; ++k) v |= static_cast<uint64_t>(b_[pos + k]) << (8 * k);
    return v;
  }
  int64_t int_at(uint64_t pos, uint64_t width) const {
    uint64_t v = uint_at(pos, width);
    if (width < 8 && (v >> (8 * width - 1)) != 0) v |= ~uint64_t{0} << (8 * width);  // sign-extend
    return static_cast<int64_t>(v);
  }
  double float_at(uint64_t pos, uint64_t width) const {
    need(pos, width);
    if (width == 4) {
      float f;
      std::memcpy(&f, b_.data() + pos, 4);
      return f;
    }
    if (width == 8) {
      double d;
      std::memcpy(&d, b_.data() + pos, 8);
      return d;
    }
    throw FlexError("a float of " + std::to_string(width) + " bytes");
  }
  // The position an offset stored at `pos` (in `width` bytes) points back to.
  uint64_t target(uint64_t pos, uint64_t width) const {
    uint64_t off = uint_at(pos, width);
    if (off == 0 || off > pos) throw FlexError("an offset points outside the blob");
    return pos - off;
  }
  // A length stored just before `pos`.
  uint64_t length_before(uint64_t pos, uint64_t width) const {
    if (pos < width) throw FlexError("a length lies before the blob");
    return uint_at(pos - width, width);
  }
  // `count` items of `width` bytes from `pos` must lie in the blob.
  void need_items(uint64_t pos, uint64_t count, uint64_t width) const {
    if (count > b_.size() || count * width > b_.size()) throw FlexError("a vector runs past the end of the blob");
    need(pos, count * width);
  }
  std::string key_at(uint64_t pos) const {
    need(pos, 1);
    const void* end = std::memchr(b_.data() + pos, 0, b_.size() - pos);
    if (end == nullptr) throw FlexError("a key has no terminating NUL");
    return std::string(reinterpret_cast<const char*>(b_.data() + pos),
                       static_cast<const uint8_t*>(end) - (b_.data() + pos));
  }
  std::string bytes_at(uint64_t pos, uint64_t len) const {
    need_items(pos, len, 1);
    return std::string(reinterpret_cast<const char*>(b_.data() + pos), len);
  }
  uint8_t byte_at(uint64_t pos) const {
    need(pos, 1);
    return b_[pos];
  }
  size_t size() const { return b_.size(); }

  static void check_width(uint64_t w) {
    if (w != 1 && w != 2 && w != 4 && w != 8) throw FlexError("byte width " + std::to_string(w));
  }

 private:
  void need(uint64_t pos, uint64_t len) const {
    if (pos > b_.size() || len > b_.size() - pos) throw FlexError("a value runs past the end of the blob");
  }
  std::span<const uint8_t> b_;
};

// A scalar number stored at `pos` (inline in `parent_width`, or indirect), for vectors' items.
double scalar_number(const Reader& r, uint64_t pos, uint64_t parent_width, uint8_t type, uint64_t width) {
  switch (type) {
  case kInt: return static_cast<double>(r.int_at(pos, parent_width));
  case kUInt: return static_cast<double>(r.uint_at(pos, parent_width));
  case kFloat: return r.float_at(pos, parent_width);
  case kBool: return r.uint_at(pos, parent_width) != 0 ? 1.0 : 0.0;
  case kIndirectInt: return static_cast<double>(r.int_at(r.target(pos, parent_width), width));
  case kIndirectUInt: return static_cast<double>(r.uint_at(r.target(pos, parent_width), width));
  case kIndirectFloat: return r.float_at(r.target(pos, parent_width), width);
  default: throw FlexError("a vector holds a value of type " + std::to_string(type) + ", not a number");
  }
}

FlexValue decode(const Reader& r, uint64_t pos, uint64_t parent_width, uint8_t packed) {
  const uint8_t type = packed >> 2;
  const uint64_t width = uint64_t{1} << (packed & 3);
  FlexValue v;
  switch (type) {
  case kNull: return v;
  case kInt:
  case kIndirectInt:
    v.kind = FlexValue::Kind::Int;
    v.i = type == kInt ? r.int_at(pos, parent_width) : r.int_at(r.target(pos, parent_width), width);
    return v;
  case kUInt:
  case kIndirectUInt:
    v.kind = FlexValue::Kind::UInt;
    v.u = type == kUInt ? r.uint_at(pos, parent_width) : r.uint_at(r.target(pos, parent_width), width);
    return v;
  case kFloat:
  case kIndirectFloat:
    v.kind = FlexValue::Kind::Float;
    v.f = type == kFloat ? r.float_at(pos, parent_width) : r.float_at(r.target(pos, parent_width), width);
    return v;
  case kBool:
    v.kind = FlexValue::Kind::Bool;
    v.i = r.uint_at(pos, parent_width) != 0;
    return v;
  case kString:
  case kBlob: {
    uint64_t at = r.target(pos, parent_width);
    v.kind = FlexValue::Kind::String;
    v.s = r.bytes_at(at, r.length_before(at, width));
    return v;
  }
  case kKey:
    v.kind = FlexValue::Kind::String;
    v.s = r.key_at(r.target(pos, parent_width));
    return v;
  default: break;
  }
  const bool typed = (type >= kVectorInt && type <= kVectorFloat) || type == kVectorBool;
  const bool fixed = type >= kVectorInt2 && type <= kVectorFloat4;
  if (type != kVector && !typed && !fixed) throw FlexError("a value of unsupported type " + std::to_string(type));
  const uint64_t at = r.target(pos, parent_width);
  v.kind = FlexValue::Kind::Vector;
  if (fixed) {
    const uint64_t n = 2 + (type - kVectorInt2) / 3;
    const uint8_t item = static_cast<uint8_t>(kInt + (type - kVectorInt2) % 3);
    r.need_items(at, n, width);
    for (uint64_t k = 0; k < n; ++k) v.numbers.push_back(scalar_number(r, at + k * width, width, item, width));
    return v;
  }
  const uint64_t n = r.length_before(at, width);
  r.need_items(at, n, width);
  if (type == kVector) r.need_items(at + n * width, n, 1);
  for (uint64_t k = 0; k < n; ++k) {
    uint8_t item = type == kVectorBool ? static_cast<uint8_t>(kBool)
                   : typed             ? static_cast<uint8_t>(kInt + (type - kVectorInt))
                                       : 0;
    uint64_t item_width = width;
    if (type == kVector) {
      const uint8_t p = r.byte_at(at + n * width + k);
      item = p >> 2;
      item_width = uint64_t{1} << (p & 3);
    }
    v.numbers.push_back(scalar_number(r, at + k * width, width, item, item_width));
  }
  return v;
}

}  // namespace

FlexMap::FlexMap(std::span<const uint8_t> blob) {
  const Reader r(blob);
  if (blob.size() < 3) throw FlexError("the options blob has " + std::to_string(blob.size()) + " bytes");
  const uint64_t root_width = blob[blob.size() - 1];
  Reader::check_width(root_width);
  const uint8_t packed = blob[blob.size() - 2];
  if (blob.size() < 2 + root_width) throw FlexError("the root lies before the blob");
  const uint64_t root = blob.size() - 2 - root_width;
  if ((packed >> 2) != kMap) throw FlexError("the root is not a map");
  const uint64_t width = uint64_t{1} << (packed & 3);
  const uint64_t at = r.target(root, root_width);
  const uint64_t n = r.length_before(at, width);
  if (at < 3 * width) throw FlexError("the map's header lies before the blob");
  const uint64_t keys = r.target(at - 3 * width, width);
  const uint64_t key_width = r.uint_at(at - 2 * width, width);
  Reader::check_width(key_width);
  if (r.length_before(keys, key_width) != n) throw FlexError("the map has as many keys as values");
  r.need_items(at, n, width);
  r.need_items(at + n * width, n, 1);
  r.need_items(keys, n, key_width);
  for (uint64_t k = 0; k < n; ++k) {
    std::string key = r.key_at(r.target(keys + k * key_width, key_width));
    FlexValue v = decode(r, at + k * width, width, r.byte_at(at + n * width + k));
    if (!values_.emplace(key, std::move(v)).second) throw FlexError("key '" + key + "' appears twice");
  }
}

const FlexValue& FlexMap::at(const std::string& key) const {
  auto it = values_.find(key);
  if (it == values_.end()) throw FlexError("option '" + key + "' is missing");
  return it->second;
}

int64_t FlexMap::integer(const std::string& key) const {
  const FlexValue& v = at(key);
  switch (v.kind) {
  case FlexValue::Kind::Int:
  case FlexValue::Kind::Bool: return v.i;
  case FlexValue::Kind::UInt:
    if (v.u > static_cast<uint64_t>(INT64_MAX)) break;
    return static_cast<int64_t>(v.u);
  default: break;
  }
  throw FlexError("option '" + key + "' is not an integer");
}

int64_t FlexMap::integer(const std::string& key, int64_t lo, int64_t hi) const {
  int64_t v = integer(key);
  if (v < lo || v > hi)
    throw FlexError("option '" + key + "' is " + std::to_string(v) + ", outside [" + std::to_string(lo) + ", " +
                    std::to_string(hi) + "]");
  return v;
}

bool FlexMap::boolean(const std::string& key) const {
  const FlexValue& v = at(key);
  if (v.kind == FlexValue::Kind::Bool) return v.i != 0;
  int64_t i = integer(key);
  if (i != 0 && i != 1) throw FlexError("option '" + key + "' is not a boolean");
  return i != 0;
}

double FlexMap::number(const std::string& key) const {
  const FlexValue& v = at(key);
  if (v.kind == FlexValue::Kind::Float) return v.f;
  return static_cast<double>(integer(key));
}

const std::string& FlexMap::string(const std::string& key) const {
  const FlexValue& v = at(key);
  if (v.kind != FlexValue::Kind::String) throw FlexError("option '" + key + "' is not a string");
  return v.s;
}

}  // namespace tigris::tflite
