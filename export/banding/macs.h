// Multiply-accumulates of a model: CONV_2D (output elements x kernel x input channels),
// DEPTHWISE_CONV_2D (output elements x kernel), FULLY_CONNECTED (output elements x input
// features). Other operators count 0.
#pragma once

#include <cstdint>

#include "export/tflite/model.h"

namespace tigris::banding {

int64_t count_macs(const tflite::Model& m);

}  // namespace tigris::banding
