// TFLite Micro's arena: the planner's head and the persistent tail (docs/export.md).
#include "export/tflm/arena.h"

#include <cstring>

#include "export/tflm/kernels.h"
#include "export/tflm/planner.h"

namespace tigris::tflm {
namespace {

using tflite::Model;
using tflite::SubGraph;
using tflite::TensorType;

constexpr int64_t kBufferAlign = 16;

int64_t round_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

// Framework struct sizes and alignments of one ABI.
struct Abi {
  int64_t pointer;
  SizeAlign eval_tensor, tflite_tensor, node_and_registration, affine_quantization;
  SizeAlign arena_allocator, planner, micro_allocator, builtin_data_allocator;
};

Abi abi_of(Target t) {
  if (t == Target::Lp64) return {8, {24, 8}, {64, 8}, {64, 8}, {24, 8}, {72, 8}, {72, 8}, {72, 8}, {16, 8}};
  // The 32-bit ABIs differ only in TfLiteTensor: short enums make it 31 -> 32 bytes on
  // arm-none-eabi, 37 -> 40 with 4-byte enums.
  if (t == Target::ArmNoneEabi) return {4, {12, 4}, {32, 4}, {32, 4}, {12, 4}, {36, 4}, {44, 4}, {36, 4}, {8, 4}};
  return {4, {12, 4}, {40, 4}, {32, 4}, {12, 4}, {36, 4}, {44, 4}, {36, 4}, {8, 4}};
}

// The persistent tail grows down from a 16-aligned end; padding is charged to the
// allocation that needs it.
class Tail {
 public:
  int64_t alloc(int64_t size, int64_t align) {
    int64_t next = (ptr_ - size) / align * align;
    int64_t used = ptr_ - next;
    ptr_ = next;
    return used;
  }
  int64_t used() const { return kStart - ptr_; }

