#include "compiler/passes/spatial.h"

#include <algorithm>

#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

std::vector<int64_t> or_ones(const ir::Node& n, const char* name, size_t rank) {
  std::vector<int64_t> v = n.attrs.get_ints(name);
  if (v.empty()) v.assign(rank, 1);
  if (v.size() != rank) throw node_error(n, std::string(name) + " has the wrong length");
  return v;
}

std::vector<int64_t> kernel_of(const ir::Graph& g, const ir::Node& n, size_t rank) {
  std::vector<int64_t> k = n.attrs.get_ints("kernel_shape");
  if (k.empty() && n.inputs.size() > 1 && n.inputs[1] >= 0) {
    const ir::Shape& w = g.tensor(n.inputs[1]).shape;  // weights: [*, *, k...]
    if (w.size() == rank + 2) k.assign(w.begin() + 2, w.end());
  }
  if (k.size() != rank) throw node_error(n, "kernel_shape is missing or has the wrong length");
  return k;
}

// ConvTranspose keeps ONNX's pads (subtracted from the full output); output_padding and
// output_shape show only in the output extent. Pads derived from output_shape / auto_pad
// split the total as ONNX does.
void transpose_pads(const ir::Node& n, size_t i, size_t rank, int64_t in, int64_t out, int64_t s, int64_t eff,
                    const std::string& auto_pad, std::vector<int64_t>& pads) {
  std::vector<int64_t> op = n.attrs.get_ints("output_padding");
  int64_t out_pad = i < op.size() ? op[i] : 0;
  bool derived = n.attrs.has("output_shape") || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER";
  if (auto_pad == "VALID") {
    pads[i] = pads[i + rank] = 0;
  } else if (derived) {
    // ONNX halves the total with floor division; a negative total (output_shape beyond the
    // full output) gives a negative pad.
    int64_t total = s * (in - 1) + out_pad + eff - out;
    int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
    if (auto_pad == "SAME_UPPER") {
      pads[i] = half;
      pads[i + rank] = total - half;
    } else {
      pads[i] = total - half;
      pads[i + rank] = half;
    }
  }
  // A negative end pad adds rows after the full output, as output_padding does: the output
  // extent already holds them (bias only). A negative start pad would add rows before it.
  if (pads[i] < 0) throw node_error(n, "output_shape or pads put output rows before the full output (negative start pad)");
  if (pads[i + rank] < 0) pads[i + rank] = 0;
}

}  // namespace

void make_spatial_explicit(const ir::Graph& g, ir::Node& n) {
  const ir::Tensor& x = g.tensor(n.inputs.at(0));
  const ir::Tensor& y = g.tensor(n.outputs.at(0));
  if (x.rank() < 3) throw node_error(n, "input rank " + std::to_string(x.rank()) + " is below 3");
  size_t rank = static_cast<size_t>(x.rank() - 2);
  bool transpose = n.op == "ConvTranspose";
  std::vector<int64_t> k = kernel_of(g, n, rank), s = or_ones(n, "strides", rank), d = or_ones(n, "dilations", rank);
  std::vector<int64_t> pads = n.attrs.get_ints("pads");
  if (pads.empty()) pads.assign(2 * rank, 0);
  if (pads.size() != 2 * rank) throw node_error(n, "pads has the wrong length");
  std::string auto_pad = n.attrs.get_string("auto_pad", "NOTSET");
  bool ceil_mode = n.attrs.get_int("ceil_mode", 0) != 0;
  for (size_t i = 0; i < rank; ++i) {
    int64_t in = x.shape[i + 2], out = y.shape[i + 2], eff = (k[i] - 1) * d[i] + 1;
    if (transpose) {
      transpose_pads(n, i, rank, in, out, s[i], eff, auto_pad, pads);
      continue;
    }
    int64_t total = (out - 1) * s[i] + eff - in;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      total = std::max<int64_t>(total, 0);
      pads[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      pads[i + rank] = total - pads[i];
    } else if (auto_pad == "VALID") {
      pads[i] = pads[i + rank] = 0;
    } else if (ceil_mode) {
      // The extra window of ceil mode reads past the end: more end padding, same output.
      pads[i + rank] = std::max(pads[i + rank], (out - 1) * s[i] + eff - in - pads[i]);
    }
  }
  n.attrs.erase("auto_pad");
  n.attrs.erase("ceil_mode");
  n.attrs.erase("output_padding");
  n.attrs.erase("output_shape");
  n.attrs.set("kernel_shape", k);
  n.attrs.set("strides", s);
  n.attrs.set("dilations", d);
  n.attrs.set("pads", pads);
}

}  // namespace tigris::passes
