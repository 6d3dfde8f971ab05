// Constant operand inputs (axes, pads, shapes, bounds...) move into attributes, with the
// opset's own conventions, so later passes and the emitter read one form only.
#include <cmath>
#include <limits>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

// Outcome for one operand position.
enum class Operand { Absent, Constant, Dynamic };

Operand operand(const ir::Graph& g, const ir::Node& n, size_t i) {
  ir::TensorId id = input_or_none(n, i);
  if (id < 0) return Operand::Absent;
  return g.tensor(id).constant ? Operand::Constant : Operand::Dynamic;
}

// Move input `i` (when constant) into integer attribute list `name`. Returns false when the
// operand is computed at run time (the node is then marked and reported unsupported).
bool take_ints(ir::Graph& g, ir::Node& n, size_t i, const std::string& name) {
  Operand o = operand(g, n, i);
  if (o == Operand::Dynamic) {
    n.attrs.set("__dynamic_operand", g.tensor(n.inputs[i]).name);
    return false;
  }
  if (o == Operand::Constant) n.attrs.set(name, const_ints(g.tensor(n.inputs[i])));
  return true;
}

bool take_float(ir::Graph& g, ir::Node& n, size_t i, const std::string& name) {
  Operand o = operand(g, n, i);
  if (o == Operand::Dynamic) {
    n.attrs.set("__dynamic_operand", g.tensor(n.inputs[i]).name);
    return false;
  }
  if (o == Operand::Constant) {
    std::vector<double> v = const_doubles(g.tensor(n.inputs[i]));
    if (!v.empty()) n.attrs.set(name, static_cast<float>(v[0]));
  }
  return true;
}

void keep_inputs(ir::Node& n, size_t count) {
  if (n.inputs.size() > count) n.inputs.erase(n.inputs.begin() + static_cast<std::ptrdiff_t>(count), n.inputs.end());
}

void reshape_like(ir::Graph& g, ir::Node& n) {
  // A constant target gives the output shape (also where shape inference could not);
  // otherwise the inferred output shape is the target and the run-time operand is unused.
  ir::Tensor& out = g.tensor(n.outputs.at(0));
  ir::TensorId spec = input_or_none(n, 1);
  if (spec >= 0 && g.tensor(spec).constant && g.tensor(n.inputs[0]).shape_known) {
    const ir::Shape& in = g.tensor(n.inputs[0]).shape;
    std::vector<int64_t> target = const_ints(g.tensor(spec));
    out.shape = n.op == "Reshape" ? reshape_target(n, in, target, n.attrs.get_int("allowzero", 0) != 0)
                                  : ir::broadcast_shapes(in, target);
    out.shape_known = true;
  }
  if (!out.shape_known) {
    take_ints(g, n, 1, "__shape_operand");
    return;
  }
  n.attrs.set("shape", out.shape);
  keep_inputs(n, 1);
}

void clip_bounds(ir::Graph& g, ir::Node& n) {
  if (g.opset >= 11) {
    bool ok = take_float(g, n, 1, "min") && take_float(g, n, 2, "max");
    if (ok) keep_inputs(n, 1);
  }
  if (!n.attrs.has("min")) n.attrs.set("min", -std::numeric_limits<float>::infinity());
  if (!n.attrs.has("max")) n.attrs.set("max", std::numeric_limits<float>::infinity());
}

void pad_operands(ir::Graph& g, ir::Node& n) {
  if (g.opset < 11) {
    if (n.attrs.has("paddings")) n.attrs.set("pads", n.attrs.get_ints("paddings"));
    return;
  }
  bool ok = take_ints(g, n, 1, "pads") && take_float(g, n, 2, "value") && take_ints(g, n, 3, "axes");
  if (ok) keep_inputs(n, 1);
}

void slice_operands(ir::Graph& g, ir::Node& n) {
  if (g.opset < 10) return;
  bool ok = take_ints(g, n, 1, "starts") && take_ints(g, n, 2, "ends") && take_ints(g, n, 3, "axes") &&
            take_ints(g, n, 4, "steps");
  if (ok) keep_inputs(n, 1);
}

void axes_operand(ir::Graph& g, ir::Node& n, int64_t since_opset) {
  if (g.opset < since_opset) return;
  if (take_ints(g, n, 1, "axes")) keep_inputs(n, 1);
}

}  // namespace

void canonicalize_operands(ir::Graph& g) {
  for (ir::Node& n : g.nodes) {
    if (!n.domain.empty()) continue;
    const std::string& op = n.op;
    if (op == "Reshape" || op == "Expand") {
      reshape_like(g, n);
    } else if (op == "Squeeze" || op == "Unsqueeze") {
      axes_operand(g, n, 13);
    } else if (op == "ReduceSum") {
      axes_operand(g, n, 13);
    } else if (op.rfind("Reduce", 0) == 0) {
      axes_operand(g, n, 18);
    } else if (op == "Split") {
      if (g.opset >= 13 && take_ints(g, n, 1, "split")) keep_inputs(n, 1);
    } else if (op == "Clip") {
      clip_bounds(g, n);
    } else if (op == "Pad") {
      pad_operands(g, n);
    } else if (op == "Slice") {
      slice_operands(g, n);
    } else if (op == "Tile") {
      if (take_ints(g, n, 1, "repeats")) keep_inputs(n, 1);
    } else if (op == "TopK") {
      if (g.opset >= 10 && take_ints(g, n, 1, "k")) keep_inputs(n, 1);
    } else if (op == "CumSum") {
      if (take_ints(g, n, 1, "axis_list")) keep_inputs(n, 1);
    } else if (op == "ConstantOfShape") {
      // Its operand is the output's shape: one computed at run time is named (a constant
      // one is folded, the node then gone).
      if (operand(g, n, 0) == Operand::Dynamic) n.attrs.set("__dynamic_operand", g.tensor(n.inputs[0]).name);
    } else if (op == "Dropout") {
      // Inference only: a training_mode that is true (or computed at run time) is named.
      ir::TensorId mode = input_or_none(n, 2);
      if (mode >= 0 && (!g.tensor(mode).constant || const_ints(g.tensor(mode)) != std::vector<int64_t>{0}))
        n.attrs.set("__unsupported", std::string("training_mode ") +
                                         (g.tensor(mode).constant ? "is true" : "is computed at run time") +
                                         " (inference only)");
      keep_inputs(n, 1);
    }
  }
}

}  // namespace tigris::passes
