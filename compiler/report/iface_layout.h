// How a plan's boundary tensor relates to the array the model declares.
//
// Plans store activations channels-last (rank 4 NHWC, rank 3 NLC) unless the tensor is
// flagged TIGRIS_TENSOR_LINEAR, meaning its axes are in the model's own order. An ONNX
// image input declared NCHW is therefore stored NHWC; a TFLite boundary tensor (declared
// NHWC) is stored NHWC with TIGRIS_TENSOR_CALLER_ORDER: the declared order is the stored one. The runtime's
// tigris_input_write/tigris_output_read convert dtypes only, so whoever feeds a plan reorders axes with these
// permutations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tigris.h"

namespace tigris::report {

// Axis i of the declared array is stored axis perm[i]. Identity when nothing moves.
std::vector<int> declared_from_stored(const tigris_tensor_t& tensor);
// Stored axis i is declared axis perm[i] (the inverse of the above).
std::vector<int> stored_from_declared(const tigris_tensor_t& tensor);

// The tensor's shape as stored, and as the model declares it.
std::vector<int64_t> stored_shape(const tigris_plan_t& plan, const tigris_tensor_t& tensor);
std::vector<int64_t> declared_shape(const tigris_plan_t& plan, const tigris_tensor_t& tensor);

// "NHWC", "NLC", or "as declared" when the stored order is the model's own.
std::string stored_layout_name(const tigris_tensor_t& tensor);

bool is_identity(const std::vector<int>& perm);

}  // namespace tigris::report
