// Shared text formatting of reports: byte counts, shapes, dtypes and aligned tables.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tigris::report {

// `N B` below 1 KiB, `X.XX KiB` below 1 MiB, otherwise `X.XX MiB` (binary units).
std::string format_bytes(uint64_t bytes);

// Signed form for changes: `+1.50 KiB`, `-24.69 KiB`, `0 B`.
std::string format_bytes_delta(int64_t bytes);

// `1x3x224x224`; a negative dimension (unknown) prints as `?`; rank 0 prints `scalar`.
std::string format_shape(const std::vector<int64_t>& dims);

// Name of an ONNX TensorProto.DataType code (the plan's dtype codes are the same):
// float32, uint8, int8, uint16, int16, int32, int64, string, bool, float16, float64, ...
// Unknown codes print as `dtype N`.
std::string dtype_name(int dtype);

// Element size of an ONNX dtype code in bytes; 0 when it has none (string, unknown).
uint32_t dtype_size(int dtype);

// "1 stage", "3 stages".
std::string plural(uint64_t n, const std::string& one, const std::string& many);

// Thousands-separated integer: 1234567 -> `1,234,567`.
std::string format_count(uint64_t n);

// Percentage with one decimal: `12.3%`; `-` when the whole is 0.
std::string format_percent(uint64_t part, uint64_t whole);

// A table of plain aligned columns separated by three spaces. Columns are
// left-aligned unless marked right-aligned; trailing blank cells are trimmed.
class TextTable {
 public:
  explicit TextTable(std::string indent = "  ") : indent_(std::move(indent)) {}
  void right_align(size_t column);
  void add(std::vector<std::string> row);
  bool empty() const { return rows_.empty(); }
  std::string render() const;

 private:
  std::string indent_;
  std::vector<bool> right_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace tigris::report
