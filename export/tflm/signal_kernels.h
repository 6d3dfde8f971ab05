// What TFLite Micro's signal library (the CUSTOM operators SignalWindow ... SignalFilterBankLog
// of signal/micro/kernels) allocates: its Init's parameter struct and buffers, its scratch.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "export/tflite/model.h"
#include "export/tflm/kernels.h"
#include "export/tflm/target.h"

namespace tigris::tflm {

// True for a custom code of the signal library TiGrIS models.
bool is_signal_kernel(const std::string& custom_code);

// Empty if a signal operator's options give what its allocations need, else why not.
std::string signal_options_problem(const tflite::Model& m, const tflite::Operator& op);

// Allocations of a signal operator (its options checked by signal_options_problem).
KernelAllocations signal_allocations(const tflite::Model& m, const tflite::Operator& op, Target target);

// kissfft's kiss_fftr_alloc memory for a real FFT of `fft_length` on `element_bytes`
// scalars (2: int16, 4: int32 or float) with `pointer_bytes` pointers.
int64_t kiss_fftr_bytes(int64_t fft_length, int64_t element_bytes, int64_t pointer_bytes);

}  // namespace tigris::tflm
