// What `tigris analyze` reports for a loaded model at a budget, as data: the CLI renders it,
// the Python module (python/) returns it. Nothing is printed or written here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/api.h"
#include "compiler/report/analysis_report.h"

namespace tigris::cli {

struct ModelAnalysis {
  report::AnalysisReport report;
  // The plan `compile` would write at this budget (compiled in memory for the flash
  // figures); none without a fast budget or for a model that cannot compile.
  std::optional<compiler::CompileResult> compiled;
};

// `file` names the model in the report, `bytes` are its file's bytes (a TFLite model also gets
// TensorFlow Lite Micro's arena and export rows). budgets.fast == 0: memory figures only.
ModelAnalysis analyze_model(const std::string& file, const std::vector<uint8_t>& bytes, const compiler::Model& model,
                            const compiler::Budgets& budgets);

}  // namespace tigris::cli
