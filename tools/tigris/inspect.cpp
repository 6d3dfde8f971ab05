// `tigris inspect FILE [-v] [--json]`: describe a plan, an ONNX or a TFLite model offline.
// The kind is detected from the bytes; plans are read through the runtime loader.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>

#include "compiler/report/onnx_inspection.h"
#include "compiler/report/plan_inspection.h"
#include "compiler/report/tflite_inspection.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/commands.h"
#include "tools/tigris/files.h"
#include "tools/tigris/model_file.h"

namespace tigris::cli {
namespace {

struct InspectOptions {
  std::string file;
  bool verbose = false;
  bool json = false;
};

void print(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

void run_inspect(const InspectOptions& opt) {
  const std::vector<uint8_t> bytes = read_file(opt.file);
  if (bytes.empty()) throw Failure(opt.file + ": empty file");
  switch (sniff_kind(bytes)) {
  case FileKind::kPlan: {
    const LoadedPlan loaded(opt.file, bytes);
    const auto report = report::inspect_plan(loaded.plan(), loaded.required(), opt.file, bytes.size());
    print(opt.json ? report::to_json(report).dump(2) + "\n" : report::render_text(report, opt.verbose));
    return;
  }
  case FileKind::kTflite: {
    report::TfliteInspection r;
    try {
      r = report::inspect_tflite(bytes, opt.file);
    } catch (const std::runtime_error& e) {
      throw Failure(e.what());
    }
    print(opt.json ? report::to_json(r).dump(2) + "\n" : report::render_text(r, opt.verbose));
    return;
  }
  case FileKind::kUnknown: throw Failure(opt.file + ": not an ONNX model, TFLite model or TiGrIS plan");
  case FileKind::kOnnx: break;
  }
  const auto report = report::inspect_onnx(bytes, opt.file);
  print(opt.json ? report::to_json(report).dump(2) + "\n" : report::render_text(report, opt.verbose));
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
