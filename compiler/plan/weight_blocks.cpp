#include "compiler/plan/weight_blocks.h"

#include <cstring>
#include <map>

namespace tigris::plan {

namespace {

// The CONSTANTS attribute payload of op `op` (u16 weight indices), or nullptr.
AttrDesc* constants_of(PlanDesc& p, uint16_t op) {
  for (AttrDesc& a : p.attributes)
    if (a.op == op && a.kind == TIGRIS_ATTR_CONSTANTS) return &a;
  return nullptr;
}

}  // namespace

void group_weights_per_stage(PlanDesc& p) {
  std::vector<WeightDesc> old = std::move(p.weights);
  p.weights.clear();
  p.weight_blocks.clear();
  for (size_t s = 0; s < p.stages.size(); ++s) {
    std::map<uint16_t, uint16_t> local;  // old index -> new index, this stage
    const size_t first = p.weights.size();
    auto remap = [&](uint16_t& idx) {
      if (idx == TIGRIS_NONE || idx >= old.size()) return;
      auto it = local.find(idx);
      if (it == local.end()) {
        if (p.weights.size() >= TIGRIS_NONE) throw PlanWriteError("too many weights for a plan");
        it = local.emplace(idx, static_cast<uint16_t>(p.weights.size())).first;
        p.weights.push_back(old[idx]);
      }
      idx = it->second;
    };
    for (uint16_t op : p.stages[s].ops) {
      OpDesc& o = p.ops[op];
      remap(o.weight);
      remap(o.bias);
      if (AttrDesc* c = constants_of(p, op)) {
        for (size_t k = 0; k + 1 < c->data.size(); k += 2) {
          uint16_t idx;
          std::memcpy(&idx, c->data.data() + k, 2);
          remap(idx);
          std::memcpy(c->data.data() + k, &idx, 2);
        }
      }
    }
    if (p.weights.size() > first) {
      WeightBlockDesc b;
      b.stage = static_cast<uint16_t>(s);
      b.first_weight = static_cast<uint16_t>(first);
      b.num_weights = static_cast<uint16_t>(p.weights.size() - first);
      p.weight_blocks.push_back(b);
    }
  }
  p.compression = p.weight_blocks.empty() ? TIGRIS_COMPRESSION_NONE : TIGRIS_COMPRESSION_LZ4;
}

}  // namespace tigris::plan
