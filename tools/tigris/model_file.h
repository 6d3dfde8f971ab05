// What kind of file a path holds, decided from its bytes, and loading plans
// through the runtime loader.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tigris.h"
#include "tigris_loader.h"

namespace tigris::cli {

enum class FileKind { kPlan, kTflite, kOnnx, kUnknown };

// TGRS magic at 0 -> plan; TFL3 at 4 -> TFLite; a first byte 0x08 (the ir_version tag every
// exporter writes first) -> ONNX, confirmed only by parsing it; anything else is no model.
FileKind sniff_kind(const std::vector<uint8_t>& bytes);

// A plan loaded zero-copy by tigris_plan_load_ex from an aligned copy of the file.
// Not copyable: the plan points into `storage_`.
class LoadedPlan {
 public:
  // Failure `<path>: <loader error>` when the loader refuses the bytes; for
  // TIGRIS_ERR_PLAN_LIMITS the message lists the -DTIGRIS_MAX_* flags the plan needs.
  LoadedPlan(const std::string& path, const std::vector<uint8_t>& bytes);
  LoadedPlan(const LoadedPlan&) = delete;
  LoadedPlan& operator=(const LoadedPlan&) = delete;

  const tigris_plan_t& plan() const { return plan_; }
  const tigris_plan_limits_t& required() const { return required_; }
  uint32_t size() const { return size_; }

 private:
  std::vector<uint8_t> storage_;
  uint32_t size_ = 0;
  tigris_plan_t plan_{};
  tigris_plan_limits_t required_{};
};

}  // namespace tigris::cli
