#include "tools/tigris/model_file.h"

#include <cstring>

#include "tools/tigris/cli_errors.h"

namespace tigris::cli {
namespace {

// XIP plans used with CMSIS-NN need a 16-byte base; 64 covers every host SIMD width.
constexpr size_t kPlanAlign = 64;

std::string limit_flags(const tigris_plan_limits_t& need) {
  tigris_plan_limits_t have{};
  tigris_build_limits(&have);
  std::string flags;
  const auto check = [&](const char* name, uint16_t needed, uint16_t allowed) {
    if (needed > allowed) flags += std::string(flags.empty() ? "" : " ") + "-D" + name + "=" + std::to_string(needed);
  };
  check("TIGRIS_MAX_TENSORS", need.tensors, have.tensors);
  check("TIGRIS_MAX_STAGE_INPUTS", need.stage_inputs, have.stage_inputs);
  check("TIGRIS_MAX_STAGE_OUTPUTS", need.stage_outputs, have.stage_outputs);
  check("TIGRIS_MAX_CHAIN_STAGES", need.chain_stages, have.chain_stages);
  check("TIGRIS_MAX_SPATIAL_OPS_PER_STAGE", need.spatial_ops_per_stage, have.spatial_ops_per_stage);
  return flags;
}

}  // namespace

FileKind sniff_kind(const std::vector<uint8_t>& bytes) {
  if (bytes.size() >= 4 && std::memcmp(bytes.data(), "TGRS", 4) == 0) return FileKind::kPlan;
  if (bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "TFL3", 4) == 0) return FileKind::kTflite;
  // Exporters write an ONNX ModelProto's ir_version (field 1, varint: tag 0x08) first.
  if (!bytes.empty() && bytes[0] == 0x08) return FileKind::kOnnx;
  return FileKind::kUnknown;
}

LoadedPlan::LoadedPlan(const std::string& path, const std::vector<uint8_t>& bytes) {
  if (bytes.size() > UINT32_MAX) throw Failure(path + ": plan larger than 4 GiB");
  size_ = static_cast<uint32_t>(bytes.size());
  storage_.resize(bytes.size() + kPlanAlign);
  uint8_t* base = storage_.data();
  base += (kPlanAlign - reinterpret_cast<uintptr_t>(base) % kPlanAlign) % kPlanAlign;
  if (!bytes.empty()) std::memcpy(base, bytes.data(), bytes.size());
  const tigris_error_t err = tigris_plan_load_ex(base, size_, &plan_, &required_);
  if (err == TIGRIS_ERR_PLAN_LIMITS) {
    throw Failure(path + ": " + tigris_error_str(err) + "; build the runtime with " + limit_flags(required_));
  }
  if (err == TIGRIS_ERR_BAD_VERSION && bytes.size() >= 8) {
    const uint32_t version = bytes[4] | (bytes[5] << 8) | (bytes[6] << 16) | (static_cast<uint32_t>(bytes[7]) << 24);
    throw Failure(path + ": plan schema " + std::to_string(version) + "; this runtime reads schemas " +
                  std::to_string(TIGRIS_SCHEMA_VERSION_MIN) + " to " + std::to_string(TIGRIS_SCHEMA_VERSION) +
                  " (compile the model again)");
  }
  if (err != TIGRIS_OK) {
    throw Failure(path + ": " + tigris_error_str(err) + " (loader error " + std::to_string(static_cast<int>(err)) +
                  ")");
  }
}

}  // namespace tigris::cli
