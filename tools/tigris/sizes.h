// Command-line values: sizes (`256K`, `1.5M`, `256KB`, bytes), memory pools (`-m 256K+4M`)
// and input-shape bindings (`NAME:1x3x224x224`). Malformed values are UsageErrors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tigris::cli {

// Case-insensitive; K/KB = x1024, M/MB = x1024^2, a bare number (or a B suffix) is bytes.
// The number may have a fraction: parsed as a double, multiplied, truncated toward zero.
// Negative values parse (commands decide what a size <= 0 means).
int64_t parse_size(const std::string& text, const std::string& option);

// Each -m value may hold several pools joined by '+'. Returns the pools in order
// (fast, then slow). An empty part or more than two pools is a UsageError.
std::vector<int64_t> parse_pools(const std::vector<std::string>& values);

struct ShapeBinding {
  std::string name;
  std::vector<int64_t> dims;
};

// `NAME:DxDxD`, split at the last ':'; dimensions are positive integers.
ShapeBinding parse_input_shape(const std::string& text);
std::vector<ShapeBinding> parse_input_shapes(const std::vector<std::string>& values);

}  // namespace tigris::cli
