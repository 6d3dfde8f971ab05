// Names of the TFLite model enumerations, for messages and reports.
#include "export/tflite/model.h"

#include <iterator>

namespace tigris::tflite {
namespace {

// BuiltinOperator names by code (0..209).
constexpr const char* kBuiltinNames[] = {
    "ADD",
    "AVERAGE_POOL_2D",
    "CONCATENATION",
    "CONV_2D",
    "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE",
    "DEQUANTIZE",
    "EMBEDDING_LOOKUP",
    "FLOOR",
    "FULLY_CONNECTED",
    "HASHTABLE_LOOKUP",
    "L2_NORMALIZATION",
    "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION",
    "LOGISTIC",
    "LSH_PROJECTION",
    "LSTM",
    "MAX_POOL_2D",
    "MUL",
    "RELU",
    "RELU_N1_TO_1",
    "RELU6",
    "RESHAPE",
    "RESIZE_BILINEAR",
    "RNN",
    "SOFTMAX",
    "SPACE_TO_DEPTH",
    "SVDF",
    "TANH",
    "CONCAT_EMBEDDINGS",
    "SKIP_GRAM",
    "CALL",
    "CUSTOM",
    "EMBEDDING_LOOKUP_SPARSE",
    "PAD",
    "UNIDIRECTIONAL_SEQUENCE_RNN",
    "GATHER",
    "BATCH_TO_SPACE_ND",
    "SPACE_TO_BATCH_ND",
    "TRANSPOSE",
    "MEAN",
    "SUB",
    "DIV",
    "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "STRIDED_SLICE",
    "BIDIRECTIONAL_SEQUENCE_RNN",
    "EXP",
    "TOPK_V2",
    "SPLIT",
    "LOG_SOFTMAX",
    "DELEGATE",
    "BIDIRECTIONAL_SEQUENCE_LSTM",
    "CAST",
    "PRELU",
    "MAXIMUM",
    "ARG_MAX",
    "MINIMUM",
    "LESS",
    "NEG",
    "PADV2",
    "GREATER",
    "GREATER_EQUAL",
    "LESS_EQUAL",
    "SELECT",
    "SLICE",
    "SIN",
    "TRANSPOSE_CONV",
    "SPARSE_TO_DENSE",
    "TILE",
    "EXPAND_DIMS",
    "EQUAL",
    "NOT_EQUAL",
    "LOG",
    "SUM",
    "SQRT",
    "RSQRT",
    "SHAPE",
    "POW",
    "ARG_MIN",
    "FAKE_QUANT",
    "REDUCE_PROD",
    "REDUCE_MAX",
    "PACK",
    "LOGICAL_OR",
    "ONE_HOT",
    "LOGICAL_AND",
    "LOGICAL_NOT",
    "UNPACK",
    "REDUCE_MIN",
    "FLOOR_DIV",
    "REDUCE_ANY",
    "SQUARE",
    "ZEROS_LIKE",
    "FILL",
    "FLOOR_MOD",
    "RANGE",
    "RESIZE_NEAREST_NEIGHBOR",
    "LEAKY_RELU",
    "SQUARED_DIFFERENCE",
    "MIRROR_PAD",
    "ABS",
    "SPLIT_V",
    "UNIQUE",
    "CEIL",
    "REVERSE_V2",
    "ADD_N",
    "GATHER_ND",
    "COS",
    "WHERE",
    "RANK",
    "ELU",
    "REVERSE_SEQUENCE",
    "MATRIX_DIAG",
    "QUANTIZE",
    "MATRIX_SET_DIAG",
    "ROUND",
    "HARD_SWISH",
    "IF",
    "WHILE",
    "NON_MAX_SUPPRESSION_V4",
    "NON_MAX_SUPPRESSION_V5",
    "SCATTER_ND",
    "SELECT_V2",
    "DENSIFY",
    "SEGMENT_SUM",
    "BATCH_MATMUL",
    "PLACEHOLDER_FOR_GREATER_OP_CODES",
    "CUMSUM",
    "CALL_ONCE",
    "BROADCAST_TO",
    "RFFT2D",
    "CONV_3D",
    "IMAG",
    "REAL",
    "COMPLEX_ABS",
    "HASHTABLE",
    "HASHTABLE_FIND",
    "HASHTABLE_IMPORT",
    "HASHTABLE_SIZE",
    "REDUCE_ALL",
    "CONV_3D_TRANSPOSE",
    "VAR_HANDLE",
    "READ_VARIABLE",
    "ASSIGN_VARIABLE",
    "BROADCAST_ARGS",
    "RANDOM_STANDARD_NORMAL",
    "BUCKETIZE",
    "RANDOM_UNIFORM",
    "MULTINOMIAL",
    "GELU",
    "DYNAMIC_UPDATE_SLICE",
    "RELU_0_TO_1",
    "UNSORTED_SEGMENT_PROD",
    "UNSORTED_SEGMENT_MAX",
    "UNSORTED_SEGMENT_SUM",
    "ATAN2",
    "UNSORTED_SEGMENT_MIN",
    "SIGN",
    "BITCAST",
    "BITWISE_XOR",
    "RIGHT_SHIFT",
    "STABLEHLO_LOGISTIC",
    "STABLEHLO_ADD",
    "STABLEHLO_DIVIDE",
    "STABLEHLO_MULTIPLY",
    "STABLEHLO_MAXIMUM",
    "STABLEHLO_RESHAPE",
    "STABLEHLO_CLAMP",
    "STABLEHLO_CONCATENATE",
    "STABLEHLO_BROADCAST_IN_DIM",
    "STABLEHLO_CONVOLUTION",
    "STABLEHLO_SLICE",
    "STABLEHLO_CUSTOM_CALL",
    "STABLEHLO_REDUCE",
    "STABLEHLO_ABS",
    "STABLEHLO_AND",
    "STABLEHLO_COSINE",
    "STABLEHLO_EXPONENTIAL",
    "STABLEHLO_FLOOR",
    "STABLEHLO_LOG",
    "STABLEHLO_MINIMUM",
    "STABLEHLO_NEGATE",
    "STABLEHLO_OR",
    "STABLEHLO_POWER",
    "STABLEHLO_REMAINDER",
    "STABLEHLO_RSQRT",
    "STABLEHLO_SELECT",
    "STABLEHLO_SUBTRACT",
    "STABLEHLO_TANH",
    "STABLEHLO_SCATTER",
    "STABLEHLO_COMPARE",
    "STABLEHLO_CONVERT",
    "STABLEHLO_DYNAMIC_SLICE",
    "STABLEHLO_DYNAMIC_UPDATE_SLICE",
    "STABLEHLO_PAD",
    "STABLEHLO_IOTA",
    "STABLEHLO_DOT_GENERAL",
    "STABLEHLO_REDUCE_WINDOW",
    "STABLEHLO_SORT",
    "STABLEHLO_WHILE",
    "STABLEHLO_GATHER",
    "STABLEHLO_TRANSPOSE",
    "DILATE",
    "STABLEHLO_RNG_BIT_GENERATOR",
    "REDUCE_WINDOW",
    "STABLEHLO_COMPOSITE",
    "STABLEHLO_SHIFT_LEFT",
    "STABLEHLO_CBRT",
    "STABLEHLO_CASE",
};

constexpr const char* kTensorTypeNames[] = {
    "FLOAT32",   "FLOAT16", "INT32",    "UINT8",      "INT64",  "STRING",        "BOOL",        "INT16",
    "COMPLEX64", "INT8",    "FLOAT64",  "COMPLEX128", "UINT64", "RESOURCE",      "VARIANT",     "UINT32",
    "UINT16",    "INT4",    "BFLOAT16", "INT2",       "UINT4",  "FLOAT8_E4M3FN", "FLOAT8_E5M2",
};

}  // namespace

const char* builtin_name(int32_t code) {
  if (code >= 0 && code < static_cast<int32_t>(std::size(kBuiltinNames))) return kBuiltinNames[code];
  return "BUILTIN_UNKNOWN";
}

const char* tensor_type_name(TensorType t) {
  auto i = static_cast<int>(t);
  if (i >= 0 && i < static_cast<int>(std::size(kTensorTypeNames))) return kTensorTypeNames[i];
  return "TYPE_UNKNOWN";
}

const char* options_table_name(OptionsType t) {
  switch (t) {
  case OptionsType::None: return "NONE";
  case OptionsType::Conv2D: return "Conv2DOptions";
  case OptionsType::DepthwiseConv2D: return "DepthwiseConv2DOptions";
  case OptionsType::Pool2D: return "Pool2DOptions";
  case OptionsType::Svdf: return "SVDFOptions";
  case OptionsType::FullyConnected: return "FullyConnectedOptions";
  case OptionsType::Softmax: return "SoftmaxOptions";
  case OptionsType::Concatenation: return "ConcatenationOptions";
  case OptionsType::Add: return "AddOptions";
  case OptionsType::ResizeBilinear: return "ResizeBilinearOptions";
  case OptionsType::Reshape: return "ReshapeOptions";
  case OptionsType::Mul: return "MulOptions";
  case OptionsType::Pad: return "PadOptions";
  case OptionsType::Transpose: return "TransposeOptions";
  case OptionsType::Reducer: return "ReducerOptions";
  case OptionsType::Sub: return "SubOptions";
  case OptionsType::Div: return "DivOptions";
  case OptionsType::Squeeze: return "SqueezeOptions";
  case OptionsType::StridedSlice: return "StridedSliceOptions";
  case OptionsType::Dequantize: return "DequantizeOptions";
  case OptionsType::MaximumMinimum: return "MaximumMinimumOptions";
  case OptionsType::PadV2: return "PadV2Options";
  case OptionsType::Slice: return "SliceOptions";
  case OptionsType::TransposeConv: return "TransposeConvOptions";
  case OptionsType::UnidirectionalSequenceLstm: return "UnidirectionalSequenceLSTMOptions";
  case OptionsType::ResizeNearestNeighbor: return "ResizeNearestNeighborOptions";
  case OptionsType::LeakyRelu: return "LeakyReluOptions";
  case OptionsType::Abs: return "AbsOptions";
  case OptionsType::Quantize: return "QuantizeOptions";
  case OptionsType::HardSwish: return "HardSwishOptions";
  case OptionsType::If: return "IfOptions";
  case OptionsType::While: return "WhileOptions";
  case OptionsType::CallOnce: return "CallOnceOptions";
  case OptionsType::VarHandle: return "VarHandleOptions";
  case OptionsType::ReadVariable: return "ReadVariableOptions";
  case OptionsType::AssignVariable: return "AssignVariableOptions";
  }
  return "UnknownOptions";
}

}  // namespace tigris::tflite
