// Unary and binary elementwise operators (a constant operand becomes a weight).
#include <cmath>
#include <limits>

#include "compiler/plan/lower_internal.h"

namespace tigris::plan::detail {

// Operands of an elementwise op: tensors become inputs; at most one constant becomes the
// weight with a CONSTANT_OPERAND attribute (long form with its stored shape).
void elementwise_operands(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  int constant_at = -1;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    ir::TensorId id = n.inputs[i];
    if (id < 0) unsupported(n, "an absent operand");
    if (!g.tensor(id).constant) {
      op.inputs.push_back(id);
      continue;
    }
    if (constant_at >= 0) unsupported(n, "more than one constant operand");
    constant_at = static_cast<int>(i);
  }
  if (constant_at < 0) return;
  const ir::Tensor& c = g.tensor(n.inputs[static_cast<size_t>(constant_at)]);
  if (!ir::dtype_storable(c.dtype)) unsupported(n, "constant of type " + ir::dtype_name(c.dtype));
  op.weight = w.get(g, n.inputs[static_cast<size_t>(constant_at)], "", [](const ir::Tensor& t) { return t.data; });
  if ((c.dtype == ir::DType::Int8 || c.dtype == ir::DType::Int16) && c.quant) {
    if (c.quant->per_channel()) unsupported(n, "a per-channel quantized constant operand");
    op.constant_quant = *c.quant;  // emit writes its index into the payload
  }
  Payload p;
  p.u8(static_cast<uint64_t>(constant_at)).u8(static_cast<uint64_t>(c.rank())).u16(TIGRIS_NONE);
  for (int64_t d : c.shape) p.i32(d);
  add_attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, p);
}

namespace {

using ir::DType;

DType data_type(const ir::Graph& g, const ir::Node& n, size_t i) { return g.tensor(n.inputs.at(i)).dtype; }

// Ops with an int8 kernel (docs/operators.md §5.3) among the unary and binary ones.
bool int8_kernel(uint8_t type) {
  switch (type) {
  case TIGRIS_OP_RELU:
  case TIGRIS_OP_RELU6:
  case TIGRIS_OP_CLIP:
  case TIGRIS_OP_LEAKY_RELU:
  case TIGRIS_OP_HARDSWISH:
  case TIGRIS_OP_SIGMOID:
  case TIGRIS_OP_TANH:
  case TIGRIS_OP_ADD:
  case TIGRIS_OP_SUB:
  case TIGRIS_OP_MUL:
  case TIGRIS_OP_MAXIMUM:
  case TIGRIS_OP_MINIMUM: return true;
  default: return false;
  }
}

// An int8 op of `type` on quantized data: every tensor quantized, clamp where kernels apply it.
bool lower_q8(const ir::Graph& g, const ir::Node& n, uint8_t type, LoweredOp& op) {
  bool any = false;
  for (ir::TensorId id : n.inputs) any = any || (id >= 0 && is_q8(g, id));
  if (!any || !int8_kernel(type)) return false;
  require_all_q8(g, n);
  if (type == TIGRIS_OP_ADD || type == TIGRIS_OP_SUB || type == TIGRIS_OP_MUL)
    int8_clamp(g, n, op);
  else if (n.attrs.has("fused_activation"))
    unsupported(n, "fused activation");
  return true;
}

void same_dtypes(const ir::Graph& g, const ir::Node& n, size_t from) {
  for (size_t i = from; i + 1 < n.inputs.size(); ++i)
    if (data_type(g, n, i) != data_type(g, n, i + 1)) unsupported(n, "operands of different types");
}

LowerFn unary(uint8_t type, std::initializer_list<DType> dtypes) {
  std::vector<DType> allowed(dtypes);
  return [type, allowed](const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
    if (n.inputs.size() != 1 || n.inputs[0] < 0) unsupported(n, "expects one input");
    DType t = data_type(g, n, 0);
    if (!lower_q8(g, n, type, op) && std::find(allowed.begin(), allowed.end(), t) == allowed.end())
      unsupported(n, "no kernel for " + ir::dtype_name(t) + " data");
    op.type = type;
    op.inputs = {n.inputs[0]};
  };
}

LowerFn binary(uint8_t type, std::initializer_list<DType> dtypes) {
  std::vector<DType> allowed(dtypes);
  return [type, allowed](const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
    if (n.inputs.size() != 2) unsupported(n, "expects two operands");
    same_dtypes(g, n, 0);
    DType t = data_type(g, n, 0);
    bool q8 = lower_q8(g, n, type, op);
    if (!q8 && std::find(allowed.begin(), allowed.end(), t) == allowed.end())
      unsupported(n, "no kernel for " + ir::dtype_name(t) + " data");
    op.type = type;
    elementwise_operands(g, n, w, op);
    if (type == TIGRIS_OP_ADD)
      op.fused_act = fused_activation(n);
    else if (!q8 && n.attrs.has("fused_activation"))
      unsupported(n, "fused activation");
  };
}

const std::initializer_list<DType> kN = {DType::Float32, DType::Int32, DType::Int64, DType::UInt8};
const std::initializer_list<DType> kF = {DType::Float32};
const std::initializer_list<DType> kNB = {DType::Float32, DType::Int32, DType::Int64, DType::UInt8, DType::Bool};

void leaky(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  unary(n.op == "Elu" ? TIGRIS_OP_ELU : TIGRIS_OP_LEAKY_RELU, kF)(g, n, w, op);
  float alpha = n.attrs.get_float("alpha", n.op == "Elu" ? 1.0f : 0.01f);
  add_attr(op, TIGRIS_ATTR_ALPHA, Payload().f32(alpha));
}

void clip(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  unary(TIGRIS_OP_CLIP, kF)(g, n, w, op);
  float lo = n.attrs.get_float("min", -std::numeric_limits<float>::infinity());
  float hi = n.attrs.get_float("max", std::numeric_limits<float>::infinity());
  add_attr(op, TIGRIS_ATTR_CLIP_BOUNDS, Payload().f32(lo).f32(hi));
}

void cast(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  DType from = data_type(g, n, 0), to = g.tensor(n.outputs[0]).dtype;
  for (DType t : {from, to})
    if (!ir::dtype_storable(t) && t != DType::Int16) unsupported(n, "cast involving " + ir::dtype_name(t));
  op.type = TIGRIS_OP_CAST;
  op.inputs = {n.inputs[0]};
}

void sum(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  same_dtypes(g, n, 0);
  require_dtype(g, n, n.inputs.at(0), kNumeric);
  for (ir::TensorId id : n.inputs)
    if (id < 0 || g.tensor(id).constant) unsupported(n, "constant operand");
  op.type = TIGRIS_OP_ADD_N;
  op.inputs = n.inputs;
}

void where(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (n.inputs.size() != 3) unsupported(n, "expects three operands");
  if (data_type(g, n, 0) != DType::Bool) unsupported(n, "condition is not bool");
  if (data_type(g, n, 1) != data_type(g, n, 2)) unsupported(n, "operands of different types");
  op.type = TIGRIS_OP_SELECT_V2;
  elementwise_operands(g, n, w, op);
}

void compare(uint8_t type, const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  binary(type, type == TIGRIS_OP_EQUAL ? kNB : kN)(g, n, w, op);
}

}  // namespace

