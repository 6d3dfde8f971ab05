// Weights in the runtime's layouts, deduplicated: one plan entry per (constant, layout).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/plan/plan_writer.h"

namespace tigris::plan {

class WeightTable {
 public:
  // Index of the entry for constant `id` converted by `layout` (a short tag such as "ohwi"),
  // computing the bytes with `make` the first time.
  template <typename Make>
  uint16_t get(const ir::Graph& g, ir::TensorId id, const std::string& layout, Make make) {
    std::string key = scope_ + g.tensor(id).name + "\x1f" + layout;
    auto it = index_.find(key);
    if (it != index_.end()) return it->second;
    WeightDesc w;
    w.name = layout.empty() ? g.tensor(id).name : g.tensor(id).name + ":" + layout;
    w.data = make(g.tensor(id));
    return add(key, std::move(w));
  }
  // The entry for constant `id` with its bytes as stored (no layout change).
  uint16_t get_stored(const ir::Graph& g, ir::TensorId id) {
    return get(g, id, "", [](const ir::Tensor& t) { return t.data; });
  }
  // Constants are named per graph (TFLite subgraphs each have their own names): entries of
  // graph `number` (0 = the main graph) are keyed apart from other graphs'.
  void enter_graph(size_t number) { scope_ = number == 0 ? "" : std::to_string(number) + "\x1d"; }
  // A weight made by the lowering itself (no source tensor), named `name`.
  uint16_t add_raw(const std::string& name, std::vector<uint8_t> data);

  const std::vector<WeightDesc>& entries() const { return entries_; }
  std::vector<WeightDesc> take() { return std::move(entries_); }

 private:
  uint16_t add(const std::string& key, WeightDesc w);
  std::vector<WeightDesc> entries_;
  std::map<std::string, uint16_t> index_;
  std::string scope_;
};

// Layout conversions (float32 or any element size given by the tensor's dtype).
std::vector<uint8_t> conv_weight_ohwi(const ir::Tensor& w);                      // [OC,IC/g,KH,KW] -> [OC,KH,KW,IC/g]
std::vector<uint8_t> depthwise_weight(const ir::Tensor& w);                      // [C*m,1,KH,KW]   -> [KH,KW,C*m]
std::vector<uint8_t> conv1d_weight(const ir::Tensor& w);                         // [OC,IC/g,K]     -> [OC,K,IC/g]
std::vector<uint8_t> conv_transpose_weight(const ir::Tensor& w, int64_t group);  // [IC,OC/g,KH,KW] -> [OC,KH,KW,IC/g]
// Values converted to int32 (constant indices).
std::vector<uint8_t> as_int32(const ir::Tensor& t);

}  // namespace tigris::plan
