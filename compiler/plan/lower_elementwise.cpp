// Unary and binary elementwise operators (a constant operand becomes a weight).
#include <cmath>
#include <limits>

#include "compiler/plan/lower_internal.h"
#include "kernels/kernel_set.h"
#include "ops/op_table.h"

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
  op.weight = w.get_stored(g, n.inputs[static_cast<size_t>(constant_at)]);
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

// An int8 op of `type` on quantized data: every tensor quantized, clamp where kernels apply it.
bool lower_q8(const ir::Graph& g, const ir::Node& n, uint8_t type, LoweredOp& op) {
  bool any = false;
  for (ir::TensorId id : n.inputs) any = any || (id >= 0 && is_q8(g, id));
  if (!any || !tigris_rt::kernel_enabled_s8(type)) return false;
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

// The op's data dtype has a kernel in the runtime (quantized int8: lower_q8).
LowerFn unary(uint8_t type) {
  return [type](const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
    if (n.inputs.size() != 1 || n.inputs[0] < 0) unsupported(n, "expects one input");
    if (!lower_q8(g, n, type, op)) require_kernel(g, n, n.inputs[0], type);
    op.type = type;
    op.inputs = {n.inputs[0]};
  };
}

LowerFn binary(uint8_t type) {
  return [type](const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
    if (n.inputs.size() != 2) unsupported(n, "expects two operands");
    same_dtypes(g, n, 0);
    bool q8 = lower_q8(g, n, type, op);
    if (!q8) require_kernel(g, n, n.inputs[0], type);
    op.type = type;
    elementwise_operands(g, n, w, op);
    if (type == TIGRIS_OP_ADD)
      op.fused_act = fused_activation(n);
    else if (!q8 && n.attrs.has("fused_activation"))
      unsupported(n, "fused activation");
  };
}

void leaky(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  unary(n.op == "Elu" ? TIGRIS_OP_ELU : TIGRIS_OP_LEAKY_RELU)(g, n, w, op);
  float alpha = n.attrs.get_float("alpha", n.op == "Elu" ? 1.0f : 0.01f);
  add_attr(op, TIGRIS_ATTR_ALPHA, Payload().f32(alpha));
}

void clip(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  unary(TIGRIS_OP_CLIP)(g, n, w, op);
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
  require_kernel(g, n, n.inputs.at(0), TIGRIS_OP_ADD_N);
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

// The int8 lookup the compiler folded (passes/int8_tables.cpp): its entries become the weight.
void table(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (n.inputs.size() != 1 || !is_q8(g, n.inputs[0]) || !is_q8(g, n.outputs.at(0)))
    unsupported(n, "expects one int8 tensor");
  std::vector<int64_t> entries = n.attrs.get_ints("table");
  if (entries.size() != 256) unsupported(n, "a table of " + std::to_string(entries.size()) + " entries, not 256");
  std::vector<uint8_t> bytes;
  for (int64_t v : entries) bytes.push_back(static_cast<uint8_t>(static_cast<int8_t>(v)));
  op.type = TIGRIS_OP_TABLE;
  op.inputs = {n.inputs[0]};
  op.weight = w.add_raw("table", std::move(bytes));
}

}  // namespace

void register_elementwise(std::map<std::string, LowerFn>& t) {
  // Plain unary and binary ops under their ONNX names, from the operator table.
  for (const tigris_rt::ops::OpDef& row : tigris_rt::ops::kOpDefs) {
    if (row.lowering == tigris_rt::ops::Lowering::kUnary) t[row.name] = unary(row.code);
    if (row.lowering == tigris_rt::ops::Lowering::kBinary) t[row.name] = binary(row.code);
  }
  t["LeakyRelu"] = leaky;
  t["Elu"] = leaky;
  t["Clip"] = clip;
  t["Cast"] = cast;
  t["Sum"] = sum;
  t["Where"] = where;
  t["Table"] = table;
}

}  // namespace tigris::plan::detail