void register_elementwise(std::map<std::string, LowerFn>& t) {
  t["Relu"] = unary(TIGRIS_OP_RELU, kF);
  t["Relu6"] = unary(TIGRIS_OP_RELU6, kF);
  t["Sigmoid"] = unary(TIGRIS_OP_SIGMOID, kF);
  t["Tanh"] = unary(TIGRIS_OP_TANH, kF);
  t["HardSwish"] = unary(TIGRIS_OP_HARDSWISH, kF);
  t["Erf"] = unary(TIGRIS_OP_ERF, kF);
  t["Abs"] = unary(TIGRIS_OP_ABS, kN);
  t["Neg"] = unary(TIGRIS_OP_NEG, kN);
  t["Exp"] = unary(TIGRIS_OP_EXP, kF);
  t["Log"] = unary(TIGRIS_OP_LOG, kF);
  t["Sqrt"] = unary(TIGRIS_OP_SQRT, kF);
  t["Rsqrt"] = unary(TIGRIS_OP_RSQRT, kF);
  t["Square"] = unary(TIGRIS_OP_SQUARE, kF);
  t["Floor"] = unary(TIGRIS_OP_FLOOR, kF);
  t["Ceil"] = unary(TIGRIS_OP_CEIL, kF);
  t["Round"] = unary(TIGRIS_OP_ROUND, kF);
  t["Sin"] = unary(TIGRIS_OP_SIN, kF);
  t["Cos"] = unary(TIGRIS_OP_COS, kF);
  t["Not"] = unary(TIGRIS_OP_LOGICAL_NOT, {DType::Bool});
  t["LeakyRelu"] = leaky;
  t["Elu"] = leaky;
  t["Clip"] = clip;
  t["Cast"] = cast;
  t["Add"] = binary(TIGRIS_OP_ADD, kN);
  t["Sub"] = binary(TIGRIS_OP_SUB, kN);
  t["Mul"] = binary(TIGRIS_OP_MUL, kN);
  t["Div"] = binary(TIGRIS_OP_DIV, kN);
  t["Max"] = binary(TIGRIS_OP_MAXIMUM, kN);
  t["Min"] = binary(TIGRIS_OP_MINIMUM, kN);
  t["FloorMod"] = binary(TIGRIS_OP_FLOOR_MOD, kN);
  t["SquaredDifference"] = binary(TIGRIS_OP_SQUARED_DIFFERENCE, kF);
  t["PRelu"] = binary(TIGRIS_OP_PRELU, kF);
  t["And"] = binary(TIGRIS_OP_LOGICAL_AND, {DType::Bool});
  t["Or"] = binary(TIGRIS_OP_LOGICAL_OR, {DType::Bool});
  t["Equal"] = [](auto& g, auto& n, auto& w, auto& op) { compare(TIGRIS_OP_EQUAL, g, n, w, op); };
  t["Less"] = [](auto& g, auto& n, auto& w, auto& op) { compare(TIGRIS_OP_LESS, g, n, w, op); };
  t["LessOrEqual"] = [](auto& g, auto& n, auto& w, auto& op) { compare(TIGRIS_OP_LESS_EQUAL, g, n, w, op); };
  t["Greater"] = [](auto& g, auto& n, auto& w, auto& op) { compare(TIGRIS_OP_GREATER, g, n, w, op); };
  t["GreaterOrEqual"] = [](auto& g, auto& n, auto& w, auto& op) { compare(TIGRIS_OP_GREATER_EQUAL, g, n, w, op); };
  t["Sum"] = sum;
  t["Where"] = where;
}

}  // namespace tigris::plan::detail
