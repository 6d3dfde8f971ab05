// The export search over runs, band counts and PAD folds.
#include "export/search.h"

#include <algorithm>
#include <optional>

#include "export/banding/fold.h"
#include "export/banding/macs.h"
#include "export/banding/rewrite.h"
#include "export/banding/runs.h"
#include "export/tflite/reader.h"
#include "export/tflm/kernels.h"

namespace tigris::exporter {
namespace {

using banding::BandPlan;

constexpr int kMinBands = 2, kMaxBands = 10;  // TFLite Micro concatenates at most 10 inputs

// A model being rewritten: operators keep their input index in `origin` (-1 = added).
struct State {
  tflite::Model model;
  std::vector<int> origin;
  int folded = 0;
  std::vector<BandPlan> steps;  // rewrites applied, each in the numbering of its model
  std::vector<BandedRun> runs;
  int64_t total = 0;
  int64_t macs = 0;
};

struct Candidate {
  BandPlan plan;
  tflite::Model model;
  int64_t total = 0, macs = 0;
};

bool better(const Candidate& a, const Candidate& b) {
  if (a.total != b.total) return a.total < b.total;
  if (a.macs != b.macs) return a.macs < b.macs;
  return a.model.subgraphs[0].operators.size() < b.model.subgraphs[0].operators.size();
}

// What the search needs of a model, cheaper to copy: large constant data shrinks to one
// byte (the arena and the rewrite only need to know those tensors are constant; PAD
// paddings and the like stay intact), names and min/max ranges go.
tflite::Model skeleton(const tflite::Model& m) {
  tflite::Model s = m;
  for (tflite::Buffer& b : s.buffers)
    if (b.data.size() > 64) b.data.assign(1, 0);
  for (tflite::Tensor& t : s.subgraphs[0].tensors) {
    t.name.clear();
    if (t.quantization) t.quantization->min.clear(), t.quantization->max.clear();
  }
  return s;
}

// The `keep` best rewrites of one more run of `s`, best first.
std::vector<Candidate> single_runs(const State& s, const tflm::Arena& before, tflm::Target target, size_t keep) {
  auto ops = banding::band_ops(s.model);
  std::vector<bool> eligible;
  for (int o : s.origin) eligible.push_back(o >= 0);
  std::vector<Candidate> out;
  std::string why;
  for (const banding::Run& run : banding::candidate_runs(s.model, ops, eligible)) {
    const auto& g = s.model.subgraphs[0];
    int64_t height = g.tensors[static_cast<size_t>(g.operators[run.last].outputs[0])].shape[1];
    for (int bands = kMinBands; bands <= std::min<int64_t>(kMaxBands, height); ++bands) {
      BandPlan plan{run, bands};
      auto rewritten = banding::rewrite_run(s.model, plan, nullptr, &why);
      if (!rewritten) continue;
      tflm::Arena after = tflm::compute_arena(*rewritten, target);
      Candidate c{plan, std::move(*rewritten), after.used() - before.used(), 0};
      c.macs = banding::count_macs(c.model);
      // Keep the `keep` best, best first.
      auto at = std::upper_bound(out.begin(), out.end(), c, better);
      if (static_cast<size_t>(at - out.begin()) >= keep) continue;
      out.insert(at, std::move(c));
      if (out.size() > keep) out.pop_back();
    }
  }
  return out;
}

void apply(State& s, Candidate&& c) {
  size_t replaced = c.plan.run.last - c.plan.run.first + 1;
  size_t added = c.model.subgraphs[0].operators.size() + replaced - s.model.subgraphs[0].operators.size();
  s.runs.push_back(
      {static_cast<size_t>(s.origin[c.plan.run.first]), static_cast<size_t>(s.origin[c.plan.run.last]), c.plan.bands});
  s.origin.erase(s.origin.begin() + static_cast<long>(c.plan.run.first),
                 s.origin.begin() + static_cast<long>(c.plan.run.last) + 1);
  s.origin.insert(s.origin.begin() + static_cast<long>(c.plan.run.first), added, -1);
  s.steps.push_back(c.plan);
  s.total = c.total;
  s.macs = c.macs;
  s.model = std::move(c.model);
}

bool better_state(const State& a, const State& b) {
  if (a.total != b.total) return a.total < b.total;
  return a.macs < b.macs;
}

// One run: the best single rewrite. More runs: a beam search, each state extended by its
// best single rewrites of one more run.
State search_variant(State start, const tflm::Arena& before, const ExportOptions& opts) {
  constexpr size_t kBeam = 4, kBranch = 4;
  std::vector<State> beam{std::move(start)};
  std::optional<State> best;
  for (int depth = 0; depth < opts.max_runs && !beam.empty(); ++depth) {
    std::vector<State> next;
    for (const State& s : beam) {
      std::vector<Candidate> cands = single_runs(s, before, opts.target, opts.max_runs == 1 ? 1 : kBranch);
      for (size_t i = 0; i < cands.size(); ++i) {
        if (!s.steps.empty() && cands[i].total >= s.total) break;  // another run must pay off
        State n = s;
        apply(n, std::move(cands[i]));
        next.push_back(std::move(n));
      }
    }
    std::stable_sort(next.begin(), next.end(), better_state);
    if (next.size() > kBeam) next.resize(kBeam);
    if (!next.empty() && (!best || better_state(next.front(), *best))) best = next.front();
    beam = std::move(next);
  }
  return best ? std::move(*best) : State{};
}

std::string check_model(const tflite::Model& m, Refusal* kind) {
  if (m.subgraphs.size() != 1)
    return *kind = Refusal::SeveralSubgraphs, "models with several subgraphs are not exported";
  for (const tflite::Metadata& md : m.metadata)
    if (md.name != "min_runtime_version" && md.name != "CONVERSION_METADATA")
      return *kind = Refusal::Metadata, "metadata " + md.name + " is not supported";
  try {
    tflm::compute_arena(m, tflm::Target::ArmNoneEabi);
  } catch (const tflm::ArenaError& e) {
    switch (e.kind()) {
    case tflm::Unmodeled::Scratch: *kind = Refusal::Scratch; break;
    case tflm::Unmodeled::Persistent: *kind = Refusal::Persistent; break;
    case tflm::Unmodeled::SeveralSubgraphs: *kind = Refusal::SeveralSubgraphs; break;
    default: *kind = Refusal::TensorType; break;
    }
    return e.what();
  }
  if (!m.uncarried.empty()) return *kind = Refusal::Unreadable, m.uncarried.front();
  return {};
}

ExportOutcome refused(ExportOutcome out, Refusal kind, std::string reason) {
  out.refusal = kind;
  out.reason = std::move(reason);
  return out;
}

}  // namespace

ExportOutcome plan_export(const tflite::Model& m, const ExportOptions& opts) {
  ExportOutcome out;
  out.input_operators = m.subgraphs.empty() ? 0 : m.subgraphs[0].operators.size();
  Refusal kind = Refusal::None;
  if (std::string why = check_model(m, &kind); !why.empty()) return refused(std::move(out), kind, why);
  out.plan.before = tflm::compute_arena(m, opts.target);
  banding::Folded folded = banding::fold_pads(m);
  std::vector<State> variants;
  std::vector<int> identity(out.input_operators);
  for (size_t i = 0; i < identity.size(); ++i) identity[i] = static_cast<int>(i);
  variants.push_back(State{skeleton(m), identity, 0, {}, {}, 0, 0});
  if (folded.folded) variants.push_back(State{skeleton(folded.model), folded.origin, folded.folded, {}, {}, 0, 0});
  std::optional<State> best;
  for (State& v : variants) {
    State s = search_variant(std::move(v), out.plan.before, opts);
    if (s.steps.empty()) continue;
    if (!best || s.total < best->total || (s.total == best->total && s.macs < best->macs)) best = std::move(s);
  }
  if (!best || best->total >= 0) return refused(std::move(out), Refusal::NoGain, "no rewrite lowers the arena");
  // Replay the chosen rewrites on the full model.
  tflite::Model model = best->folded ? folded.model : m;
  std::string why;
  for (const BandPlan& step : best->steps) model = *banding::rewrite_run(model, step, nullptr, &why);
  out.plan.runs = best->runs;
  std::sort(out.plan.runs.begin(), out.plan.runs.end(),
            [](const BandedRun& a, const BandedRun& b) { return a.first_op < b.first_op; });
  out.plan.folded_pads = best->folded;
  out.plan.after = tflm::compute_arena(model, opts.target);
  out.plan.macs_before = banding::count_macs(m);
  out.plan.macs_after = banding::count_macs(model);
  out.plan.operators_before = out.input_operators;
  out.plan.operators_after = model.subgraphs[0].operators.size();
  out.model = std::move(model);
  return out;
}

ExportOutcome plan_export_file(const std::string& path, const ExportOptions& opts) {
  ExportOutcome out;
  out.refusal = Refusal::Unreadable;
  std::vector<uint8_t> bytes;
  try {
    bytes = tflite::read_file_bytes(path);
  } catch (const tflite::ModelError& e) {
    out.reason = e.what();  // names the file: it could not be read at all
    return out;
  }
  return plan_export_bytes(bytes, path, opts);
}

ExportOutcome plan_export_bytes(const std::vector<uint8_t>& bytes, const std::string& file, const ExportOptions& opts) {
  try {
    return plan_export(tflite::read_model(bytes, file, tflite::ReadOptions{.lenient = true}), opts);
  } catch (const tflite::ModelError& e) {
    ExportOutcome out;
    out.refusal = Refusal::Unreadable;
    out.reason = e.reason();  // what in the file is wrong
    return out;
  }
}

}  // namespace tigris::exporter
