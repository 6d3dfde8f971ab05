#include "tools/tigris/codegen_plan.h"

#include <algorithm>
#include <cstring>

#include "backends/common/accel_routes.h"
#include "compiler/report/format.h"
#include "kernels/kernel_set.h"
#include "kernels/s16/s16_kernels.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tools/tigris/cli_errors.h"

namespace tigris::cli {
namespace {

// The slow bytes the compiler scheduled, from the MEMORY section (schema 11+); 0 without one.
// The loader has validated the section directory and the section's extent.
uint32_t memory_section_slow_peak(const tigris_plan_t& plan, const std::vector<uint8_t>& bytes) {
  const uint32_t dir = plan.header->section_dir_off;
  for (uint32_t off = dir; off + sizeof(tigris_section_entry_t) <= bytes.size();
       off += sizeof(tigris_section_entry_t)) {
    tigris_section_entry_t e;
    std::memcpy(&e, bytes.data() + off, sizeof e);
    if (e.type == TIGRIS_SEC_END) break;
    if (e.type == TIGRIS_SEC_MEMORY && e.offset + sizeof(tigris_memory_section_t) <= bytes.size()) {
      tigris_memory_section_t m;
      std::memcpy(&m, bytes.data() + e.offset, sizeof m);
      return m.slow_peak;
    }
  }
  return 0;
}

}  // namespace

std::string comment_safe(std::string text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    const bool opens_or_closes = i > 0 && ((c == '/' && text[i - 1] == '*') || (c == '*' && text[i - 1] == '/'));
    if (c < 0x20 || c == 0x7f || c == '\\' || opens_or_closes) text[i] = '_';
  }
  return text;
}

namespace {

CodegenIface iface_of(const tigris_plan_t& plan, uint16_t idx) {
  const tigris_tensor_t& t = plan.tensors[idx];
  const int32_t* dims = tigris_tensor_shape(&plan, &t);
  std::vector<int64_t> shape(dims, dims + t.ndim);
  return CodegenIface{comment_safe(tigris_tensor_name(&plan, &t)), report::format_shape(shape),
                      report::dtype_name(tigris_tensor_declared_dtype(&t)), tigris_iface_bytes(&plan, idx)};
}

uint32_t align_up(uint64_t v, uint32_t a) { return static_cast<uint32_t>((v + a - 1) / a * a); }

}  // namespace

Backend parse_backend(const std::string& text) {
  if (text == "reference") return Backend::kReference;
  if (text == "esp-nn") return Backend::kEspNn;
  if (text == "cmsis-nn") return Backend::kCmsisNn;
  throw UsageError("unknown backend '" + text + "'; choose reference, esp-nn or cmsis-nn");
}

const char* backend_name(Backend backend) {
  switch (backend) {
  case Backend::kEspNn: return "esp-nn";
  case Backend::kCmsisNn: return "cmsis-nn";
  case Backend::kReference: break;
  }
  return "reference";
}

