// Per-operator allocations of TFLite Micro's reference kernels (docs/export.md, "The
// tail"). Sizes are sizeof/alignof of the structs on each target:
// index 0 = arm-none-eabi, 1 = ilp32, 2 = lp64.
#include "export/tflm/kernels.h"

#include <array>

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
};

// Kernels whose scratch requests TiGrIS does not size.
constexpr int32_t kScratchUnmodeled[] = {op::kCustom, op::kMirrorPad,     op::kUnidirectionalSequenceLstm,
                                         op::kSvdf,   op::kTransposeConv, op::kAddN};

const KernelSpec* find_kernel(int32_t code) {
  for (const KernelSpec& k : kKernels)
    if (k.code == code) return &k;
  return nullptr;
}

int abi_index(Target t) {
  switch (t) {
  case Target::ArmNoneEabi: return 0;
  case Target::Ilp32: return 1;
  case Target::Lp64: return 2;
  }
  return 0;
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

}  // namespace

std::vector<int64_t> reduction_scratch(const tflite::Model& m, const tflite::SubGraph& g, const tflite::Operator& o) {
  int32_t code = tflite::builtin_code(m, o);
  bool mean_or_sum = code == op::kMean || code == op::kSum;
  if (!mean_or_sum && code != op::kReduceMax && code != op::kReduceMin && code != op::kReduceAll) return {};
  const tflite::Tensor* in = input_tensor(g, o, 0);
  const tflite::Tensor* axis = input_tensor(g, o, 1);
  std::vector<int64_t> out;  // accumulator (int8/int16 MEAN, SUM), index iterator, axes
  if (mean_or_sum && in && (in->type == TensorType::Int8 || in->type == TensorType::Int16) && !o.outputs.empty())
    out.push_back(4 * tflite::element_count(g.tensors[static_cast<size_t>(o.outputs[0])].shape));
  out.push_back(4 * static_cast<int64_t>(in ? in->shape.size() : 0));
  out.push_back(4 * (axis ? tflite::element_count(axis->shape) : 0));
  return out;
}

std::string kernel_unmodeled_reason(const tflite::Model& m, const tflite::Operator& o) {
  int32_t code = tflite::builtin_code(m, o);
  for (int32_t c : kScratchUnmodeled)
    if (c == code) {
      std::string kind = tflite::builtin_name(code);
      std::string custom = tflite::operator_kind(m, o);
      if (code == op::kCustom && custom != kind) kind += " (" + custom + ")";
      return "TFLite Micro's scratch buffers for " + kind + " are not modeled";
    }
  if (!find_kernel(code))
    return std::string("TFLite Micro's persistent allocations for ") + tflite::builtin_name(code) + " are not modeled";
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
  out.prepare_buffers = prepare_buffers(code, g, o);
  out.scratch = reduction_scratch(m, g, o);
  return out;
}

}  // namespace tigris::tflm
