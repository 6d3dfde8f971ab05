// Chains: a range of chainable ops streamed as row bands through member stages.
//
// Members are cut before each spatial op (the first keeps the ops before it); a tensor
// that would cross members other than into the next member's first row space (a residual
// read after a spatial op, a skip over a member, a value needed after the chain) merges the
// members it spans. The runtime's rules then judge the chain on the probe plan (chain band
// access, limits), and the band cost model sizes it: the largest tile height that fits,
// line-buffered (every row computed once) or not, whichever costs less.
#include <algorithm>

#include "compiler/schedule/band_search.h"
#include "tigris_config.h"

namespace tigris::schedule {

namespace {

using namespace detail;

bool rank4_operands(const tigris_plan_t* plan, const tigris_op_t& op) {
  const uint16_t* ins = tigris_op_inputs(plan, &op);
  const uint16_t* outs = tigris_op_outputs(plan, &op);
  for (uint8_t k = 0; k < op.num_inputs + op.num_outputs; ++k) {
    const tigris_tensor_t& t = plan->tensors[k < op.num_inputs ? ins[k] : outs[k - op.num_inputs]];
    if (!(t.flags & TIGRIS_TENSOR_CONSTANT) && t.ndim != 4) return false;
  }
  return true;
}

bool spatial(Probe& probe, int i) { return tigris_rt::chain_spatial_op(probe.op(i).op_type); }

// Member ends for ops [first, end): cut before every spatial op but the first, then merge
// members a tensor crosses illegally. Empty when the range cannot be split into 2+ members.
std::vector<int> split_members(Probe& probe, const ir::Graph& g, const Usage& u, int first, int end) {
  std::vector<int> starts{first};
  bool seen_spatial = false;
  for (int i = first; i < end; ++i) {
    if (spatial(probe, i)) {
      if (seen_spatial) starts.push_back(i);
      seen_spatial = true;
    }
  }
  if (starts.size() < 2) return {};
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<int> member(static_cast<size_t>(end - first));
    for (size_t m = 0; m < starts.size(); ++m) {
      const int e = m + 1 < starts.size() ? starts[m + 1] : end;
      for (int i = starts[m]; i < e; ++i) member[static_cast<size_t>(i - first)] = static_cast<int>(m);
    }
    auto space0_end = [&](int m) {  // ops through the member's first spatial op read space 0
      const int e = m + 1 < static_cast<int>(starts.size()) ? starts[static_cast<size_t>(m) + 1] : end;
      for (int i = starts[static_cast<size_t>(m)]; i < e; ++i)
        if (spatial(probe, i)) return i + 1;
      return e;
    };
    const int last = static_cast<int>(starts.size()) - 1;
    for (int i = first; i < end && !changed; ++i) {
      const int m = member[static_cast<size_t>(i - first)];
      if (m == last) continue;
      for (ir::TensorId t : g.nodes[static_cast<size_t>(i)].outputs) {
        if (t < 0) continue;
        int to = m;  // merge members [m, to]
        if (u.needed_from(t, end)) to = last;
        for (int r : u.reads[static_cast<size_t>(t)]) {
          if (r < first || r >= end) continue;
          const int rm = member[static_cast<size_t>(r - first)];
          if (rm == m || (rm == m + 1 && r < space0_end(rm))) continue;
          to = std::max(to, rm);
        }
        if (to > m) {
          starts.erase(starts.begin() + m + 1, starts.begin() + to + 1);
          changed = true;
          break;
        }
      }
    }
  }
  // At most TIGRIS_MAX_CHAIN_STAGES members: merge neighbours (always legal).
  auto spatial_in = [&](size_t m) {
    const int e = m + 1 < starts.size() ? starts[m + 1] : end;
    int n = 0;
    for (int i = starts[m]; i < e; ++i) n += spatial(probe, i);
    return n;
  };
  while (starts.size() > TIGRIS_MAX_CHAIN_STAGES) {
    size_t best = 0;
    for (size_t m = 1; m + 1 < starts.size(); ++m)
      if (spatial_in(m) + spatial_in(m + 1) < spatial_in(best) + spatial_in(best + 1)) best = m;
    starts.erase(starts.begin() + static_cast<long>(best) + 1);
  }
  if (starts.size() < 2) return {};
  for (size_t m = 0; m < starts.size(); ++m)
    if (spatial_in(m) > TIGRIS_MAX_SPATIAL_OPS_PER_STAGE) return {};
  std::vector<int> ends(starts.begin() + 1, starts.end());
  ends.push_back(end);
  return ends;
}

// Put the chain's members into the probe as stages 0.. with their inputs and outputs
// (the head lists every tensor the chain reads from outside). False over a limit.
bool add_members(Probe& probe, const ir::Graph& g, const Usage& u, int first, const std::vector<int>& ends) {
  probe.clear();
  std::vector<ir::TensorId> chain_in, chain_out, ins, outs;
  range_io(g, u, first, ends.back(), &chain_in, &chain_out);
  if (chain_in.empty() || chain_in.size() > kMaxStageInputs) return false;
  int from = first;
  for (size_t m = 0; m < ends.size(); ++m) {
    range_io(g, u, from, ends[m], &ins, &outs);
    if (m == 0) ins = chain_in;
    if (ins.size() > kMaxStageInputs || outs.empty() || outs.size() > kMaxStageOutputs) return false;
    probe.add_stage(from, ends[m], ins, outs);
    from = ends[m];
  }
  probe.set_chain(0, static_cast<uint16_t>(ends.size()), 1, false);
  return true;
}

}  // namespace

