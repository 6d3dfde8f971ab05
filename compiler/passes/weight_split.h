// `-c lz4`: a stage's whole weight block is decompressed into fast memory, so an op whose
// weights exceed the weight reserve is split over output-channel groups: float Conv (group 1)
// and Gemm (transB) become parts that each take a slice of the weight's and bias's output
// channels (axis 0 of the stored weight) and write a slice of the output's channels (its
// last, stored axis), followed by a Concat on that axis. Fused activations stay on each part.
#pragma once

#include <cstdint>

#include "compiler/ir/graph.h"

namespace tigris::passes {

// Bytes a weight entry takes in a plan (16-aligned).
uint64_t aligned_weight_bytes(uint64_t bytes);

// Split every splittable op whose weights (16-aligned entries) exceed `reserve` into the
// fewest equal-width parts that fit; returns the number of ops split. Ops that cannot be
// split (other kinds, int8, one output channel over the reserve) are left alone.
int split_wide_weights(ir::Graph& g, uint64_t reserve);

}  // namespace tigris::passes
