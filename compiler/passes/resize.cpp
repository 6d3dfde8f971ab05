// Resize / Upsample: scales and modes into explicit attributes with the defaults of the
// model's opset (opset 10 and Upsample: asymmetric coordinates and floor rounding; opset
// 11+: half_pixel and round_prefer_floor unless stated).
#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

// The operand at `i` as floats; false when it is computed at run time.
bool constant_floats(ir::Graph& g, ir::Node& n, size_t i, std::vector<float>& out) {
  ir::TensorId id = input_or_none(n, i);
  if (id < 0) return true;
  if (!g.tensor(id).constant) {
    n.attrs.set("__dynamic_operand", g.tensor(id).name);
    return false;
  }
  out = const_floats(g.tensor(id));
  return true;
}

void canonical_resize(ir::Graph& g, ir::Node& n) {
  bool legacy = n.op == "Upsample" || g.opset < 11;
  std::vector<float> scales = n.attrs.get_floats("scales"), sizes;
  if (n.op == "Upsample" ? g.opset >= 9 : true) {
    size_t scales_at = legacy ? 1 : 2;
    if (!constant_floats(g, n, scales_at, scales)) return;
    if (!legacy && !constant_floats(g, n, 3, sizes)) return;
  }
  // tf_crop_and_resize reads its region of interest (starts then ends per axis) from input 1.
  if (!legacy && n.attrs.get_string("coordinate_transformation_mode", "") == "tf_crop_and_resize") {
    std::vector<float> roi;
    if (!constant_floats(g, n, 1, roi)) return;
    if (static_cast<int>(roi.size()) != 2 * g.tensor(n.inputs[0]).rank())
      throw node_error(n, "tf_crop_and_resize needs a roi of 2 values per axis");
    n.attrs.set("roi", roi);
  }
  const ir::Tensor& x = g.tensor(n.inputs[0]);
  const ir::Tensor& y = g.tensor(n.outputs[0]);
  if (scales.empty()) {
    // From sizes (or the inferred output): scale = out / in per axis.
    for (int d = 0; d < x.rank(); ++d)
      scales.push_back(static_cast<float>(y.shape[static_cast<size_t>(d)]) /
                       static_cast<float>(x.shape[static_cast<size_t>(d)]));
  }
  if (static_cast<int>(scales.size()) != x.rank()) throw node_error(n, "scales has the wrong length");
  std::string mode = n.attrs.get_string("mode", "nearest");
  if (legacy) {
    n.attrs.set("coordinate_transformation_mode", std::string("asymmetric"));
    n.attrs.set("nearest_mode", std::string("floor"));
  } else {
    if (!n.attrs.has("coordinate_transformation_mode"))
      n.attrs.set("coordinate_transformation_mode", std::string("half_pixel"));
    if (!n.attrs.has("nearest_mode")) n.attrs.set("nearest_mode", std::string("round_prefer_floor"));
  }
  n.attrs.set("mode", mode);
  n.attrs.set("scales", scales);
  n.op = "Resize";
  n.inputs.erase(n.inputs.begin() + 1, n.inputs.end());
}

}  // namespace

void extract_resize_scales(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if ((n.op != "Resize" && n.op != "Upsample") || !n.domain.empty() || n.inputs.empty()) continue;
    if (n.attrs.has("scales") && n.op == "Resize" && n.inputs.size() == 1) continue;  // done already
    canonical_resize(g, n);
  }
}

}  // namespace tigris::passes
