// analyze's TFLite Micro rows from the arena model and the export search.
#include "export/analyze_rows.h"

#include "export/command.h"
#include "export/tflite/reader.h"
#include "export/tflm/arena.h"

namespace tigris::exporter {

TflmRows tflite_micro_rows(const tflite::Model& m) {
  TflmRows rows;
  if (!m.uncarried.empty()) return rows;  // a file export does not read
  try {
    rows.tensor_arena_bytes = tflm::tensor_arena_bytes(m);
  } catch (const tflm::ArenaError&) {
    return rows;  // several subgraphs, an unknown tensor type or shape
  }
  rows.outcome = plan_export(m, ExportOptions{});
  const ExportOutcome& o = rows.outcome;
  if (o.refusal == Refusal::SeveralSubgraphs || o.refusal == Refusal::TensorType || o.refusal == Refusal::Unreadable)
    return rows;
  rows.shown = true;
  const char* kernels = "reference kernels on arm-none-eabi";
  if (o.refusal == Refusal::None) {
    const ExportPlan& p = o.plan;
    rows.export_written = true;
    rows.export_value = format_signed_bytes(p.total_change());
    char macs[32];
    std::snprintf(macs, sizeof macs, "%+.2f%% MACs", p.mac_overhead_percent());
    rows.export_detail = "head " + format_bytes(p.before.head) + " -> " + format_bytes(p.after.head) + ", persistent " +
                         format_signed_bytes(p.persistent_growth()) + ", " + macs + ", " + kernels;
  } else {
    rows.export_value = "none";
    rows.export_detail = o.reason;
    if (o.refusal == Refusal::NoGain) rows.export_detail += std::string(", ") + kernels;
  }
  return rows;
}

TflmRows tflite_micro_rows_for_file(const std::string& path) {
  try {
    return tflite_micro_rows(tflite::read_model_file(path, tflite::ReadOptions{.lenient = true}));
  } catch (const tflite::ModelError&) {
    return {};
  }
}

TflmRows tflite_micro_rows_for_bytes(const std::vector<uint8_t>& bytes, const std::string& file) {
  try {
    return tflite_micro_rows(tflite::read_model(bytes, file, tflite::ReadOptions{.lenient = true}));
  } catch (const tflite::ModelError&) {
    return {};
  }
}

}  // namespace tigris::exporter
