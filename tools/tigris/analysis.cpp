#include "tools/tigris/analysis.h"

#include "compiler/report/analysis_build.h"
#include "export/analyze_rows.h"

namespace tigris::cli {
namespace {

// TensorFlow Lite Micro's arena and what `tigris export` would save (none for a file the
// arena model does not cover).
std::optional<report::AnalysisTflm> tflite_micro(const std::vector<uint8_t>& bytes, const std::string& file) {
  const exporter::TflmRows rows = exporter::tflite_micro_rows_for_bytes(bytes, file);
  if (!rows.shown) return std::nullopt;
  report::AnalysisTflm t;
  t.tensor_arena_bytes = static_cast<uint64_t>(rows.tensor_arena_bytes);
  t.arena_detail = rows.arena_detail;
  t.arena_excludes = rows.arena_excludes;
  t.export_written = rows.export_written;
  if (rows.export_written) t.export_change_bytes = rows.outcome.plan.total_change();
  t.export_value = rows.export_value;
  t.export_detail = rows.export_detail;
  return t;
}

}  // namespace

ModelAnalysis analyze_model(const std::string& file, const std::vector<uint8_t>& bytes, const compiler::Model& model,
                            const compiler::Budgets& budgets) {
  const compiler::ModelSummary& summary = model.summary();
  ModelAnalysis a;
  if (!summary.supported()) {
    a.report = report::build_analysis(file, summary, budgets, nullptr, nullptr);
  } else if (budgets.fast == 0) {
    const compiler::ScheduleResult s = compiler::schedule(model, budgets);
    a.report = report::build_analysis(file, summary, budgets, &s, nullptr);
  } else {
    // Compile in memory: the flash figures are those of the plan compile would write.
    a.compiled = compiler::compile(model, budgets);
    a.report = report::build_analysis(file, summary, budgets, &a.compiled->schedule, &a.compiled->flash);
    a.report.budgets_tried = report::sweep_budgets(model, budgets, a.report.fast.verdict == report::Verdict::kFits);
  }
  if (summary.format == "tflite") a.report.tflite_micro = tflite_micro(bytes, file);
  return a;
}

}  // namespace tigris::cli
