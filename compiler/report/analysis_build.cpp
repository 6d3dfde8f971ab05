#include "compiler/report/analysis_build.h"

#include <algorithm>
#include <cstdint>

#include "compiler/report/format.h"

namespace tigris::report {
namespace {

ReportTensor tensor_of(const compiler::TensorSummary& t) { return {t.name, t.shape, t.dtype, t.bytes}; }

AnalysisModel model_of(const std::string& file, const compiler::ModelSummary& s) {
  AnalysisModel m;
  m.file = file;
  m.name = s.name;
  m.format = s.format;
  m.dtype = s.dtype;
  m.operators = s.operators;
  m.source_operators = s.source_operators;
  m.tensors = s.tensors;
  m.activations = s.activations;
  m.subgraphs = s.subgraphs;
  m.unscheduled_peak_bytes = s.unscheduled_peak_bytes;
  m.weight_bytes = s.weight_bytes;
  m.largest_tensor = tensor_of(s.largest_tensor);
  for (const auto& t : s.inputs) m.inputs.push_back(tensor_of(t));
  for (const auto& t : s.outputs) m.outputs.push_back(tensor_of(t));
  for (const auto& t : s.state) m.state.push_back(tensor_of(t));
  for (const auto& u : s.unsupported_operators) m.unsupported_operators.push_back({u.type, u.name, u.reason});
  m.dtype_errors = s.dtype_errors;
  return m;
}

uint32_t tiled_stages(const compiler::ScheduleResult& s) { return s.fast.stages_tileable; }

AnalysisFast fast_of(const compiler::ScheduleResult& s, uint64_t budget) {
  const compiler::FastReport& f = s.fast;
  AnalysisFast out;
  out.budget_bytes = budget;
  out.scheduled_peak_bytes = f.scheduled_peak_bytes;
  out.stages = f.stages;
  out.tiled = tiled_stages(s);
  out.stages_needing_tiling = f.stages_needing_tiling;
  out.stages_tileable = f.stages_tileable;
  out.stages_untileable = f.stages_untileable;
  out.untileable_operators = f.untileable_operators;
  out.minimum_for_partition_bytes = f.minimum_for_partition_bytes;
  for (const auto& b : f.blocking_stages) out.blocking_stages.push_back({b.stage, b.required_bytes, b.reason});
  // Honest verdict: a claimed fit whose peak exceeds the budget is reported as what it is.
  const bool fits = f.fits && f.scheduled_peak_bytes <= budget;
  out.verdict = fits ? Verdict::kFits : Verdict::kDoesNotFit;
  if (!fits && out.blocking_stages.empty()) {
    for (const auto& st : s.stages) {
      if (st.peak_bytes > budget) {
        out.blocking_stages.push_back({st.index, st.peak_bytes, st.reason.empty() ? "exceeds the budget" : st.reason});
      }
    }
    std::stable_sort(out.blocking_stages.begin(), out.blocking_stages.end(),
                     [](const auto& a, const auto& b) { return a.required_bytes > b.required_bytes; });
  }
  return out;
}

std::string tiling_cell(const compiler::StageSummary& s) {
  if (s.kind == "untiled") return s.fits ? "untiled" : "untiled, over budget";
  if (s.kind == "chain") {
    if (s.chain_head != static_cast<int32_t>(s.index)) return "in chain " + std::to_string(s.chain_head);
    return "chain of " + std::to_string(s.chain_len) + ", tile height " + std::to_string(s.tile_rows) +
           (s.line_buffered ? ", line-buffered" : "");
  }
  std::string cell = s.kind + ", " + std::to_string(s.tiles) + (s.tiles == 1 ? " tile" : " tiles");
  if (s.kind == "2D tile")
    return cell + " of " + std::to_string(s.tile_rows) + "x" + std::to_string(s.tile_cols) + ", halo " +
           std::to_string(s.halo);
  if (s.kind == "channel bands" || s.kind == "output-channel bands")
    return cell + " of " + std::to_string(s.tile_rows) + " rows x " + std::to_string(s.tile_cols) + " channels, halo " +
           std::to_string(s.halo);
  if (s.kind == "input-channel bands")  // rows (pixels) x input columns (channels), partial sums
    return cell + " of " + std::to_string(s.tile_rows) + " " + s.row_unit + " x " + std::to_string(s.tile_cols) + " " +
           s.col_unit + ", halo " + std::to_string(s.halo);
  // The axis the bands run along (a Concat's own axis), not the record's height axis.
  return cell + ", axis " + std::to_string(s.band_axis) + ", halo " + std::to_string(s.halo);
}

AnalysisStage stage_of(const compiler::StageSummary& s) {
  AnalysisStage out;
  out.stage = s.index;
  out.first_op = s.first_op;
  out.last_op = s.last_op;
  out.operators = s.operators;
  out.peak_bytes = s.untiled_peak_bytes;
  out.inputs = s.inputs;
  out.outputs = s.outputs;
  out.in_bytes = s.reload_bytes;
  out.out_bytes = s.spill_bytes;
  out.needs_tiling = s.needs_tiling;
  out.tiling = tiling_cell(s);
  out.why = s.decision;
  out.graph = s.graph;
  if (s.tiles > 0) out.tiles = AnalysisStage::Tiles{s.axis, s.tile_rows, s.tiles, s.halo, s.peak_bytes};
  return out;
}

}  // namespace

AnalysisReport build_analysis(const std::string& file, const compiler::ModelSummary& model,
                              const compiler::Budgets& budgets, const compiler::ScheduleResult* schedule,
                              const compiler::FlashReport* flash) {
  AnalysisReport r;
  r.model = model_of(file, model);
  r.slow.budget_bytes = budgets.slow;
  r.flash.budget_bytes = budgets.flash;
  if (budgets.fast) r.fast.budget_bytes = budgets.fast;
  if (schedule) {
    if (budgets.fast) {
      r.fast = fast_of(*schedule, budgets.fast);
    } else {
      r.fast.scheduled_peak_bytes = schedule->fast.scheduled_peak_bytes;
      r.fast.stages = schedule->fast.stages;
    }
    r.slow.peak_bytes = schedule->slow.peak_bytes;
    r.slow.spill_bytes = schedule->fast.spill_bytes;
    r.slow.reload_bytes = schedule->fast.reload_bytes;
    r.slow.fits = schedule->slow.fits;
    r.slow.overflow_stages = schedule->slow.overflow_stages;
    for (const auto& s : schedule->stages) r.stages.push_back(stage_of(s));
  }
  if (!model.supported()) {
    r.fast.verdict = Verdict::kCannotCompile;
  } else if (!budgets.fast) {
    r.fast.verdict = Verdict::kNoBudget;
  }
  if (flash) {
    r.flash.weight_bytes = flash->weight_bytes;
    if (flash->plan_bytes) {
      r.flash.plan_bytes = flash->plan_bytes;
      r.flash.overhead_bytes = flash->overhead_bytes;
      r.flash.plan_fits = flash->plan_fits;
    }
    if (flash->int8_plan_bytes_estimate) r.flash.int8_plan_bytes = flash->int8_plan_bytes_estimate;
    if (flash->lz4_plan_bytes_estimate) r.flash.lz4_plan_bytes = flash->lz4_plan_bytes_estimate;
  } else {
    r.flash.weight_bytes = model.weight_bytes;
  }
  return r;
}

std::vector<BudgetTried> sweep_budgets(const compiler::Model& model, const compiler::Budgets& budgets, bool fits,
                                       int tries) {
  std::vector<BudgetTried> out;
  uint64_t budget = budgets.fast;
  for (int i = 0; i < tries; ++i) {
    budget = fits ? budget / 2 : budget * 2;
    if (budget == 0 || budget > UINT32_MAX) break;
    compiler::Budgets b = budgets;
    b.fast = budget;
    const compiler::ScheduleResult s = compiler::schedule(model, b);
    const bool ok = s.fast.fits && s.fast.scheduled_peak_bytes <= budget;
    out.push_back({budget, ok, s.fast.stages, tiled_stages(s)});
    if (ok != fits) break;
  }
  return out;
}

}  // namespace tigris::report