bool chainable_op(Probe& probe, const ir::Graph& g, int i) {
  (void)g;
  probe.clear();
  const tigris_plan_t* plan = probe.plan();
  const tigris_op_t& op = probe.op(i);
  return tigris_rt::chain_op(op.op_type) && tigris_rt::op_axes_outside(plan, static_cast<uint16_t>(i), 1, 1) &&
         rank4_operands(plan, op);
}

Candidate best_chain(Probe& probe, const ir::Graph& g, const Usage& u, int first, int end, uint64_t budget) {
  Candidate best;
  const std::vector<int> ends = split_members(probe, g, u, first, end);
  if (ends.empty() || !add_members(probe, g, u, first, ends)) return best;
  const uint16_t len = static_cast<uint16_t>(ends.size());
  for (bool lb : {false, true}) {
    probe.set_chain(0, len, 1, lb);
    const tigris_plan_t* plan = probe.plan();
    if (plan == nullptr || tigris_rt::check_chain_band(plan, 0) != TIGRIS_OK) return best;
    Described d;
    if (!describe(plan, 0, TIGRIS_BAND_KIND_NONE, &d)) return best;
    const uint32_t extent = static_cast<uint32_t>(d.spaces[d.n - 1].rows);
    const uint32_t rows = largest_rows(d, std::min<uint32_t>(extent, 0xFFFF), 0, lb, budget);
    Candidate c;
    if (rows == 0 || !finish(d, rows, 0, lb, &c)) continue;
    // The composed receptive field: rows a tile reads beyond its own at the chain's input.
    tigris_rt::BandGeom acc{1, 1, 0, 0, tigris_rt::BAND_GEOM_WINDOW};
    for (uint16_t k = 1; k < d.n; ++k) {
      tigris_rt::CostOp op;
      d.src.op(d.src.ctx, d.spaces[k].producer, &op);
      tigris_rt::band_compose(&acc, &op.row);
    }
    c.band.halo = tigris_rt::band_halo(&acc);
    if (c.band.halo == 0 && lb) continue;  // nothing to keep between tiles
    c.form = StageForm::Chain;
    c.member_ends = ends;
    c.decision = "chain of " + std::to_string(len) + ", tiles of " + std::to_string(rows) + " of " +
                 std::to_string(extent) + " rows" + (lb ? ", line-buffered" : "");
    if (!best.ok || c.cost() < best.cost()) best = c;
  }
  return best;
}

}  // namespace tigris::schedule
