// Internal to the TFLite frontend: the importer state and the helpers the operator
// converters (convert_*.cpp) share.
#pragma once

#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "compiler/frontend/tflite/tflite_loader.h"
#include "compiler/ir/graph.h"
#include "export/tflite/model.h"

namespace tigris::frontend::tflite {

namespace tfl = tigris::tflite;

// Thrown by a converter when the operator has no IR form; `reason` has no operator index.
struct Refusal {
  std::string reason;
};
[[noreturn]] void refuse(const std::string& reason);

class Importer;
using Converter = void (*)(Importer&);

// Converters by builtin code, one registration function per file.
void register_conv(std::map<int32_t, Converter>& table);
void register_elementwise(std::map<int32_t, Converter>& table);
void register_shape(std::map<int32_t, Converter>& table);
void register_int16(std::map<int32_t, Converter>& table);  // TRANSPOSE_CONV (convert_int16.cpp)
void register_sequence_lstm(std::map<int32_t, Converter>& table);  // convert_sequence_lstm.cpp
void register_variables(std::map<int32_t, Converter>& table);
void register_svdf(std::map<int32_t, Converter>& table);  // SVDF (convert_svdf.cpp)
void register_signal(std::map<int32_t, Converter>& table);  // CUSTOM: the signal library (convert_signal.cpp)
void register_control(std::map<int32_t, Converter>& table);  // IF, WHILE (convert_control.cpp)

class Importer {
 public:
  // Imports subgraph `subgraph`; `enclosing` are the subgraphs whose IF/WHILE operators run
  // it (outermost first), empty for the main graph.
  Importer(const tfl::Model& model, const std::string& path, size_t subgraph = 0, std::vector<size_t> enclosing = {});

  // Converts every operator; operator-level refusals become placeholder nodes.
  ir::Graph run();
  // The same for a subgraph an IF/WHILE runs: inputs and outputs bound by position, no
  // boundary layout of the caller's.
  ir::Graph run_nested();
  size_t subgraph() const { return subgraph_; }
  const std::vector<size_t>& enclosing() const { return enclosing_; }
  const std::string& path() const { return path_; }
  std::vector<ConversionReason> reasons;  // collected by run()

  // ---- the operator being converted ----
  const tfl::Operator& op() const { return *op_; }
  const std::string& kind() const { return kind_; }
  int32_t input(size_t k) const;  // TFLite tensor index of input k, -1 when absent
  int32_t output(size_t k) const;
  size_t num_inputs() const { return op_->inputs.size(); }

  // ---- TFLite tensors ----
  const tfl::Tensor& tensor(int32_t i) const;
  std::vector<int64_t> tfl_shape(int32_t i) const;
  bool is_const(int32_t i) const;
  std::span<const uint8_t> data(int32_t i) const;
  tfl::TensorType type(int32_t i) const;
  std::optional<ir::QuantParam> quant(int32_t i) const;  // TFLite axis for per-channel
  // An activation's quantization: TFLite Micro's params (first scale and zero point);
  // refuses a scale that is not positive and finite.
  std::optional<ir::QuantParam> act_quant(int32_t i) const;
  // Values of an integer constant (shape operands, axes, paddings...).
  std::vector<int64_t> ints(int32_t i) const;
  // An activation's dtype (refuses types plans do not hold, hybrid and uint8 quantization).
  ir::DType act_dtype(int32_t i) const;
  bool quantized(int32_t i) const;  // int8 with a quant param

  // ---- IR tensors ----
  ir::TensorId act(int32_t i);       // activation in IR order (created once)
  ir::TensorId constant(int32_t i);  // constant in IR order, quant kept
  // Constant reordered by `perm` (data axes, TFLite order -> IR), quant axis mapped.
  ir::TensorId weight(int32_t i, const std::vector<int64_t>& perm, const std::string& suffix);
  // A conv-like operator's bias (rank 1), without its quantization record.
  ir::TensorId bias(int32_t i);
  ir::TensorId operand(int32_t i) { return is_const(i) ? constant(i) : act(i); }

  // ---- variable tensors (the plan's state; act() of a variable reads it too) ----
  bool is_variable(int32_t i) const;
  // Variable i's value at this point of the run: the state input (the value the previous
  // run left, or TFLite Micro's reset value) until an operator assigns it.
  ir::TensorId variable(int32_t i);
  // An operator wrote `value` into variable i (SVDF's state, LSTM's h and c): later reads in
  // this run see it, and the run leaves it for the next one.
  void assign(int32_t i, ir::TensorId value);

