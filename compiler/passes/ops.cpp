#include "compiler/passes/ops.h"

#include <set>

#include "ops/op_table.h"

namespace tigris::passes {

namespace {

bool in(const std::set<std::string>& s, const std::string& op) { return s.count(op) != 0; }

const std::set<std::string> kSpatial = {"Conv",
                                        "DepthwiseConv",
                                        "Conv1D",
                                        "ConvTranspose",
                                        "MaxPool",
                                        "AveragePool",
                                        "LpPool",
                                        "GlobalAveragePool",
                                        "GlobalMaxPool",
                                        "GlobalLpPool",
                                        "Resize",
                                        "InstanceNormalization",
                                        "BatchNormalization",
                                        "LRN",
                                        "DepthToSpace",
                                        "SpaceToDepth"};

// Elementwise ops the operator table does not lower as plain unary or binary ops (decomposed,
// or lowered by hand); the table's own are found there (plain_elementwise).
const std::set<std::string> kElementwise = {"Table",
                                            "Relu",
                                            "Relu6",
                                            "Sigmoid",
                                            "Tanh",
                                            "LeakyRelu",
                                            "Elu",
                                            "Selu",
                                            "Celu",
                                            "HardSigmoid",
                                            "HardSwish",
                                            "Abs",
                                            "Neg",
                                            "Exp",
                                            "Log",
                                            "Sqrt",
                                            "Reciprocal",
                                            "Floor",
                                            "Ceil",
                                            "Round",
                                            "Sin",
                                            "Cos",
                                            "Tan",
                                            "Erf",
                                            "Softplus",
                                            "Softsign",
                                            "Clip",
                                            "Not",
                                            "Cast",
                                            "Sign",
                                            "Mish",
                                            "ThresholdedRelu",
                                            "Shrink",
                                            "IsNaN",
                                            "IsInf",
                                            "Add",
                                            "Sub",
                                            "Mul",
                                            "Div",
                                            "Pow",
                                            "Max",
                                            "Min",
                                            "Sum",
                                            "Mean",
                                            "Equal",
                                            "Less",
                                            "Greater",
                                            "LessOrEqual",
                                            "GreaterOrEqual",
                                            "And",
                                            "Or",
                                            "Xor",
                                            "Where",
                                            "PRelu",
                                            "Mod",
                                            "BitShift"};

const std::set<std::string> kAxis = {"Concat", "Split", "Slice", "Pad", "CumSum", "Tile", "ReverseSequence"};

const std::set<std::string> kReduce = {"ReduceMean",      "ReduceMax",       "ReduceMin", "ReduceSum",
                                       "ReduceProd",      "ReduceL1",        "ReduceL2",  "ReduceLogSum",
                                       "ReduceLogSumExp", "ReduceSumSquare", "ArgMax",    "ArgMin"};

// An op the operator table lowers as a plain unary or binary elementwise op (its IR name).
bool plain_elementwise(const std::string& op) {
  for (const tigris_rt::ops::OpDef& row : tigris_rt::ops::kOpDefs)
    if ((row.lowering == tigris_rt::ops::Lowering::kUnary || row.lowering == tigris_rt::ops::Lowering::kBinary) &&
        op == row.name)
      return true;
  return false;
}

}  // namespace

LayoutRule layout_rule(const ir::Graph& g, const ir::Node& n) {
  if (!n.domain.empty()) return LayoutRule::ModelOrder;
  const std::string& op = n.op;
  if (in(kSpatial, op)) {
    // Resize of anything but an image, or channel ops on rank 2, keep model order.
    int rank = n.inputs.empty() || n.inputs[0] < 0 ? 0 : g.tensor(n.inputs[0]).rank();
    if (rank == 4 || (rank == 3 && op != "Resize")) return LayoutRule::Spatial;
    return LayoutRule::ModelOrder;
  }
  if (in(kElementwise, op) || plain_elementwise(op)) return LayoutRule::Elementwise;
  if (in(kAxis, op)) return LayoutRule::Axis;
  if (in(kReduce, op)) return n.attrs.get_int("keepdims", 1) ? LayoutRule::Axis : LayoutRule::ModelOrder;
  if (op == "Softmax" || op == "LogSoftmax" || op == "Hardmax") {
    // Before opset 13 these flatten from `axis` on: only the last axis is a plain axis.
    int rank = n.inputs.empty() ? 0 : g.tensor(n.inputs[0]).rank();
    int64_t axis = n.attrs.get_int("axis", g.opset >= 13 ? -1 : 1);
    if (axis < 0) axis += rank;
    return g.opset >= 13 || axis == rank - 1 ? LayoutRule::Axis : LayoutRule::ModelOrder;
  }
  if (op == "Transpose") return LayoutRule::Transpose;
  // A Gather of a list of positions keeps the rank: a permutation or selection along one axis.
  if (op == "Gather" && n.inputs.size() == 2 && n.inputs[1] >= 0 && g.tensor(n.inputs[1]).constant &&
      g.tensor(n.inputs[1]).rank() == 1 && n.attrs.get_int("batch_dims", 0) == 0)
    return LayoutRule::Axis;
  return LayoutRule::ModelOrder;
}

}  // namespace tigris::passes
