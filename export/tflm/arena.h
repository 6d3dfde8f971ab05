// A model of TFLite Micro's arena for a plain MicroInterpreter with the reference kernels,
// the greedy memory planner and no compression (see docs/export.md, "TFLite Micro arena").
//
//   head: the planner's plan for every non-constant, non-variable tensor plus the kernels'
//         scratch buffers (ABI independent);
//   tail: every persistent allocation, simulated on a pointer for the target's ABI.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "export/tflite/model.h"
#include "export/tflm/target.h"

namespace tigris::tflm {

// Why a model's arena cannot be modeled.
enum class Unmodeled {
  SeveralSubgraphs,  // the model has more than one subgraph
  TensorType,        // a tensor type without a TFLite Micro size (or int4)
  TensorShape,       // a negative dimension
  OfflinePlan,       // an OfflineMemoryAllocation entry that does not fit the model
  Scratch,           // a kernel whose scratch requests are not sized
  Persistent,        // a kernel whose persistent allocations are not sized
};

class ArenaError : public std::runtime_error {
 public:
  ArenaError(Unmodeled kind, const std::string& reason) : std::runtime_error(reason), kind_(kind) {}
  Unmodeled kind() const { return kind_; }

 private:
  Unmodeled kind_;
};

// Bytes of the tail by what they hold; they sum to Arena::tail.
struct TailParts {
  int64_t objects = 0;                  // allocator objects and SubgraphAllocations
  int64_t eval_tensors = 0;             // TfLiteEvalTensor per tensor
  int64_t node_and_registration = 0;    // per operator
  int64_t builtin_params = 0;           // the parser's parameter structs
  int64_t persistent_buffer_data = 0;   // kernel OpData, per-channel arrays, I/O pointer arrays
  int64_t persistent_buffer_count = 0;  // number of those allocations
  int64_t scratch_handles = 0;
  int64_t variables = 0;           // data of variable tensors
  int64_t persistent_tensors = 0;  // TfLiteTensor of graph inputs and outputs
  int64_t quantization = 0;        // their quantization records
};

struct Arena {
  int64_t head = 0;  // planner plan (tensors + scratch)
  int64_t tail = 0;  // persistent allocations
  TailParts tail_parts;
  int64_t planned_buffers = 0;  // tensors planned in the head
  int64_t scratch_buffers = 0;  // scratch requests planned in the head
  int64_t used() const { return head + tail; }
};

// The head (analyze's "TFLite Micro arena" row): planner plus the modeled kernels' scratch.
// Throws ArenaError (SeveralSubgraphs, TensorType, TensorShape, OfflinePlan).
int64_t tensor_arena_bytes(const tflite::Model& m);

// What the head holds besides the planned tensors (analyze's arena row says it).
struct HeadScope {
  bool other_kernel_scratch = false;  // scratch of kernels other than the reductions is in it
  bool kernels_unmodeled = false;     // some kernel's allocations (its scratch perhaps) are not
};
HeadScope head_scope(const tflite::Model& m);

// Head and tail for a target. Also throws ArenaError for Scratch / Persistent.
Arena compute_arena(const tflite::Model& m, Target target);

// TFLite Micro's element size of a schema tensor type; 0 if it has none TiGrIS models.
int64_t element_size(tflite::TensorType t);

}  // namespace tigris::tflm
