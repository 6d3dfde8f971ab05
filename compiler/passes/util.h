// Small helpers shared by the normalization passes.
#pragma once

#include <string>
#include <vector>

#include "compiler/ir/error.h"
#include "compiler/ir/graph.h"

namespace tigris::passes {

// Values of a constant tensor converted to float / int64 (any numeric dtype).
std::vector<float> const_floats(const ir::Tensor& t);
std::vector<int64_t> const_ints(const ir::Tensor& t);
std::vector<double> const_doubles(const ir::Tensor& t);

// Encode numbers as `dtype` bytes (float types rounded, integers truncated toward zero).
std::vector<uint8_t> encode(ir::DType dtype, const std::vector<double>& values);
std::vector<uint8_t> encode_floats(const std::vector<float>& values);

bool is_const(const ir::Graph& g, ir::TensorId id);

// Add a constant / an activation tensor with a fresh name derived from `base`.
ir::TensorId add_constant(ir::Graph& g, const std::string& base, ir::DType dtype, const ir::Shape& shape,
                          std::vector<uint8_t> data);
ir::TensorId add_float_constant(ir::Graph& g, const std::string& base, const ir::Shape& shape,
                                const std::vector<float>& values);
ir::TensorId add_activation(ir::Graph& g, const std::string& base, ir::DType dtype, const ir::Shape& shape);

// Axis in [0, rank); CompileError(Invalid) naming `node` when out of range.
int64_t normalize_axis(int64_t axis, int64_t rank, const ir::Node& node);

// Remove the nodes whose flag is set, keeping the order of the others.
void erase_nodes(ir::Graph& g, const std::vector<char>& remove);

// Input `i` of the node, or kNoTensor when absent.
inline ir::TensorId input_or_none(const ir::Node& n, size_t i) {
  return i < n.inputs.size() ? n.inputs[i] : ir::kNoTensor;
}

// The node's output reaches only `consumer` (one reader, not a model output).
bool single_consumer(const ir::Graph& g, ir::TensorId id, int consumer);

ir::CompileError node_error(const ir::Node& node, const std::string& what);

// Transpose constant data laid out as `shape` by `perm` (element size from dtype).
std::vector<uint8_t> transpose_data(const std::vector<uint8_t>& data, const ir::Shape& shape,
                                    const std::vector<int64_t>& perm, size_t elem_size);

// Output shape of Reshape(in, spec): 0 copies the input extent (unless allowzero), -1 is inferred.
ir::Shape reshape_target(const ir::Node& n, const ir::Shape& in, const std::vector<int64_t>& spec, bool allowzero);

}  // namespace tigris::passes
