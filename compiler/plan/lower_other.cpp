// Matrices, normalization, reductions and data movement.
#include <algorithm>
#include <cmath>

#include "compiler/passes/util.h"
#include "compiler/plan/lower_internal.h"

namespace tigris::plan::detail {

namespace {

using ir::DType;

ir::TensorId only_input(const ir::Graph& g, const ir::Node& n) {
  std::vector<ir::TensorId> in = activation_inputs(g, n);
  if (in.size() != 1 || n.inputs.empty() || n.inputs[0] != in[0]) unsupported(n, "expects one tensor input");
  return in[0];
}

int64_t rank_of(const ir::Graph& g, ir::TensorId id) { return g.tensor(id).rank(); }

void gemm(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  ir::TensorId a = n.inputs.at(0);
  if (g.tensor(a).constant) unsupported(n, "constant input");
  bool q8 = is_q8(g, a);
  if (q8)
    require_all_q8(g, n);
  else
    require_dtype(g, n, a, kFloat);
  ir::TensorId wid = n.inputs.size() > 1 ? n.inputs[1] : ir::kNoTensor;
  if (wid < 0 || !g.tensor(wid).constant) runtime_operand(g, n, wid);
  if (g.tensor(wid).rank() != 2 || n.attrs.get_int("transB", 0) != 1) unsupported(n, "weight layout");
  op.type = TIGRIS_OP_FULLY_CONN;
  op.inputs = {a};
  if (q8) {
    int64_t units = g.tensor(wid).shape[0];
    op.weight = int8_weight(
        g, n, 1, w, "", [](const ir::Tensor& t) { return t.data; }, units);
    op.bias = int32_bias(g, n, 2, w, units);
    op.fused_act = fused_activation(n);
    conv_factors(g, n, op, true);
    int8_clamp(g, n, op);
    return;
  }
  op.weight = w.get_stored(g, wid);
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) {
    if (!g.tensor(n.inputs[2]).constant) runtime_operand(g, n, n.inputs[2]);
    op.bias = w.get_stored(g, n.inputs[2]);
  }
  op.fused_act = fused_activation(n);
}

void matmul(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (n.inputs.size() != 2) unsupported(n, "expects two operands");
  for (ir::TensorId id : n.inputs)
    if (rank_of(g, id) < 2) unsupported(n, "an operand of rank below 2");
  require_dtype(g, n, n.inputs[0], kFloat);
  op.type = TIGRIS_OP_MATMUL;
  for (size_t i = 0; i < 2; ++i) {
    ir::TensorId id = n.inputs[i];
    if (!g.tensor(id).constant) {
      op.inputs.push_back(id);
      continue;
    }
    const ir::Tensor& c = g.tensor(id);
    op.weight = w.get_stored(g, id);
    Payload p;
    p.u8(i).u8(static_cast<uint64_t>(c.rank())).u16(TIGRIS_NONE);
    for (int64_t d : c.shape) p.i32(d);
    add_attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, p);
  }
}

