#include "compiler/passes/ops.h"

#include <set>

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

const std::set<std::string> kElementwise = {"Relu",
                                            "Relu6",
                                            "Sigmoid",
                                            "Tanh",
                                            "LeakyRelu",
                                            "Elu",
                                            "Selu",
                                            "Celu",
                                            "HardSigmoid",
                                            "HardSwish",
                                            "Silu",
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
                                            "Asin",
                                            "Acos",
                                            "Atan",
                                            "Sinh",
                                            "Cosh",
                                            "Asinh",
                                            "Acosh",
                                            "Atanh",
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
  if (in(kElementwise, op)) return LayoutRule::Elementwise;
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
  return LayoutRule::ModelOrder;
}

}  // namespace tigris::passes
