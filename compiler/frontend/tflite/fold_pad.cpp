// An explicit PAD before a convolution becomes the convolution's own padding when that is
// exact: TensorFlow Lite's convolutions skip the taps outside the input, which is the same
// as reading the input's zero point (int8) or 0.0 (float). So a PAD that fills with that
// value, only along height and width, and feeds one convolution alone, folds into it.
// Models converted from PyTorch write such pads before their strided convolutions; folded,
// the convolution bands with its padding instead of a whole padded copy of its input.
#include "compiler/frontend/tflite/fold_pad.h"

#include <algorithm>

#include "compiler/passes/util.h"

namespace tigris::frontend::tflite {

namespace {

// The PAD node `p` (IR order NCHW) fills with the value a convolution's padding reads.
bool folds_exactly(const ir::Graph& g, const ir::Node& p) {
  if (p.op != "Pad" || p.inputs.size() != 1 || p.outputs.size() != 1) return false;
  if (p.attrs.get_string("mode", "constant") != "constant" || p.attrs.get_float("value", 0.0f) != 0.0f) return false;
  const ir::Tensor& x = g.tensor(p.inputs[0]);
  const ir::Tensor& y = g.tensor(p.outputs[0]);
  // value 0.0 is the zero point when both sides share their quantization (float: none).
  if (x.rank() != 4 || x.dtype != y.dtype || x.quant != y.quant) return false;
  std::vector<int64_t> pads = p.attrs.get_ints("pads");
  return pads.size() == 8 && pads[0] == 0 && pads[1] == 0 && pads[4] == 0 && pads[5] == 0;
}

}  // namespace

void fold_pads_into_convolutions(ir::Graph& g) {
  std::vector<char> remove(g.nodes.size(), 0);
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& p = g.nodes[i];
    if (!folds_exactly(g, p)) continue;
    ir::TensorId padded = p.outputs[0];
    std::vector<int> readers = g.consumers(padded);
    if (readers.size() != 1 || g.is_output(padded)) continue;
    ir::Node& c = g.nodes[static_cast<size_t>(readers[0])];
    if (c.op != "Conv" || c.inputs.empty() || c.inputs[0] != padded) continue;
    if (std::count(c.inputs.begin(), c.inputs.end(), padded) != 1) continue;
    std::vector<int64_t> pp = p.attrs.get_ints("pads"), cp = c.attrs.get_ints("pads");
    if (cp.size() != 4) continue;
    // Pad: [n, c, h, w] begins then ends; Conv: [top, left, bottom, right].
    c.attrs.set("pads", std::vector<int64_t>{cp[0] + pp[2], cp[1] + pp[3], cp[2] + pp[6], cp[3] + pp[7]});
    c.inputs[0] = p.inputs[0];
    remove[i] = 1;
  }
  passes::erase_nodes(g, remove);
  g.compact();
}

}  // namespace tigris::frontend::tflite