void softmax(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  ir::TensorId x = only_input(g, n);
  const ir::TensorId y = n.outputs.at(0);
  const bool int16_out = g.tensor(y).dtype == DType::Int16 && g.tensor(y).quant && !g.tensor(y).quant->per_channel();
  if (is_q8(g, x) && n.op == "Softmax" && int16_out) {
    // TFLite's int8 -> int16 softmax: probabilities in 1/65536 steps offset by -32768.
    const ir::QuantParam& qy = *g.tensor(y).quant;
    if (qy.zero_points[0] != -32768 || std::fabs(qy.scales[0] - 1.0f / 65536.0f) > 0.001f / 65536.0f)
      unsupported(n, "int8 -> int16 softmax with an output quantization other than (1/65536, -32768)");
  } else if (is_q8(g, x) && n.op == "Softmax")
    require_all_q8(g, n);
  else
    require_dtype(g, n, x, kFloat);
  op.type = n.op == "Softmax" ? TIGRIS_OP_SOFTMAX : TIGRIS_OP_LOG_SOFTMAX;
  float beta = n.attrs.get_float("beta", 1.0f);  // TFLite SOFTMAX's beta
  if (beta != 1.0f) add_attr(op, TIGRIS_ATTR_ALPHA, Payload().f32(beta));
  op.inputs = {x};
  int64_t rank = rank_of(g, x);
  int64_t axis = axis_in(n, n.attrs.get_int("axis", g.opset >= 13 ? -1 : 1), std::max<int64_t>(rank, 1));
  std::vector<int64_t> axes = {axis};
  if (g.opset < 13)  // older opsets flatten every axis from `axis` on
    for (int64_t a = axis + 1; a < rank; ++a) axes.push_back(a);
  if (rank > 0) add_attr(op, TIGRIS_ATTR_AXES, axes_payload(n, axes, rank));
}

uint16_t vector_weight(const ir::Graph& g, const ir::Node& n, size_t i, WeightTable& w) {
  ir::TensorId id = i < n.inputs.size() ? n.inputs[i] : ir::kNoTensor;
  if (id < 0 || !g.tensor(id).constant) runtime_operand(g, n, id);
  if (g.tensor(id).dtype != DType::Float32) unsupported(n, "parameter of type " + ir::dtype_name(g.tensor(id).dtype));
  return w.get_stored(g, id);
}

void instance_norm(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  ir::TensorId x = n.inputs.at(0);
  require_dtype(g, n, x, kFloat);
  op.type = TIGRIS_OP_INST_NORM;
  op.inputs = {x};
  op.weight = vector_weight(g, n, 1, w);
  op.bias = vector_weight(g, n, 2, w);
  add_attr(op, TIGRIS_ATTR_EPSILON, Payload().f32(n.attrs.get_float("epsilon", 1e-5f)));
  int64_t rank = rank_of(g, x);
  int64_t channel = g.tensor(x).layout == ir::Layout::ChannelsLast ? rank - 1 : 1;
  add_attr(op, TIGRIS_ATTR_AXES, axes_payload(n, {channel}, rank));
}

void layer_norm(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  ir::TensorId x = n.inputs.at(0);
  require_dtype(g, n, x, kFloat);
  if (n.outputs.size() > 1) unsupported(n, "the Mean / InvStdDev outputs");
  op.type = TIGRIS_OP_LAYER_NORM;
  op.inputs = {x};
  int64_t rank = rank_of(g, x);
  int64_t axis = axis_in(n, n.attrs.get_int("axis", -1), rank);
  std::vector<int64_t> axes;
  for (int64_t a = axis; a < rank; ++a) axes.push_back(a);
  op.weight = vector_weight(g, n, 1, w);
  if (n.inputs.size() > 2 && n.inputs[2] >= 0) op.bias = vector_weight(g, n, 2, w);
  add_attr(op, TIGRIS_ATTR_EPSILON, Payload().f32(n.attrs.get_float("epsilon", 1e-5f)));
  add_attr(op, TIGRIS_ATTR_AXES, axes_payload(n, axes, rank));
}

void reduce(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  ir::TensorId x = only_input(g, n);
  static const std::map<std::string, uint8_t> types = {{"ReduceMean", TIGRIS_OP_REDUCE_MEAN},
                                                       {"ReduceMax", TIGRIS_OP_REDUCE_MAX},
                                                       {"ReduceMin", TIGRIS_OP_REDUCE_MIN},
                                                       {"ReduceSum", TIGRIS_OP_REDUCE_SUM}};
  op.type = types.at(n.op);
  if (is_q8(g, x)) {
    require_all_q8(g, n);
  } else {
    require_kernel(g, n, x, op.type);
  }
  op.inputs = {x};
  int64_t rank = rank_of(g, x);
  std::vector<int64_t> axes = n.attrs.get_ints("axes");
  if (axes.empty() && n.attrs.get_int("noop_with_empty_axes", 0)) unsupported(n, "reduction over no axes");
  if (!axes.empty() && rank > 0) add_attr(op, TIGRIS_ATTR_AXES, axes_payload(n, axes, rank));
  // int8 mean that keeps its quantization, from a QDQ model: the exact average rounded.
  if (op.type == TIGRIS_OP_REDUCE_MEAN && is_q8(g, x) && n.attrs.get_int("average_pool_rounding", 0))
    add_attr(op, TIGRIS_ATTR_POOL_ROUNDING, Payload().u8(1));
}

