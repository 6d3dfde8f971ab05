// The in-memory TFLite model: plain C++ structs holding everything TiGrIS carries from a
// .tflite file. read_model() (reader.h) fills it, write_model() (writer.h) serializes it.
// Enumerations use the FlatBuffer schema's numbering (not TFLite Micro's TfLiteType).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace tigris::tflite {

// ---- Enumerations (schema numbering) ---------------------------------------------------
enum class TensorType : int8_t {
  Float32 = 0,
  Float16 = 1,
  Int32 = 2,
  UInt8 = 3,
  Int64 = 4,
  String = 5,
  Bool = 6,
  Int16 = 7,
  Complex64 = 8,
  Int8 = 9,
  Float64 = 10,
  Complex128 = 11,
  UInt64 = 12,
  Resource = 13,
  Variant = 14,
  UInt32 = 15,
  UInt16 = 16,
  Int4 = 17,
  BFloat16 = 18,
  Int2 = 19,
  UInt4 = 20,
  Float8E4M3FN = 21,
  Float8E5M2 = 22,
};

// Builtin operator codes TiGrIS names. Other codes are carried as plain integers.
namespace op {
inline constexpr int32_t kAdd = 0, kAveragePool2D = 1, kConcatenation = 2, kConv2D = 3, kDepthwiseConv2D = 4,
                         kDequantize = 6, kFullyConnected = 9, kLogistic = 14, kMaxPool2D = 17, kMul = 18, kRelu = 19,
                         kRelu6 = 21, kReshape = 22, kResizeBilinear = 23, kSoftmax = 25, kTanh = 28, kCustom = 32,
                         kPad = 34, kDiv = 42, kCast = 53, kTranspose = 39, kMean = 40, kSub = 41, kSqueeze = 43,
                         kStridedSlice = 45, kMaximum = 55, kMinimum = 57, kPadV2 = 60, kSlice = 65,
                         kTransposeConv = 67, kSum = 74, kReduceMax = 82, kReduceMin = 89, kReduceAll = 140, kSvdf = 27,
                         kUnidirectionalSequenceLstm = 44, kMirrorPad = 100, kAddN = 106, kResizeNearestNeighbor = 97,
                         kLeakyRelu = 98, kAbs = 101, kQuantize = 114, kHardSwish = 117, kIf = 118, kWhile = 119,
                         kPlaceholderForGreaterOpCodes = 127, kCallOnce = 129, kVarHandle = 142, kReadVariable = 143,
                         kAssignVariable = 144;
}  // namespace op

enum class Padding : int8_t { Same = 0, Valid = 1 };
enum class Activation : int8_t { None = 0, Relu = 1, ReluN1To1 = 2, Relu6 = 3, Tanh = 4, SignBit = 5 };

// BuiltinOptions union tags of the options tables TiGrIS carries.
enum class OptionsType : uint8_t {
  None = 0,
  Conv2D = 1,
  DepthwiseConv2D = 2,
  Pool2D = 5,
  Svdf = 6,
  FullyConnected = 8,
  Softmax = 9,
  Concatenation = 10,
  Add = 11,
  ResizeBilinear = 15,
  Reshape = 17,
  Mul = 21,
  Pad = 22,
  Transpose = 26,
  Reducer = 27,
  Sub = 28,
  Div = 29,
  Squeeze = 30,
  StridedSlice = 32,
  Dequantize = 38,
  MaximumMinimum = 39,
  PadV2 = 43,
  Slice = 48,
  TransposeConv = 49,
  UnidirectionalSequenceLstm = 71,
  ResizeNearestNeighbor = 74,
  LeakyRelu = 75,
  Abs = 78,
  Quantize = 89,
  HardSwish = 91,
  If = 92,
  While = 93,
  CallOnce = 103,
  VarHandle = 111,
  ReadVariable = 112,
  AssignVariable = 113,
};