CodegenPlan describe_plan(const tigris_plan_t& plan, const tigris_plan_limits_t& required,
                          const std::vector<uint8_t>& bytes, const std::string& file) {
  const tigris_file_header_t& h = *plan.header;
  CodegenPlan p;
  p.inspection = report::inspect_plan(plan, required, file, bytes.size());
  p.file = file;
  p.file_bytes = static_cast<uint32_t>(bytes.size());
  p.int8 = tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8;
  p.num_tensors = h.num_tensors;
  p.num_stages = h.num_stages;
  for (const report::PlanStage& s : p.inspection.stages) {
    if (s.tiling_kind == "tiles") p.tiled_stages++;
    if (s.tiling_kind == "chain head" || s.tiling_kind == "chain member") p.chained_stages++;
  }
  p.fast_required = tigris_fast_arena_required(&plan);
  p.slow_peak = memory_section_slow_peak(plan, bytes);
  p.workspace_bytes = tigris_executor_workspace_required(&plan);
  p.state_bytes = static_cast<uint32_t>(tigris_state_required(&plan));
  p.cmsis_reserve = tigris_accel::cmsis_nn_reserve_bound(&plan);
  p.required = required;
  bool used[tigris_rt::ops::kFamilyCount] = {};
  bool float32 = false;  // an operator on float32 data (TIGRIS_NO_KERNEL_FLOAT32 otherwise)
  bool int16 = false;    // an operator reading or writing quantized int16 data (TIGRIS_NO_KERNEL_INT16 otherwise)
  for (uint32_t i = 0; i < h.num_ops; ++i) {
    const tigris_rt::ops::OpInfo* row = tigris_rt::ops::op_info(plan.ops[i].op_type);
    if (row != nullptr) used[static_cast<uint8_t>(row->family)] = true;
    const uint8_t dtype = tigris_rt::op_kernel_dtype(&plan, &plan.ops[i]);
    float32 = float32 || dtype == TIGRIS_DTYPE_FLOAT32;
    int16 = int16 || dtype == TIGRIS_DTYPE_INT16 || tigris_s16::owns(&plan, &plan.ops[i]) ||
            tigris_rt::op_writes_int16(&plan, &plan.ops[i]);
  }
  for (uint8_t f = 0; f < tigris_rt::ops::kFamilyCount; ++f) {
    const char* macro = tigris_rt::ops::family_macro(static_cast<tigris_rt::ops::Family>(f));
    if (macro == nullptr) continue;
    if (used[f])
      p.families.push_back(macro);
    else
      p.unused_family_defines.push_back(std::string("-DTIGRIS_NO_KERNEL_") + macro);
  }
  // The plan's operators, in opcode order: a runtime built with TIGRIS_ONLY_OPS keeps no other
  // op's kernel, rule or table row (ops/op_family.h), even within a family the plan uses.
  std::string only_ops;
  for (uint32_t code = 1; code <= tigris_rt::ops::kOpCount; ++code) {
    bool present = false;
    for (uint32_t i = 0; i < h.num_ops && !present; ++i) present = plan.ops[i].op_type == code;
    if (present) only_ops += (only_ops.empty() ? "" : ",") + std::string("TIGRIS_OP_") + tigris_rt::ops::op_def(code)->id;
  }
  if (!only_ops.empty()) p.unused_family_defines.push_back("-DTIGRIS_ONLY_OPS=" + only_ops);
  if (!float32) p.unused_family_defines.push_back("-DTIGRIS_NO_KERNEL_FLOAT32");
  if (!int16) p.unused_family_defines.push_back("-DTIGRIS_NO_KERNEL_INT16");
  // Runtime features (common/features.h): bands for a plan with no chain and no tileable
  // record, control flow for one with no If / While, weight blocks for one without the section, state for one without state entries.
  bool banded = false, control_flow = false;
  for (uint32_t s = 0; s < h.num_stages; ++s)
    banded = banded || plan.stages[s].chain_len != 0 || tigris_stage_tiles(&plan, &plan.stages[s]).tileable;
  for (uint32_t i = 0; i < h.num_ops; ++i)
    control_flow = control_flow || plan.ops[i].op_type == TIGRIS_OP_IF || plan.ops[i].op_type == TIGRIS_OP_WHILE;
  control_flow = control_flow || plan.num_subgraphs != 0;  // a build without it refuses the SUBGRAPHS section
  if (!banded) p.unused_family_defines.push_back("-DTIGRIS_NO_BANDS");
  if (!control_flow) p.unused_family_defines.push_back("-DTIGRIS_NO_CONTROL_FLOW");
  if (plan.weight_blocks == nullptr) p.unused_family_defines.push_back("-DTIGRIS_NO_WEIGHT_BLOCKS");
  if (plan.num_state == 0) p.unused_family_defines.push_back("-DTIGRIS_NO_STATE");
  bool converts = false;  // a model input or output declared in another dtype than it is stored in
  for (uint32_t i = 0; i < h.num_tensors; ++i) converts = converts || plan.tensors[i].iface_dtype != 0;
  if (!converts) p.unused_family_defines.push_back("-DTIGRIS_NO_IFACE_CONVERSION");
  p.subgraphs = plan.num_subgraphs;
  p.subgraph_depth = plan.subgraph_depth;
  for (uint32_t i = 0; i < h.num_model_inputs; ++i) p.inputs.push_back(iface_of(plan, plan.model_inputs[i]));
  for (uint32_t i = 0; i < h.num_model_outputs; ++i) p.outputs.push_back(iface_of(plan, plan.model_outputs[i]));
  // The slow buffer holds what the compiler scheduled there (schema 11 states it, model
  // inputs and outputs included); an earlier plan gets room for every activation at once.
  uint64_t slow = p.slow_peak;
  if (h.version < 11) {
    for (uint32_t i = 0; i < h.num_tensors; ++i) {
      if (!(plan.tensors[i].flags & TIGRIS_TENSOR_CONSTANT))
        slow += align_up(plan.tensors[i].size_bytes, TIGRIS_PLAN_MAX_ALIGN);
    }
  }
  p.slow_bytes = align_up(slow, TIGRIS_PLAN_MAX_ALIGN);
  return p;
}

RouteCounts count_routes(const tigris_plan_t& plan, Backend backend) {
  RouteCounts counts;
  if (backend == Backend::kReference) {
    counts.native = plan.header->num_ops;
    return counts;
  }
  const bool int8 = tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8;
  const tigris_accel::Backend accel =
      backend == Backend::kCmsisNn ? tigris_accel::Backend::kCmsisNn : tigris_accel::Backend::kEspNn;
  for (uint32_t i = 0; i < plan.header->num_ops; ++i) {
    switch (tigris_accel::route(accel, int8, plan.ops[i].op_type)) {
    case tigris_accel::Route::kNative: counts.native++; break;
    case tigris_accel::Route::kInt8Reference: counts.fallback++; break;
    case tigris_accel::Route::kFloatReference: counts.float_reference++; break;
    }
  }
  return counts;
}

}  // namespace tigris::cli
