// A small FlexBuffer reader for TFLite custom operators' options (the signal library writes
// them as a FlexBuffer map). It reads a root map of scalars (int, uint, float, bool, their
// indirect forms), strings and vectors of numbers, and checks every offset, width and length
// against the blob first: hostile bytes give FlexError, never a read outside the blob.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace tigris::tflite {

// A malformed blob, or a key missing or of the wrong kind; what() is one line.
struct FlexError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// One value of the root map.
struct FlexValue {
  enum class Kind { Null, Int, UInt, Float, Bool, String, Vector } kind = Kind::Null;
  int64_t i = 0;                 // Int, Bool (0/1)
  uint64_t u = 0;                // UInt
  double f = 0;                  // Float
  std::string s;                 // String, Blob
  std::vector<double> numbers;   // Vector of numbers (ints and floats widened)
};

class FlexMap {
 public:
  // Parses `blob`; throws FlexError when it is not a well-formed FlexBuffer whose root is a map.
  explicit FlexMap(std::span<const uint8_t> blob);

  bool has(const std::string& key) const { return values_.count(key) != 0; }
  // The integer at `key` (an Int, a UInt that fits int64, or a Bool); FlexError otherwise.
  int64_t integer(const std::string& key) const;
  // `integer(key)`, checked to lie in [lo, hi].
  int64_t integer(const std::string& key, int64_t lo, int64_t hi) const;
  bool boolean(const std::string& key) const;  // a Bool, or an integer 0 / 1
  double number(const std::string& key) const;  // Float, or an integer widened
  const std::string& string(const std::string& key) const;
  const std::map<std::string, FlexValue>& values() const { return values_; }

 private:
  const FlexValue& at(const std::string& key) const;
  std::map<std::string, FlexValue> values_;
};

}  // namespace tigris::tflite
