#include "compiler/schedule/lifetimes.h"

#include <algorithm>

#include "tigris_config.h"

namespace tigris::schedule {

uint64_t aligned_size(uint64_t bytes) {
  const uint64_t a = TIGRIS_PLAN_MAX_ALIGN;
  return (bytes + a - 1) / a * a;
}

std::vector<Lifetime> compute_lifetimes(const ir::Graph& g) {
  const int num_ops = static_cast<int>(g.nodes.size());
  std::vector<int> birth(g.tensors.size(), -2), last_read(g.tensors.size(), -2);
  for (ir::TensorId id : g.run_inputs()) birth[static_cast<size_t>(id)] = -1;
  for (int step = 0; step < num_ops; ++step) {
    const ir::Node& n = g.nodes[static_cast<size_t>(step)];
    for (ir::TensorId id : n.outputs)
      if (id >= 0) birth[static_cast<size_t>(id)] = step;
    for (ir::TensorId id : n.inputs)
      if (id >= 0) last_read[static_cast<size_t>(id)] = step;
  }
  std::vector<Lifetime> result;
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const ir::Tensor& t = g.tensors[i];
    if (t.constant || birth[i] == -2) continue;
    Lifetime lt;
    lt.tensor = static_cast<ir::TensorId>(i);
    lt.birth = birth[i];
    lt.death = std::max(birth[i], last_read[i]);
    if (g.is_output(lt.tensor)) lt.death = num_ops;
    lt.bytes = aligned_size(t.bytes());
    result.push_back(lt);
  }
  return result;
}

Timeline memory_timeline(const ir::Graph& g, const std::vector<Lifetime>& lifetimes) {
  const int num_ops = static_cast<int>(g.nodes.size());
  Timeline tl;
  tl.live_bytes.assign(static_cast<size_t>(num_ops), 0);
  // Live from birth through death inclusive, clipped to the op steps (inputs count from step 0).
  std::vector<int64_t> delta(static_cast<size_t>(num_ops) + 1, 0);
  for (const Lifetime& lt : lifetimes) {
    int from = std::max(lt.birth, 0), to = std::min(lt.death, num_ops - 1);
    if (num_ops == 0 || from > to) continue;
    delta[static_cast<size_t>(from)] += static_cast<int64_t>(lt.bytes);
    delta[static_cast<size_t>(to) + 1] -= static_cast<int64_t>(lt.bytes);
  }
  int64_t live = 0;
  for (int s = 0; s < num_ops; ++s) {
    live += delta[static_cast<size_t>(s)];
    tl.live_bytes[static_cast<size_t>(s)] = static_cast<uint64_t>(live);
    if (static_cast<uint64_t>(live) > tl.peak_bytes) {
      tl.peak_bytes = static_cast<uint64_t>(live);
      tl.peak_step = s;
    }
  }
  return tl;
}

}  // namespace tigris::schedule
