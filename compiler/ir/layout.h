// How a tensor's axes are ordered in the IR (and therefore in the plan).
//
// The IR follows ONNX semantics: spatial operators see channels-first tensors
// (N,C,H,W / N,C,L). The layout pass rewrites rank-3/4 activations that feed or
// leave spatial operators to channels-last (N,H,W,C / N,L,C) and records it here;
// from then on Tensor::shape is the stored shape. Model order is the order the
// model's author declared (ONNX: channels-first); a plan stores it as LINEAR.
#pragma once

#include <cstdint>
#include <vector>

namespace tigris::ir {

enum class Layout : uint8_t {
  Model,         // axes in the model's declared order
  ChannelsLast,  // a channels-first rank-3/4 tensor stored N,H,W,C (or N,L,C)
};

// Permutation taking model (channels-first) axes to channels-last: [0, 2, .., r-1, 1].
std::vector<int64_t> to_channels_last_perm(int rank);

// Its inverse: [0, r-1, 1, .., r-2].
std::vector<int64_t> to_channels_first_perm(int rank);

// The stored axis of model axis `axis` (already non-negative) for a tensor of this layout.
int64_t stored_axis(Layout layout, int rank, int64_t axis);

}  // namespace tigris::ir
