#include "compiler/schedule/stages.h"

#include <algorithm>
#include <cstdio>
#include <limits>

#include "compiler/schedule/candidates.h"
#include "compiler/schedule/lifetimes.h"

namespace tigris::schedule {

namespace {

constexpr int kMaxBandOps = 16;       // ops of a banded stage candidate
constexpr int kMaxChainOps = 64;      // ops of a chain candidate
constexpr double kInfeasible = 1e30;  // an op over the budget in every form (reported, never emitted)
constexpr double kNone = 1e31;        // no candidate for the range
constexpr double kUnreached = 1e32;   // no partition of the prefix yet

std::string size_text(uint64_t b) {
  char buf[48];
  if (b < 1024)
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
  else if (b < (1u << 20))
    std::snprintf(buf, sizeof buf, "%.2f KiB", static_cast<double>(b) / 1024.0);
  else
    std::snprintf(buf, sizeof buf, "%.2f MiB", static_cast<double>(b) / 1048576.0);
  return buf;
}

bool io_ok(const std::vector<ir::TensorId>& in, const std::vector<ir::TensorId>& out) {
  return in.size() <= kMaxStageInputs && out.size() <= kMaxStageOutputs;
}

// A one-stage plan that reads every model input and writes every model output reads its
// inputs in place and leaves its outputs in fast memory (runtime in_place.h); never a plan
// with state, whose inputs the runtime binds in slow memory.
bool reads_in_place(const ir::Graph& g, const std::vector<Stage>& stages) {
  if (stages.size() != 1 || !g.state.empty() || stages[0].form != StageForm::Normal) return false;
  const Stage& s = stages[0];
  for (ir::TensorId id : g.inputs)
    if (std::find(s.inputs.begin(), s.inputs.end(), id) == s.inputs.end()) return false;
  for (ir::TensorId id : g.outputs)
    if (std::find(s.outputs.begin(), s.outputs.end(), id) == s.outputs.end()) return false;
  return !g.inputs.empty();
}

// Whether stage k writes its outputs to slow memory (inner chain members do not).
bool spills(const std::vector<Stage>& stages, size_t k) {
  const Stage& s = stages[k];
  return s.form != StageForm::Chain || static_cast<int>(k) == s.chain_head + s.chain_len - 1;
}

// Slow memory at the end of each stage (a chain: while it runs, as one unit): spilled
// tensors (and model inputs) still needed, and what the stage spills.
void fill_slow(const ir::Graph& g, const Usage& u, Schedule& sch) {
  if (!sch.part_of_plan && reads_in_place(g, sch.stages)) return;  // nothing in slow memory
  auto unit = [&](size_t k) {
    const Stage& s = sch.stages[k];
    return s.form == StageForm::Chain ? s.chain_head : static_cast<int>(k);
  };
  std::vector<int> unit_of(g.nodes.size(), 0), stage_of(g.nodes.size(), 0);
  for (size_t k = 0; k < sch.stages.size(); ++k)
    for (int s = sch.stages[k].first; s < sch.stages[k].end; ++s) {
      unit_of[static_cast<size_t>(s)] = unit(k);
      stage_of[static_cast<size_t>(s)] = static_cast<int>(k);
    }
  for (size_t k = 0; k < sch.stages.size(); ++k) {
    if (unit(k) != static_cast<int>(k)) {
      sch.stages[k].slow_bytes_after = sch.stages[static_cast<size_t>(unit(k))].slow_bytes_after;
      continue;
    }
    uint64_t bytes = 0;
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      if (g.tensors[t].constant) continue;
      const int p = u.producer[t];
      if (p == -2) continue;
      const int arrives = p < 0 ? -1 : unit_of[static_cast<size_t>(p)];
      if (arrives > static_cast<int>(k)) continue;
      if (p >= 0) {
        const size_t from_stage = static_cast<size_t>(stage_of[static_cast<size_t>(p)]);
        const Stage& from = sch.stages[from_stage];
        const bool listed =
            std::find(from.outputs.begin(), from.outputs.end(), static_cast<ir::TensorId>(t)) != from.outputs.end();
        if (!listed || !spills(sch.stages, from_stage)) continue;
      }
      const auto& r = u.reads[t];
      const int last_unit = r.empty() ? -1 : unit_of[static_cast<size_t>(r.back())];
      const bool never_freed = u.is_output[t] || (p < 0 && r.empty());  // outputs; model inputs nobody reads
      if (never_freed || last_unit >= static_cast<int>(k)) bytes += u.aligned[t];
    }
    sch.stages[k].slow_bytes_after = bytes;
    sch.slow_peak = std::max(sch.slow_peak, bytes);
  }
}

// A range's best form (normal, banded or chain) within the budget.
struct RangeChoice {
  Candidate c;
  double cost = kNone;
};

class Partitioner {
 public:
  Partitioner(const ir::Graph& g, uint64_t budget, const PartitionOptions& opt)
      : g_(g),
        u_(g),
        budget_(budget),
        n_(static_cast<int>(g.nodes.size())),
        probe_(g),
        weight_cap_(opt.max_stage_weight_bytes) {
    banding_ = opt.banding && probe_.usable();
    chainable_.assign(static_cast<size_t>(n_), 0);
    band_spatial_.assign(static_cast<size_t>(n_), 0);
    if (!banding_) return;
    for (int i = 0; i < n_; ++i) {
      chainable_[static_cast<size_t>(i)] = chainable_op(probe_, g_, i);
      const uint8_t t = probe_.op(i).op_type;
      band_spatial_[static_cast<size_t>(i)] = tigris_rt::hw_spatial_op(t) || tigris_rt::line_spatial_op(t);
    }
  }

