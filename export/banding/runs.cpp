// Finding the runs export may band.
#include "export/banding/runs.h"

#include <algorithm>

namespace tigris::banding {

std::vector<std::optional<BandOp>> band_ops(const tflite::Model& m) {
  const tflite::SubGraph& g = m.subgraphs[0];
  std::vector<std::optional<BandOp>> out;
  std::string why;
  for (const tflite::Operator& o : g.operators) out.push_back(band_op(m, g, o, &why));
  return out;
}

namespace {

// consumers[t] = operators reading tensor t.
std::vector<std::vector<size_t>> consumers(const tflite::SubGraph& g) {
  std::vector<std::vector<size_t>> out(g.tensors.size());
  for (size_t i = 0; i < g.operators.size(); ++i)
    for (int32_t t : g.operators[i].inputs)
      if (t >= 0) out[static_cast<size_t>(t)].push_back(i);
  return out;
}

// True if operator i's output is read only by operators in [first, last] and is no
// graph output.
bool stays_inside(const tflite::SubGraph& g, const std::vector<std::vector<size_t>>& readers, size_t i, size_t first,
                  size_t last) {
  int32_t t = g.operators[i].outputs[0];
  if (std::find(g.outputs.begin(), g.outputs.end(), t) != g.outputs.end()) return false;
  const auto& r = readers[static_cast<size_t>(t)];
  if (r.empty()) return false;
  return std::all_of(r.begin(), r.end(), [&](size_t c) { return c >= first && c <= last; });
}

}  // namespace

std::vector<Run> candidate_runs(const tflite::Model& m, const std::vector<std::optional<BandOp>>& ops,
                                const std::vector<bool>& eligible) {
  const tflite::SubGraph& g = m.subgraphs[0];
  auto readers = consumers(g);
  std::vector<Run> runs;
  for (size_t first = 0; first < ops.size(); ++first) {
    bool strided = false;
    for (size_t last = first; last < ops.size(); ++last) {
      if (!ops[last] || (!eligible.empty() && !eligible[last])) break;
      strided = strided || ops[last]->strided_or_pool;
      // All outputs before `last` must stay inside [first, last]; later operators can
      // only add readers, so check every op up to last again.
      bool closed = true;
      for (size_t i = first; i < last && closed; ++i) closed = stays_inside(g, readers, i, first, last);
      const tflite::Tensor& out = g.tensors[static_cast<size_t>(g.operators[last].outputs[0])];
      if (strided && closed && out.shape[1] >= 2) runs.push_back({first, last});
    }
  }
  return runs;
}

}  // namespace tigris::banding