 private:
  static constexpr int64_t kStart = int64_t{1} << 40;
  int64_t ptr_ = kStart;
};

void check_model(const Model& m) {
  if (m.subgraphs.size() != 1)
    throw ArenaError(Unmodeled::SeveralSubgraphs, "models with several subgraphs are not modeled");
  const SubGraph& g = m.subgraphs[0];
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const tflite::Tensor& t = g.tensors[i];
    std::string who = "tensor " + std::to_string(i) + (t.name.empty() ? "" : " (" + t.name + ")");
    if (element_size(t.type) == 0)
      throw ArenaError(Unmodeled::TensorType, std::string("a tensor type TFLite Micro's arena model does not know: ") +
                                                  tflite::tensor_type_name(t.type) + ", " + who);
    for (int32_t d : t.shape)
      if (d < 0)
        throw ArenaError(Unmodeled::TensorShape, who + " has an unknown dimension, which TFLite Micro cannot size");
    // TFLite Micro sizes tensors in an int; anything near that is no MCU model.
    if (tflite::element_count(t.shape) > (int64_t{1} << 31) / element_size(t.type))
      throw ArenaError(Unmodeled::TensorShape, who + " is larger than TFLite Micro can size");
  }
}

// Offsets of an OfflineMemoryAllocation metadata entry (-1 = planned online); empty if none.
std::vector<int64_t> offline_offsets(const Model& m) {
  for (const tflite::Metadata& md : m.metadata) {
    if (md.name != "OfflineMemoryAllocation") continue;
    const std::vector<uint8_t>& bytes = m.buffers[md.buffer].data;
    auto word = [&](size_t i) {
      int32_t v;
      std::memcpy(&v, bytes.data() + 4 * i, 4);
      return v;
    };
    size_t tensors = m.subgraphs[0].tensors.size();
    if (bytes.size() < 12 || static_cast<size_t>(word(2)) != tensors || bytes.size() < 4 * (3 + tensors))
      throw ArenaError(Unmodeled::OfflinePlan, "the OfflineMemoryAllocation metadata does not cover the model's " +
                                                   std::to_string(tensors) + " tensors");
    std::vector<int64_t> out;
    for (size_t i = 0; i < tensors; ++i) out.push_back(word(3 + i));
    return out;
  }
  return {};
}

struct Lifetime {
  int32_t first = -1, last = -1;
};

// Tensor lifetimes as TFLite Micro marks them: inputs from 0, operator i at time i + 1,
// outputs to the end.
std::vector<Lifetime> lifetimes(const SubGraph& g) {
  std::vector<Lifetime> life(g.tensors.size());
  auto create = [&](int32_t t, int32_t time) {
    if (life[t].first == -1) life[t].first = time;
  };
  for (int32_t t : g.inputs) create(t, 0), life[t].last = 0;
  int32_t time = 0;
  for (const tflite::Operator& o : g.operators) {
    ++time;
    for (int32_t t : o.outputs) create(t, time);
    for (int32_t t : o.inputs)
      if (t >= 0) life[t].last = time;
    for (int32_t t : o.outputs) life[t].last = time;
  }
  for (int32_t t : g.outputs) create(t, time), life[t].last = time;
  return life;
}

struct Head {
  int64_t bytes = 0, planned = 0, scratch = 0;
};

Head plan_head(const Model& m) {
  const SubGraph& g = m.subgraphs[0];
  std::vector<int64_t> offline = offline_offsets(m);
  std::vector<Lifetime> life = lifetimes(g);
  std::vector<PlannedBuffer> buffers;
  Head head;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const tflite::Tensor& t = g.tensors[i];
    int64_t off = offline.empty() ? -1 : offline[i];
    int64_t bytes = tflite::element_count(t.shape) * element_size(t.type);
    bool planned = !tflite::is_constant(m, t) && (!t.is_variable || off >= 0) && bytes != 0;
    if (!planned) continue;
    buffers.push_back({round_up(bytes, kBufferAlign), life[i].first, life[i].last, off, 0});
    ++head.planned;
  }
  for (size_t i = 0; i < g.operators.size(); ++i) {
    int32_t time = static_cast<int32_t>(i) + 1;
    for (int64_t bytes : kernel_scratch(m, g, g.operators[i])) {
      buffers.push_back({round_up(bytes, kBufferAlign), time, time, -1, 0});
      ++head.scratch;
    }
  }
  head.bytes = plan_greedy(buffers);
  return head;
}

void check_kernels(const Model& m) {
  for (const tflite::Operator& o : m.subgraphs[0].operators) {
    std::string why = kernel_unmodeled_reason(m, m.subgraphs[0], o);
    if (why.empty()) continue;
    bool scratch = why.find("scratch") != std::string::npos;
    throw ArenaError(scratch ? Unmodeled::Scratch : Unmodeled::Persistent, why);
  }
}

// Graph inputs or outputs: a 16-aligned pointer array, then per tensor a TfLiteTensor
// and, when quantized, its affine-quantization record and zero-point array.
void io_tensors(const Model& m, const std::vector<int32_t>& io, const Abi& abi, Tail& tail, TailParts& parts) {
  parts.persistent_buffer_data += tail.alloc(abi.pointer * static_cast<int64_t>(io.size()), kBufferAlign);
  ++parts.persistent_buffer_count;
  for (int32_t t : io) {
    const tflite::Tensor& tensor = m.subgraphs[0].tensors[t];
    parts.persistent_tensors += tail.alloc(abi.tflite_tensor.size, abi.tflite_tensor.align);
    if (tensor.quantization && tensor.quantization->affine()) {
      parts.quantization += tail.alloc(abi.affine_quantization.size, abi.affine_quantization.align);
      parts.quantization += tail.alloc(4 + 4 * static_cast<int64_t>(tensor.quantization->scale.size()), 4);
    }
  }
}