  bool banding() const { return banding_; }

  // The floor: the largest over ops of the smallest stage each can be.
  void floor(Schedule& sch) {
    for (int i = 0; i < n_; ++i) {
      const uint64_t f = banding_ ? op_floor(probe_, g_, u_, i) : normal_stage_peak(g_, u_, i, i + 1);
      if (f > sch.floor) {
        sch.floor = f;
        sch.floor_op = g_.nodes[static_cast<size_t>(i)].name + " (" + g_.nodes[static_cast<size_t>(i)].op + ")";
      }
    }
  }

  // Below the floor: one stage per op, stating what each needs at least (nothing is emitted).
  std::vector<Stage> per_op_floors() {
    std::vector<Stage> stages;
    for (int i = 0; i < n_; ++i) {
      Stage st;
      st.first = i;
      st.end = i + 1;
      range_io(g_, u_, i, i + 1, &st.inputs, &st.outputs);
      st.peak_bytes = banding_ ? op_floor(probe_, g_, u_, i) : normal_stage_peak(g_, u_, i, i + 1);
      st.fits = st.peak_bytes <= budget_;
      st.decision = "below the floor: its smallest form needs " + size_text(st.peak_bytes);
      stages.push_back(std::move(st));
    }
    return stages;
  }

  // The baseline: normal stages grown op by op while they fit; an op too large alone banded.
  std::vector<Stage> run_greedy() {
    std::vector<Stage> stages;
    std::vector<ir::TensorId> in, out;
    for (int f = 0; f < n_;) {
      int e = f;
      for (; e < n_; ++e) {
        range_io(g_, u_, f, e + 1, &in, &out);
        if (normal_stage_peak(g_, u_, f, e + 1) > budget_ || !io_ok(in, out)) break;
      }
      Candidate c;
      if (e > f) {
        c.ok = true;
        c.peak = normal_stage_peak(g_, u_, f, e);
        c.decision = "whole";
      } else {
        e = f + 1;
        range_io(g_, u_, f, e, &in, &out);
        if (banding_) c = best_banded(probe_, g_, f, e, in, out, budget_);
        if (!c.ok) c = over_budget(f).c;
      }
      emit(f, e, c, stages);
      f = e;
    }
    return stages;
  }

