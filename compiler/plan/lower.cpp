#include "compiler/plan/lower.h"

#include <algorithm>

#include "compiler/plan/lower_internal.h"
#include "kernels/kernel_set.h"

namespace tigris::plan {

namespace detail {

void unsupported(const ir::Node& n, const std::string& reason) {
  throw ir::CompileError(ir::ErrorKind::Unsupported, n.op + " '" + n.name + "': " + reason, {n.name});
}

void runtime_operand(const ir::Graph& g, const ir::Node& n, ir::TensorId id) {
  if (id < 0) unsupported(n, "a required operand is absent");
  unsupported(n, "operand '" + g.tensor(id).name + "' is computed at run time");
}

void require_dtype(const ir::Graph& g, const ir::Node& n, ir::TensorId id, std::initializer_list<ir::DType> allowed) {
  ir::DType t = g.tensor(id).dtype;
  if (std::find(allowed.begin(), allowed.end(), t) == allowed.end())
    unsupported(n, "no kernel for " + ir::dtype_name(t) + " data");
}

void require_kernel(const ir::Graph& g, const ir::Node& n, ir::TensorId id, uint8_t op_type) {
  ir::DType t = g.tensor(id).dtype;
  if (!tigris_rt::kernel_enabled_f32(op_type, static_cast<uint8_t>(t)))
    unsupported(n, "no kernel for " + ir::dtype_name(t) + " data");
}

std::vector<ir::TensorId> activation_inputs(const ir::Graph& g, const ir::Node& n) {
  std::vector<ir::TensorId> out;
  for (ir::TensorId id : n.inputs)
    if (id >= 0 && !g.tensor(id).constant) out.push_back(id);
  return out;
}

int64_t axis_in(const ir::Node& n, int64_t axis, int64_t rank) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank) unsupported(n, "axis " + std::to_string(axis) + " out of range");
  return a;
}

Payload axes_payload(const ir::Node& n, std::vector<int64_t> axes, int64_t rank) {
  for (int64_t& a : axes) a = axis_in(n, a, rank);
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  if (axes.empty()) unsupported(n, "no axes");
  Payload p;
  for (int64_t a : axes) p.u8(static_cast<uint64_t>(a));
  return p;
}

uint8_t fit_u8(const ir::Node& n, int64_t v, const char* what) {
  if (v < 0 || v > 255) unsupported(n, std::string(what) + " " + std::to_string(v) + " is outside 0..255");
  return static_cast<uint8_t>(v);
}

uint16_t fit_u16(const ir::Node& n, int64_t v, const char* what) {
  if (v < 0 || v > 65535) unsupported(n, std::string(what) + " " + std::to_string(v) + " is outside 0..65535");
  return static_cast<uint16_t>(v);
}

uint8_t fused_activation(const ir::Node& n) {
  std::string act = n.attrs.get_string("fused_activation", "");
  if (act == "Relu") return TIGRIS_ACT_RELU;
  if (act == "Relu6") return TIGRIS_ACT_RELU6;
  return TIGRIS_ACT_NONE;
}

}  // namespace detail

namespace {

using namespace detail;

const std::map<std::string, LowerFn>& table() {
  static const std::map<std::string, LowerFn> t = [] {
    std::map<std::string, LowerFn> m;
    register_spatial(m);
    register_elementwise(m);
    register_other(m);
    register_svdf(m);
    register_lstm(m);
    register_signal(m);
    register_control(m);
    return m;
  }();
  return t;
}

void check_common(const ir::Graph& g, const ir::Node& n) {
  if (!n.domain.empty()) unsupported(n, "operator of domain '" + n.domain + "'");
  if (n.attrs.has("__subgraph"))
    unsupported(n, "a graph attribute of an operator other than If, Loop and Scan (opset 9 on) is not imported");
  if (n.attrs.has("__dynamic_operand"))
    unsupported(n, "operand '" + n.attrs.get_string("__dynamic_operand", "") + "' is computed at run time");
  if (n.attrs.has("__unsupported")) unsupported(n, n.attrs.get_string("__unsupported", ""));
  if (n.outputs.empty()) unsupported(n, "no outputs");
  for (ir::TensorId id : n.outputs)
    if (id < 0 || !g.tensor(id).shape_known) unsupported(n, "an output shape is not static");
  for (ir::TensorId id : n.inputs)
    if (id >= 0 && !g.tensor(id).shape_known) unsupported(n, "an input shape is not static");
  for (const auto* list : {&n.inputs, &n.outputs})
    for (ir::TensorId id : *list)
      if (id >= 0 && !g.tensor(id).constant && !ir::dtype_storable(g.tensor(id).dtype))
        unsupported(n, "no kernel for " + ir::dtype_name(g.tensor(id).dtype) + " data");
}

}  // namespace

LoweredOp lower_node(const ir::Graph& g, const ir::Node& n, WeightTable& weights) {
  check_common(g, n);
  auto it = table().find(n.op);
  if (it == table().end()) unsupported(n, "no kernel");
  LoweredOp op;
  op.outputs = n.outputs;
  if (!lower_int16(g, n, weights, op)) it->second(g, n, weights, op);
  if (op.inputs.empty() && op.type != TIGRIS_OP_CONSTANT) unsupported(n, "no tensor input (all operands are constants)");
  return op;
}

}  // namespace tigris::plan
