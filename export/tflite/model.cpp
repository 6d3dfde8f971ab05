// Small helpers over the in-memory TFLite model.
#include "export/tflite/model.h"

#include <cstdint>

namespace tigris::tflite {

int32_t builtin_code(const Model& m, const Operator& o) {
  if (o.opcode_index >= m.operator_codes.size()) return -1;
  return m.operator_codes[o.opcode_index].code;
}

std::string tensor_owner(size_t index, const std::string& name) {
  std::string s = "tensor " + std::to_string(index);
  return name.empty() ? s : s + " (" + name + ")";
}

std::string operator_kind(const Model& m, const Operator& o) {
  int32_t code = builtin_code(m, o);
  if (code == op::kCustom) {
    const auto& custom = m.operator_codes[o.opcode_index].custom_code;
    return custom && !custom->empty() ? *custom : std::string("CUSTOM");
  }
  return builtin_name(code);
}

int64_t element_count(const std::vector<int32_t>& shape) {
  int64_t n = 1;
  for (int32_t d : shape)
    if (__builtin_mul_overflow(n, static_cast<int64_t>(d), &n)) return INT64_MAX;  // saturate
  return n;
}

std::span<const uint8_t> tensor_data(const Model& m, const Tensor& t) {
  if (t.buffer == 0 || t.buffer >= m.buffers.size()) return {};
  return m.buffers[t.buffer].data;
}

bool is_constant(const Model& m, const Tensor& t) { return !tensor_data(m, t).empty(); }

}  // namespace tigris::tflite
