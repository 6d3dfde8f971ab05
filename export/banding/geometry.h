// How an operator of a bandable run maps output rows to input rows (axis 1 of NHWC).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "export/tflite/model.h"

namespace tigris::banding {

// Half-open row range [lo, hi).
struct Rows {
  int64_t lo = 0, hi = 0;
  int64_t size() const { return hi - lo; }
  bool empty() const { return hi <= lo; }
  bool operator==(const Rows&) const = default;
};
Rows hull(Rows a, Rows b);

// A sliding window along one axis: output i reads inputs
// [i*stride - pad_before, i*stride - pad_before + (kernel-1)*dilation + 1).
struct Window {
  int64_t kernel = 1, stride = 1, dilation = 1, pad_before = 0, pad_after = 0;
  int64_t extent() const { return (kernel - 1) * dilation + 1; }
  Rows input_rows(Rows out) const {
    return {out.lo * stride - pad_before, (out.hi - 1) * stride - pad_before + extent()};
  }
};

enum class BandKind {
  Window,       // CONV_2D, DEPTHWISE_CONV_2D, MAX_POOL_2D, AVERAGE_POOL_2D
  Pad,          // PAD, PADV2 (window of 1 shifted by the top padding)
  Elementwise,  // unary and binary elementwise operators
};

struct BandOp {
  BandKind kind = BandKind::Elementwise;
  int32_t code = 0;
  Window h, w;                              // along height and width
  std::vector<size_t> row_inputs;           // input slots that carry rows (sliced per band)
  std::array<int32_t, 2> pad_n{}, pad_c{};  // PAD / PADV2: batch and channel paddings
  bool strided_or_pool = false;
};

// The banding view of an operator, or nullopt with `why` set when it cannot be banded:
// not in the allowed list, not int8, not 4-D, padding an average pool adds, shapes the
// geometry does not reproduce.
std::optional<BandOp> band_op(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& op,
                              std::string* why);

// SAME padding of TFLite (total split with the extra row after).
std::pair<int64_t, int64_t> same_padding(int64_t in, int64_t out, int64_t stride, int64_t extent);

// The int32 [rank, 2] paddings of a PAD / PADV2 operator (empty if not constant int32).
std::vector<std::array<int32_t, 2>> pad_amounts(const tflite::Model& m, const tflite::SubGraph& g,
                                                const tflite::Operator& op);

}  // namespace tigris::banding
