// Per-tensor facts over the op order, and the normal-stage byte count.
//
// The normal path of the executor (docs/executor.md §3) loads every stage input from slow
// memory at the start of the stage, allocates each op's outputs before the op runs, releases
// a tensor after its last read in the stage, keeps the stage outputs (and outputs nobody
// reads) to the end, and from schema 11 compacts rather than rise above the stage's stated
// peak: so it holds exactly the largest live set below (sizes rounded to
// TIGRIS_PLAN_MAX_ALIGN), which is what a stage states and what the runtime measures.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/ir/graph.h"

namespace tigris::schedule {

struct Usage {
  std::vector<int> producer;            // op index, -1 model input, -2 none (constants)
  std::vector<std::vector<int>> reads;  // ops reading it, ascending, unique (activations only)
  std::vector<uint64_t> aligned;        // aligned_size(bytes)
  std::vector<char> is_output;

  explicit Usage(const ir::Graph& g);

  // Read at or after op `step`, or a model output.
  bool needed_from(ir::TensorId id, int step) const;
  // Last read in ops [first, end), or -1.
  int last_read_in(ir::TensorId id, int first, int end) const;
};

// Inputs (external activations read, in order of first read) and outputs (produced and
// needed after `end`, in production order) of ops [first, end).
void range_io(const ir::Graph& g, const Usage& u, int first, int end, std::vector<ir::TensorId>* inputs,
              std::vector<ir::TensorId>* outputs);

// Fast bytes the normal path holds for ops [first, end). Inputs read in place (a one-stage
// plan) are held and released like loaded ones: they are in the arena from the start.
uint64_t normal_stage_peak(const ir::Graph& g, const Usage& u, int first, int end);

// Bytes of a weight in a plan's weight block (entries are 16-aligned).
uint64_t weight_entry_bytes(const ir::Tensor& t);

// The largest weight bytes one op reads (its constants, 16-aligned each): the smallest
// decompressed block any -c lz4 plan of this graph holds.
uint64_t largest_op_weights(const ir::Graph& g);

// Sum of the tensors' bytes (unaligned), each once.
uint64_t tensor_bytes(const ir::Graph& g, const std::vector<ir::TensorId>& ids);

}  // namespace tigris::schedule