// ---- Options tables --------------------------------------------------------------------
struct Conv2DOptions {
  Padding padding = Padding::Same;
  int32_t stride_w = 0, stride_h = 0;
  Activation activation = Activation::None;
  int32_t dilation_w = 1, dilation_h = 1;
  TensorType quantized_bias_type = TensorType::Float32;
  bool operator==(const Conv2DOptions&) const = default;
};
struct DepthwiseConv2DOptions {
  Padding padding = Padding::Same;
  int32_t stride_w = 0, stride_h = 0, depth_multiplier = 0;
  Activation activation = Activation::None;
  int32_t dilation_w = 1, dilation_h = 1;
  bool operator==(const DepthwiseConv2DOptions&) const = default;
};
struct Pool2DOptions {
  Padding padding = Padding::Same;
  int32_t stride_w = 0, stride_h = 0, filter_w = 0, filter_h = 0;
  Activation activation = Activation::None;
  bool operator==(const Pool2DOptions&) const = default;
};
struct FullyConnectedOptions {
  Activation activation = Activation::None;
  int8_t weights_format = 0;
  bool keep_num_dims = false, asymmetric_quantize_inputs = false;
  TensorType quantized_bias_type = TensorType::Float32;
  bool operator==(const FullyConnectedOptions&) const = default;
};
struct SoftmaxOptions {
  float beta = 0.0f;
  bool operator==(const SoftmaxOptions&) const = default;
};
struct ConcatenationOptions {
  int32_t axis = 0;
  Activation activation = Activation::None;
  bool operator==(const ConcatenationOptions&) const = default;
};
// ADD and SUB.
struct AddSubOptions {
  Activation activation = Activation::None;
  bool pot_scale_int16 = true;
  bool operator==(const AddSubOptions&) const = default;
};
// MUL and DIV: a fused activation (the tag says which table).
struct MulOptions {
  Activation activation = Activation::None;
  bool operator==(const MulOptions&) const = default;
};
// RESHAPE and SQUEEZE: an optional list of ints (new_shape / squeeze_dims).
struct IntListOptions {
  std::optional<std::vector<int32_t>> values;
  bool operator==(const IntListOptions&) const = default;
};
// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR.
struct ResizeOptions {
  bool align_corners = false, half_pixel_centers = false;
  bool operator==(const ResizeOptions&) const = default;
};
struct ReducerOptions {
  bool keep_dims = false;
  bool operator==(const ReducerOptions&) const = default;
};
struct StridedSliceOptions {
  int32_t begin_mask = 0, end_mask = 0, ellipsis_mask = 0, new_axis_mask = 0, shrink_axis_mask = 0;
  bool offset = false;
  bool operator==(const StridedSliceOptions&) const = default;
};
struct TransposeConvOptions {
  Padding padding = Padding::Same;
  int32_t stride_w = 0, stride_h = 0;
  Activation activation = Activation::None;
  TensorType quantized_bias_type = TensorType::Float32;
  bool operator==(const TransposeConvOptions&) const = default;
};
struct LeakyReluOptions {
  float alpha = 0.0f;
  bool operator==(const LeakyReluOptions&) const = default;
};
struct UnidirectionalSequenceLstmOptions {
  Activation activation = Activation::None;
  float cell_clip = 0.0f, proj_clip = 0.0f;
  bool time_major = false, asymmetric_quantize_inputs = false, diagonal_recurrent_tensors = false;
  bool operator==(const UnidirectionalSequenceLstmOptions&) const = default;
};
struct IfOptions {
  int32_t then_subgraph_index = 0, else_subgraph_index = 0;
  bool operator==(const IfOptions&) const = default;
};
struct WhileOptions {
  int32_t cond_subgraph_index = 0, body_subgraph_index = 0;
  bool operator==(const WhileOptions&) const = default;
};
struct CallOnceOptions {
  int32_t init_subgraph_index = 0;
  bool operator==(const CallOnceOptions&) const = default;
};
struct VarHandleOptions {
  std::string container, shared_name;
  bool operator==(const VarHandleOptions&) const = default;
};
struct SVDFOptions {
  int32_t rank = 0;
  Activation activation = Activation::None;
  bool asymmetric_quantize_inputs = false;
  bool operator==(const SVDFOptions&) const = default;
};
// Options tables without fields (PAD, PADV2, TRANSPOSE, QUANTIZE, ...): the tag says which.
struct NoFieldOptions {
  bool operator==(const NoFieldOptions&) const = default;
};

struct Options {
  OptionsType type = OptionsType::None;  // the union tag as written in the file
  std::variant<std::monostate, Conv2DOptions, DepthwiseConv2DOptions, Pool2DOptions, FullyConnectedOptions,
               SoftmaxOptions, ConcatenationOptions, AddSubOptions, MulOptions, IntListOptions, ResizeOptions,
               ReducerOptions, StridedSliceOptions, LeakyReluOptions, TransposeConvOptions,
               UnidirectionalSequenceLstmOptions, CallOnceOptions, VarHandleOptions, SVDFOptions, IfOptions,
               WhileOptions, NoFieldOptions>
      value;
  bool operator==(const Options&) const = default;

  template <class T>
  const T* get() const {
    return std::get_if<T>(&value);
  }
  template <class T>
  T* get() {
    return std::get_if<T>(&value);
  }
};

