// `tigris codegen PLAN [-b reference|esp-nn|cmsis-nn] [-o OUT] [--format app|core]
//   [--header H] [--name N]`: generate the C that loads a .tgrs plan and runs it with a
// kernel backend, sized from the plan (codegen_source.h says what the text holds).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "tools/tigris/cli_errors.h"
#include "tools/tigris/codegen_plan.h"
#include "tools/tigris/codegen_source.h"
#include "tools/tigris/commands.h"
#include "tools/tigris/files.h"
#include "tools/tigris/model_file.h"

namespace tigris::cli {
namespace {

struct CodegenOptions {
  std::string plan;
  std::string backend = "reference";
  std::string output;
  std::string format = "app";
  std::string header;
  std::string name;
};

// `dir/stem` + extension: the default output beside the plan, the default header beside the source.
std::string with_extension(const std::string& path, const std::string& ext) {
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  return dir + file_stem(path) + ext;
}

bool is_c_identifier(const std::string& s) {
  if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
  for (const char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  }
  return true;
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

std::vector<uint8_t> text_bytes(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

void run_codegen(const CodegenOptions& opt, const CLI::App& sub) {
  const bool core = opt.format == "core";
  if (!core && sub.count("--header")) throw UsageError("--header is only used with --format core");
  if (!core && sub.count("--name")) throw UsageError("--name is only used with --format core");
  if (sub.count("--name") && !is_c_identifier(opt.name)) {
    throw UsageError("--name must be a C identifier (letters, digits, _; not starting with a digit), not '" + opt.name +
                     "'");
  }
  const Backend backend = parse_backend(opt.backend);

  const std::vector<uint8_t> bytes = read_file(opt.plan);
  if (sniff_kind(bytes) != FileKind::kPlan) {
    throw Failure(opt.plan + ": not a TiGrIS plan; compile the model first (tigris compile)");
  }
  const LoadedPlan loaded(opt.plan, bytes);
  const RouteCounts routes = count_routes(loaded.plan(), backend);
  const CodegenPlan plan = describe_plan(loaded.plan(), loaded.required(), bytes, opt.plan);

  CodegenRequest request;
  request.backend = backend;
  request.core = core;
  if (core && !opt.name.empty()) request.name = opt.name;
  const std::string output = opt.output.empty() ? with_extension(opt.plan, ".c") : opt.output;
  const std::string header = core ? (opt.header.empty() ? with_extension(output, ".h") : opt.header) : "";
  for (const std::string& path : {output, header}) {
    if (!path.empty() && same_file(path, opt.plan)) throw Failure(path + ": is the plan itself; choose another output");
  }
  request.source_name = file_name(output);
  request.header_name = core ? file_name(header) : "";
  const GeneratedC text = generate_c(plan, routes, request);

  if (core) write_file_atomic(header, text_bytes(text.header), IfExists::kReplace);
  write_file_atomic(output, text_bytes(text.source), IfExists::kReplace);

  std::string report = "C source written to " + output + "\n";
  report += std::string("  backend   ") + backend_name(backend) +
            (plan.int8 || backend == Backend::kReference ? "" : " (float32 plan: float reference kernels)") + "\n";
  if (backend == Backend::kCmsisNn && plan.int8 && !plan.cmsis_reserve_known) {
    report +=
        "  note      this tigris was built without CMSIS-NN: define the *_CMSIS_NN_RESERVE_BYTES macro for "
        "your target (init checks it)\n";
  }
  report += "  format    " + opt.format + "\n";
  if (core) {
    report += "  header    " + header + " (" + std::to_string(text.header.size()) + " bytes)\n";
    report += "  name      " + request.name + "\n";
  }
  report += "  size      " + std::to_string(text.source.size()) + " bytes\n";
  std::fwrite(report.data(), 1, report.size(), stdout);
}

}  // namespace

void register_codegen(CLI::App& app, Registry& commands) {
  auto opt = std::make_shared<CodegenOptions>();
  CLI::App* sub = app.add_subcommand("codegen", "Generate the C that loads a .tgrs plan and runs it.");
  sub->add_option("PLAN", opt->plan, ".tgrs plan")->required();
  sub->add_option("-b,--backend", opt->backend, "kernel backend: reference (default), esp-nn or cmsis-nn");
  sub->add_option("-o,--output", opt->output, "C file to write (default: the plan's name with .c)");
  sub->add_option("--format", opt->format,
                  "app: a standalone program (default); core: a .c/.h pair for firmware that owns its entry point")
      ->check(CLI::IsMember({"app", "core"}));
  sub->add_option("--header", opt->header, "header of a core (default: the output's name with .h)");
  sub->add_option("--name", opt->name, "symbol prefix of a core, a C identifier (default: tigris_codegen)");
  commands.push_back({sub, [opt, sub] { run_codegen(*opt, *sub); }});
}

}  // namespace tigris::cli
