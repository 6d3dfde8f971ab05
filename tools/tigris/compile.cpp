// `tigris compile MODEL -m FAST[+SLOW] [-f FLASH] [-c none|lz4] [--xip] [-o OUT] [--input-shape ...]`
// Writes the plan only when every check passes: `Error: no plan written: <reason>`
// otherwise, and never a partial or stale file at the output path.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstring>
#include <memory>

#include "compiler/report/format.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/commands.h"
#include "tools/tigris/compile_model.h"
#include "tools/tigris/files.h"
#include "tools/tigris/model_options.h"
#include "tools/tigris/terminal_text.h"

namespace tigris::cli {
namespace {

struct CompileCliOptions {
  ModelOptions model;
  std::string output;
  std::string compress = "none";
  bool xip = false;
};

std::string default_output(const std::string& model) {
  const size_t slash = model.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : model.substr(0, slash + 1);
  return dir + file_stem(model) + ".tgrs";
}

const OutputKind kPlanKind{"a TiGrIS plan", [](std::string_view head) { return head.substr(0, 4) == "TGRS"; }};

// No plan is written; an earlier plan at the output path would now be stale, so it goes.
[[noreturn]] void no_plan(const std::string& output, const std::string& reason) {
  const std::string prefix = "no plan written: ";
  std::string message = prefix + (reason.rfind(prefix, 0) == 0 ? reason.substr(prefix.size()) : reason);
  if (holds_kind(output, kPlanKind) && std::remove(output.c_str()) == 0) {
    message += " (removed the earlier " + output + ")";
  }
  throw Failure(message);
}

void run_compile(const CompileCliOptions& opt) {
  const GivenBudgets given = parse_budgets(opt.model);
  if (given.flash && *given.flash <= 0) throw UsageError("--flash must be greater than zero");
  const std::string output = opt.output.empty() ? default_output(opt.model.model) : opt.output;
  if (given.slow && *given.slow <= 0) throw UsageError("Slow-memory budget must be greater than zero");
  check_outputs({{"model", opt.model.model}}, {{output, kPlanKind}});

  compiler::Budgets budgets;
  budgets.fast = static_cast<uint64_t>(given.fast);
  if (given.slow) budgets.slow = static_cast<uint64_t>(*given.slow);
  if (given.flash) budgets.flash = static_cast<uint64_t>(*given.flash);

  const compiler::Model model = load_model_for_cli(opt.model, false);
  compiler::CompileOptions co;
  co.compression = opt.compress == "lz4" ? compiler::Compression::Lz4 : compiler::Compression::None;
  co.xip = opt.xip;
  const CompiledModel compiled = compile_model(opt.model.model, model, budgets, co);
  const compiler::CompileResult& c = compiled.result;
  const std::string text = report::render_text(compiled.report, false, false);
  print_report(text);
  std::fflush(stdout);
  if (!compiled.refusal.empty()) no_plan(output, compiled.refusal);
  if (!compiled.limits_warning.empty())
    std::fprintf(stderr, "warning: %s\n", printable(compiled.limits_warning, false).c_str());
  write_output({output, kPlanKind}, c.plan);
  std::string note;
  if (co.compression == compiler::Compression::Lz4) {
    note = ", LZ4, " + report::format_bytes(c.schedule.fast.weight_reserve_bytes) + " of the " +
           report::format_bytes(budgets.fast) + " fast memory holds decompressed weights";
  }
  std::printf("wrote %s   %s%s\n", output.c_str(), report::format_bytes(c.plan.size()).c_str(), note.c_str());
}

}  // namespace

void register_compile(CLI::App& app, Registry& commands) {
  auto opt = std::make_shared<CompileCliOptions>();
  CLI::App* sub = app.add_subcommand("compile", "Write a .tgrs execution plan that fits the memory budget.");
  add_model_options(*sub, opt->model, true);
  sub->add_option("-o,--output", opt->output, "plan file (default: <model stem>.tgrs next to the model)");
  sub->add_option("-c,--compress", opt->compress,
                  "weights: none, or lz4 (per-stage blocks decompressed into fast memory)")
      ->check(CLI::IsMember({"none", "lz4"}));
  sub->add_flag("--xip", opt->xip, "weights read in place from memory-mapped flash");
  commands.push_back({sub, [opt] { run_compile(*opt); }});
}

}  // namespace tigris::cli