void arg_extreme(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  ir::TensorId x = only_input(g, n);
  require_dtype(g, n, x, kFloat);
  op.type = n.op == "ArgMax" ? TIGRIS_OP_ARG_MAX : TIGRIS_OP_ARG_MIN;
  op.inputs = {x};
  int64_t rank = rank_of(g, x);
  add_attr(op, TIGRIS_ATTR_AXES, axes_payload(n, {n.attrs.get_int("axis", 0)}, rank));
  if (n.attrs.get_int("select_last_index", 0)) add_attr(op, TIGRIS_ATTR_MOVEMENT, Payload().i32(1));
}

void cumsum(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  ir::TensorId x = only_input(g, n);
  require_kernel(g, n, x, TIGRIS_OP_CUMSUM);
  op.type = TIGRIS_OP_CUMSUM;
  op.inputs = {x};
  std::vector<int64_t> axis = n.attrs.get_ints("axis_list");
  if (axis.size() != 1) unsupported(n, "axis computed at run time");
  add_attr(op, TIGRIS_ATTR_AXES, axes_payload(n, axis, rank_of(g, x)));
  add_attr(op, TIGRIS_ATTR_CUMSUM_OPTIONS,
           Payload().u8(n.attrs.get_int("exclusive", 0) != 0).u8(n.attrs.get_int("reverse", 0) != 0));
}

void concat_split(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  op.inputs = activation_inputs(g, n);
  if (op.inputs.size() != n.inputs.size()) unsupported(n, "constant operand");
  op.type = n.op == "Concat" ? TIGRIS_OP_CONCAT : TIGRIS_OP_SPLIT;
  int64_t rank = rank_of(g, n.inputs.at(0));
  if (rank == 0) unsupported(n, "scalar operand");
  add_attr(op, TIGRIS_ATTR_AXES, axes_payload(n, {n.attrs.get_int("axis", 0)}, rank));
}

void pad(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  ir::TensorId x = only_input(g, n);
  op.inputs = {x};
  int64_t rank = rank_of(g, x);
  std::vector<int64_t> pads = n.attrs.get_ints("pads");
  if (n.attrs.has("axes")) unsupported(n, "pads on selected axes");
  if (static_cast<int64_t>(pads.size()) != 2 * rank) unsupported(n, "pads of the wrong length");
  std::string mode = n.attrs.get_string("mode", "constant");
  if (mode == "constant") {
    op.type = TIGRIS_OP_PAD;
    Payload p;
    for (int64_t v : pads) p.i32(v);
    add_attr(op, TIGRIS_ATTR_PADS, p);
    float fill = n.attrs.get_float("value", 0.0f);
    if (fill != 0.0f) add_attr(op, TIGRIS_ATTR_ALPHA, Payload().f32(fill));
    return;
  }
  op.type = TIGRIS_OP_MIRROR_PAD;
  Payload p;
  p.i32(mode == "reflect" ? 0 : mode == "edge" ? 2 : mode == "wrap" ? 3 : -1);
  if (mode != "reflect" && mode != "edge" && mode != "wrap") unsupported(n, "mode " + mode);
  for (int64_t a = 0; a < rank; ++a) {
    if (pads[static_cast<size_t>(a)] < 0 || pads[static_cast<size_t>(a + rank)] < 0) unsupported(n, "negative pads");
    p.i32(pads[static_cast<size_t>(a)]).i32(pads[static_cast<size_t>(a + rank)]);
  }
  add_attr(op, TIGRIS_ATTR_MOVEMENT, p);
}

