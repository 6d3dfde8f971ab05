// Plan emission: normalized graph + schedule -> PlanDesc -> .tgrs bytes (plan_writer).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/plan/plan_writer.h"
#include "compiler/schedule/stages.h"

namespace tigris::plan {

struct EmitOptions {
  std::string model_name;
  uint32_t budget = 0;            // header budget (the fast budget compiled for)
  uint32_t unscheduled_peak = 0;  // header peak
  bool xip = false;
};

// The plan description (tests inspect it); throws CompileError(Unsupported) on the first
// node without a plan form.
PlanDesc describe_plan(const ir::Graph& g, const schedule::Schedule& s, const EmitOptions& o);

// Weight blob bytes: every weight 16-byte aligned.
uint64_t weight_blob_bytes(const std::vector<WeightDesc>& weights);

// Plan tensor flags for an IR tensor (model I/O, LINEAR for rank-3/4 tensors in model order).
uint8_t tensor_flags(const ir::Graph& g, ir::TensorId id);

}  // namespace tigris::plan
