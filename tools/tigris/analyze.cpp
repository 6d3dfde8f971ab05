// `tigris analyze MODEL [-m FAST [-m SLOW]] [-f FLASH] [--input-shape ...] [-v] [--json]`
// Will a model fit a budget, and if not, why. Exits 0 whatever the verdict.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "compiler/report/analysis_build.h"
#include "export/analyze_rows.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/commands.h"
#include "tools/tigris/model_options.h"

namespace tigris::cli {
namespace {

struct AnalyzeOptions {
  ModelOptions model;
  bool verbose = false;
  bool json = false;
};

// TensorFlow Lite Micro's arena and what `tigris export` would save (none for a file the
// arena model does not cover).
std::optional<report::AnalysisTflm> tflite_micro(const std::string& path)
{
  const exporter::TflmRows rows = exporter::tflite_micro_rows_for_file(path);
  if (!rows.shown) return std::nullopt;
  report::AnalysisTflm t;
  t.tensor_arena_bytes = static_cast<uint64_t>(rows.tensor_arena_bytes);
  t.export_written = rows.export_written;
  if (rows.export_written) t.export_change_bytes = rows.outcome.plan.total_change();
  t.export_value = rows.export_value;
  t.export_detail = rows.export_detail;
  return t;
}

void run_analyze(const AnalyzeOptions& opt)
{
  const GivenBudgets given = parse_budgets(opt.model);
  if (given.flash && *given.flash <= 0) throw UsageError("--flash must be greater than zero");
  compiler::Budgets budgets;
  // The slow tier is display only here: a slow pool <= 0 is shown, not refused.
  if (given.fast_given && given.fast > 0) budgets.fast = static_cast<uint64_t>(given.fast);
  if (given.slow && *given.slow > 0) budgets.slow = static_cast<uint64_t>(*given.slow);
  if (given.flash) budgets.flash = static_cast<uint64_t>(*given.flash);
  if (given.fast_given && given.fast <= 0) throw Failure("Fast-memory budget must be greater than zero");

  const compiler::Model model = load_model_for_cli(opt.model, opt.json);
  const compiler::ModelSummary& summary = model.summary();
  report::AnalysisReport r;
  if (!summary.supported()) {
    r = report::build_analysis(opt.model.model, summary, budgets, nullptr, nullptr);
  } else if (budgets.fast == 0) {
    const compiler::ScheduleResult s = compiler::schedule(model, budgets);
    r = report::build_analysis(opt.model.model, summary, budgets, &s, nullptr);
  } else {
    // Compile in memory: the flash figures are those of the plan compile would write.
    const compiler::CompileResult c = compiler::compile(model, budgets);
    r = report::build_analysis(opt.model.model, summary, budgets, &c.schedule, &c.flash);
    r.budgets_tried = report::sweep_budgets(model, budgets, r.fast.verdict == report::Verdict::kFits);
  }
  if (summary.format == "tflite") r.tflite_micro = tflite_micro(opt.model.model);
  const std::string out = opt.json ? report::to_json(r).dump(2) + "\n" : report::render_text(r, opt.verbose, true);
  std::fwrite(out.data(), 1, out.size(), stdout);
}

}  // namespace

void register_analyze(CLI::App& app, Registry& commands)
{
  auto opt = std::make_shared<AnalyzeOptions>();
  CLI::App* sub = app.add_subcommand("analyze", "Will a model fit a memory budget, and if not, why.");
  add_model_options(*sub, opt->model, false);
  sub->add_flag("-v,--verbose", opt->verbose, "Add the per-stage table.");
  sub->add_flag("--json", opt->json, "Print versioned JSON instead of text.");
  commands.push_back({sub, [opt] { run_analyze(*opt); }});
}

}  // namespace tigris::cli
