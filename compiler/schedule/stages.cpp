#include "compiler/schedule/stages.h"

#include <algorithm>
#include <limits>

#include "compiler/schedule/lifetimes.h"

namespace tigris::schedule {

namespace {

// Per-tensor facts over the op order.
struct Usage {
  std::vector<int> producer;             // step, -1 model input, -2 none
  std::vector<std::vector<int>> reads;   // steps reading it, ascending, unique
  std::vector<uint64_t> aligned;
  std::vector<char> is_output;

  explicit Usage(const ir::Graph& g)
      : producer(g.tensors.size(), -2), reads(g.tensors.size()), aligned(g.tensors.size()),
        is_output(g.tensors.size(), 0) {
    for (ir::TensorId id : g.inputs) producer[static_cast<size_t>(id)] = -1;
    for (ir::TensorId id : g.outputs) is_output[static_cast<size_t>(id)] = 1;
    for (size_t i = 0; i < g.tensors.size(); ++i) aligned[i] = aligned_size(g.tensors[i].bytes());
    for (size_t s = 0; s < g.nodes.size(); ++s) {
      for (ir::TensorId id : g.nodes[s].outputs)
        if (id >= 0) producer[static_cast<size_t>(id)] = static_cast<int>(s);
      for (ir::TensorId id : g.nodes[s].inputs) {
        if (id < 0 || g.tensors[static_cast<size_t>(id)].constant) continue;
        auto& r = reads[static_cast<size_t>(id)];
        if (r.empty() || r.back() != static_cast<int>(s)) r.push_back(static_cast<int>(s));
      }
    }
  }

