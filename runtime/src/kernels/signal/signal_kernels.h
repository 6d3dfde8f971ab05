// TensorFlow Lite Micro's signal library operators (docs/operators.md §3.9): one entry point,
// reached through the float dispatcher (their data is plain int16 / int32 / int64).
#pragma once

#include "kernels/common/geometry.h"

namespace tigris_rt {
namespace signal {

using kern::Call;

// The op's kernel by opcode; 0, or -1 when an operand or table is missing or out of range.
int run(const Call &c);  // signal.cpp

}  // namespace signal
}  // namespace tigris_rt
