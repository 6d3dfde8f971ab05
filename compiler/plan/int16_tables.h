// The lookup tables the int16 kernels read as their op's weight (int16_tables.cpp).
#pragma once

#include <cstdint>
#include <vector>

namespace tigris::plan {

// LOGISTIC / TANH (int16): sigmoid(i / 24) in Q0.16 for i = 0..255, each sample lowered by
// half the midpoint error of linear interpolation to the next one (so interpolating between
// entries errs evenly); the last entry saturates to 65535. 256 little-endian uint16.
std::vector<uint8_t> sigmoid_table_bytes();

// SOFTMAX (int16): TensorFlow Lite's two 513-entry int16 LUTs, exp on [-10, 0] then
// 1 / (1 + x) on [0, 1], as its LUTPopulate builds them (float32 arithmetic, a 512-step
// interpolation table with midpoint-error correction). Little-endian int16, exp first.
std::vector<uint8_t> softmax_lut_bytes();

}  // namespace tigris::plan
