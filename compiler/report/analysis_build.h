// AnalysisReport from the compiler's results (compiler/api.h), and the budget sweep.
#pragma once

#include <string>

#include "compiler/api.h"
#include "compiler/report/analysis_report.h"

namespace tigris::report {

// `schedule` is null when the model cannot compile; `flash` is null when no plan was
// attempted. The verdict is "fits" only when every stage fits and the scheduled peak
// is within the budget.
AnalysisReport build_analysis(const std::string& file, const compiler::ModelSummary& model,
                              const compiler::Budgets& budgets, const compiler::ScheduleResult* schedule,
                              const compiler::FlashReport* flash);

// Up to `tries` more budgets: halving from a fit, doubling from a failure, stopping at
// the first change of answer or past the uint32 range. Only scheduled budgets are listed.
std::vector<BudgetTried> sweep_budgets(const compiler::Model& model, const compiler::Budgets& budgets, bool fits,
                                       int tries = 3);

}  // namespace tigris::report
