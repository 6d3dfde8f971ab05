// Operator attributes: ONNX-style named values. Kept in a std::map so iteration
// order (and therefore everything derived from it) is deterministic.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "compiler/ir/dtype.h"
#include "compiler/ir/shape.h"

namespace tigris::ir {

// A constant tensor value held by an attribute (ONNX Constant's `value`).
struct TensorValue {
  DType dtype = DType::Float32;
  Shape shape;
  std::vector<uint8_t> data;  // little-endian, row-major
  bool operator==(const TensorValue&) const = default;
};

using Attribute = std::variant<int64_t, float, std::string, std::vector<int64_t>, std::vector<float>,
                               std::vector<std::string>, TensorValue>;

class Attributes {
 public:
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  void set(const std::string& name, Attribute value) { values_[name] = std::move(value); }
  void erase(const std::string& name) { values_.erase(name); }

  // Typed getters: the default when absent; CompileError(Invalid) when present with another type.
  int64_t get_int(const std::string& name, int64_t fallback) const;
  float get_float(const std::string& name, float fallback) const;
  std::string get_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> get_ints(const std::string& name, const std::vector<int64_t>& fallback = {}) const;
  std::vector<float> get_floats(const std::string& name, const std::vector<float>& fallback = {}) const;
  const TensorValue* get_tensor(const std::string& name) const;

  const std::map<std::string, Attribute>& all() const { return values_; }
  bool operator==(const Attributes&) const = default;

 private:
  std::map<std::string, Attribute> values_;
};

}  // namespace tigris::ir
