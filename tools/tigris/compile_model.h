// What `tigris compile` decides before it writes anything: the plan, the summary it prints
// and, when no plan may be written, why. The CLI writes the file; the Python module returns
// the bytes. Nothing is printed or written here.
#pragma once

#include <string>

#include "compiler/api.h"
#include "compiler/report/analysis_report.h"

namespace tigris::cli {

struct CompiledModel {
  compiler::CompileResult result;
  report::AnalysisReport report;  // the summary compile prints (render_text(report, false, false))
  // Why no plan may be written ("cannot compile: 2 unsupported operators", the compiler's
  // reason, the runtime loader's refusal), without the "no plan written: " prefix; empty
  // when result.plan is the plan to write.
  std::string refusal;
  // Set when the plan loads only in a runtime built with larger limits (it is written anyway).
  std::string limits_warning;
};

// `file` names the model in the summary. The plan goes through the runtime loader first.
CompiledModel compile_model(const std::string& file, const compiler::Model& model, const compiler::Budgets& budgets,
                            const compiler::CompileOptions& options);

}  // namespace tigris::cli
