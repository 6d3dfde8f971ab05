// The export subcommand: flags in, the export library's report out.
#include "tools/tigris/export.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "export/command.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/files.h"
#include "tools/tigris/model_file.h"
#include "tools/tigris/terminal_text.h"

namespace tigris::cli {
namespace {

struct ExportFlags {
  std::string model;
  std::string output;
  std::string target = "arm-none-eabi";
  int max_runs = 1;
};

const OutputKind kTfliteKind{"a TFLite model", [](std::string_view head) { return head.substr(4, 4) == "TFL3"; }};

// The file is read and written here, under the CLI's input and output rules (files.h);
// the export library searches the bytes.
void run_export_command(const ExportFlags& flags) {
  exporter::ExportOptions options;
  options.target = *tflm::parse_target(flags.target);  // checked by the parser
  options.max_runs = flags.max_runs;
  const OutputFile output{flags.output.empty() ? exporter::default_output_path(flags.model) : flags.output,
                          kTfliteKind};
  check_outputs({{"model", flags.model}}, {output});
  const std::vector<uint8_t> bytes = read_file(flags.model);
  std::vector<uint8_t> model;
  exporter::ExportResult res = exporter::export_to_memory(bytes, flags.model, options, model);
  print_report(res.out);
  std::fflush(stdout);
  if (res.exit_status != 0) {
    const exporter::ExportOutcome& o = res.outcome;
    if (o.refusal != exporter::Refusal::Unreadable || o.input_operators != 0) throw Failure(res.error);
    // The file could not be read as a model: say which file.
    const FileKind kind = sniff_kind(bytes);
    const std::string what = bytes.empty()                ? "empty file"
                             : kind == FileKind::kOnnx    ? "an ONNX model; export takes TFLite models"
                             : kind == FileKind::kPlan    ? "a TiGrIS plan; export takes TFLite models"
                             : kind == FileKind::kUnknown ? "not a TFLite model"
                                                          : o.reason;
    throw Failure("no model written: " + flags.model + ": " + what);
  }
  write_output(output, model);
  std::printf("wrote %s   %s\n", output.path.c_str(),
              exporter::format_bytes(static_cast<int64_t>(model.size())).c_str());
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
