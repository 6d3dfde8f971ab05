// `tigris inspect FILE [-v] [--json]`: describe a plan, an ONNX or a TFLite model offline.
// The kind is detected from the bytes; plans are read through the runtime loader.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "tools/tigris/commands.h"
#include "tools/tigris/files.h"
#include "tools/tigris/inspection.h"
#include "tools/tigris/terminal_text.h"

namespace tigris::cli {
namespace {

struct InspectOptions {
  std::string file;
  bool verbose = false;
  bool json = false;
};

void run_inspect(const InspectOptions& opt) {
  const Inspection r = inspect_bytes(opt.file, read_file(opt.file));
  const std::string text = opt.json ? json_text(r.json) : opt.verbose ? r.verbose_text : r.text;
  print_report(text);
}

}  // namespace

void register_inspect(CLI::App& app, Registry& commands) {
  auto opt = std::make_shared<InspectOptions>();
  CLI::App* sub = app.add_subcommand("inspect", "Describe an ONNX or TFLite model or a .tgrs plan offline.");
  sub->add_option("FILE", opt->file, ".onnx or .tflite model or .tgrs plan (detected from its bytes)")->required();
  sub->add_flag("-v,--verbose", opt->verbose, "Add per-stage, per-step, tensor, weight and quantization tables.");
  sub->add_flag("--json", opt->json, "Print versioned JSON instead of text.");
  commands.push_back({sub, [opt] { run_inspect(*opt); }});
}

}  // namespace tigris::cli
