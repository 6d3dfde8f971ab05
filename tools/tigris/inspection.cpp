#include "tools/tigris/inspection.h"

#include "compiler/report/onnx_inspection.h"
#include "compiler/report/plan_inspection.h"
#include "compiler/report/tflite_inspection.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/model_file.h"

namespace tigris::cli {
namespace {

template <typename Report>
Inspection rendered(const char* kind, const Report& report) {
  return Inspection{kind, report::render_text(report, false), report::render_text(report, true),
                    report::to_json(report)};
}

}  // namespace

Inspection inspect_bytes(const std::string& file, const std::vector<uint8_t>& bytes) {
  if (bytes.empty()) throw Failure(file + ": empty file");
  switch (sniff_kind(bytes)) {
  case FileKind::kPlan: {
    const LoadedPlan loaded(file, bytes);
    return rendered("plan", report::inspect_plan(loaded.plan(), loaded.required(), file, bytes.size()));
  }
  case FileKind::kTflite: {
    try {
      return rendered("tflite", report::inspect_tflite(bytes, file));
    } catch (const std::runtime_error& e) {
      throw Failure(e.what());
    }
  }
  case FileKind::kUnknown: throw Failure(file + ": not an ONNX model, TFLite model or TiGrIS plan");
  case FileKind::kOnnx: break;
  }
  return rendered("onnx", report::inspect_onnx(bytes, file));
}

}  // namespace tigris::cli
