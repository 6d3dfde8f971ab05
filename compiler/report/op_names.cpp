#include "compiler/report/op_names.h"

#include <array>

#include "tigris.h"

namespace tigris::report {

std::string op_type_name(int op_type) {
  static constexpr std::array<const char*, TIGRIS_OP_TYPE_MAX + 1> kNames = {nullptr,
                                                                             "Conv",
                                                                             "DepthwiseConv",
                                                                             "Relu",
                                                                             "Relu6",
                                                                             "MaxPool",
                                                                             "AveragePool",
                                                                             "Add",
                                                                             "Mul",
                                                                             "Gemm",
                                                                             "Softmax",
                                                                             "Clip",
                                                                             "Sigmoid",
                                                                             "Concat",
                                                                             "Pad",
                                                                             "GlobalAveragePool",
                                                                             "Flatten",
                                                                             "Reshape",
                                                                             "Sub",
                                                                             "Div",
                                                                             "Tanh",
                                                                             "LeakyRelu",
                                                                             "BatchNormalization",
                                                                             "InstanceNormalization",
                                                                             "ConvTranspose",
                                                                             "MatMul",
                                                                             "ReduceMean",
                                                                             "Squeeze",
                                                                             "Unsqueeze",
                                                                             "Transpose",
                                                                             "Resize",
                                                                             "GlobalMaxPool",
                                                                             "Conv1D",
                                                                             "LayerNormalization",
                                                                             "Erf",
                                                                             "Split",
                                                                             "ResizeLinear",
                                                                             "HardSwish",
                                                                             "Abs",
                                                                             "Rsqrt",
                                                                             "SquaredDifference",
                                                                             "Max",
                                                                             "Min",
                                                                             "Neg",
                                                                             "Exp",
                                                                             "Log",
                                                                             "Sqrt",
                                                                             "Square",
                                                                             "Floor",
                                                                             "Ceil",
                                                                             "Round",
                                                                             "Sin",
                                                                             "Cos",
                                                                             "FloorDiv",
                                                                             "FloorMod",
                                                                             "PRelu",
                                                                             "Elu",
                                                                             "LogSoftmax",
                                                                             "L2Normalization",
                                                                             "L2Pool",
                                                                             "ReduceMax",
                                                                             "ReduceMin",
                                                                             "ReduceSum",
                                                                             "CumSum",
                                                                             "ArgMax",
                                                                             "ArgMin",
                                                                             "Gather",
                                                                             "GatherND",
                                                                             "StridedSlice",
                                                                             "MirrorPad",
                                                                             "ReverseV2",
                                                                             "EmbeddingLookup",
                                                                             "DynamicUpdateSlice",
                                                                             "Equal",
                                                                             "Less",
                                                                             "LessOrEqual",
                                                                             "Greater",
                                                                             "GreaterOrEqual",
                                                                             "And",
                                                                             "Or",
                                                                             "Not",
                                                                             "Where",
                                                                             "Cast",
                                                                             "Sum",
                                                                             "ReduceAll",
                                                                             "Svdf",
                                                                             "Lstm",
                                                                             "If",
                                                                             "While",
                                                                             "DetectionPostProcess"};
  if (op_type > 0 && op_type <= TIGRIS_OP_TYPE_MAX && kNames[static_cast<size_t>(op_type)]) {
    return kNames[static_cast<size_t>(op_type)];
  }
  return "op " + std::to_string(op_type);
}

std::string fused_activation_name(int act) {
  switch (act) {
  case TIGRIS_ACT_RELU: return "relu";
  case TIGRIS_ACT_RELU6: return "relu6";
  default: return "";
  }
}

}  // namespace tigris::report
