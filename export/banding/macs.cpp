// Counting multiply-accumulates.
#include "export/banding/macs.h"

namespace tigris::banding {

int64_t count_macs(const tflite::Model& m) {
  int64_t total = 0;
  for (const tflite::SubGraph& g : m.subgraphs)
    for (const tflite::Operator& o : g.operators) {
      int32_t code = tflite::builtin_code(m, o);
      if (o.inputs.size() < 2 || o.inputs[1] < 0 || o.outputs.empty()) continue;
      const auto& filter = g.tensors[static_cast<size_t>(o.inputs[1])].shape;
      int64_t out = tflite::element_count(g.tensors[static_cast<size_t>(o.outputs[0])].shape);
      if (code == tflite::op::kConv2D && filter.size() == 4)
        total += out * filter[1] * filter[2] * filter[3];
      else if (code == tflite::op::kDepthwiseConv2D && filter.size() == 4)
        total += out * filter[1] * filter[2];
      else if (code == tflite::op::kFullyConnected && filter.size() == 2)
        total += out * filter[1];
    }
  return total;
}

}  // namespace tigris::banding
