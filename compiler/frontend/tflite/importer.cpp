// The TFLite importer: tensors, layout helpers and the per-operator driver.
#include "compiler/frontend/tflite/importer.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/frontend/tflite/boundary_transpose.h"
#include "compiler/ir/error.h"
#include "compiler/passes/util.h"

namespace tigris::frontend::tflite {

void refuse(const std::string& reason) { throw Refusal{reason}; }

std::string ConversionReason::text() const {
  if (operator_index < 0) return reason;
  return "operator " + std::to_string(operator_index) + " (" + kind + "): " + reason;
}

namespace {

ir::DType dtype_of(tfl::TensorType t) {
  switch (t) {
  case tfl::TensorType::Float32: return ir::DType::Float32;
  case tfl::TensorType::Int8: return ir::DType::Int8;
  case tfl::TensorType::UInt8: return ir::DType::UInt8;
  case tfl::TensorType::Int16: return ir::DType::Int16;
  case tfl::TensorType::Int32: return ir::DType::Int32;
  case tfl::TensorType::Int64: return ir::DType::Int64;
  case tfl::TensorType::Bool: return ir::DType::Bool;
  case tfl::TensorType::Float16: return ir::DType::Float16;
  case tfl::TensorType::Float64: return ir::DType::Float64;
  // Unsigned 32/64-bit data (only the signal library's operators take it, act_dtype refuses
  // it elsewhere) is held in signed storage of its width; those kernels read it unsigned.
  case tfl::TensorType::UInt32: return ir::DType::Int32;
  case tfl::TensorType::UInt64: return ir::DType::Int64;
  default: return ir::DType::Undefined;
  }
}

const std::map<int32_t, Converter>& converters() {
  static const std::map<int32_t, Converter> table = [] {
    std::map<int32_t, Converter> t;
    register_conv(t);
    register_elementwise(t);
    register_shape(t);
    register_int16(t);
    register_sequence_lstm(t);
    register_variables(t);
    register_svdf(t);
    register_signal(t);
    register_control(t);
    return t;
  }();
  return table;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

}  // namespace

std::vector<int64_t> ir_perm(int rank) {
  if (rank == 3 || rank == 4) return ir::to_channels_first_perm(rank);
  std::vector<int64_t> p(static_cast<size_t>(std::max(rank, 0)));
  for (int i = 0; i < rank; ++i) p[static_cast<size_t>(i)] = i;
  return p;
}

int64_t ir_axis(int64_t tfl_axis, int rank) {
  std::vector<int64_t> p = ir_perm(rank);
  for (size_t j = 0; j < p.size(); ++j)
    if (p[j] == tfl_axis) return static_cast<int64_t>(j);
  refuse("axis " + std::to_string(tfl_axis) + " is out of range for rank " + std::to_string(rank));
}

std::vector<int64_t> window_pads(tfl::Padding padding, const std::vector<int64_t>& in_hw,
                                 const std::vector<int64_t>& out_hw, const std::vector<int64_t>& kernel,
                                 const std::vector<int64_t>& strides, const std::vector<int64_t>& dilations) {
  std::vector<int64_t> pads(4, 0);
  for (size_t a = 0; a < 2; ++a) {
    if (strides[a] < 1 || kernel[a] < 1 || dilations[a] < 1) refuse("stride, kernel and dilation must be positive");
    int64_t eff = (kernel[a] - 1) * dilations[a] + 1;
    int64_t expect = padding == tfl::Padding::Same ? (in_hw[a] + strides[a] - 1) / strides[a]
                                                   : (in_hw[a] - eff + strides[a]) / strides[a];
    if (out_hw[a] != expect)
      refuse("output extent " + std::to_string(out_hw[a]) + " does not follow from the input, window and padding");
    if (padding != tfl::Padding::Same) continue;
    int64_t total = std::max<int64_t>((out_hw[a] - 1) * strides[a] + eff - in_hw[a], 0);
    pads[a] = total / 2;
    pads[a + 2] = total - total / 2;
  }
  return pads;
}

Importer::Importer(const tfl::Model& model, const std::string& path, size_t subgraph, std::vector<size_t> enclosing)
    : model_(model),
      subgraph_(subgraph),
      enclosing_(std::move(enclosing)),
      sg_(model.subgraphs.at(subgraph)),
      path_(path),
      act_ids_(sg_.tensors.size(), ir::kNoTensor) {}

int32_t Importer::input(size_t k) const { return k < op_->inputs.size() ? op_->inputs[k] : -1; }
int32_t Importer::output(size_t k) const {
  if (k >= op_->outputs.size()) refuse("missing output " + std::to_string(k));
  return op_->outputs[k];
}

const tfl::Tensor& Importer::tensor(int32_t i) const {
  if (i < 0 || static_cast<size_t>(i) >= sg_.tensors.size()) refuse("a required operand is absent");
  return sg_.tensors[static_cast<size_t>(i)];
}

std::vector<int64_t> Importer::tfl_shape(int32_t i) const {
  const tfl::Tensor& t = tensor(i);
  return std::vector<int64_t>(t.shape.begin(), t.shape.end());
}

// A variable's buffer is not its value (TFLite Micro resets variables without reading it).
bool Importer::is_const(int32_t i) const {
  return !is_variable(i) && (folded_.count(i) || tfl::is_constant(model_, tensor(i)));
}

bool Importer::is_variable(int32_t i) const { return i >= 0 && tensor(i).is_variable; }

// A plan's state belongs to its main graph; a subgraph an IF/WHILE runs holds none.
void Importer::refuse_nested_state(const std::string& what) const {
  if (!enclosing_.empty()) refuse(what + " inside a subgraph an IF or WHILE runs; only the main graph keeps state");
}

ir::StateVar& Importer::state_var(const std::string& key, int32_t like, std::vector<uint8_t> initial) {
  auto it = state_index_.find(key);
  if (it != state_index_.end()) return g.state[it->second];
  refuse_nested_state("variable '" + tensor(like).name + "'");
  const int rank = static_cast<int>(tensor(like).shape.size());
  if (rank >= 3)
    refuse("variable '" + tensor(like).name + "' has rank " + std::to_string(rank) +
           "; state variables of rank 3 or more are not supported");
  act_dtype(like);
  ir::StateVar v;
  v.name = tensor(like).name.empty() ? "variable_" + std::to_string(like) : tensor(like).name;
  v.input = make_tensor(like, false, ir_perm(rank), "");
  const ir::Tensor& x = g.tensor(v.input);
  if (!initial.empty() && initial.size() != x.bytes())
    refuse("variable '" + v.name + "' is initialised with " + std::to_string(initial.size()) + " bytes; it holds " +
           std::to_string(x.bytes()));
  v.initial = std::move(initial);
  // TFLite Micro's ResetVariableTensors: int8 variables hold their zero point, others 0.
  if (v.initial.empty() && x.dtype == ir::DType::Int8 && x.quant && !x.quant->zero_points.empty() &&
      x.quant->zero_points[0] != 0)
    v.initial.assign(x.bytes(), static_cast<uint8_t>(static_cast<int8_t>(x.quant->zero_points[0])));
  g.state.push_back(std::move(v));
  state_index_.emplace(key, g.state.size() - 1);
  return g.state.back();
}

ir::TensorId Importer::variable(int32_t i) {
  const ir::StateVar& v = state_var("tensor " + std::to_string(i), i, {});
  return v.output != ir::kNoTensor ? v.output : v.input;
}

void Importer::assign(int32_t i, ir::TensorId value) {
  ir::StateVar& v = state_var("tensor " + std::to_string(i), i, {});
  v.output = value == v.input ? ir::kNoTensor : value;
}

ir::TensorId Importer::kernel_state(const std::string& key, ir::TensorId like) {
  auto it = state_index_.find("kernel " + key);
  if (it == state_index_.end()) {
    refuse_nested_state("state '" + key + "'");
    ir::Tensor x = g.tensor(like);
    x.name = g.unique_tensor_name(key);
    x.quant.reset();
    ir::StateVar v;
    v.name = key;
    v.input = g.add_tensor(std::move(x));
    g.state.push_back(std::move(v));
    it = state_index_.emplace("kernel " + key, g.state.size() - 1).first;
  }
  const ir::StateVar& v = g.state[it->second];
  return v.output != ir::kNoTensor ? v.output : v.input;
}

void Importer::assign_kernel_state(const std::string& key, ir::TensorId value) {
  auto it = state_index_.find("kernel " + key);
  if (it == state_index_.end()) refuse("state '" + key + "' is assigned before it is read");
  ir::StateVar& v = g.state[it->second];
  v.output = value == v.input ? ir::kNoTensor : value;
}

void Importer::alias(int32_t i, ir::TensorId id) {
  tensor(i);
  ir::TensorId& slot = act_ids_[static_cast<size_t>(i)];
  if (slot != ir::kNoTensor) refuse("tensor '" + tensor(i).name + "' is written twice");
  slot = id;
}

ir::TensorId Importer::read_resource(const std::string& key, int32_t like) {
  auto init = resource_initial.find(key);
  const ir::StateVar& v =
      state_var("resource " + key, like, init == resource_initial.end() ? std::vector<uint8_t>{} : init->second);
  return v.output != ir::kNoTensor ? v.output : v.input;
}

void Importer::assign_resource(const std::string& key, int32_t like, ir::TensorId value) {
  auto init = resource_initial.find(key);
  ir::StateVar& v =
      state_var("resource " + key, like, init == resource_initial.end() ? std::vector<uint8_t>{} : init->second);
  if (g.tensor(value).shape != g.tensor(v.input).shape || g.tensor(value).dtype != g.tensor(v.input).dtype)
    refuse("the value assigned to resource variable '" + key + "' differs in shape or dtype from the variable");
  v.output = value == v.input ? ir::kNoTensor : value;
}

std::span<const uint8_t> Importer::data(int32_t i) const {
  auto it = folded_.find(i);
  if (it != folded_.end()) return it->second.bytes;
  return tfl::tensor_data(model_, tensor(i));
}

tfl::TensorType Importer::type(int32_t i) const {
  auto it = folded_.find(i);
  return it != folded_.end() ? it->second.type : tensor(i).type;
}

std::optional<ir::QuantParam> Importer::quant(int32_t i) const {
  if (folded_.count(i)) return std::nullopt;
  const tfl::Tensor& t = tensor(i);
  // TFLite Micro's reading of a record (micro_allocator.cc): quantized when it has a scale
  // and a zero point; zero point k when both lists have the same length, else the first
  // zero point for every channel; the quantized dimension is copied unchecked (the kernels
  // that read per-channel scales check it against their weights).
  if (!t.quantization || !t.quantization->affine()) return std::nullopt;
  const tfl::Quantization& q = *t.quantization;
  ir::QuantParam p;
  p.scales = q.scale;
  for (size_t k = 0; k < p.scales.size(); ++k) {
    int64_t z = q.zero_point.size() == q.scale.size() ? q.zero_point[k] : q.zero_point[0];
    p.zero_points.push_back(static_cast<int32_t>(z));
  }
  if (p.scales.size() > 1) p.axis = q.quantized_dimension;
  return p;
}

std::optional<ir::QuantParam> Importer::act_quant(int32_t i) const {
  std::optional<ir::QuantParam> q = quant(i);
  if (!q) return q;
  // An activation's kernels read TfLiteTensor.params: the first scale and zero point.
  q->scales.resize(1);
  q->zero_points.resize(1);
  q->axis = -1;
  if (!(q->scales[0] > 0.0f) || !std::isfinite(q->scales[0]))
    refuse("tensor '" + tensor(i).name + "' has a scale that is not positive and finite");
  return q;
}

std::vector<int64_t> Importer::ints(int32_t i) const {
  if (!is_const(i)) refuse("operand '" + tensor(i).name + "' is computed at run time");
  std::span<const uint8_t> d = data(i);
  std::vector<int64_t> out;
  if (type(i) == tfl::TensorType::Int32) {
    for (size_t k = 0; k + 4 <= d.size(); k += 4) {
      int32_t v;
      std::memcpy(&v, d.data() + k, 4);
      out.push_back(v);
    }
  } else if (type(i) == tfl::TensorType::Int64) {
    for (size_t k = 0; k + 8 <= d.size(); k += 8) {
      int64_t v;
      std::memcpy(&v, d.data() + k, 8);
      out.push_back(v);
    }
  } else {
    refuse("operand '" + tensor(i).name + "' is not an integer constant");
  }
  return out;
}

bool Importer::quantized(int32_t i) const { return type(i) == tfl::TensorType::Int8 && quant(i).has_value(); }

ir::DType Importer::act_dtype(int32_t i) const {
  const tfl::Tensor& t = tensor(i);
  tfl::TensorType ty = type(i);
  std::optional<ir::QuantParam> q = act_quant(i);
  if (ty == tfl::TensorType::Int8) {
    if (!q) return ir::DType::Int8;  // plain integers (a CAST's output), as TFLite Micro reads it
    if (q->zero_points[0] < -128 || q->zero_points[0] > 127)
      refuse("tensor '" + t.name + "' has a zero point outside int8");
    return ir::DType::Int8;
  }
  if (ty == tfl::TensorType::UInt8 && q)
    refuse("tensor '" + t.name + "' is uint8-quantized (TFLite's legacy quantization); convert the model to int8");
  if (ty == tfl::TensorType::Int16 && q && (q->zero_points[0] < -32768 || q->zero_points[0] > 32767))
    refuse("tensor '" + t.name + "' has a zero point outside int16");
  ir::DType d = dtype_of(ty);
  if (ty == tfl::TensorType::UInt32 || ty == tfl::TensorType::UInt64)
    refuse("tensor '" + t.name + "' is " + tfl::tensor_type_name(ty) + "; only the signal library's operators take it");
  if (!ir::dtype_storable(d))
    refuse("tensor '" + t.name + "' is " + tfl::tensor_type_name(ty) +
           "; plans hold float32, int8, int16, int32, int64 and bool");
  return d;
}

ir::TensorId Importer::make_tensor(int32_t i, bool constant, const std::vector<int64_t>& perm,
                                   const std::string& suffix, bool with_quant) {
  const tfl::Tensor& t = tensor(i);
  ir::Tensor x;
  std::string base = t.name.empty() ? "t" + std::to_string(i) : t.name;
  x.name = g.unique_tensor_name(suffix.empty() ? base : base + "_" + suffix);
  x.dtype = dtype_of(type(i));
  std::vector<int64_t> shape = tfl_shape(i);
  for (int64_t d : shape)
    if (d <= 0) refuse("tensor '" + t.name + "' has extent " + std::to_string(d));
  x.shape = ir::permute_shape(shape, perm);
  if (with_quant) x.quant = constant ? quant(i) : act_quant(i);
  if (x.quant && x.quant->axis >= 0) {
    if (x.quant->axis >= static_cast<int>(shape.size()))
      refuse("tensor '" + t.name + "' has a bad quantized dimension");
    x.quant->axis = static_cast<int>(std::find(perm.begin(), perm.end(), x.quant->axis) - perm.begin());
  }
  if (constant) {
    x.constant = true;
    std::span<const uint8_t> d = data(i);
    std::vector<uint8_t> bytes(d.begin(), d.end());
    size_t esize = ir::dtype_size(x.dtype);
    if (esize == 0 || bytes.size() != static_cast<size_t>(ir::num_elements(shape)) * esize)
      refuse("constant '" + t.name + "' has " + std::to_string(bytes.size()) + " bytes for its shape and type");
    x.data = is_identity(perm) ? std::move(bytes) : passes::transpose_data(bytes, shape, perm, esize);
  }
  return g.add_tensor(std::move(x));
}

ir::TensorId Importer::act(int32_t i) {
  tensor(i);
  if (is_variable(i)) return variable(i);
  if (is_const(i)) refuse("operand '" + tensor(i).name + "' is a constant where an activation is expected");
  ir::TensorId& id = act_ids_[static_cast<size_t>(i)];
  if (id == ir::kNoTensor) id = make_tensor(i, false, ir_perm(static_cast<int>(tensor(i).shape.size())), "");
  return id;
}

ir::TensorId Importer::constant(int32_t i) { return weight(i, ir_perm(static_cast<int>(tensor(i).shape.size())), ""); }

ir::TensorId Importer::bias(int32_t i) {
  if (!is_const(i)) refuse("operand '" + tensor(i).name + "' is computed at run time");
  if (tensor(i).shape.size() != 1) refuse("bias '" + tensor(i).name + "' is not a vector");
  std::string key = std::to_string(i) + "/bias";
  auto it = const_ids_.find(key);
  if (it != const_ids_.end()) return it->second;
  // The kernels add the int32 (or float) values as they are; TFLite Micro never reads a
  // bias's quantization record, whatever it holds.
  ir::TensorId id = make_tensor(i, true, {0}, "", false);
  const_ids_[key] = id;
  return id;
}

ir::TensorId Importer::weight(int32_t i, const std::vector<int64_t>& perm, const std::string& suffix) {
  if (!is_const(i)) refuse("operand '" + tensor(i).name + "' is computed at run time");
  std::string key = std::to_string(i) + "/" + suffix;
  auto it = const_ids_.find(key);
  if (it != const_ids_.end()) return it->second;
  ir::TensorId id = make_tensor(i, true, perm, suffix);
  const_ids_[key] = id;
  return id;
}

void Importer::fold_to(int32_t i, tfl::TensorType type, std::vector<uint8_t> bytes) {
  folded_[i] = Folded{type, std::move(bytes)};
}

ir::TensorId Importer::temp(ir::TensorId like, const ir::Shape& shape, const std::string& suffix) {
  const ir::Tensor src = g.tensor(like);
  ir::Tensor t;
  t.name = g.unique_tensor_name(src.name + "_" + suffix);
  t.dtype = src.dtype;
  t.shape = shape;
  t.quant = src.quant;
  return g.add_tensor(std::move(t));
}

ir::Node& Importer::add_node(const std::string& op, std::vector<ir::TensorId> in, std::vector<ir::TensorId> out,
                             const std::string& suffix) {
  ir::Node n;
  std::string base = kind_ + "_" + std::to_string(op_index_);
  n.name = g.unique_node_name(suffix.empty() ? base : base + "_" + suffix);
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  g.nodes.push_back(std::move(n));
  return g.nodes.back();
}

ir::TensorId Importer::tfl_order(ir::TensorId x) {
  int r = g.tensor(x).rank();
  if (r != 3 && r != 4) return x;
  std::vector<int64_t> perm = ir::to_channels_last_perm(r);
  ir::TensorId y = temp(x, ir::permute_shape(g.tensor(x).shape, perm), "tfl");
  add_node("Transpose", {x}, {y}, "to_tfl").attrs.set("perm", perm);
  return y;
}

void Importer::from_tfl_order(ir::TensorId x_tfl, ir::TensorId y) {
  int r = g.tensor(y).rank();
  if ((r == 3 || r == 4) && g.tensor(x_tfl).rank() == r) {
    add_node("Transpose", {x_tfl}, {y}, "from_tfl").attrs.set("perm", ir::to_channels_first_perm(r));
    return;
  }
  add_node("Reshape", {x_tfl}, {y}, "from_tfl").attrs.set("shape", g.tensor(y).shape);
}

void Importer::fuse(size_t node, tfl::Activation a, bool clamps) {
  if (a == tfl::Activation::None) return;
  std::string name = a == tfl::Activation::Relu ? "Relu" : a == tfl::Activation::Relu6 ? "Relu6" : "";
  if (a == tfl::Activation::ReluN1To1) name = "ReluN1To1";
  if (name.empty())
    refuse("fused activation " + std::to_string(static_cast<int>(a)) + " (TANH or SIGN_BIT) is not supported");
  ir::TensorId y = g.nodes.at(node).outputs.at(0);
  bool quantized = g.tensor(y).dtype == ir::DType::Int8 || g.tensor(y).dtype == ir::DType::Int16;
  if (clamps && (quantized || name != "ReluN1To1")) {
    g.nodes[node].attrs.set("fused_activation", name);
    return;
  }
  ir::TensorId t = temp(y, g.tensor(y).shape, "preact");
  g.nodes[node].outputs[0] = t;
  ir::Node& n = add_node(name == "ReluN1To1" ? "Clip" : name, {t}, {y}, "act");
  if (name == "ReluN1To1") {
    n.attrs.set("min", -1.0f);
    n.attrs.set("max", 1.0f);
  }
}

void Importer::placeholder(const std::string& reason) {
  std::vector<ir::TensorId> in, out;
  for (int32_t i : op_->inputs)
    if (i >= 0 && static_cast<size_t>(i) < sg_.tensors.size() && !is_const(i)) {
      try {
        in.push_back(act(i));
      } catch (const Refusal&) {}
    }
  for (int32_t i : op_->outputs) {
    try {
      out.push_back(act(i));
    } catch (const Refusal&) {}
  }
  ir::Node& n = add_node(kind_, in, out);
  n.attrs.set("__unsupported", reason);
}

void Importer::convert_operator(size_t index) {
  op_ = &sg_.operators[index];
  op_index_ = index;
  kind_ = tfl::operator_kind(model_, *op_);
  size_t nodes0 = g.nodes.size(), tensors0 = g.tensors.size();
  const std::vector<ir::StateVar> state0 = g.state;
  std::string reason;
  try {
    auto it = converters().find(tfl::builtin_code(model_, *op_));
    if (it == converters().end()) refuse("no conversion for this operator");
    it->second(*this);
    return;
  } catch (const Refusal& r) {
    reason = r.reason;
  } catch (const std::exception& e) {
    reason = e.what();
  }
  g.nodes.resize(nodes0);
  g.tensors.resize(tensors0);
  g.state = state0;
  for (auto it = state_index_.begin(); it != state_index_.end();)
    it = it->second >= state0.size() ? state_index_.erase(it) : std::next(it);
  for (ir::TensorId& id : act_ids_)
    if (id >= static_cast<ir::TensorId>(tensors0)) id = ir::kNoTensor;
  for (auto it = const_ids_.begin(); it != const_ids_.end();)
    it = it->second >= static_cast<ir::TensorId>(tensors0) ? const_ids_.erase(it) : std::next(it);
  reasons.push_back({static_cast<int>(index), kind_, reason});
  placeholder(reason);
}

ir::Graph Importer::run() {
  g.format = "tflite";
  g.opset = 13;
  g.source_operators = static_cast<uint32_t>(sg_.operators.size());
  const std::map<int32_t, size_t> first = channels_first_inputs(model_, sg_);
  std::vector<char> absorbed(sg_.operators.size(), 0);
  std::vector<ir::TensorId> channels_first;
  for (int32_t i : sg_.inputs) {
    try {
      auto t = first.find(i);
      ir::TensorId id;
      if (t != first.end()) {
        // The input is its TRANSPOSE's output, given channels-first under the input's name.
        act_dtype(i);
        id = act(sg_.operators[t->second].outputs[0]);
        g.tensor(id).name = g.unique_tensor_name(tensor(i).name.empty() ? "input" : tensor(i).name);
        absorbed[t->second] = 1;
        channels_first.push_back(id);
      } else {
        id = act(i);
      }
      act_dtype(i);
      g.inputs.push_back(id);
    } catch (const Refusal& r) {
      reasons.push_back({-1, "", "model input " + std::to_string(i) + ": " + r.reason});
    }
  }
  for (size_t k = 0; k < sg_.operators.size(); ++k)
    if (!absorbed[k]) convert_operator(k);
  for (int32_t i : sg_.outputs) {
    try {
      ir::TensorId id = act(i);
      act_dtype(i);
      if (g.is_input(id)) refuse("it is also a model input");
      g.outputs.push_back(id);
    } catch (const Refusal& r) {
      reasons.push_back({-1, "", "model output " + std::to_string(i) + ": " + r.reason});
    }
  }
  for (ir::TensorId id : g.inputs)
    g.tensor(id).caller_channels_last =
        std::find(channels_first.begin(), channels_first.end(), id) == channels_first.end();
  for (ir::TensorId id : g.outputs) g.tensor(id).caller_channels_last = true;
  return std::move(g);
}

ir::Graph Importer::run_nested() {
  g.format = "tflite";
  g.opset = 13;
  g.name = sg_.name.empty() ? "subgraph_" + std::to_string(subgraph_) : sg_.name;
  // Inputs are activations; an output may be a constant (passes::materialize_control_constants).
  auto bind = [&](const char* what, size_t k, int32_t i, std::vector<ir::TensorId>& into) {
    try {
      act_dtype(i);
      into.push_back(&into == &g.inputs ? act(i) : operand(i));
    } catch (const Refusal& r) {
      reasons.push_back({-1, "", std::string(what) + " " + std::to_string(k) + ": " + r.reason});
    }
  };
  for (size_t k = 0; k < sg_.inputs.size(); ++k) bind("input", k, sg_.inputs[k], g.inputs);
  for (size_t k = 0; k < sg_.operators.size(); ++k) convert_operator(k);
  for (size_t k = 0; k < sg_.outputs.size(); ++k) bind("output", k, sg_.outputs[k], g.outputs);
  return std::move(g);
}

}  // namespace tigris::frontend::tflite
