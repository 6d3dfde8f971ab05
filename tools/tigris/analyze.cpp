// `tigris analyze MODEL [-m FAST [-m SLOW]] [-f FLASH] [--input-shape ...] [-v] [--json]
//                 [--trace [--input FILE ...]] [--svg FILE]`
// Will a model fit a budget, and if not, why. Exits 0 whatever the verdict.
// --trace compiles in memory, runs the plan once on the host runtime built with
// TIGRIS_TRACE and prints what it did per stage or chain (exit 1 when the events'
// byte sums disagree with the runtime's counters); --svg draws that run's memory
// timeline against the unscheduled one.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "tools/tigris/analysis.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/commands.h"
#include "tools/tigris/files.h"
#include "tools/tigris/host_run.h"
#include "tools/tigris/iface_arrays.h"
#include "tools/tigris/input_files.h"
#include "tools/tigris/model_file.h"
#include "tools/tigris/model_options.h"
#include "tools/tigris/terminal_text.h"
#include "tools/tigris/timeline_svg.h"
#include "tools/tigris/trace_report.h"

namespace tigris::cli {
namespace {

struct AnalyzeOptions {
  ModelOptions model;
  bool verbose = false;
  bool json = false;
  bool trace = false;
  std::vector<std::string> inputs;
  std::string svg;
};

// Runs the compiled plan once with the trace hook; zero inputs unless files are given.
TraceSummary traced_run(const tigris_plan_t& plan, const std::vector<std::string>& input_args) {
  std::vector<IfaceSpec> specs;
  for (uint32_t i = 0; i < plan.header->num_model_inputs; ++i) {
    specs.push_back(iface_spec(plan, plan.model_inputs[i], false));
  }
  std::vector<std::vector<uint8_t>> inputs;
  if (input_args.empty()) {
    for (const IfaceSpec& s : specs) inputs.emplace_back(s.bytes, uint8_t{0});
  } else {
    inputs = gather_inputs(input_args, specs);
  }
  return cli::traced_run(plan, inputs);
}

const OutputKind kSvgKind{"an SVG picture", [](std::string_view head) { return head.substr(0, 5) == "<svg "; }};

std::vector<InputPath> analyze_inputs(const AnalyzeOptions& opt) {
  std::vector<InputPath> inputs = input_file_paths(opt.inputs);
  inputs.push_back({"model", opt.model.model});
  return inputs;
}

void check_trace_flags(const AnalyzeOptions& opt, const GivenBudgets& given) {
  if (opt.trace && opt.json) throw UsageError("two different outputs; choose one");
  if (!opt.inputs.empty() && !opt.trace && opt.svg.empty()) throw UsageError("--input is for --trace");
  const char* runner = opt.trace ? "--trace" : "--svg";
  if ((opt.trace || !opt.svg.empty()) && !(given.fast_given && given.fast > 0)) {
    throw UsageError(std::string(runner) + " runs the plan, so it needs a fast-memory budget (-m)");
  }
  if (!opt.svg.empty()) check_outputs(analyze_inputs(opt), {{opt.svg, kSvgKind}});
}

// --trace / --svg: the plan compile would write, run once and reported.
void trace_and_draw(const AnalyzeOptions& opt, const compiler::CompileResult& c, uint64_t budget) {
  if (!c.ok()) {
    throw Failure(std::string("no plan to ") + (opt.trace ? "trace" : "draw") + ": run analyze without " +
                  (opt.trace ? "--trace" : "--svg") + " to see why");
  }
  const LoadedPlan loaded(opt.model.model, c.plan);
  const tigris_plan_t& plan = loaded.plan();
  const TraceSummary trace = traced_run(plan, opt.inputs);
  if (opt.trace) {
    TraceHeader header;
    header.model = opt.model.model;
    header.runtime_version = runtime_version();
    header.given_input = !opt.inputs.empty();
    header.fast_capacity = tigris_fast_arena_required(&plan);
    const std::string text = render_trace(plan, trace, header, opt.verbose);
    print_report(text);
  }
  if (!opt.svg.empty()) {
    const std::string svg = timeline_svg(plan, trace, budget);
    write_output({opt.svg, kSvgKind}, std::vector<uint8_t>(svg.begin(), svg.end()));
    if (!opt.json) std::printf("wrote %s   memory timeline of a traced run\n", opt.svg.c_str());
  }
  if (!trace.mismatches.empty())
    throw Failure("the trace disagrees with the runtime's counters: " + trace.mismatches[0]);
}

void run_analyze(const AnalyzeOptions& opt) {
  const GivenBudgets given = parse_budgets(opt.model);
  if (given.flash && *given.flash <= 0) throw UsageError("--flash must be greater than zero");
  compiler::Budgets budgets;
  // The slow tier is display only here: a slow pool <= 0 is shown, not refused.
  if (given.fast_given && given.fast > 0) budgets.fast = static_cast<uint64_t>(given.fast);
  if (given.slow && *given.slow > 0) budgets.slow = static_cast<uint64_t>(*given.slow);
  if (given.flash) budgets.flash = static_cast<uint64_t>(*given.flash);
  check_trace_flags(opt, given);

  std::vector<uint8_t> bytes;
  const compiler::Model model = load_model_for_cli(opt.model, opt.json, &bytes);
  if (opt.trace) {
    trace_and_draw(opt, compiler::compile(model, budgets), budgets.fast);
    return;
  }
  const ModelAnalysis a = analyze_model(opt.model.model, bytes, model, budgets);
  const report::AnalysisReport& r = a.report;
  const std::string out = opt.json ? json_text(report::to_json(r)) : report::render_text(r, opt.verbose, true);
  print_report(out);
  if (!opt.svg.empty()) trace_and_draw(opt, a.compiled ? *a.compiled : compiler::compile(model, budgets), budgets.fast);
}

}  // namespace

void register_analyze(CLI::App& app, Registry& commands) {
  auto opt = std::make_shared<AnalyzeOptions>();
  CLI::App* sub = app.add_subcommand("analyze", "Will a model fit a memory budget, and if not, why.");
  add_model_options(*sub, opt->model, false);
  sub->add_flag("-v,--verbose", opt->verbose, "Add the per-stage table.");
  sub->add_flag("--json", opt->json, "Print versioned JSON instead of text.");
  sub->add_flag("--trace", opt->trace,
                "Compile in memory, run once on the host runtime and print what it did per stage.");
  sub->add_option("-i,--input", opt->inputs, "inputs for --trace (.npy, .npz, .bin or NAME=FILE); default zeros")
      ->allow_extra_args(false);
  sub->add_option("--svg", opt->svg, "Write the memory timeline of a traced run as an SVG picture.");
  commands.push_back({sub, [opt] { run_analyze(*opt); }});
}

}  // namespace tigris::cli