  // ---- resource variables (convert_variables.cpp) ----
  // VAR_HANDLE's output tensor names the resource `key` (container/shared_name).
  std::map<int32_t, std::string> resource_of;
  // Initial values CALL_ONCE's subgraph assigns, by key (raw bytes of the assigned constant).
  std::map<std::string, std::vector<uint8_t>> resource_initial;
  // Resource `key`'s value at this point of the run; the state variable is made on first
  // use with TFLite tensor `like`'s shape and dtype.
  ir::TensorId read_resource(const std::string& key, int32_t like);
  void assign_resource(const std::string& key, int32_t like, ir::TensorId value);
  // ---- an operator's own state (a kernel's persistent buffer TFLite Micro zeroes on Reset) ----
  // State `key`'s value at this point of the run, made on first use (zeros) with IR tensor
  // `like`'s shape and dtype; assign_kernel_state leaves `value` for the next run.
  ir::TensorId kernel_state(const std::string& key, ir::TensorId like);
  void assign_kernel_state(const std::string& key, ir::TensorId value);
  const tfl::Model& model() const { return model_; }
  // TFLite tensor i (an operator's output) is IR tensor `id` from here on.
  void alias(int32_t i, ir::TensorId id);
  // A TFLite constant replaced by a value computed here (DEQUANTIZE of a constant).
  void fold_to(int32_t i, tfl::TensorType type, std::vector<uint8_t> bytes);

  // A view of IR tensor x in TFLite's axis order (a Transpose for rank 3/4, else x).
  ir::TensorId tfl_order(ir::TensorId x);
  // Writes IR tensor y (IR order) from x_tfl (TFLite order): a Transpose, or a Reshape
  // when ranks match and no reordering is needed. For rank != 3/4 a Reshape.
  void from_tfl_order(ir::TensorId x_tfl, ir::TensorId y);
  // A new activation with `like`'s dtype and quant, in `shape`.
  ir::TensorId temp(ir::TensorId like, const ir::Shape& shape, const std::string& suffix);
  // Appends a node named <KIND>_<index>[_suffix].
  ir::Node& add_node(const std::string& op, std::vector<ir::TensorId> in, std::vector<ir::TensorId> out,
                     const std::string& suffix = "");
  // The operator's fused activation, for node `node` (just added): kept on the node as
  // "fused_activation" when `clamps` (its kernel clamps: int8 conv-like, binary and pool
  // ops; float Conv/DW/FC/Add with ReLU or ReLU6), else as a following Relu/Relu6/Clip.
  void fuse(size_t node, tfl::Activation a, bool clamps);

  ir::Graph g;

 private:
  void convert_operator(size_t index);
  void placeholder(const std::string& reason);
  ir::TensorId make_tensor(int32_t i, bool constant, const std::vector<int64_t>& perm, const std::string& suffix,
                           bool with_quant = true);

  const tfl::Model& model_;
  size_t subgraph_;
  std::vector<size_t> enclosing_;
  const tfl::SubGraph& sg_;
  std::string path_;
  const tfl::Operator* op_ = nullptr;
  size_t op_index_ = 0;
  std::string kind_;
  std::vector<ir::TensorId> act_ids_;              // TFLite tensor -> IR activation
  std::map<std::string, ir::TensorId> const_ids_;  // (tensor, layout) -> IR constant
  std::map<std::string, size_t> state_index_;      // "tensor <i>" / "resource <key>" -> g.state entry
  // The state entry for `key`, made on first use from TFLite tensor `like` (its initial
  // value `initial`, or TFLite Micro's reset value when empty).
  ir::StateVar& state_var(const std::string& key, int32_t like, std::vector<uint8_t> initial);
  void refuse_nested_state(const std::string& what) const;
  struct Folded {
    tfl::TensorType type;
    std::vector<uint8_t> bytes;
  };
  std::map<int32_t, Folded> folded_;
};

// The operator's options table of type T; refuses the operator when it is missing.
template <class T>
const T& options(Importer& imp) {
  const T* o = imp.op().options.get<T>();
  if (!o) refuse("its options table is missing");
  return *o;
}

// ---- 16x8 quantization (convert_int16.cpp) ----
bool quantized_dtype(ir::DType t);  // int8 or int16
// int8 symmetric weights of a 16x8 operator, scales per TFLite Micro's rules.
void check_int16_weights(Importer& imp, int32_t w, int64_t out_channels);
// The bias of a 16x8 operator: int64, or int32 where the kernel has an int32 accumulator.
void check_int16_bias(Importer& imp, int32_t b, bool int32_allowed);
// PAD / PADV2 fill of an int16 output (raw 0 without a value), dequantized.
float dequantized_pad_value(Importer& imp, int32_t value, int32_t y);
// int16 SOFTMAX's quantization: zero points 0, output scale 1/32768.
void check_int16_softmax(Importer& imp, int32_t x, int32_t y);
// A conv-like weight's scales per TFLite Micro's rules (convert_conv.cpp).
void check_weight_scales(Importer& imp, int32_t w, int64_t out_channels);

// Tensor-independent helpers.
std::vector<int64_t> ir_perm(int rank);       // TFLite -> IR axis order ([0, r-1, 1..r-2] for rank 3/4)
int64_t ir_axis(int64_t tfl_axis, int rank);  // IR position of a (non-negative) TFLite axis
// Explicit pads [begin_h, begin_w, end_h, end_w] of a TFLite window op.
std::vector<int64_t> window_pads(tfl::Padding padding, const std::vector<int64_t>& in_hw,
                                 const std::vector<int64_t>& out_hw, const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations);

}  // namespace tigris::frontend::tflite
