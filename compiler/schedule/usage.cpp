#include "compiler/schedule/usage.h"

#include <algorithm>

#include "compiler/schedule/lifetimes.h"

namespace tigris::schedule {

Usage::Usage(const ir::Graph& g)
    : producer(g.tensors.size(), -2),
      reads(g.tensors.size()),
      aligned(g.tensors.size()),
      is_output(g.tensors.size(), 0) {
  for (ir::TensorId id : g.run_inputs()) producer[static_cast<size_t>(id)] = -1;
  for (ir::TensorId id : g.run_outputs()) is_output[static_cast<size_t>(id)] = 1;
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

bool Usage::needed_from(ir::TensorId id, int step) const {
  const auto& r = reads[static_cast<size_t>(id)];
  return is_output[static_cast<size_t>(id)] || (!r.empty() && r.back() >= step);
}

int Usage::last_read_in(ir::TensorId id, int first, int end) const {
  const auto& r = reads[static_cast<size_t>(id)];
  auto it = std::lower_bound(r.begin(), r.end(), end);
  if (it == r.begin()) return -1;
  --it;
  return *it >= first ? *it : -1;
}

void range_io(const ir::Graph& g, const Usage& u, int first, int end, std::vector<ir::TensorId>* inputs,
              std::vector<ir::TensorId>* outputs) {
  inputs->clear();
  outputs->clear();
  for (int s = first; s < end; ++s) {
    const ir::Node& n = g.nodes[static_cast<size_t>(s)];
    for (ir::TensorId id : n.inputs) {
      if (id < 0 || g.tensors[static_cast<size_t>(id)].constant) continue;
      if (u.producer[static_cast<size_t>(id)] >= first) continue;
      if (std::find(inputs->begin(), inputs->end(), id) == inputs->end()) inputs->push_back(id);
    }
    for (ir::TensorId id : n.outputs) {
      if (id < 0 || !u.needed_from(id, end)) continue;
      if (std::find(outputs->begin(), outputs->end(), id) == outputs->end()) outputs->push_back(id);
    }
  }
}

uint64_t normal_stage_peak(const ir::Graph& g, const Usage& u, int first, int end) {
  // delta[k]: bytes allocated at op first + k (inputs at 0), released after it.
  std::vector<int64_t> delta(static_cast<size_t>(end - first) + 1, 0);
  std::vector<char> seen(g.tensors.size(), 0);
  const int last = end - first - 1;
  auto hold = [&](int from, int to, uint64_t bytes) {
    delta[static_cast<size_t>(from)] += static_cast<int64_t>(bytes);
    delta[static_cast<size_t>(to) + 1] -= static_cast<int64_t>(bytes);
  };
  for (int s = first; s < end; ++s) {
    const ir::Node& n = g.nodes[static_cast<size_t>(s)];
    for (ir::TensorId id : n.inputs) {
      if (id < 0 || g.tensors[static_cast<size_t>(id)].constant || seen[static_cast<size_t>(id)]) continue;
      seen[static_cast<size_t>(id)] = 1;
      if (u.producer[static_cast<size_t>(id)] >= first) continue;  // counted with its producer
      hold(0, u.last_read_in(id, first, end) - first, u.aligned[static_cast<size_t>(id)]);
    }
    for (ir::TensorId id : n.outputs) {
      if (id < 0 || seen[static_cast<size_t>(id)]) continue;
      seen[static_cast<size_t>(id)] = 1;
      const int read = u.last_read_in(id, first, end);
      const bool kept = u.needed_from(id, end) || read < 0;
      hold(s - first, kept ? last : read - first, u.aligned[static_cast<size_t>(id)]);
    }
  }
  int64_t live = 0, peak = 0;
  for (int k = 0; k <= last; ++k) {
    live += delta[static_cast<size_t>(k)];
    peak = std::max(peak, live);
  }
  return static_cast<uint64_t>(peak);
}

uint64_t weight_entry_bytes(const ir::Tensor& t) { return (t.bytes() + 15) / 16 * 16; }

uint64_t largest_op_weights(const ir::Graph& g) {
  uint64_t most = 0;
  for (const ir::Node& n : g.nodes) {
    uint64_t sum = 0;
    std::vector<ir::TensorId> seen;
    for (ir::TensorId id : n.inputs) {
      if (id < 0 || !g.tensor(id).constant || std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
      seen.push_back(id);
      sum += weight_entry_bytes(g.tensor(id));
    }
    most = std::max(most, sum);
  }
  return most;
}

uint64_t tensor_bytes(const ir::Graph& g, const std::vector<ir::TensorId>& ids) {
  uint64_t sum = 0;
  for (ir::TensorId id : ids) sum += g.tensor(id).bytes();
  return sum;
}

}  // namespace tigris::schedule