// ---- Core tables -----------------------------------------------------------------------
struct Quantization {
  std::vector<float> min, max, scale;
  std::vector<int64_t> zero_point;
  int32_t quantized_dimension = 0;
  bool details_dropped = false;  // a lenient read dropped its details (custom quantization)
  bool operator==(const Quantization&) const = default;
  // TFLite Micro's test: a tensor is quantized when both scale and zero_point are non-empty.
  bool affine() const { return !scale.empty() && !zero_point.empty(); }
};

struct Tensor {
  std::vector<int32_t> shape;  // empty = scalar
  TensorType type = TensorType::Float32;
  uint32_t buffer = 0;  // index into Model::buffers; 0 = no data
  std::string name;
  std::optional<Quantization> quantization;
  bool is_variable = false;
  std::optional<std::vector<int32_t>> shape_signature;
  bool has_rank = false;
  bool operator==(const Tensor&) const = default;
};

struct Buffer {
  std::vector<uint8_t> data;  // empty = no data
  bool operator==(const Buffer&) const = default;
};

struct Operator {
  uint32_t opcode_index = 0;
  std::vector<int32_t> inputs;  // -1 = optional input not given
  std::vector<int32_t> outputs;
  Options options;
  std::optional<std::vector<uint8_t>> custom_options;
  int8_t custom_options_format = 0;
  std::vector<bool> mutating_variable_inputs;
  std::vector<int32_t> intermediates;
  int32_t debug_metadata_index = -1;
  bool operator==(const Operator&) const = default;
};

struct OperatorCode {
  int32_t code = 0;  // effective builtin code: max(deprecated_builtin_code, builtin_code)
  std::optional<std::string> custom_code;
  int32_t version = 1;
  bool operator==(const OperatorCode&) const = default;
};

struct SubGraph {
  std::vector<Tensor> tensors;
  std::vector<int32_t> inputs, outputs;
  std::vector<Operator> operators;  // execution order
  std::string name;
  int32_t debug_metadata_index = -1;
  bool operator==(const SubGraph&) const = default;
};

struct Metadata {
  std::string name;
  uint32_t buffer = 0;
  bool operator==(const Metadata&) const = default;
};

struct TensorMap {
  std::string name;
  uint32_t tensor_index = 0;
  bool operator==(const TensorMap&) const = default;
};

struct SignatureDef {
  std::vector<TensorMap> inputs, outputs;
  std::string signature_key;
  uint32_t subgraph_index = 0;
  bool operator==(const SignatureDef&) const = default;
};

struct Model {
  uint32_t version = 3;
  std::vector<OperatorCode> operator_codes;
  std::vector<SubGraph> subgraphs;
  std::optional<std::string> description;
  std::vector<Buffer> buffers;
  std::vector<int32_t> metadata_buffer;
  std::vector<Metadata> metadata;
  std::vector<SignatureDef> signature_defs;
  // Parts of the file this model does not carry (filled only by a lenient read; see
  // ReadOptions). write_model() refuses a model whose list is not empty.
  std::vector<std::string> uncarried;
  bool operator==(const Model&) const = default;
};

// ---- Errors ----------------------------------------------------------------------------
// A model TiGrIS refuses or cannot read. what() is one line; reason() has no file name.
class ModelError : public std::runtime_error {
 public:
  ModelError(const std::string& file, const std::string& reason)
      : std::runtime_error(file.empty() ? reason : file + ": " + reason), file_(file), reason_(reason) {}
  const std::string& file() const { return file_; }
  const std::string& reason() const { return reason_; }

 private:
  std::string file_, reason_;
};

// ---- Helpers ---------------------------------------------------------------------------
const char* tensor_type_name(TensorType t);                    // "INT8", "FLOAT32", ... ("TYPE_UNKNOWN" if unknown)
const char* builtin_name(int32_t code);                        // "CONV_2D", ... ("BUILTIN_UNKNOWN" if unnamed)
const char* options_table_name(OptionsType t);                 // "Conv2DOptions", ...
std::string operator_kind(const Model& m, const Operator& o);  // builtin name, or custom code
int32_t builtin_code(const Model& m, const Operator& o);       // effective code (-1 if bad index)
std::string tensor_owner(size_t index, const std::string& name);  // "tensor 3 (name)" in errors

// Element count of a shape (empty shape = 1 element; saturates at INT64_MAX).
int64_t element_count(const std::vector<int32_t>& shape);
// The constant data of a tensor (empty span for activations).
std::span<const uint8_t> tensor_data(const Model& m, const Tensor& t);
bool is_constant(const Model& m, const Tensor& t);

// Throws ModelError(file, "OWNER: ITEM index I is out of range for N ITEMs") for the first
// index that points nowhere (operator codes, tensors, buffers, subgraphs), and for a
// missing or non-empty buffer 0.
void check_model_indices(const Model& m, const std::string& file);

}  // namespace tigris::tflite
