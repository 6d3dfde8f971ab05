#include "compiler/report/format.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>

namespace tigris::report {

std::string format_bytes(uint64_t bytes) {
  char buf[64];
  if (bytes < 1024) {
    std::snprintf(buf, sizeof buf, "%" PRIu64 " B", bytes);
  } else if (bytes < 1024ull * 1024ull) {
    std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(bytes) / 1024.0);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
  }
  return buf;
}

std::string format_bytes_delta(int64_t bytes) {
  if (bytes == 0) return "0 B";
  const uint64_t magnitude = bytes < 0 ? static_cast<uint64_t>(-(bytes + 1)) + 1 : static_cast<uint64_t>(bytes);
  std::string out = bytes < 0 ? "-" : "+";
  out += format_bytes(magnitude);
  return out;
}

std::string format_shape(const std::vector<int64_t>& dims) {
  if (dims.empty()) return "scalar";
  std::string out;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += 'x';
    out += dims[i] < 0 ? std::string("?") : std::to_string(dims[i]);
  }
  return out;
}

std::string dtype_name(int dtype) {
  switch (dtype) {
  case 1: return "float32";
  case 2: return "uint8";
  case 3: return "int8";
  case 4: return "uint16";
  case 5: return "int16";
  case 6: return "int32";
  case 7: return "int64";
  case 8: return "string";
  case 9: return "bool";
  case 10: return "float16";
  case 11: return "float64";
  case 12: return "uint32";
  case 13: return "uint64";
  case 14: return "complex64";
  case 15: return "complex128";
  case 16: return "bfloat16";
  default: return "dtype " + std::to_string(dtype);
  }
}

uint32_t dtype_size(int dtype) {
  switch (dtype) {
  case 2:
  case 3:
  case 9: return 1;
  case 4:
  case 5:
  case 10:
  case 16: return 2;
  case 1:
  case 6:
  case 12: return 4;
  case 7:
  case 11:
  case 13:
  case 14: return 8;
  case 15: return 16;
  default: return 0;
  }
}

std::string plural(uint64_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string format_count(uint64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const size_t lead = digits.size() % 3;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (i % 3) == lead) out += ',';
    out += digits[i];
  }
  return out;
}

std::string format_percent(uint64_t part, uint64_t whole) {
  if (whole == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
  return buf;
}

void TextTable::right_align(size_t column) {
  if (right_.size() <= column) right_.resize(column + 1, false);
  right_[column] = true;
}

void TextTable::add(std::vector<std::string> row) {
  while (!row.empty() && row.back().empty()) row.pop_back();
  rows_.push_back(std::move(row));
}

std::string TextTable::render() const {
  std::vector<size_t> width;
  for (const auto& row : rows_) {
    if (width.size() < row.size()) width.resize(row.size(), 0);
    for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows_) {
    std::string line = indent_;
    for (size_t c = 0; c < row.size(); ++c) {
      if (c) line += "   ";
      const size_t pad = width[c] - row[c].size();
      const bool right = c < right_.size() && right_[c];
      const bool last = c + 1 == row.size();
      if (right) line.append(pad, ' ');
      line += row[c];
      if (!right && !last) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

}  // namespace tigris::report