TailParts simulate_tail(const Model& m, Target target, int64_t scratch_count) {
  const Abi abi = abi_of(target);
  const SubGraph& g = m.subgraphs[0];
  Tail tail;
  TailParts parts;
  for (SizeAlign s : {abi.arena_allocator, abi.planner, abi.micro_allocator, abi.builtin_data_allocator})
    parts.objects += tail.alloc(s.size, s.align);
  parts.objects += tail.alloc(2 * abi.pointer, abi.pointer);  // SubgraphAllocations
  auto count = [](const auto& v) { return static_cast<int64_t>(v.size()); };
  parts.eval_tensors += tail.alloc(abi.eval_tensor.size * count(g.tensors), abi.eval_tensor.align);
  parts.node_and_registration +=
      tail.alloc(abi.node_and_registration.size * count(g.operators), abi.node_and_registration.align);
  std::vector<KernelAllocations> kernels;
  for (const tflite::Operator& o : g.operators) kernels.push_back(kernel_allocations(m, g, o, target));
  for (const KernelAllocations& k : kernels)
    if (k.builtin_params.size) parts.builtin_params += tail.alloc(k.builtin_params.size, k.builtin_params.align);
  for (const KernelAllocations& k : kernels) {  // Init, operator by operator
    if (k.op_data) parts.persistent_buffer_data += tail.alloc(k.op_data, kBufferAlign), ++parts.persistent_buffer_count;
    for (int64_t bytes : k.init_buffers)
      parts.persistent_buffer_data += tail.alloc(bytes, kBufferAlign), ++parts.persistent_buffer_count;
  }
  for (const KernelAllocations& k : kernels)
    for (int64_t bytes : k.prepare_buffers)
      parts.persistent_buffer_data += tail.alloc(bytes, kBufferAlign), ++parts.persistent_buffer_count;
  if (scratch_count > 0) parts.scratch_handles += tail.alloc(abi.pointer * scratch_count, abi.pointer);
  std::vector<int64_t> offline = offline_offsets(m);
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const tflite::Tensor& t = g.tensors[i];
    if (!t.is_variable || (!offline.empty() && offline[i] >= 0)) continue;
    parts.variables += tail.alloc(tflite::element_count(t.shape) * element_size(t.type), kBufferAlign);
  }
  io_tensors(m, g.inputs, abi, tail, parts);
  io_tensors(m, g.outputs, abi, tail, parts);
  return parts;
}

int64_t sum(const TailParts& p) {
  return p.objects + p.eval_tensors + p.node_and_registration + p.builtin_params + p.persistent_buffer_data +
         p.scratch_handles + p.variables + p.persistent_tensors + p.quantization;
}

}  // namespace

int64_t element_size(TensorType t) {
  switch (t) {
  case TensorType::Float32:
  case TensorType::Int32:
  case TensorType::UInt32:
  case TensorType::Resource: return 4;
  case TensorType::Float16:
  case TensorType::Int16:
  case TensorType::UInt16:
  case TensorType::BFloat16: return 2;
  case TensorType::UInt8:
  case TensorType::Int8:
  case TensorType::Bool: return 1;
  case TensorType::Int64:
  case TensorType::Float64:
  case TensorType::Complex64:
  case TensorType::UInt64: return 8;
  case TensorType::Complex128: return 16;
  default: return 0;  // STRING, VARIANT, INT4 (TFLite Micro unpacks it), INT2, UINT4, FLOAT8
  }
}

int64_t tensor_arena_bytes(const Model& m) {
  check_model(m);
  return plan_head(m).bytes;
}

HeadScope head_scope(const Model& m) {
  HeadScope scope;
  for (const SubGraph& g : m.subgraphs)
    for (const tflite::Operator& o : g.operators) {
      if (!kernel_unmodeled_reason(m, g, o).empty())
        scope.kernels_unmodeled = true;
      else if (!is_reduction(tflite::builtin_code(m, o)) && !kernel_scratch(m, g, o).empty())
        scope.other_kernel_scratch = true;
    }
  return scope;
}

Arena compute_arena(const Model& m, Target target) {
  check_model(m);
  check_kernels(m);
  Head head = plan_head(m);
  Arena a;
  a.head = head.bytes;
  a.planned_buffers = head.planned;
  a.scratch_buffers = head.scratch;
  a.tail_parts = simulate_tail(m, target, head.scratch);
  a.tail = sum(a.tail_parts);
  return a;
}

}  // namespace tigris::tflm
