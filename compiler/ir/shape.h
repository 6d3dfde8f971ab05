// Tensor shapes: a list of extents in the tensor's current axis order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tigris::ir {

using Shape = std::vector<int64_t>;

// Product of the extents (1 for a scalar).
int64_t num_elements(const Shape& shape);

// "1x3x224x224" ("scalar" for rank 0).
std::string shape_str(const Shape& shape);

// Row-major strides in elements.
std::vector<int64_t> strides_of(const Shape& shape);

// out[i] = in[perm[i]].
Shape permute_shape(const Shape& shape, const std::vector<int64_t>& perm);

// Numpy broadcast of two shapes; throws CompileError(Invalid) when they do not broadcast.
Shape broadcast_shapes(const Shape& a, const Shape& b);

}  // namespace tigris::ir
