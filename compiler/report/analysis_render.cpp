// Text and JSON renderings of an AnalysisReport (analyze and compile share the text).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "compiler/report/analysis_report.h"
#include "compiler/report/format.h"

namespace tigris::report {
namespace {

constexpr size_t kListedRows = 5;

std::string header(const AnalysisModel& m) {
  // The plan's operators after fusing and folding, beside inspect's count of the file's own.
  std::string line = m.file + "   " + m.dtype + ", " + plural(m.operators, "operator", "operators") +
                     " after normalization (" + std::to_string(m.source_operators) + " in the file)";
  if (m.subgraphs) line += ", " + plural(m.subgraphs, "subgraph", "subgraphs");
  TextTable t;
  for (const auto& io : m.inputs) t.add({"input", io.name, format_shape(io.shape) + " " + io.dtype});
  for (const auto& io : m.outputs) t.add({"output", io.name, format_shape(io.shape) + " " + io.dtype});
  for (const auto& v : m.state)
    t.add(
        {"state", v.name, format_shape(v.shape) + " " + v.dtype + ", " + format_bytes(v.bytes) + " kept between runs"});
  return line + "\n" + t.render();
}

std::string stages_and_tiled(uint32_t stages, uint32_t tiled) {
  return plural(stages, "stage", "stages") + (tiled ? ", " + std::to_string(tiled) + " tiled" : "");
}

std::string verdict_lines(const AnalysisReport& r) {
  const AnalysisModel& m = r.model;
  const AnalysisFast& f = r.fast;
  std::string out;
  TextTable rows;
  size_t total = 0;
  switch (f.verdict) {
  case Verdict::kCannotCompile:
    if (!m.unsupported_operators.empty()) {
      total = m.unsupported_operators.size();
      out = "cannot compile: " + plural(total, "unsupported operator", "unsupported operators") + "\n";
      for (size_t i = 0; i < std::min(total, kListedRows); ++i) {
        const auto& u = m.unsupported_operators[i];
        rows.add({u.type, u.name, u.reason});
      }
    } else {
      out = "cannot compile: " + (m.dtype_errors.empty() ? std::string("unknown reason") : m.dtype_errors[0]) + "\n";
    }
    break;
  case Verdict::kNoBudget: return "no budget given; memory figures only\n";
  case Verdict::kDoesNotFit:
    total = f.blocking_stages.size();
    out = "does not fit " + format_bytes(*f.budget_bytes) + " fast memory: " +
          (total == 1 ? std::string("1 stage exceeds it") : std::to_string(total) + " stages exceed it") + "\n";
    for (size_t i = 0; i < std::min(total, kListedRows); ++i) {
      const auto& b = f.blocking_stages[i];
      rows.add({"stage " + std::to_string(b.stage), format_bytes(b.required_bytes), b.reason});
    }
    break;
  case Verdict::kFits:
    out = "fits " + format_bytes(*f.budget_bytes) + " fast memory, " + stages_and_tiled(f.stages, f.tiled);
    if (!r.slow.fits && r.slow.budget_bytes) {
      out += "; slow memory " + format_bytes(r.slow.peak_bytes) + " needed, " + format_bytes(*r.slow.budget_bytes) +
             " given";
    }
    return out + "\n";
  }
  out += rows.render();
  if (total > kListedRows) out += "  and " + std::to_string(total - kListedRows) + " more; --json lists all\n";
  return out;
}

std::string memory_section(const AnalysisReport& r, bool sweep) {
  TextTable t;
  if (r.tflite_micro) {
    t.add({"TFLite Micro arena", format_bytes(r.tflite_micro->tensor_arena_bytes), r.tflite_micro->arena_detail});
    t.add({"TFLite Micro export", r.tflite_micro->export_value, r.tflite_micro->export_detail});
  }
  t.add({"unscheduled", format_bytes(r.model.unscheduled_peak_bytes)});
  t.add({"largest tensor", format_bytes(r.model.largest_tensor.bytes), format_shape(r.model.largest_tensor.shape)});
  const bool fits = r.fast.verdict == Verdict::kFits;
  if (fits) {
    t.add({"this plan", format_bytes(r.fast.scheduled_peak_bytes),
           format_bytes(*r.fast.budget_bytes - r.fast.scheduled_peak_bytes) + " headroom"});
  }
  if (r.slow.peak_bytes > 0) {
    t.add({"slow memory", format_bytes(r.slow.peak_bytes),
           r.slow.budget_bytes ? "budget " + format_bytes(*r.slow.budget_bytes) : std::string("no budget given")});
  }
  if (sweep) {
    for (const BudgetTried& b : r.budgets_tried) {
      const std::string label = !b.fits ? "does not fit at" : fits ? "also fits at" : "fits at";
      t.add({label, format_bytes(b.budget_bytes), stages_and_tiled(b.stages, b.tiled)});
    }
  }
  return "memory\n" + t.render();
}

std::string flash_section(const AnalysisReport& r) {
  const AnalysisFlash& f = r.flash;
  TextTable t;
  if (f.plan_bytes) {
    t.add({"plan", format_bytes(*f.plan_bytes),
           "weights " + format_bytes(f.weight_bytes) + ", overhead " + format_bytes(f.overhead_bytes)});
    if (f.lz4_plan_bytes && *f.lz4_plan_bytes * 100 < *f.plan_bytes * 95) {
      t.add({"with -c lz4", format_bytes(*f.lz4_plan_bytes), "estimate"});
    }
  } else {
    t.add({"plan", r.fast.budget_bytes ? "none at this budget" : "none without a budget (-m)"});
  }
  if (f.int8_plan_bytes && r.model.dtype == "float32") t.add({"as int8", format_bytes(*f.int8_plan_bytes), "estimate"});
  if (f.budget_bytes) {
    std::string judgement = "no plan to compare";
    if (f.plan_bytes) {
      judgement =
          *f.plan_bytes <= *f.budget_bytes ? "fits" : "exceeds it by " + format_bytes(*f.plan_bytes - *f.budget_bytes);
    }
    t.add({"flash budget", format_bytes(*f.budget_bytes), judgement});
  }
  return "flash\n" + t.render();
}

std::string stages_table(const AnalysisReport& r) {
  TextTable t;
  t.right_align(0);
  t.right_align(2);
  t.right_align(3);
  t.right_align(4);
  // The scheduler's reasons, when it gave any (reports rebuilt from a plan have none).
  const bool why = std::any_of(r.stages.begin(), r.stages.end(), [](const AnalysisStage& s) { return !s.why.empty(); });
  std::vector<std::string> head = {"stage", "ops", "untiled peak", "in", "out", "tiling"};
  if (why) head.push_back("why");
  t.add(head);
  for (const AnalysisStage& s : r.stages) {
    // Op indices count within the stage's graph; stages of If/While graphs name theirs.
    const std::string ops = (s.graph ? "graph " + std::to_string(s.graph) + ": " : std::string()) +
                            (s.first_op == s.last_op ? std::to_string(s.first_op)
                                                     : std::to_string(s.first_op) + "-" + std::to_string(s.last_op));
    std::vector<std::string> row = {std::to_string(s.stage),    ops,
                                    format_bytes(s.peak_bytes), format_bytes(s.in_bytes),
                                    format_bytes(s.out_bytes),  s.tiling};
    if (why) row.push_back(s.why);
    t.add(row);
  }
  return "stages\n" + t.render();
}

nlohmann::ordered_json tensor_json(const ReportTensor& t) {
  return {{"name", t.name}, {"shape", t.shape}, {"dtype", t.dtype}, {"bytes", t.bytes}};
}

template <typename T>
nlohmann::ordered_json optional_json(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json model_json(const AnalysisModel& m) {
  using json = nlohmann::ordered_json;
  json j = {{"name", m.name},
            {"file", m.file},
            {"format", m.format},
            {"dtype", m.dtype == "int8" || m.dtype == "int16" || m.dtype == "float32" ? json(m.dtype) : json(nullptr)},
            {"operators", m.operators},
            {"source_operators", m.source_operators},
            {"tensors", m.tensors},
            {"activations", m.activations},
            {"subgraphs", m.subgraphs},
            {"unscheduled_peak_bytes", m.unscheduled_peak_bytes},
            {"weight_bytes", m.weight_bytes},
            {"largest_tensor",
             {{"name", m.largest_tensor.name}, {"shape", m.largest_tensor.shape}, {"bytes", m.largest_tensor.bytes}}}};
  j["inputs"] = json::array();
  for (const auto& t : m.inputs) j["inputs"].push_back(tensor_json(t));
  j["outputs"] = json::array();
  for (const auto& t : m.outputs) j["outputs"].push_back(tensor_json(t));
  j["state"] = json::array();
  for (const auto& t : m.state) j["state"].push_back(tensor_json(t));
  j["unsupported_operators"] = json::array();
  for (const auto& u : m.unsupported_operators) {
    j["unsupported_operators"].push_back({{"type", u.type}, {"name", u.name}, {"reason", u.reason}});
  }
  j["dtype_errors"] = m.dtype_errors;
  return j;
}

nlohmann::ordered_json fast_json(const AnalysisFast& f) {
  using json = nlohmann::ordered_json;
  json blocking = json::array();
  for (const auto& b : f.blocking_stages) {
    blocking.push_back({{"stage", b.stage}, {"required_bytes", b.required_bytes}, {"reason", b.reason}});
  }
  return {{"budget_bytes", optional_json(f.budget_bytes)},
          {"verdict", verdict_name(f.verdict)},
          {"scheduled_peak_bytes", f.scheduled_peak_bytes},
          {"stages", f.stages},
          {"tiled", f.tiled},
          {"stages_needing_tiling", f.stages_needing_tiling},
          {"stages_tileable", f.stages_tileable},
          {"stages_untileable", f.stages_untileable},
          {"untileable_operators", f.untileable_operators},
          {"minimum_for_partition_bytes", f.minimum_for_partition_bytes},
          {"blocking_stages", blocking},
          {"infeasible", f.infeasible}};
}

nlohmann::ordered_json stage_json(const AnalysisStage& s) {
  using json = nlohmann::ordered_json;
  json tiles = nullptr;
  if (s.tiles) {
    tiles = {{"axis", s.tiles->axis},
             {"tile", s.tiles->tile},
             {"count", s.tiles->count},
             {"halo", s.tiles->halo},
             {"tiled_peak_bytes", s.tiles->tiled_peak_bytes}};
  }
  json j = {{"stage", s.stage},           {"first_op", s.first_op},
            {"last_op", s.last_op},       {"operators", s.operators},
            {"peak_bytes", s.peak_bytes}, {"inputs", s.inputs},
            {"outputs", s.outputs},       {"reload_bytes", s.in_bytes},
            {"spill_bytes", s.out_bytes}, {"needs_tiling", s.needs_tiling},
            {"tiling", s.tiling},         {"tiles", tiles},
            {"decision", s.why}};
  if (s.graph != 0) j["graph"] = s.graph;  // a stage of an If/While graph
  return j;
}

}  // namespace

std::string verdict_name(Verdict v) {
  switch (v) {
  case Verdict::kCannotCompile: return "cannot_compile";
  case Verdict::kNoBudget: return "no_budget";
  case Verdict::kDoesNotFit: return "does_not_fit";
  case Verdict::kFits: return "fits";
  }
  return "unknown";
}

std::string render_text(const AnalysisReport& r, bool verbose, bool sweep) {
  std::string out = header(r.model) + verdict_lines(r) + memory_section(r, sweep) + flash_section(r);
  if (verbose && !r.stages.empty()) out += stages_table(r);
  return out;
}

nlohmann::ordered_json to_json(const AnalysisReport& r) {
  using json = nlohmann::ordered_json;
  json j;
  j["report"] = "tigris-analysis";
  j["version"] = kAnalysisVersion;
  j["model"] = model_json(r.model);
  j["tflite_micro"] = nullptr;
  if (r.tflite_micro) {
    const AnalysisTflm& t = *r.tflite_micro;
    j["tflite_micro"] = {{"tensor_arena_bytes", t.tensor_arena_bytes},
                         {"excludes", t.arena_excludes},
                         {"export",
                          {{"written", t.export_written},
                           {"total_change_bytes", optional_json(t.export_change_bytes)},
                           {"detail", t.export_detail}}}};
  }
  j["fast"] = fast_json(r.fast);
  j["slow"] = {{"budget_bytes", optional_json(r.slow.budget_bytes)},
               {"peak_bytes", r.slow.peak_bytes},
               {"spill_bytes", r.slow.spill_bytes},
               {"reload_bytes", r.slow.reload_bytes},
               {"fits", r.slow.fits},
               {"overflow_stages", r.slow.overflow_stages}};
  const AnalysisFlash& f = r.flash;
  j["flash"] = {
      {"budget_bytes", optional_json(f.budget_bytes)},
      {"weight_bytes", f.weight_bytes},
      {"plan_bytes", optional_json(f.plan_bytes)},
      {"overhead_bytes", f.overhead_bytes},
      {"plan_fits", f.plan_bytes ? json(f.plan_fits) : json(nullptr)},
      {"estimates",
       {{"int8_plan_bytes", optional_json(f.int8_plan_bytes)}, {"lz4_plan_bytes", optional_json(f.lz4_plan_bytes)}}}};
  j["budgets_tried"] = json::array();
  for (const BudgetTried& b : r.budgets_tried) {
    j["budgets_tried"].push_back(
        {{"budget_bytes", b.budget_bytes}, {"fits", b.fits}, {"stages", b.stages}, {"tiled", b.tiled}});
  }
  j["stages"] = json::array();
  for (const AnalysisStage& s : r.stages) j["stages"].push_back(stage_json(s));
  return j;
}

}  // namespace tigris::report