  // Read at or after `step`, or a model output.
  bool needed_from(ir::TensorId id, int step) const {
    const auto& r = reads[static_cast<size_t>(id)];
    return is_output[static_cast<size_t>(id)] || (!r.empty() && r.back() >= step);
  }
  // Last read in [first, end), or -1.
  int last_read_in(ir::TensorId id, int first, int end) const {
    int last = -1;
    for (int s : reads[static_cast<size_t>(id)])
      if (s >= first && s < end) last = s;
    return last;
  }
};

struct Interval {
  int from, to;  // steps relative to the stage, inclusive
  uint64_t bytes;
};

std::vector<Interval> held_intervals(const ir::Graph& g, const Usage& u, int first, int end, bool single_stage) {
  std::vector<Interval> out;
  std::vector<char> seen(g.tensors.size(), 0);
  int last = end - first - 1;
  for (int s = first; s < end; ++s) {
    const ir::Node& n = g.nodes[static_cast<size_t>(s)];
    for (ir::TensorId id : n.inputs) {
      if (id < 0 || g.tensors[static_cast<size_t>(id)].constant || seen[static_cast<size_t>(id)]) continue;
      seen[static_cast<size_t>(id)] = 1;
      int p = u.producer[static_cast<size_t>(id)];
      if (p >= first) continue;  // produced here: counted with its producer
      bool in_place = single_stage && p == -1;
      int to = in_place ? last : u.last_read_in(id, first, end) - first;
      out.push_back({0, to, u.aligned[static_cast<size_t>(id)]});
    }
    for (ir::TensorId id : n.outputs) {
      if (id < 0 || seen[static_cast<size_t>(id)]) continue;
      seen[static_cast<size_t>(id)] = 1;
      int read = u.last_read_in(id, first, end);
      bool leaves = u.needed_from(id, end) || read < 0;
      out.push_back({s - first, leaves ? last : read - first, u.aligned[static_cast<size_t>(id)]});
    }
  }
  return out;
}

uint64_t cost_of(const ir::Graph& g, const Usage& u, int first, int end, bool single_stage) {
  std::vector<Interval> iv = held_intervals(g, u, first, end, single_stage);
  std::vector<int64_t> delta(static_cast<size_t>(end - first) + 1, 0);
  for (const Interval& i : iv) {
    delta[static_cast<size_t>(i.from)] += static_cast<int64_t>(i.bytes);
    delta[static_cast<size_t>(i.to) + 1] -= static_cast<int64_t>(i.bytes);
  }
  int64_t live = 0, peak = 0;
  for (int s = 0; s < end - first; ++s) {
    live += delta[static_cast<size_t>(s)];
    peak = std::max(peak, live);
  }
  return static_cast<uint64_t>(peak);
}

void fill_io(const ir::Graph& g, const Usage& u, Stage& st) {
  st.inputs.clear();
  st.outputs.clear();
  std::vector<char> seen(g.tensors.size(), 0);
  for (int s = st.first; s < st.end; ++s) {
    const ir::Node& n = g.nodes[static_cast<size_t>(s)];
    for (ir::TensorId id : n.inputs) {
      if (id < 0 || g.tensors[static_cast<size_t>(id)].constant || seen[static_cast<size_t>(id)]) continue;
      seen[static_cast<size_t>(id)] = 1;
      if (u.producer[static_cast<size_t>(id)] < st.first) st.inputs.push_back(id);
    }
    for (ir::TensorId id : n.outputs) {
      if (id < 0 || seen[static_cast<size_t>(id)]) continue;
      seen[static_cast<size_t>(id)] = 1;
      if (u.needed_from(id, st.end)) st.outputs.push_back(id);
    }
  }
  st.reload_bytes = st.spill_bytes = 0;
  for (ir::TensorId id : st.inputs) st.reload_bytes += g.tensor(id).bytes();
  for (ir::TensorId id : st.outputs) st.spill_bytes += g.tensor(id).bytes();
}

// A one-stage plan that reads every model input and writes every model output reads its
// inputs in place and leaves its outputs in fast memory (runtime in_place.h).
bool reads_in_place(const ir::Graph& g, const std::vector<Stage>& stages) {
  if (stages.size() != 1) return false;
  const Stage& s = stages[0];
  for (ir::TensorId id : g.inputs)
    if (std::find(s.inputs.begin(), s.inputs.end(), id) == s.inputs.end()) return false;
  for (ir::TensorId id : g.outputs)
    if (std::find(s.outputs.begin(), s.outputs.end(), id) == s.outputs.end()) return false;
  return !g.inputs.empty();
}

// Slow memory at the end of each stage: spilled tensors (and model inputs) still needed.
void fill_slow(const ir::Graph& g, const Usage& u, Schedule& sch) {
  if (reads_in_place(g, sch.stages)) return;  // nothing in slow memory
  std::vector<int> stage_of(g.nodes.size(), 0);
  for (size_t k = 0; k < sch.stages.size(); ++k)
    for (int s = sch.stages[k].first; s < sch.stages[k].end; ++s) stage_of[static_cast<size_t>(s)] = static_cast<int>(k);
  for (size_t k = 0; k < sch.stages.size(); ++k) {
    uint64_t bytes = 0;
    for (size_t t = 0; t < g.tensors.size(); ++t) {
      if (g.tensors[t].constant) continue;
      int p = u.producer[t];
      if (p == -2) continue;
      int arrives = p < 0 ? -1 : stage_of[static_cast<size_t>(p)];
      bool spilled = p < 0 || std::find(sch.stages[static_cast<size_t>(arrives)].outputs.begin(),
                                        sch.stages[static_cast<size_t>(arrives)].outputs.end(),
                                        static_cast<ir::TensorId>(t)) != sch.stages[static_cast<size_t>(arrives)].outputs.end();
      if (!spilled || arrives > static_cast<int>(k)) continue;
      const auto& r = u.reads[t];
      int last_stage = r.empty() ? -1 : stage_of[static_cast<size_t>(r.back())];
      bool never_freed = u.is_output[t] || (p < 0 && r.empty());  // outputs; model inputs nobody reads
      if (never_freed || last_stage >= static_cast<int>(k)) bytes += u.aligned[t];
    }
    sch.stages[k].slow_bytes_after = bytes;
    sch.slow_peak = std::max(sch.slow_peak, bytes);
  }
}

}  // namespace

uint64_t stage_cost(const ir::Graph& g, int first, int end, bool single_stage) {
  Usage u(g);
  return cost_of(g, u, first, end, single_stage);
}

void stage_io(const ir::Graph& g, Stage& s) {
  Usage u(g);
  fill_io(g, u, s);
}

Schedule partition(const ir::Graph& g, uint64_t budget) {
  Usage u(g);
  const int n = static_cast<int>(g.nodes.size());
  Schedule sch;
  sch.budget = budget;
  if (n == 0) return sch;
  std::vector<std::pair<int, int>> cuts;  // [first, end)
  Stage all;
  all.first = 0;
  all.end = n;
  fill_io(g, u, all);
  bool whole_in_place = reads_in_place(g, {all});
  bool whole = budget == 0 || cost_of(g, u, 0, n, whole_in_place) <= budget;
  if (whole) {
    cuts.push_back({0, n});
  } else {
    // best[e] = (spill + reload bytes, stages) of the best partition of ops [0, e).
    const uint64_t inf = std::numeric_limits<uint64_t>::max();
    std::vector<std::pair<uint64_t, int>> best(static_cast<size_t>(n) + 1, {inf, 0});
    std::vector<int> from(static_cast<size_t>(n) + 1, -1);
    best[0] = {0, 0};
    for (int e = 1; e <= n; ++e) {
      for (int f = e - 1; f >= 0; --f) {
        if (best[static_cast<size_t>(f)].first == inf) continue;
        // The whole graph as one stage was costed above and failed.
        if (f == 0 && e == n && n > 1) continue;
        // Growing a stage at its front never lowers its cost (what the new op writes for later
        // readers is held to the end): once over the budget, every longer range is too.
        bool over = cost_of(g, u, f, e, false) > budget;
        if (over && e - f > 1) break;
        Stage st;
        st.first = f;
        st.end = e;
        fill_io(g, u, st);
        bool io_ok = st.inputs.size() <= kMaxStageInputs && st.outputs.size() <= kMaxStageOutputs;
        if (!io_ok && e - f > 1) continue;  // a single op stays a stage of its own even when over
        std::pair<uint64_t, int> cand{best[static_cast<size_t>(f)].first + st.reload_bytes + st.spill_bytes,
                                      best[static_cast<size_t>(f)].second + 1};
        if (cand < best[static_cast<size_t>(e)]) {
          best[static_cast<size_t>(e)] = cand;
          from[static_cast<size_t>(e)] = f;
        }
      }
    }
    for (int e = n; e > 0; e = from[static_cast<size_t>(e)]) cuts.push_back({from[static_cast<size_t>(e)], e});
    std::reverse(cuts.begin(), cuts.end());
  }
  bool single = cuts.size() == 1 && whole_in_place;
  for (auto [f, e] : cuts) {
    Stage st;
    st.first = f;
    st.end = e;
    fill_io(g, u, st);
    st.peak_bytes = cost_of(g, u, f, e, single);
    st.fits = budget == 0 || st.peak_bytes <= budget;
    sch.scheduled_peak = std::max(sch.scheduled_peak, st.peak_bytes);
    sch.fits = sch.fits && st.fits;
    sch.stages.push_back(std::move(st));
  }
  if (single) sch.stages[0].reload_bytes = sch.stages[0].spill_bytes = 0;  // read and left in place
  fill_slow(g, u, sch);
  return sch;
}

}  // namespace tigris::schedule
