// analyze's TFLite Micro rows from the arena model and the export search.
#include "export/analyze_rows.h"

#include "export/command.h"
#include "export/tflite/reader.h"
#include "export/tflm/arena.h"

namespace tigris::exporter {
namespace {

// What the head holds and leaves out. The spec's wording when the only scratch in it is the
// reductions'; once other kernels' scratch is in it, it no longer says "reduction scratch", and
// no longer says other scratch is excluded when every kernel is modeled.
void describe_head(const tflite::Model& m, TflmRows& rows) {
  const tflm::HeadScope scope = tflm::head_scope(m);
  if (!scope.other_kernel_scratch) {
    rows.arena_detail = "its planner and reduction scratch; persistent allocations and other kernel scratch excluded";
    rows.arena_excludes = {"persistent allocations", "other kernel scratch"};
  } else if (!scope.kernels_unmodeled) {
    rows.arena_detail = "its planner and kernel scratch; persistent allocations excluded";
    rows.arena_excludes = {"persistent allocations"};
  } else {
    rows.arena_detail = "its planner and modeled kernel scratch; persistent allocations and other kernel scratch excluded";
    rows.arena_excludes = {"persistent allocations", "other kernel scratch"};
  }
}

}  // namespace

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
  describe_head(m, rows);
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
