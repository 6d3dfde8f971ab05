#include "tools/tigris/model_options.h"

#include <CLI/CLI.hpp>

#include <cstdio>

#include "tools/tigris/cli_errors.h"
#include "tools/tigris/files.h"
#include "tools/tigris/model_file.h"
#include "tools/tigris/sizes.h"
#include "tools/tigris/terminal_text.h"

namespace tigris::cli {

void add_model_options(CLI::App& sub, ModelOptions& opt, bool mem_required) {
  sub.add_option("MODEL", opt.model, ".onnx or .tflite model (detected from its bytes)")->required();
  CLI::Option* mem =
      sub.add_option("-m,--mem", opt.mem,
                     "memory pool size, fast then slow (256K, 1.5M, 4MB, bytes); -m 256K+4M = -m 256K -m 4M")
          ->allow_extra_args(false);
  if (mem_required) mem->required();
  sub.add_option("-f,--flash", opt.flash, "flash budget for the plan");
  sub.add_option("--input-shape", opt.input_shapes, "NAME:1x3x224x224, binds an input's free dimensions")
      ->allow_extra_args(false);
}

GivenBudgets parse_budgets(const ModelOptions& opt) {
  GivenBudgets b;
  const std::vector<int64_t> pools = parse_pools(opt.mem);
  if (!pools.empty()) {
    b.fast = pools[0];
    b.fast_given = true;
  }
  if (pools.size() > 1) b.slow = pools[1];
  if (!opt.flash.empty()) b.flash = parse_size(opt.flash, "--flash");
  // Command-line values: wrong ones are usage errors (exit 2) in every command.
  if (b.fast_given && b.fast <= 0) throw UsageError("Fast-memory budget must be greater than zero");
  if (b.fast_given && b.fast > static_cast<int64_t>(UINT32_MAX)) {
    throw UsageError("Fast-memory budget exceeds the uint32 plan-format limit");
  }
  return b;
}

compiler::Model load_model_bytes_for_cli(const std::string& name, const std::vector<uint8_t>& bytes,
                                         const std::vector<std::string>& input_shapes) {
  compiler::LoadOptions load;
  for (const ShapeBinding& b : parse_input_shapes(input_shapes)) load.input_shapes.push_back({b.name, b.dims});
  // Classify the bytes here so every command words a missing or foreign file alike.
  if (bytes.empty()) throw Failure(name + ": empty file");
  switch (sniff_kind(bytes)) {
  case FileKind::kPlan: throw Failure(name + ": a TiGrIS plan, not a model (tigris inspect or tigris run take plans)");
  case FileKind::kUnknown: throw Failure(name + ": not an ONNX model, TFLite model or TiGrIS plan");
  case FileKind::kOnnx:
  case FileKind::kTflite: break;
  }
  try {
    return compiler::load_model_bytes(bytes, name, load);
  } catch (const compiler::CompileError& e) {
    if (e.kind() == compiler::ErrorKind::Usage) throw UsageError(e.what());
    throw Failure(e.what());
  }
}

compiler::Model load_model_for_cli(const ModelOptions& opt, bool quiet, std::vector<uint8_t>* file_bytes) {
  parse_input_shapes(opt.input_shapes);  // a malformed binding is a usage error before any file is read
  std::vector<uint8_t> bytes = read_file(opt.model);
  compiler::Model model = load_model_bytes_for_cli(opt.model, bytes, opt.input_shapes);
  if (!quiet) {
    for (const std::string& w : model.warnings()) std::fprintf(stderr, "warning: %s\n", printable(w, false).c_str());
  }
  if (file_bytes) *file_bytes = std::move(bytes);
  return model;
}

}  // namespace tigris::cli
