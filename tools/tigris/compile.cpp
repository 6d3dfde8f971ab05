// `tigris compile MODEL -m FAST[+SLOW] [-f FLASH] [-c none|lz4] [--xip] [-o OUT] [--input-shape ...]`
// Writes the plan only when every check passes: `Error: no plan written: <reason>`
// otherwise, and never a partial or stale file at the output path.
#include <CLI/CLI.hpp>

#include <sys/stat.h>

#include <cstdio>
#include <cstring>
#include <memory>

#include "compiler/report/analysis_build.h"
#include "compiler/report/format.h"
#include "tigris_loader.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/commands.h"
#include "tools/tigris/files.h"
#include "tools/tigris/model_options.h"

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

bool same_file(const std::string& a, const std::string& b) {
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool is_plan_file(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char magic[4] = {};
  const bool plan = std::fread(magic, 1, 4, f) == 4 && std::memcmp(magic, "TGRS", 4) == 0;
  std::fclose(f);
  return plan;
}

// Refuses an output path that holds something other than an earlier plan.
void check_output(const std::string& output, const std::string& model) {
  if (same_file(output, model)) throw UsageError("the output " + output + " is the model itself");
  if (path_exists(output) && !is_plan_file(output)) {
    throw Failure(output + " exists and is not a TiGrIS plan; not replaced");
  }
}

// No plan is written; an earlier plan at the output path would now be stale, so it goes.
[[noreturn]] void no_plan(const std::string& output, const std::string& reason) {
  const std::string prefix = "no plan written: ";
  std::string message = prefix + (reason.rfind(prefix, 0) == 0 ? reason.substr(prefix.size()) : reason);
  if (path_exists(output) && is_plan_file(output) && std::remove(output.c_str()) == 0) {
    message += " (removed the earlier " + output + ")";
  }
  throw Failure(message);
}

// The emitted plan goes through the runtime loader before it is written.
void check_loads(const std::vector<uint8_t>& plan, const std::string& output) {
  tigris_plan_t loaded{};
  tigris_plan_limits_t need{};
  const tigris_error_t err = tigris_plan_load_ex(plan.data(), static_cast<uint32_t>(plan.size()), &loaded, &need);
  if (err == TIGRIS_OK) return;
  if (err != TIGRIS_ERR_PLAN_LIMITS) {
    no_plan(output, std::string("the runtime loader refuses the plan: ") + tigris_error_str(err));
  }
  tigris_plan_limits_t have{};
  tigris_build_limits(&have);
  if (need.tensors > have.tensors) {
    std::fprintf(stderr,
                 "warning: the plan has %u tensors, more than the runtime's default TIGRIS_MAX_TENSORS (%u); "
                 "build the runtime with -DTIGRIS_MAX_TENSORS=%u\n",
                 need.tensors, have.tensors, need.tensors);
  } else {
    std::fprintf(stderr, "warning: the plan exceeds the runtime's default executor limits; inspect it for the flags\n");
  }
}

void run_compile(const CompileCliOptions& opt) {
  const GivenBudgets given = parse_budgets(opt.model);
  if (given.flash && *given.flash <= 0) throw UsageError("--flash must be greater than zero");
  const std::string output = opt.output.empty() ? default_output(opt.model.model) : opt.output;
  check_output(output, opt.model.model);
  if (given.fast <= 0) no_plan(output, "Fast-memory budget must be greater than zero");
  if (given.slow && *given.slow <= 0) no_plan(output, "Slow-memory budget must be greater than zero");

  compiler::Budgets budgets;
  budgets.fast = static_cast<uint64_t>(given.fast);
  if (given.slow) budgets.slow = static_cast<uint64_t>(*given.slow);
  if (given.flash) budgets.flash = static_cast<uint64_t>(*given.flash);

  const compiler::Model model = load_model_for_cli(opt.model, false);
  const compiler::ModelSummary& summary = model.summary();
  compiler::CompileOptions co;
  co.compression = opt.compress == "lz4" ? compiler::Compression::Lz4 : compiler::Compression::None;
  co.xip = opt.xip;
  const compiler::CompileResult c = compiler::compile(model, budgets, co);
  const report::AnalysisReport r =
      report::build_analysis(opt.model.model, summary, budgets, summary.supported() ? &c.schedule : nullptr, &c.flash);
  const std::string text = report::render_text(r, false, false);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  if (!summary.supported()) {
    // The summary above lists them; the error line stays one short line.
    no_plan(output,
            summary.unsupported_operators.empty()
                ? "cannot compile: " + summary.dtype_errors.front()
                : "cannot compile: " + std::to_string(summary.unsupported_operators.size()) +
                      (summary.unsupported_operators.size() == 1 ? " unsupported operator" : " unsupported operators"));
  }
  if (!c.ok()) no_plan(output, c.error.empty() ? "the compiler gave no reason" : c.error);
  if (r.fast.verdict != report::Verdict::kFits) no_plan(output, "the scheduled peak exceeds the fast budget");
  check_loads(c.plan, output);
  write_file_atomic(output, c.plan, IfExists::kReplace);
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
