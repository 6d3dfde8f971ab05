#include "compiler/report/iface_layout.h"

namespace tigris::report {

std::vector<int> declared_from_stored(const tigris_tensor_t& tensor) {
  // LINEAR: stored in the model's order; CALLER_ORDER: the caller uses the stored order.
  const bool channels_last = (tensor.flags & (TIGRIS_TENSOR_LINEAR | TIGRIS_TENSOR_CALLER_ORDER)) == 0;
  if (channels_last && tensor.ndim == 4) return {0, 3, 1, 2};  // NHWC -> NCHW
  if (channels_last && tensor.ndim == 3) return {0, 2, 1};     // NLC -> NCL
  std::vector<int> identity;
  for (int i = 0; i < tensor.ndim; ++i) identity.push_back(i);
  return identity;
}

std::vector<int> stored_from_declared(const tigris_tensor_t& tensor) {
  const std::vector<int> forward = declared_from_stored(tensor);
  std::vector<int> inverse(forward.size());
  for (size_t i = 0; i < forward.size(); ++i) inverse[static_cast<size_t>(forward[i])] = static_cast<int>(i);
  return inverse;
}

std::vector<int64_t> stored_shape(const tigris_plan_t& plan, const tigris_tensor_t& tensor) {
  const int32_t* dims = tigris_tensor_shape(&plan, &tensor);
  return std::vector<int64_t>(dims, dims + tensor.ndim);
}

std::vector<int64_t> declared_shape(const tigris_plan_t& plan, const tigris_tensor_t& tensor) {
  const std::vector<int64_t> stored = stored_shape(plan, tensor);
  std::vector<int64_t> out;
  for (const int axis : declared_from_stored(tensor)) out.push_back(stored[static_cast<size_t>(axis)]);
  return out;
}

std::string stored_layout_name(const tigris_tensor_t& tensor) {
  if (tensor.flags & TIGRIS_TENSOR_CALLER_ORDER) {
    if (tensor.ndim == 4) return "NHWC as declared";
    if (tensor.ndim == 3) return "NLC as declared";
  }
  if ((tensor.flags & TIGRIS_TENSOR_LINEAR) == 0) {
    if (tensor.ndim == 4) return "NHWC";
    if (tensor.ndim == 3) return "NLC";
  }
  return "as declared";
}

bool is_identity(const std::vector<int>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int>(i)) return false;
  }
  return true;
}

}  // namespace tigris::report
