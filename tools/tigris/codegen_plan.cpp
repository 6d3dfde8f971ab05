#include "tools/tigris/codegen_plan.h"

#include <algorithm>
#include <cstring>

#include "compiler/report/format.h"
#include "compiler/report/op_names.h"
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

// The largest vendor scratch over CMSIS-NN's builds, plus the largest per-channel multiplier
// and shift expansion (8 bytes per output channel), each rounded to 16 bytes, plus 16 bytes of
// separation. Scratch per op, the larger of the DSP and MVE (Helium) variants: conv im2col
// 2 * Cin * kh * kw int16 values (DSP) or 4 lanes of Cin * kh * kw int8 rounded to 16 (MVE);
// depthwise Cin * kh * kw int16 values (DSP) or 4 * 124 * kh * kw bytes (MVE, CH_IN_BLOCK_MVE);
// fully connected Cout int32 sums (MVE); average pool C int32 sums (DSP).
uint32_t cmsis_reserve(const tigris_plan_t& plan) {
  uint64_t scratch = 0, expansion = 0;
  for (uint32_t i = 0; i < plan.header->num_ops; ++i) {
    const tigris_op_t& op = plan.ops[i];
    if (op.op_type != TIGRIS_OP_CONV && op.op_type != TIGRIS_OP_DEPTHWISE && op.op_type != TIGRIS_OP_CONV1D &&
        op.op_type != TIGRIS_OP_FULLY_CONN && op.op_type != TIGRIS_OP_AVG_POOL && op.op_type != TIGRIS_OP_GLOBAL_AVG) {
      continue;
    }
    const tigris_tensor_t& in = plan.tensors[tigris_op_inputs(&plan, &op)[0]];
    const tigris_tensor_t& out = plan.tensors[tigris_op_outputs(&plan, &op)[0]];
    if (in.dtype != TIGRIS_DTYPE_INT8 || in.ndim == 0 || out.ndim == 0) continue;
    const uint64_t cin = static_cast<uint32_t>(tigris_tensor_shape(&plan, &in)[in.ndim - 1]);
    const uint64_t cout = static_cast<uint32_t>(tigris_tensor_shape(&plan, &out)[out.ndim - 1]);
    const uint64_t window =
        uint64_t{op.spatial.kernel_h ? op.spatial.kernel_h : 1u} * (op.spatial.kernel_w ? op.spatial.kernel_w : 1u);
    uint64_t need = 0;
    if (op.op_type == TIGRIS_OP_FULLY_CONN) {
      need = cout * 4u;
    } else if (op.op_type == TIGRIS_OP_AVG_POOL || op.op_type == TIGRIS_OP_GLOBAL_AVG) {
      need = cin * 4u;
    } else if (op.op_type == TIGRIS_OP_DEPTHWISE) {
      need = std::max<uint64_t>(cin * window * 2u, 4u * 124u * window);
    } else {
      need = std::max<uint64_t>(2u * cin * window * 2u, 4u * align_up(cin * window, 16));
    }
    scratch = std::max<uint64_t>(scratch, align_up(need, 16));
    if (op.op_type != TIGRIS_OP_AVG_POOL && op.op_type != TIGRIS_OP_GLOBAL_AVG) {
      expansion = std::max<uint64_t>(expansion, align_up(cout * 8u, 16));
    }
  }
  const uint64_t total = scratch + expansion + 16u;
  return total > UINT32_MAX ? UINT32_MAX : static_cast<uint32_t>(total);
}

}  // namespace

Backend parse_backend(const std::string& text) {
  if (text == "reference") return Backend::kReference;
  if (text == "esp-nn") return Backend::kEspNn;
  if (text == "cmsis-nn") return Backend::kCmsisNn;
  throw Failure("unknown backend '" + text + "'; choose reference, esp-nn or cmsis-nn");
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
  p.cmsis_reserve_estimate = cmsis_reserve(plan);
  p.required = required;
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

Route route_of(Backend backend, bool int8_plan, int op_type) {
  if (backend == Backend::kReference) return Route::kNative;
  if (!int8_plan) return Route::kFloatReference;  // acceleration is int8-only
  switch (op_type) {
  case TIGRIS_OP_CONV:
  case TIGRIS_OP_DEPTHWISE:
  case TIGRIS_OP_AVG_POOL:
  case TIGRIS_OP_MUL:
  case TIGRIS_OP_FULLY_CONN: return Route::kNative;
  case TIGRIS_OP_GLOBAL_AVG:
  case TIGRIS_OP_MAXIMUM:
  case TIGRIS_OP_MINIMUM: return backend == Backend::kCmsisNn ? Route::kNative : Route::kFallback;
  default: break;
  }
  // Float-reference-only operators have no int8 route on an accelerated backend.
  if ((op_type >= TIGRIS_OP_NEG && op_type <= TIGRIS_OP_FLOOR_MOD) || op_type == TIGRIS_OP_L2_POOL ||
      op_type == TIGRIS_OP_IF || op_type == TIGRIS_OP_WHILE) {
    return Route::kUnsupported;
  }
  return Route::kFallback;
}

RouteCounts check_routes(const tigris_plan_t& plan, Backend backend, const std::string& file) {
  const bool int8 = tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8;
  RouteCounts counts;
  for (uint32_t i = 0; i < plan.header->num_ops; ++i) {
    const tigris_op_t& op = plan.ops[i];
    switch (route_of(backend, int8, op.op_type)) {
    case Route::kNative: counts.native++; break;
    case Route::kFallback: counts.fallback++; break;
    case Route::kFloatReference: counts.float_reference++; break;
    case Route::kUnsupported:
      throw Failure(file + ": operator '" + tigris_op_name(&plan, &op) + "' (" + report::op_type_name(op.op_type) +
                    ") has no " + backend_name(backend) +
                    " route: it runs on the float reference kernels only; generate with -b reference");
    }
  }
  return counts;
}

}  // namespace tigris::cli
