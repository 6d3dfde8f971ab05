// The signal library's allocations (signal/micro/kernels/*.cc at 90b983c2, read for facts).
// Every Init allocates its parameter struct first; SignalRfft then its kissfft state,
// SignalFilterBank a work area of num_channels + 1 uint64, SignalFilterBankSpectralSubtraction
// its noise estimate of num_channels uint32 (all 16-aligned persistent buffers). SignalRfft's
// Prepare requests one scratch buffer of fft_length elements. SignalFftAutoScale and
// SignalFilterBankSquareRoot have no Init and allocate nothing.
#include "export/tflm/signal_kernels.h"

#include <array>

#include "export/tflite/flexbuffer.h"

namespace tigris::tflm {
namespace {

using tflite::FlexError;
using tflite::FlexMap;
using tflite::TensorType;

// Parameter structs by ABI (arm-none-eabi, ilp32, lp64).
struct SignalKernel {
  const char* code;
  std::array<int64_t, 3> params;
};

// SignalRfft: {4 x int32, TfLiteType, T*, int, int8_t*}; SignalFilterBank: {FilterbankConfig
// (int32, 5 pointers, 2 x int32), uint64_t*}; spectral subtraction: {SpectralSubtractionConfig
// (8 x 32-bit, bool), uint32_t*, size_t}.
constexpr SignalKernel kSignalKernels[] = {
    {"SignalWindow", {8, 8, 8}},
    {"SignalFftAutoScale", {0, 0, 0}},
    {"SignalRfft", {32, 32, 48}},
    {"SignalEnergy", {8, 8, 8}},
    {"SignalFilterBank", {36, 36, 64}},
    {"SignalFilterBankSquareRoot", {0, 0, 0}},
    {"SignalFilterBankSpectralSubtraction", {44, 44, 56}},
    {"SignalPCAN", {4, 4, 4}},
    {"SignalFilterBankLog", {8, 8, 8}},
};

const SignalKernel* find_signal(const std::string& code) {
  for (const SignalKernel& k : kSignalKernels)
    if (code == k.code) return &k;
  return nullptr;
}



// The scalar bytes of SignalRfft's T (a TFLite tensor type), 0 if the kernel has no FFT for it.
int64_t fft_element_bytes(int64_t type) {
  switch (static_cast<TensorType>(type)) {
  case TensorType::Int16: return 2;
  case TensorType::Int32:
  case TensorType::Float32: return 4;
  default: return 0;
  }
}

FlexMap options(const tflite::Operator& o) { return FlexMap(*o.custom_options); }

}  // namespace

bool is_signal_kernel(const std::string& code) { return find_signal(code) != nullptr; }

int64_t kiss_fftr_bytes(int64_t fft_length, int64_t element_bytes, int64_t pointer_bytes) {
  const int64_t cpx = 2 * element_bytes;
  // kiss_fft_state {int nfft, inverse, factors[2 * 32]; kiss_fft_cpx twiddles[1]}, 4-aligned.
  const int64_t state = (8 + 4 * 64 + cpx + 3) / 4 * 4;
  const int64_t n = fft_length / 2;  // the complex FFT of half the length
  const int64_t sub = state + cpx * (n - 1);
  // kiss_fftr_state {substate, tmpbuf, super_twiddles}, then n + n / 2 complex values.
  return 3 * pointer_bytes + sub + cpx * (n * 3 / 2);
}

std::string signal_options_problem(const tflite::Model& m, const tflite::Operator& o) {
  const std::string code = tflite::operator_kind(m, o);
  bool rfft = code == "SignalRfft";
  if (!rfft && code != "SignalFilterBank" && code != "SignalFilterBankSpectralSubtraction") return {};
  if (!o.custom_options) return "its options are missing";
  try {
    FlexMap opts = options(o);
    if (!rfft) {
      opts.integer("num_channels", 1, 1 << 20);
      return {};
    }
    if (fft_element_bytes(opts.integer("T")) == 0) return "T is not int16, int32 or float32";
    if (opts.integer("fft_length", 2, 1 << 24) % 2 != 0) return "fft_length is odd";
    return {};
  } catch (const FlexError& e) {
    return std::string("its options: ") + e.what();
  }
}

KernelAllocations signal_allocations(const tflite::Model& m, const tflite::Operator& o, Target target) {
  const std::string code = tflite::operator_kind(m, o);
  const SignalKernel* k = find_signal(code);
  KernelAllocations out;
  if (!k) return out;
  const int abi = abi_index(target);
  const int64_t pointer = target == Target::Lp64 ? 8 : 4;
  out.op_data = k->params[abi];
  if (code == "SignalRfft") {
    FlexMap opts = options(o);
    int64_t bytes = fft_element_bytes(opts.integer("T"));
    int64_t length = opts.integer("fft_length");
    out.init_buffers = {kiss_fftr_bytes(length, bytes, pointer)};
    out.scratch = {length * bytes};
  } else if (code == "SignalFilterBank") {
    out.init_buffers = {8 * (options(o).integer("num_channels") + 1)};
  } else if (code == "SignalFilterBankSpectralSubtraction") {
    out.init_buffers = {4 * options(o).integer("num_channels")};
  }
  return out;
}

}  // namespace tigris::tflm
