// analyze, compile, inspect, export and the memory-timeline picture: each the CLI's library
// calls, returning the report's JSON (parsed into report objects by python/tigris) and its
// text exactly as the CLI prints it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "compiler/report/analysis_report.h"
#include "export/command.h"
#include "python/src/convert.h"
#include "tools/tigris/analysis.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/compile_model.h"
#include "tools/tigris/iface_arrays.h"
#include "tools/tigris/inspection.h"
#include "tools/tigris/model_file.h"
#include "tools/tigris/model_options.h"
#include "tools/tigris/timeline_svg.h"
#include "tools/tigris/trace_report.h"

namespace tigris::python {
namespace {

struct Sizes {
  std::optional<int64_t> fast, slow, flash;
};

Sizes sizes_of(const py::object& fast, const py::object& slow, const py::object& flash) {
  Sizes s{size_of(fast, "fast"), size_of(slow, "slow"), size_of(flash, "flash")};
  // The CLI's checks of -m and -f (usage errors there, exit status 2), with its words (the
  // keyword for the flag's name).
  if (s.flash && *s.flash <= 0) throw cli::UsageError("flash must be greater than zero");
  if (s.fast && *s.fast <= 0) throw cli::UsageError("Fast-memory budget must be greater than zero");
  if (s.fast && *s.fast > static_cast<int64_t>(UINT32_MAX)) {
    throw cli::UsageError("Fast-memory budget exceeds the uint32 plan-format limit");
  }
  return s;
}

py::dict analyze(const py::bytes& model, const std::string& name, const py::object& fast, const py::object& slow,
                 const py::object& flash, const std::vector<std::string>& input_shapes) {
  const Sizes s = sizes_of(fast, slow, flash);
  compiler::Budgets budgets;
  if (s.fast) budgets.fast = static_cast<uint64_t>(*s.fast);
  if (s.slow && *s.slow > 0) budgets.slow = static_cast<uint64_t>(*s.slow);  // display only, as analyze -m
  if (s.flash) budgets.flash = static_cast<uint64_t>(*s.flash);
  const std::vector<uint8_t> bytes = to_vector(model);
  std::vector<std::string> warnings;
  cli::ModelAnalysis a;
  {
    py::gil_scoped_release release;
    const compiler::Model m = cli::load_model_bytes_for_cli(name, bytes, input_shapes);
    warnings = m.warnings();
    a = cli::analyze_model(name, bytes, m, budgets);
  }
  py::dict d;
  d["json"] = report::to_json(a.report).dump();
  d["text"] = report::render_text(a.report, false, true);
  d["verbose_text"] = report::render_text(a.report, true, true);
  d["warnings"] = warnings;
  d["plan"] = a.compiled && a.compiled->ok() ? py::object(to_bytes(a.compiled->plan)) : py::object(py::none());
  d["budget"] = budgets.fast;
  return d;
}

py::dict compile(const py::bytes& model, const std::string& name, const py::object& fast, const py::object& slow,
                 const py::object& flash, const std::vector<std::string>& input_shapes, const std::string& compress,
                 bool xip) {
  const Sizes s = sizes_of(fast, slow, flash);
  if (compress != "none" && compress != "lz4") {
    throw cli::UsageError("compress must be 'none' or 'lz4', not '" + compress + "'");
  }
  // As compile -m: the fast pool is required and both pools must be positive.
  if (!s.fast) throw cli::UsageError("Fast-memory budget must be given (fast=)");
  if (s.slow && *s.slow <= 0) throw cli::UsageError("Slow-memory budget must be greater than zero");
  compiler::Budgets budgets;
  budgets.fast = static_cast<uint64_t>(*s.fast);
  if (s.slow) budgets.slow = static_cast<uint64_t>(*s.slow);
  if (s.flash) budgets.flash = static_cast<uint64_t>(*s.flash);
  compiler::CompileOptions options;
  options.compression = compress == "lz4" ? compiler::Compression::Lz4 : compiler::Compression::None;
  options.xip = xip;
  const std::vector<uint8_t> bytes = to_vector(model);
  std::vector<std::string> warnings;
  cli::CompiledModel c;
  {
    py::gil_scoped_release release;
    const compiler::Model m = cli::load_model_bytes_for_cli(name, bytes, input_shapes);
    warnings = m.warnings();
    c = cli::compile_model(name, m, budgets, options);
  }
  py::dict d;
  d["json"] = report::to_json(c.report).dump();
  d["text"] = report::render_text(c.report, false, false);
  d["verbose_text"] = report::render_text(c.report, true, false);
  d["warnings"] = warnings;
  d["refusal"] = c.refusal;
  d["limits_warning"] = c.limits_warning;
  d["plan"] = c.refusal.empty() ? py::object(to_bytes(c.result.plan)) : py::object(py::none());
  d["weight_reserve_bytes"] = c.result.schedule.fast.weight_reserve_bytes;
  return d;
}

py::dict inspect(const py::bytes& data, const std::string& name) {
  const cli::Inspection r = cli::inspect_bytes(name, to_vector(data));
  py::dict d;
  d["kind"] = r.kind;
  d["json"] = r.json.dump();
  d["text"] = r.text;
  d["verbose_text"] = r.verbose_text;
  return d;
}

py::dict export_model(const py::bytes& model, const std::string& name, const std::string& target, int max_runs) {
  exporter::ExportOptions options;
  const std::optional<tflm::Target> t = tflm::parse_target(target);
  if (!t) throw cli::UsageError("target must be arm-none-eabi, ilp32 or lp64, not '" + target + "'");
  if (max_runs < 1 || max_runs > 16) throw cli::UsageError("max_runs must be between 1 and 16");
  options.target = *t;
  options.max_runs = max_runs;
  const std::vector<uint8_t> bytes = to_vector(model);
  std::vector<uint8_t> written;
  exporter::ExportResult r;
  {
    py::gil_scoped_release release;
    r = exporter::export_to_memory(bytes, name, options, written);
  }
  if (r.exit_status != 0) throw cli::Failure(r.error);
  const exporter::ExportPlan& p = r.outcome.plan;
  py::list runs;
  for (const exporter::BandedRun& run : p.runs) {
    py::dict entry;
    entry["first_op"] = run.first_op;
    entry["last_op"] = run.last_op;
    entry["bands"] = run.bands;
    runs.append(entry);
  }
  py::dict figures;
  figures["model"] = name;
  figures["target"] = tflm::target_name(options.target);
  figures["description"] = exporter::describe_plan(p);
  figures["runs"] = runs;
  figures["folded_pads"] = p.folded_pads;
  figures["operators_before"] = p.operators_before;
  figures["operators_after"] = p.operators_after;
  figures["macs_before"] = p.macs_before;
  figures["macs_after"] = p.macs_after;
  figures["mac_overhead_percent"] = p.mac_overhead_percent();
  figures["head_before_bytes"] = p.before.head;
  figures["head_after_bytes"] = p.after.head;
  figures["head_change_bytes"] = p.head_change();
  figures["persistent_growth_bytes"] = p.persistent_growth();
  figures["total_change_bytes"] = p.total_change();
  figures["model_bytes"] = written.size();
  py::dict d;
  d["model"] = to_bytes(written);
  d["figures"] = figures;
  d["text"] = r.out;
  return d;
}

// analyze --svg: the plan run once on zeros with the trace hook, drawn against the budget.
std::string timeline(const py::bytes& plan_bytes, const std::string& name, uint64_t budget) {
  const std::vector<uint8_t> bytes = to_vector(plan_bytes);
  py::gil_scoped_release release;
  const cli::LoadedPlan loaded(name, bytes);
  const tigris_plan_t& plan = loaded.plan();
  std::vector<std::vector<uint8_t>> zeros;
  for (uint32_t i = 0; i < plan.header->num_model_inputs; ++i) {
    zeros.emplace_back(cli::iface_spec(plan, plan.model_inputs[i], false).bytes, uint8_t{0});
  }
  return cli::timeline_svg(plan, cli::traced_run(plan, zeros), budget);
}

}  // namespace

void register_reports(py::module_& m) {
  m.def("analyze", &analyze, py::arg("model"), py::arg("name"), py::arg("fast"), py::arg("slow"), py::arg("flash"),
        py::arg("input_shapes"));
  m.def("compile", &compile, py::arg("model"), py::arg("name"), py::arg("fast"), py::arg("slow"), py::arg("flash"),
        py::arg("input_shapes"), py::arg("compress"), py::arg("xip"));
  m.def("inspect", &inspect, py::arg("data"), py::arg("name"));
  m.def("export", &export_model, py::arg("model"), py::arg("name"), py::arg("target"), py::arg("max_runs"));
  m.def("timeline_svg", &timeline, py::arg("plan"), py::arg("name"), py::arg("budget"));
}

}  // namespace tigris::python