void transpose(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  ir::TensorId x = only_input(g, n);
  op.type = TIGRIS_OP_TRANSPOSE;
  op.inputs = {x};
  std::vector<int64_t> perm = n.attrs.get_ints("perm");
  if (static_cast<int64_t>(perm.size()) != rank_of(g, x)) unsupported(n, "permutation of the wrong length");
  Payload p;
  for (int64_t v : perm) p.u8(static_cast<uint64_t>(v));
  add_attr(op, TIGRIS_ATTR_TRANSPOSE_PERM, p);
}

void reshape(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  op.inputs = {only_input(g, n)};
  op.type = TIGRIS_OP_RESHAPE;
}

// A graph output folded to a constant (passes::produce_constant_outputs): CONSTANT writes
// its value, held as the op's weight, into the output.
void constant_output(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (n.inputs.size() != 1 || n.inputs[0] < 0 || !g.tensor(n.inputs[0]).constant) unsupported(n, "no kernel");
  const ir::Tensor& c = g.tensor(n.inputs[0]);
  op.type = TIGRIS_OP_CONSTANT;
  op.weight = w.add_raw(c.name, c.data);
}

// Expand: ADD with a zero constant whose shape supplies the axes the input lacks (the
// broadcast of the two is the output shape).
void expand(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  ir::TensorId x = only_input(g, n);
  require_kernel(g, n, x, TIGRIS_OP_ADD);
  const ir::Shape& in = g.tensor(x).shape;
  const ir::Shape& out = g.tensor(n.outputs[0]).shape;
  ir::Shape c(out.size(), 1);
  size_t offset = out.size() - std::min(out.size(), in.size());
  for (size_t d = 0; d < out.size(); ++d)
    if (d < offset || in[d - offset] == 1) c[d] = out[d];
  op.inputs = {x};
  if (c == ir::Shape(out.size(), 1) && in == out) {
    op.type = TIGRIS_OP_RESHAPE;
    return;
  }
  op.type = TIGRIS_OP_ADD;
  size_t bytes = static_cast<size_t>(ir::num_elements(c)) * ir::dtype_size(g.tensor(x).dtype);
  op.weight = w.add_raw(n.name + ":zeros", std::vector<uint8_t>(bytes, 0));
  Payload p;
  p.u8(1).u8(c.size()).u16(TIGRIS_NONE);
  for (int64_t d : c) p.i32(d);
  add_attr(op, TIGRIS_ATTR_CONSTANT_OPERAND, p);
}

void gather(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  ir::TensorId data = n.inputs.at(0), idx = n.inputs.at(1);
  const ir::Tensor& it = g.tensor(idx);
  int64_t rank = rank_of(g, data);
  int64_t axis = axis_in(n, n.attrs.get_int("axis", 0), rank);
  Payload p;
  bool nd = n.op == "GatherND";
  int64_t batch_dims = n.attrs.get_int("batch_dims", 0);
  if (nd) {
    p.i32(it.rank());
    for (int64_t d : it.shape) p.i32(d);
    p.i32(batch_dims);
  } else {
    p.i32(axis).i32(0).i32(it.rank());
    for (int64_t d : it.shape) p.i32(d);
  }
  if (g.tensor(data).constant) {
    if (nd || axis != 0 || it.constant) unsupported(n, "constant data gathered on an axis other than 0");
    op.type = TIGRIS_OP_EMBEDDING_LOOKUP;
    op.inputs = {idx};
    op.weight = w.get_stored(g, data);
  } else {
    op.type = nd ? TIGRIS_OP_GATHER_ND : TIGRIS_OP_GATHER;
    op.inputs = {data};
    if (it.constant)
      op.weight = w.get(g, idx, "i32", as_int32);
    else
      op.inputs.push_back(idx);
  }
  add_attr(op, TIGRIS_ATTR_MOVEMENT, p);
}

