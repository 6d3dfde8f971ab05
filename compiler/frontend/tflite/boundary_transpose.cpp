// Model inputs a TFLite model reorders first thing (see boundary_transpose.h).
#include "compiler/frontend/tflite/boundary_transpose.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace tigris::frontend::tflite {

namespace tfl = tigris::tflite;

namespace {

// The permutation of a TRANSPOSE (a constant int32 or int64 vector), or empty.
std::vector<int64_t> permutation(const tfl::Model& m, const tfl::SubGraph& sg, int32_t i) {
  if (i < 0 || static_cast<size_t>(i) >= sg.tensors.size()) return {};
  const tfl::Tensor& t = sg.tensors[static_cast<size_t>(i)];
  if (!tfl::is_constant(m, t)) return {};
  std::span<const uint8_t> d = tfl::tensor_data(m, t);
  std::vector<int64_t> out;
  size_t size = t.type == tfl::TensorType::Int32 ? 4 : t.type == tfl::TensorType::Int64 ? 8 : 0;
  for (size_t k = 0; size && k + size <= d.size(); k += size) {
    int64_t v = 0;
    if (size == 4) {
      int32_t v32;
      std::memcpy(&v32, d.data() + k, 4);
      v = v32;
    } else {
      std::memcpy(&v, d.data() + k, 8);
    }
    out.push_back(v);
  }
  return out;
}

bool listed(const std::vector<int32_t>& list, int32_t i) {
  return std::find(list.begin(), list.end(), i) != list.end();
}

}  // namespace

std::map<int32_t, size_t> channels_first_inputs(const tfl::Model& m, const tfl::SubGraph& sg) {
  std::map<int32_t, size_t> out;
  for (int32_t in : sg.inputs) {
    if (in < 0 || static_cast<size_t>(in) >= sg.tensors.size() || sg.tensors[static_cast<size_t>(in)].shape.size() != 4)
      continue;
    if (listed(sg.outputs, in)) continue;
    std::vector<size_t> readers;
    for (size_t k = 0; k < sg.operators.size(); ++k)
      for (int32_t x : sg.operators[k].inputs)
        if (x == in) readers.push_back(k);
    if (readers.size() != 1) continue;
    const tfl::Operator& op = sg.operators[readers[0]];
    if (tfl::builtin_code(m, op) != tfl::op::kTranspose || op.inputs.size() != 2 || op.inputs[0] != in ||
        op.outputs.size() != 1)
      continue;
    int32_t y = op.outputs[0];
    if (y < 0 || listed(sg.outputs, y) || listed(sg.inputs, y)) continue;
    if (permutation(m, sg, op.inputs[1]) != std::vector<int64_t>{0, 2, 3, 1}) continue;
    out[in] = readers[0];
  }
  return out;
}

}  // namespace tigris::frontend::tflite