  std::vector<Stage> run() {
    std::vector<double> best(static_cast<size_t>(n_) + 1, kUnreached);
    std::vector<int> from(static_cast<size_t>(n_) + 1, -1);
    std::vector<Candidate> how(static_cast<size_t>(n_) + 1);
    best[0] = 0;
    for (int e = 1; e <= n_; ++e) {
      bool normal_open = true, band_open = banding_, chain_open = banding_;
      int band_spatial = 0, chain_spatial = 0;
      std::vector<ir::TensorId> weights;  // read by ops [f, e), each once
      uint64_t weight_bytes = 0;
      for (int f = e - 1; f >= 0; --f) {
        const size_t fi = static_cast<size_t>(f);
        for (ir::TensorId id : g_.nodes[fi].inputs) {
          if (id < 0 || !g_.tensor(id).constant || std::find(weights.begin(), weights.end(), id) != weights.end())
            continue;
          weights.push_back(id);
          weight_bytes += weight_entry_bytes(g_.tensor(id));
        }
        // Growing the range only adds weights: once over the block limit, always over.
        if (weight_cap_ > 0 && weight_bytes > weight_cap_ && e - f > 1) break;
        band_spatial += band_spatial_[fi];
        chain_spatial += tigris_rt::chain_spatial_op(probe_.usable() ? probe_.op(f).op_type : 0);
        band_open = band_open && band_spatial <= 1 && e - f <= kMaxBandOps;
        chain_open = chain_open && chainable_[fi] && e - f <= kMaxChainOps;
        if (!normal_open && !band_open && !chain_open) break;
        RangeChoice rc = choose(f, e, normal_open, band_open, chain_open && chain_spatial >= 2);
        // A single op stays a stage of its own when nothing fits: reported, never emitted.
        if (rc.cost >= kNone && e - f == 1) rc = over_budget(f);
        if (rc.cost >= kNone || best[fi] >= kUnreached) continue;
        if (best[fi] + rc.cost < best[static_cast<size_t>(e)]) {
          best[static_cast<size_t>(e)] = best[fi] + rc.cost;
          from[static_cast<size_t>(e)] = f;
          how[static_cast<size_t>(e)] = rc.c;
        }
      }
    }
    std::vector<std::pair<int, int>> cuts;
    for (int e = n_; e > 0; e = from[static_cast<size_t>(e)]) cuts.push_back({from[static_cast<size_t>(e)], e});
    std::reverse(cuts.begin(), cuts.end());
    std::vector<Stage> stages;
    for (auto [f, e] : cuts) emit(f, e, how[static_cast<size_t>(e)], stages);
    return stages;
  }

 private:
  RangeChoice choose(int f, int e, bool& normal_open, bool band_open, bool chain_open) {
    RangeChoice rc;
    std::vector<ir::TensorId> in, out;
    range_io(g_, u_, f, e, &in, &out);
    if (normal_open) {
      const uint64_t peak = normal_stage_peak(g_, u_, f, e);
      // Growing a stage at its front never lowers its live set: once over, always over.
      if (peak > budget_)
        normal_open = false;
      else if (io_ok(in, out)) {
        rc.c.ok = true;
        rc.c.form = StageForm::Normal;
        rc.c.peak = peak;
        rc.c.loads = tensor_bytes(g_, in);
        rc.c.spills = tensor_bytes(g_, out);
        rc.c.decision = "whole";
        rc.cost = rc.c.cost();
        return rc;  // fits whole: banding or chaining would only add traffic
      }
    }
    if (band_open) consider(rc, best_banded(probe_, g_, f, e, in, out, budget_));
    if (chain_open) consider(rc, best_chain(probe_, g_, u_, f, e, budget_));
    return rc;
  }

  static void consider(RangeChoice& rc, const Candidate& c) {
    if (c.ok && c.cost() < rc.cost) {
      rc.c = c;
      rc.cost = c.cost();
    }
  }

  RangeChoice over_budget(int f) {
    RangeChoice rc;
    rc.c.ok = false;
    rc.c.form = StageForm::Normal;
    rc.c.peak = banding_ ? op_floor(probe_, g_, u_, f) : normal_stage_peak(g_, u_, f, f + 1);
    rc.cost = kInfeasible;
    return rc;
  }

  // Why a range is banded or chained: what it would hold whole against the budget.
  std::string why(int f, int e, const Candidate& c) {
    if (c.form == StageForm::Normal) return "fits whole";
    std::vector<ir::TensorId> in, out;
    range_io(g_, u_, f, e, &in, &out);
    const uint64_t whole = normal_stage_peak(g_, u_, f, e);
    std::string text =
        whole > budget_ ? "needs " + size_text(whole) + " whole; " : "too many inputs or outputs whole; ";
    return text + c.decision + " in " + size_text(c.peak);
  }

