// Model inputs a TFLite model reorders first thing (boundary_transpose.cpp).
#pragma once

#include <cstdint>
#include <map>

#include "export/tflite/model.h"

namespace tigris::frontend::tflite {

// Subgraph input -> index of the one TRANSPOSE that reads it, for rank-4 inputs whose only
// use is a TRANSPOSE with permutation [0, 2, 3, 1] (NCHW -> NHWC, as models converted from
// PyTorch begin). Such an input is the transposed tensor given in channels-first order: the
// caller passes the same array, and the runtime's input placement does the reordering that
// the operator did, so the plan holds no whole-tensor transpose of the input.
std::map<int32_t, size_t> channels_first_inputs(const tigris::tflite::Model& m, const tigris::tflite::SubGraph& sg);

}  // namespace tigris::frontend::tflite
