// `tigris run PLAN --input FILE | --input NAME=FILE ... --output FILE [--json]
//   [--fast SIZE] [--slow SIZE] [--stored-order] [--state FILE]`
// Runs a plan once on the host runtime. A plan with state (variables kept across runs)
// starts from its initial values, or with --state from the ones FILE holds, and writes the
// values the run leaves back to FILE: a sequence of runs with one FILE is the stream. By default the fast arena is
// exactly tigris_fast_arena_required(plan) bytes, so a successful run shows the plan fits the budget it states. Arrays
// are exchanged in the model's declared axis order and dtype (--stored-order: the plan's stored order).
#include <CLI/CLI.hpp>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "compiler/report/run_report.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/commands.h"
#include "tools/tigris/files.h"
#include "tools/tigris/host_run.h"
#include "tools/tigris/iface_arrays.h"
#include "tools/tigris/input_files.h"
#include "tools/tigris/model_file.h"
#include "tools/tigris/sizes.h"
#include "tools/tigris/state_file.h"
#include "tools/tigris/terminal_text.h"

namespace tigris::cli {
namespace {

struct RunOptions {
  std::string plan;
  std::vector<std::string> inputs;
  std::string output;
  bool json = false;
  std::string fast, slow;
  bool stored_order = false;
  std::string state;
};

std::vector<uint8_t> encode_outputs(const std::string& path, const std::vector<IfaceSpec>& specs,
                                    const std::vector<std::vector<uint8_t>>& outputs) {
  const std::string ext = file_extension(path);
  if (ext == ".npz") {
    std::vector<NamedArray> arrays;
    for (size_t i = 0; i < specs.size(); ++i) arrays.push_back({specs[i].name, plan_to_array(outputs[i], specs[i])});
    return write_npz(arrays);
  }
  const Array a = plan_to_array(outputs.at(0), specs.at(0));
  return ext == ".npy" ? write_npy(a) : a.data;
}

// .npy and .npz outputs are recognized by their signature; raw .bin data has none, so an
// existing .bin is never replaced.
OutputKind output_kind(const std::string& ext) {
  if (ext == ".npy") return {"a .npy array", [](std::string_view head) { return head.substr(0, 6) == "\x93NUMPY"; }};
  if (ext == ".npz") return {"an .npz archive", [](std::string_view head) { return head.substr(0, 2) == "PK"; }};
  return {"raw .bin data", nullptr};
}

uint32_t arena_size(const std::string& text, const char* option, uint32_t fallback) {
  if (text.empty()) return fallback;
  const int64_t bytes = parse_size(text, option);
  if (bytes < 0 || bytes > UINT32_MAX) {
    throw UsageError(std::string(option) + " must be between 0 and 4294967295 bytes, not '" + text + "'");
  }
  if (bytes == 0 && std::string(option) == "--fast") {
    throw UsageError("--fast must be greater than zero, not '" + text + "' (the plan requires " +
                     std::to_string(fallback) + " bytes)");
  }
  return static_cast<uint32_t>(bytes);
}

void run_run(const RunOptions& opt) {
  const std::string ext = file_extension(opt.output);
  if (ext != ".npy" && ext != ".npz" && ext != ".bin") {
    throw UsageError("--output must end in .npy, .npz or .bin, not '" + opt.output + "'");
  }
  const OutputFile output{opt.output, output_kind(ext)};
  std::vector<InputPath> input_paths = input_file_paths(opt.inputs);
  input_paths.push_back({"plan", opt.plan});
  std::vector<OutputFile> written = {output};
  if (!opt.state.empty()) written.push_back({opt.state, state_file_kind()});
  check_outputs(input_paths, written);
  const std::vector<uint8_t> bytes = read_file(opt.plan);
  if (sniff_kind(bytes) != FileKind::kPlan) {
    throw Failure(opt.plan + ": not a TiGrIS plan; compile the model first (tigris compile)");
  }
  const LoadedPlan loaded(opt.plan, bytes);
  const tigris_plan_t& plan = loaded.plan();
  if (!opt.state.empty() && tigris_state_required(&plan) == 0) {
    throw UsageError("--state: " + opt.plan + " keeps no state between runs");
  }

  std::vector<IfaceSpec> ins, outs;
  for (uint32_t i = 0; i < plan.header->num_model_inputs; ++i) {
    ins.push_back(iface_spec(plan, plan.model_inputs[i], opt.stored_order));
  }
  for (uint32_t i = 0; i < plan.header->num_model_outputs; ++i) {
    outs.push_back(iface_spec(plan, plan.model_outputs[i], opt.stored_order));
  }
  if (outs.size() > 1 && ext != ".npz") {
    throw Failure("the model has " + std::to_string(outs.size()) + " outputs; write them to an .npz file");
  }
  HostRunConfig config;
  config.fast_bytes = arena_size(opt.fast, "--fast", tigris_fast_arena_required(&plan));
  config.slow_bytes = arena_size(opt.slow, "--slow", default_slow_bytes(plan));
  const std::vector<std::vector<uint8_t>> inputs = gather_inputs(opt.inputs, ins);
  HostSession session(plan, config);
  const uint64_t fingerprint = plan_fingerprint(bytes);
  if (!opt.state.empty()) {
    if (auto kept = read_state_file(opt.state, fingerprint, session.state().size())) session.set_state(*kept);
  }
  const HostRunResult result = session.run(inputs);

  write_output(output, encode_outputs(opt.output, outs, result.outputs));
  if (!opt.state.empty()) write_output(written[1], encode_state_file(fingerprint, session.state()));

  report::RunReport r;
  r.plan = opt.plan;
  r.output = opt.output;
  r.runtime_version = runtime_version();
  r.kernels = result.int8_kernels ? (result.int16_kernels ? "int8 and int16" : "int8")
                                  : (result.int16_kernels ? "int16" : "float32");
  r.stored_order = opt.stored_order;
  r.fast_peak = result.fast_peak;
  r.slow_peak = result.slow_peak;
  r.fast_capacity = config.fast_bytes;
  r.slow_capacity = config.slow_bytes;
  r.fast_required = tigris_fast_arena_required(&plan);
  r.workspace_bytes = result.workspace_bytes;
  r.state_bytes = result.state_bytes;
  r.stats = result.stats;
  for (const IfaceSpec& s : outs) r.outputs.push_back({s.name, s.dtype, s.shape});
  const std::string text = opt.json ? json_text(report::to_json(r)) : report::render_text(r);
  print_report(text);
}

}  // namespace

void register_run(CLI::App& app, Registry& commands) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run a .tgrs plan once on the host runtime.");
  sub->add_option("PLAN", opt->plan, ".tgrs plan")->required();
  sub->add_option("-i,--input", opt->inputs,
                  ".npy, .npz or raw .bin file; NAME=FILE for each input of a multi-input model")
      ->allow_extra_args(false);
  sub->add_option("-o,--output", opt->output,
                  "output .npy, .npz (one member per output) or .bin; replaces only an earlier array")
      ->required();
  sub->add_flag("--json", opt->json, "Print versioned JSON instead of text.");
  sub->add_option("--fast", opt->fast, "fast arena bytes (default: exactly what the plan requires)");
  sub->add_option("--slow", opt->slow, "slow buffer bytes (default: every activation twice over)");
  sub->add_flag("--stored-order", opt->stored_order,
                "Exchange arrays in the plan's stored axis order instead of the model's declared order.");
  sub->add_option("--state", opt->state,
                  "state file of a plan with variables: read when it exists (else the initial values), "
                  "written back after the run");
  commands.push_back({sub, [opt] { run_run(*opt); }});
}

}  // namespace tigris::cli