  void emit(int f, int e, const Candidate& c, std::vector<Stage>& stages) {
    if (c.form != StageForm::Chain) {
      Stage st;
      st.first = f;
      st.end = e;
      range_io(g_, u_, f, e, &st.inputs, &st.outputs);
      st.form = c.form;
      st.band = c.band;
      st.peak_bytes = c.peak;
      st.load_traffic = c.loads;
      st.spill_traffic = c.spills;
      st.halo_macs = c.halo_macs;
      st.fits = c.ok && c.peak <= budget_;
      st.decision = c.ok ? why(f, e, c) : "over the budget in every form";
      stages.push_back(std::move(st));
      return;
    }
    const int head = static_cast<int>(stages.size());
    std::vector<ir::TensorId> chain_in, chain_out;
    range_io(g_, u_, f, e, &chain_in, &chain_out);
    int from = f;
    for (size_t m = 0; m < c.member_ends.size(); ++m) {
      Stage st;
      st.first = from;
      st.end = c.member_ends[m];
      range_io(g_, u_, st.first, st.end, &st.inputs, &st.outputs);
      if (m == 0) st.inputs = chain_in;
      st.form = StageForm::Chain;
      st.chain_head = head;
      st.chain_len = static_cast<int>(c.member_ends.size());
      st.peak_bytes = c.peak;
      st.decision = m == 0 ? why(f, e, c) : "streams the band of stage " + std::to_string(head + m - 1);
      if (m == 0) {
        st.band = c.band;
        st.load_traffic = c.loads;
        st.spill_traffic = c.spills;
        st.halo_macs = c.halo_macs;
      }
      from = st.end;
      stages.push_back(std::move(st));
    }
  }

  const ir::Graph& g_;
  Usage u_;
  uint64_t budget_;
  int n_;
  Probe probe_;
  bool banding_ = false;
  uint64_t weight_cap_ = 0;
  std::vector<char> chainable_, band_spatial_;
};

void finish_stages(const ir::Graph& g, const Usage& u, Schedule& sch) {
  const bool in_place = !sch.part_of_plan && reads_in_place(g, sch.stages);
  for (size_t k = 0; k < sch.stages.size(); ++k) {
    Stage& st = sch.stages[k];
    const bool head = st.form != StageForm::Chain || st.chain_head == static_cast<int>(k);
    st.reload_bytes = head && !in_place ? tensor_bytes(g, st.inputs) : 0;
    st.spill_bytes = spills(sch.stages, k) && !in_place ? tensor_bytes(g, st.outputs) : 0;
    if (st.form == StageForm::Normal) {
      st.load_traffic = st.reload_bytes;
      st.spill_traffic = st.spill_bytes;
    }
    sch.scheduled_peak = std::max(sch.scheduled_peak, st.peak_bytes);
    sch.fits = sch.fits && st.fits;
  }
  fill_slow(g, u, sch);
}

}  // namespace

uint64_t stage_cost(const ir::Graph& g, int first, int end, bool single_stage) {
  (void)single_stage;
  Usage u(g);
  return normal_stage_peak(g, u, first, end);
}

void stage_io(const ir::Graph& g, Stage& s) {
  Usage u(g);
  range_io(g, u, s.first, s.end, &s.inputs, &s.outputs);
  s.reload_bytes = tensor_bytes(g, s.inputs);
  s.spill_bytes = tensor_bytes(g, s.outputs);
}

Schedule partition(const ir::Graph& g, uint64_t budget, const PartitionOptions& options) {
  if (ir::has_control_flow(g) || !g.subgraphs.empty()) return partition_with_control(g, budget, options);
  Usage u(g);
  const int n = static_cast<int>(g.nodes.size());
  Schedule sch;
  sch.budget = budget;
  sch.part_of_plan = options.part_of_plan;
  if (n == 0) return sch;
  const uint64_t whole = normal_stage_peak(g, u, 0, n);
  Partitioner p(g, budget, options);
  sch.probe_usable = p.banding();
  p.floor(sch);  // stated even when everything fits: the smallest budget any plan fits
  if (budget == 0 || whole <= budget) {
    Stage st;
    st.first = 0;
    st.end = n;
    range_io(g, u, 0, n, &st.inputs, &st.outputs);
    st.peak_bytes = whole;
    st.fits = budget == 0 || whole <= budget;
    st.decision = "whole";
    sch.stages.push_back(std::move(st));
    finish_stages(g, u, sch);
    return sch;
  }
  sch.stages = sch.floor > budget ? p.per_op_floors() : options.greedy ? p.run_greedy() : p.run();
  for (Stage& st : sch.stages) {
    if (st.fits) continue;
    const ir::Node& node = g.nodes[static_cast<size_t>(st.first)];
    st.reason = "operator " + node.name + " (" + node.op + ") alone needs " + std::to_string(st.peak_bytes) + " bytes" +
                (sch.probe_usable ? " in its smallest band" : "");
  }
  finish_stages(g, u, sch);
  return sch;
}

}  // namespace tigris::schedule
