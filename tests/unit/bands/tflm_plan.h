// Plans of a whole int8 model from its TensorFlow Lite Micro dump (kernels_s8/tflm_dump.h):
// one stage per operator, with the dump's constants and TFLite's quantization, and the
// same plan with its convolutions banded (tiles or chains).
#pragma once

#include <string>

#include "bands_fixture.h"
#include "unit/kernels_s8/tflm_dump.h"

namespace bandtest {

// One stage per operator of `d` (CONV_2D and DEPTHWISE_CONV_2D with a fused ReLU,
// AVERAGE_POOL_2D, RESHAPE, FULLY_CONNECTED, SOFTMAX); false on any other operator or a
// geometry that is neither SAME nor VALID.
bool tflm_model_plan(const s8test::Dump& d, const std::string& name, PlanDesc* p);

// Every convolution stage of `p` banded by `rec` (facts filled).
PlanDesc tile_convs(PlanDesc p, const tigris_tile_plan_v11_t& rec);

// Runs of convolution stages of `p` chained `len` at a time, `tile_h` rows per tile.
PlanDesc chain_convs(PlanDesc p, uint16_t len, uint16_t tile_h, bool line_buffered);

}  // namespace bandtest
