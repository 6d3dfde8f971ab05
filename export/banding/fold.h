// Folding a PAD into the convolution that follows it: a PAD whose paddings equal the
// convolution's SAME padding, in front of a VALID CONV_2D / DEPTHWISE_CONV_2D that is its
// only reader, is removed and the convolution switched to SAME (TFLite Micro's int8
// convolutions skip out-of-image taps, which is what padding with the zero point gives).
#pragma once

#include <vector>

#include "export/tflite/model.h"

namespace tigris::banding {

struct Folded {
  tflite::Model model;
  int folded = 0;
  std::vector<int> origin;  // per operator of `model`, its index in the input
};

Folded fold_pads(const tflite::Model& m);

}  // namespace tigris::banding
