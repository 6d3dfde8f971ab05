// The export subcommand: flags in, the export library's report out.
#include "tools/tigris/export.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "export/command.h"
#include "tools/tigris/cli_errors.h"

namespace tigris::cli {
namespace {

struct ExportFlags {
  std::string model;
  std::string output;
  std::string target = "arm-none-eabi";
  int max_runs = 1;
};

void run_export_command(const ExportFlags& flags) {
  exporter::ExportRequest req;
  req.model = flags.model;
  if (!flags.output.empty()) req.output = flags.output;
  req.options.target = *tflm::parse_target(flags.target);  // checked by the parser
  req.options.max_runs = flags.max_runs;
  exporter::ExportResult res = exporter::run_export(req);
  std::fwrite(res.out.data(), 1, res.out.size(), stdout);
  std::fflush(stdout);
  if (res.exit_status != 0) throw Failure(res.error);
}

}  // namespace

void register_export(CLI::App& app, Registry& commands) {
  auto flags = std::make_shared<ExportFlags>();
  CLI::App* sub =
      app.add_subcommand("export", "Rewrite a TFLite model so that TFLite Micro runs it in a smaller arena.");
  sub->add_option("MODEL", flags->model, "TFLite model")->required();
  sub->add_option("-o,--output", flags->output,
                  "where to write the rewritten model (default: <model>_export.tflite beside it)");
  sub->add_option("--target", flags->target, "C ABI of the TFLite Micro build (default: arm-none-eabi)")
      ->check(CLI::IsMember({"arm-none-eabi", "ilp32", "lp64"}));
  sub->add_option("--max-runs", flags->max_runs, "band up to this many disjoint runs (default: 1)")
      ->check(CLI::Range(1, 16));
  commands.push_back({sub, [flags] { run_export_command(*flags); }});
}

}  // namespace tigris::cli
