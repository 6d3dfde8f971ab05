// What TFLite Micro's reference kernels allocate, per operator and per target ABI:
// the parser's builtin parameter struct, the kernel's OpData (Init), its extra persistent
// buffers (Prepare) and its scratch-buffer requests (planned in the head).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/tflite/model.h"
#include "export/tflm/target.h"

namespace tigris::tflm {

struct SizeAlign {
  int64_t size = 0;  // 0 = nothing allocated
  int64_t align = 1;
};

struct KernelAllocations {
  SizeAlign builtin_params;              // step "builtin data", alignment alignof(struct)
  int64_t op_data = 0;                   // Init: 16-aligned, 0 = none
  std::vector<int64_t> init_buffers;     // Init's further buffers after the OpData, 16-aligned
  std::vector<int64_t> prepare_buffers;  // Prepare: each 16-aligned, in order
  std::vector<int64_t> scratch;          // scratch requests in bytes, in order
};

// Empty string if TiGrIS models the operator, else the reason it does not (the spec's
// "TFLite Micro's scratch buffers for KIND are not modeled" / "... persistent
// allocations for KIND are not modeled").
std::string kernel_unmodeled_reason(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& op);

// Allocations of one operator of subgraph `g` (the operator must be modeled).
KernelAllocations kernel_allocations(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& op,
                                     Target target);

// Scratch requests of a modeled operator, in request order (the reductions MEAN, SUM,
// REDUCE_MAX/MIN/ALL, SVDF, UNIDIRECTIONAL_SEQUENCE_LSTM, MIRROR_PAD, the signal library's
// SignalRfft);
// empty for every other operator, and for one whose scratch is not modeled.
std::vector<int64_t> kernel_scratch(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& op);

// MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL.
bool is_reduction(int32_t builtin_code);

}  // namespace tigris::tflm