// Slice -> STRIDED_SLICE with (start, end, step) per stored axis, clamped as ONNX does.
void lower_slice(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp& op) {
  ir::TensorId x = only_input(g, n);
  const ir::Shape& shape = g.tensor(x).shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  std::vector<int64_t> starts = n.attrs.get_ints("starts"), ends = n.attrs.get_ints("ends");
  std::vector<int64_t> axes = n.attrs.get_ints("axes"), steps = n.attrs.get_ints("steps");
  if (starts.size() != ends.size()) unsupported(n, "starts and ends differ in length");
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  std::vector<int64_t> b(static_cast<size_t>(rank), 0), e(shape.begin(), shape.end()), st(static_cast<size_t>(rank), 1);
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = static_cast<size_t>(axis_in(n, axes[i], rank));
    int64_t dim = shape[a], s = steps.at(i);
    if (s == 0) unsupported(n, "step 0");
    auto norm = [&](int64_t v, int64_t lo, int64_t hi) { return std::clamp(v < 0 ? v + dim : v, lo, hi); };
    b[a] = s > 0 ? norm(starts[i], 0, dim) : norm(starts[i], -1, dim - 1);
    e[a] = s > 0 ? norm(ends[i], 0, dim) : norm(ends[i], -1, dim - 1);
    st[a] = s;
    int64_t count =
        s > 0 ? std::max<int64_t>(0, (e[a] - b[a] + s - 1) / s) : std::max<int64_t>(0, (b[a] - e[a] - s - 1) / -s);
    if (count == 0) b[a] = e[a] = 0;  // an empty selection reads nothing
  }
  Payload p;
  for (int64_t a = 0; a < rank; ++a)
    p.i32(b[static_cast<size_t>(a)]).i32(e[static_cast<size_t>(a)]).i32(st[static_cast<size_t>(a)]);
  op.type = TIGRIS_OP_STRIDED_SLICE;
  op.inputs = {x};
  add_attr(op, TIGRIS_ATTR_MOVEMENT, p);
}

// BatchNormalization the passes could not fold (parameters computed at run time, training).
void batch_norm(const ir::Graph& g, const ir::Node& n, WeightTable&, LoweredOp&) {
  for (size_t i = 1; i < n.inputs.size() && i < 5; ++i)
    if (n.inputs[i] >= 0 && !g.tensor(n.inputs[i]).constant) runtime_operand(g, n, n.inputs[i]);
  unsupported(n, n.outputs.size() > 1 ? "training-mode outputs" : "parameters of unexpected shapes");
}

}  // namespace

void register_other(std::map<std::string, LowerFn>& t) {
  t["Gemm"] = gemm;
  t["MatMul"] = matmul;
  t["Softmax"] = softmax;
  t["LogSoftmax"] = softmax;
  t["InstanceNormalization"] = instance_norm;
  t["LayerNormalization"] = layer_norm;
  for (const char* r : {"ReduceMean", "ReduceMax", "ReduceMin", "ReduceSum"}) t[r] = reduce;
  t["ArgMax"] = arg_extreme;
  t["ArgMin"] = arg_extreme;
  t["CumSum"] = cumsum;
  t["Concat"] = concat_split;
  t["Split"] = concat_split;
  t["Pad"] = pad;
  t["Transpose"] = transpose;
  t["Reshape"] = reshape;
  t["Constant"] = constant_output;
  t["Expand"] = expand;
  t["Gather"] = gather;
  t["GatherND"] = gather;
  t["Slice"] = lower_slice;
  t["BatchNormalization"] = batch_norm;
}

}  // namespace tigris::plan::detail
