// Quantization parameters of a tensor: per tensor (one scale) or per channel along `axis`.
// Filled by the TFLite frontend and by QDQ folding; float graphs carry none.
#pragma once

#include <cstdint>
#include <vector>

namespace tigris::ir {

struct QuantParam {
  std::vector<float> scales;         // one per channel, or one
  std::vector<int32_t> zero_points;  // as many as scales
  int axis = -1;                     // channel axis (model order) for per-channel, else -1

  bool per_channel() const { return scales.size() > 1; }
  bool operator==(const QuantParam&) const = default;
};

}  // namespace tigris::ir
