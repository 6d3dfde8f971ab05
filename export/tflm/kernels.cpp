// Per-operator allocations of TFLite Micro's reference kernels (docs/export.md, "The
// tail"). Sizes are sizeof/alignof of the structs on each target:
// index 0 = arm-none-eabi, 1 = ilp32, 2 = lp64.
#include "export/tflm/kernels.h"

#include <array>

#include "export/tflm/arena.h"
#include "export/tflm/signal_kernels.h"

namespace tigris::tflm {
namespace {

namespace op = tflite::op;
using tflite::TensorType;

struct KernelSpec {
  int32_t code;
  std::array<SizeAlign, 3> params;  // builtin parameter struct from the parser
  std::array<int64_t, 3> op_data;   // Init's OpData
};

constexpr SizeAlign kNone{0, 1};
constexpr std::array<SizeAlign, 3> same(SizeAlign s) { return {s, s, s}; }
constexpr std::array<int64_t, 3> same(int64_t n) { return {n, n, n}; }

// {activation enum, bool}: short enums shrink it to 2 bytes on arm-none-eabi.
constexpr std::array<SizeAlign, 3> kAddSubParams{SizeAlign{2, 1}, {8, 4}, {8, 4}};

constexpr KernelSpec kKernels[] = {
    {op::kAdd, kAddSubParams, same(60)},
    {op::kSub, kAddSubParams, same(52)},
    {op::kMul, {SizeAlign{1, 1}, {4, 4}, {4, 4}}, same(36)},
    {op::kAveragePool2D, same({40, 4}), same(32)},
    {op::kMaxPool2D, same({40, 4}), same(32)},
    {op::kConv2D, same({28, 4}), {56, 56, 72}},
    {op::kDepthwiseConv2D, same({28, 4}), {56, 56, 72}},
    {op::kFullyConnected, {SizeAlign{5, 1}, {16, 4}, {16, 4}}, {48, 48, 64}},
    {op::kConcatenation, same({8, 4}), {24, 24, 40}},
    {op::kSoftmax, same({4, 4}), {56, 56, 80}},
    {op::kLeakyRelu, same({4, 4}), same(24)},
    {op::kMean, same({1, 1}), same(44)},
    {op::kSum, same({1, 1}), same(44)},
    {op::kReduceMax, same({1, 1}), same(44)},
    {op::kReduceMin, same({1, 1}), same(44)},
    {op::kReduceAll, same({1, 1}), same(44)},
    {op::kReshape, same({36, 4}), same(0)},
    {op::kSqueeze, same({36, 4}), same(0)},
    {op::kStridedSlice, same({24, 4}), same(84)},
    {op::kResizeBilinear, same({2, 1}), same(0)},
    {op::kResizeNearestNeighbor, same({2, 1}), same(0)},
    {op::kPad, same(kNone), same(56)},
    {op::kPadV2, same(kNone), same(56)},
    {op::kQuantize, same(kNone), same(32)},
    {op::kDequantize, same(kNone), same(32)},
    {op::kHardSwish, same(kNone), same(20)},
    {op::kLogistic, same(kNone), same(16)},
    {op::kTanh, same(kNone), same(16)},
    {op::kRelu, same(kNone), same(28)},
    {op::kRelu6, same(kNone), same(8)},
    {op::kAbs, same(kNone), same(28)},
    {op::kTranspose, same(kNone), same(0)},
    {op::kSlice, same(kNone), same(0)},
    {op::kMaximum, same(kNone), same(0)},
    {op::kMinimum, same(kNone), same(0)},
    {op::kCast, {SizeAlign{2, 1}, {8, 4}, {8, 4}}, same(0)},  // {TfLiteType in, out}; no Init
    {op::kDiv, {SizeAlign{1, 1}, {4, 4}, {4, 4}}, same(28)},
    // {int rank, activation enum, bool}; OpDataSvdf: 9 ints.
    {op::kSvdf, {SizeAlign{8, 4}, {12, 4}, {12, 4}}, same(36)},
    // {activation, 2 floats, 3 bools}; OpDataLSTM: size and cell-state info, 8 FullyConnectedParams,
    // 3 ArithmeticParams (int64 members: 8-aligned on every target), 4 buffer indices.
    {op::kUnidirectionalSequenceLstm, same({16, 4}), same(688)},
    {op::kMirrorPad, {SizeAlign{1, 1}, {4, 4}, {4, 4}}, same(20)},  // {mode enum}; OpDataMirrorPad: 5 ints
    {op::kCustom, same(kNone), same(0)},  // the signal library: signal_kernels.cpp
};

// Kernels whose scratch requests TiGrIS does not size (and CUSTOM operators outside the
// signal library).
constexpr int32_t kScratchUnmodeled[] = {op::kTransposeConv, op::kAddN};

const KernelSpec* find_kernel(int32_t code) {
  for (const KernelSpec& k : kKernels)
    if (k.code == code) return &k;
  return nullptr;
}


const tflite::Tensor* input_tensor(const tflite::SubGraph& g, const tflite::Operator& o, size_t i) {
  if (i >= o.inputs.size() || o.inputs[i] < 0) return nullptr;
  return &g.tensors[static_cast<size_t>(o.inputs[i])];
}

int64_t dim(const tflite::Tensor* t, size_t i) { return t && i < t->shape.size() ? t->shape[i] : 0; }

// Persistent buffers the kernel allocates in Prepare.
std::vector<int64_t> prepare_buffers(int32_t code, const tflite::SubGraph& g, const tflite::Operator& o) {
  switch (code) {
  case op::kConv2D: {  // per-channel output multiplier and shift, by output channel
    int64_t n = 4 * dim(input_tensor(g, o, 1), 0);
    return {n, n};
  }
  case op::kDepthwiseConv2D: {
    int64_t n = 4 * dim(input_tensor(g, o, 1), 3);
    return {n, n};
  }
  case op::kFullyConnected: {  // only for per-channel filters
    const tflite::Tensor* f = input_tensor(g, o, 1);
    if (f && f->quantization && f->quantization->affine() && f->quantization->scale.size() > 1) {
      int64_t n = 4 * static_cast<int64_t>(f->quantization->scale.size());
      return {n, n};
    }
    return {};
  }
  case op::kSoftmax: {  // two 513-entry int16 lookup tables for int16 input
    const tflite::Tensor* in = input_tensor(g, o, 0);
    if (in && in->type == TensorType::Int16) return {1026, 1026};
    return {};
  }
  case op::kReshape: {  // a writable copy of the output dims when one is -1
    if (o.outputs.empty()) return {};
    const tflite::Tensor& out = g.tensors[static_cast<size_t>(o.outputs[0])];
    for (int32_t d : out.shape)
      if (d == -1) return {4 + 4 * static_cast<int64_t>(out.shape.size())};
    return {};
  }
  default: return {};
  }
}

// SVDF (svdf_common.cc, PrepareSvdf): int8 input: int32 accumulators for batch x filters and
// batch x units (filters / rank); float: batch x filters floats.
std::vector<int64_t> svdf_scratch(const tflite::SubGraph& g, const tflite::Operator& o) {
  const tflite::Tensor* in = input_tensor(g, o, 0);
  const auto* opts = o.options.get<tflite::SVDFOptions>();
  int64_t batch = dim(in, 0), filters = dim(input_tensor(g, o, 1), 0);
  if (in && in->type == TensorType::Int8) return {4 * batch * filters, 4 * batch * (filters / opts->rank)};
  return {4 * batch * filters};
}

// UNIDIRECTIONAL_SEQUENCE_LSTM (Prepare): four buffers of batch x state elements of the cell
// state's type; the batch is input dim 1 when time-major, else dim 0.
std::vector<int64_t> lstm_scratch(const tflite::SubGraph& g, const tflite::Operator& o) {
  const auto* opts = o.options.get<tflite::UnidirectionalSequenceLstmOptions>();
  const tflite::Tensor* in = input_tensor(g, o, 0);
  int64_t batch = dim(in, opts && opts->time_major ? 1 : 0);
  int64_t state = dim(input_tensor(g, o, 18), 1);
  const tflite::Tensor* cell = input_tensor(g, o, 19);
  int64_t bytes = batch * state * (cell ? element_size(cell->type) : 0);
  return {bytes, bytes, bytes, bytes};
}

// Why a modeled kernel's allocations cannot be sized for this operator ("" if they can).
std::string shape_problem(int32_t code, const tflite::SubGraph& g, const tflite::Operator& o) {
  if (code == op::kSvdf) {
    const auto* opts = o.options.get<tflite::SVDFOptions>();
    if (!opts || opts->rank <= 0) return "its rank is missing";
    if (!input_tensor(g, o, 0) || !input_tensor(g, o, 1)) return "its input or feature weights are missing";
  }
  if (code == op::kUnidirectionalSequenceLstm) {
    if (!input_tensor(g, o, 0) || !input_tensor(g, o, 18) || !input_tensor(g, o, 19))
      return "its input or state tensors are missing";
  }
  if (code == op::kMirrorPad && !input_tensor(g, o, 0)) return "its input is missing";
  return {};
}

std::vector<int64_t> reduction_scratch(const tflite::SubGraph& g, const tflite::Operator& o, int32_t code) {
  bool mean_or_sum = code == op::kMean || code == op::kSum;
  const tflite::Tensor* in = input_tensor(g, o, 0);
  const tflite::Tensor* axis = input_tensor(g, o, 1);
  std::vector<int64_t> out;  // accumulator (int8/int16 MEAN, SUM), index iterator, axes
  if (mean_or_sum && in && (in->type == TensorType::Int8 || in->type == TensorType::Int16) && !o.outputs.empty())
    out.push_back(4 * tflite::element_count(g.tensors[static_cast<size_t>(o.outputs[0])].shape));
  out.push_back(4 * static_cast<int64_t>(in ? in->shape.size() : 0));
  out.push_back(4 * (axis ? tflite::element_count(axis->shape) : 0));
  return out;
}


}  // namespace

bool is_reduction(int32_t code) {
  return code == op::kMean || code == op::kSum || code == op::kReduceMax || code == op::kReduceMin ||
         code == op::kReduceAll;
}

std::vector<int64_t> kernel_scratch(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& o) {
  if (!kernel_unmodeled_reason(m, g, o).empty()) return {};
  int32_t code = tflite::builtin_code(m, o);
  if (is_reduction(code)) return reduction_scratch(g, o, code);
  if (code == op::kSvdf) return svdf_scratch(g, o);
  if (code == op::kUnidirectionalSequenceLstm) return lstm_scratch(g, o);
  if (code == op::kMirrorPad) {  // two int arrays of the input's rank
    int64_t rank = 4 * static_cast<int64_t>(input_tensor(g, o, 0)->shape.size());
    return {rank, rank};
  }
  if (code == op::kCustom) return signal_allocations(m, o, Target::Lp64).scratch;
  return {};
}

std::string kernel_unmodeled_reason(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& o) {
  int32_t code = tflite::builtin_code(m, o);
  std::string kind = tflite::builtin_name(code);
  if (code == op::kCustom) kind += " (" + tflite::operator_kind(m, o) + ")";
  bool scratch_unmodeled = code == op::kCustom && !is_signal_kernel(tflite::operator_kind(m, o));
  for (int32_t c : kScratchUnmodeled) scratch_unmodeled |= c == code;
  if (scratch_unmodeled) return "TFLite Micro's scratch buffers for " + kind + " are not modeled";
  if (!find_kernel(code)) return "TFLite Micro's persistent allocations for " + kind + " are not modeled";
  std::string problem = code == op::kCustom ? signal_options_problem(m, o) : shape_problem(code, g, o);
  if (!problem.empty()) return "TFLite Micro's scratch buffers for " + kind + " are not modeled: " + problem;
  return {};
}

KernelAllocations kernel_allocations(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& o,
                                     Target target) {
  int32_t code = tflite::builtin_code(m, o);
  const KernelSpec* k = find_kernel(code);
  KernelAllocations out;
  if (!k) return out;
  int abi = abi_index(target);
  out.builtin_params = k->params[abi];
  out.op_data = k->op_data[abi];
  if (code == op::kCustom) out = signal_allocations(m, o, target);
  out.prepare_buffers = prepare_buffers(code, g, o);
  out.scratch = kernel_scratch(m, g, o);
  return out;
}

}  // namespace tigris::tflm
