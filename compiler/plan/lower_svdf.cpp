// SVDF (docs/operators.md §3.8, int8 in §5.3): IR node "Svdf" (inputs x, state_in, then the
// constants feature, time, bias or none; outputs y, state_out; attribute "rank") -> plan op
// SVDF with its constants in CONSTANTS. float32, or TFLite Micro's integer SVDF: int8 x, y
// and feature weights, an int16 (or int8) state with time weights of its type, int32 bias;
// the two requantization factors TFLM's Prepare derives are stored after the rank.
#include "compiler/plan/lower_internal.h"
#include "runtime/src/kernels/s8/s8_params.h"

namespace tigris::plan::detail {

namespace {

using ir::DType;


const ir::Tensor& constant_operand(const ir::Graph& g, const ir::Node& n, size_t i, const char* what) {
  ir::TensorId id = i < n.inputs.size() ? n.inputs[i] : ir::kNoTensor;
  if (id < 0) unsupported(n, std::string("the ") + what + " weights are absent");
  if (!g.tensor(id).constant) runtime_operand(g, n, id);
  return g.tensor(id);
}

float scale_of(const ir::Graph& g, const ir::Node& n, ir::TensorId id) {
  const ir::Tensor& t = g.tensor(id);
  if (!t.quant || t.quant->scales.empty()) unsupported(n, "tensor '" + t.name + "' has no quantization");
  return t.quant->scales[0];
}

void svdf(const ir::Graph& g, const ir::Node& n, WeightTable& w, LoweredOp& op) {
  if (n.inputs.size() < 4 || n.inputs.size() > 5 || n.outputs.size() != 2)
    unsupported(n, "expects inputs x, state, feature, time (and bias) and outputs y, state");
  ir::TensorId x = n.inputs[0], state = n.inputs[1], y = n.outputs[0], state_out = n.outputs[1];
  if (x < 0 || state < 0 || g.tensor(x).constant || g.tensor(state).constant)
    unsupported(n, "the input and the state must be tensors computed at run time");
  const ir::Tensor &xt = g.tensor(x), &st = g.tensor(state), &yt = g.tensor(y);
  const ir::Tensor &feature = constant_operand(g, n, 2, "feature"), &time = constant_operand(g, n, 3, "time");
  ir::TensorId bias = n.inputs.size() > 4 ? n.inputs[4] : ir::kNoTensor;
  int64_t rank = n.attrs.get_int("rank", 0);
  if (xt.rank() != 2 || st.rank() != 2 || yt.rank() != 2 || feature.rank() != 2 || time.rank() != 2)
    unsupported(n, "input, state, output and weights must be rank 2");
  int64_t batch = xt.shape[0], in = xt.shape[1], units = yt.shape[1], filters = feature.shape[0];
  int64_t memory = time.shape[1];
  if (rank < 1 || filters != units * rank)
    unsupported(n, "rank " + std::to_string(rank) + " does not divide the " + std::to_string(filters) +
                       " filters into the " + std::to_string(units) + " output units");
  if (feature.shape[1] != in || time.shape[0] != filters || st.shape[0] != batch || st.shape[1] != filters * memory ||
      yt.shape[0] != batch || g.tensor(state_out).shape != st.shape)
    unsupported(n,
                "operand shapes do not agree (feature [filters, input], time [filters, memory], state [batch, "
                "filters*memory])");
  if (bias >= 0) {
    if (!g.tensor(bias).constant) runtime_operand(g, n, bias);
    if (g.tensor(bias).elements() != units) unsupported(n, "bias of the wrong length");
  }
  op.type = TIGRIS_OP_SVDF;
  op.inputs = {x, state};
  op.outputs = {y, state_out};
  Payload constants, attr;
  attr.i32(rank);
  if (xt.dtype == DType::Float32) {
    for (ir::TensorId id : {x, state, y, state_out}) require_dtype(g, n, id, kFloat);
    if (feature.dtype != DType::Float32 || time.dtype != DType::Float32 ||
        (bias >= 0 && g.tensor(bias).dtype != DType::Float32))
      unsupported(n, "float SVDF with weights that are not float32 (hybrid SVDF is not supported)");
    constants.u16(w.get_stored(g, n.inputs[2])).u16(w.get_stored(g, n.inputs[3]));
    constants.u16(bias >= 0 ? w.get_stored(g, bias) : TIGRIS_NONE);
    std::string act = n.attrs.get_string("fused_activation", "");
    if (!act.empty() && act != "Relu" && act != "Relu6") unsupported(n, "fused activation " + act);
    op.fused_act = fused_activation(n);
  } else {
    // TFLite Micro's integer SVDF (svdf_common.cc).
    if (!is_q8(g, x) || !is_q8(g, y)) unsupported(n, "int8 SVDF needs per-tensor quantized int8 input and output");
    if ((st.dtype != DType::Int16 && st.dtype != DType::Int8) || !st.quant || st.quant->per_channel() ||
        g.tensor(state_out).dtype != st.dtype)
      unsupported(n, "int8 SVDF needs a per-tensor quantized int16 or int8 state");
    if (feature.dtype != DType::Int8 || !feature.quant)
      unsupported(n, "int8 SVDF needs quantized int8 feature weights");
    if (time.dtype != st.dtype || !time.quant)
      unsupported(n, "int8 SVDF needs quantized time weights of the state's type (" + ir::dtype_name(st.dtype) + ")");
    if (bias >= 0 && g.tensor(bias).dtype != DType::Int32) unsupported(n, "int8 SVDF needs an int32 bias");
    if (!n.attrs.get_string("fused_activation", "").empty())
      unsupported(n, "int8 SVDF with a fused activation (TFLite Micro's integer SVDF applies none)");
    // TFLM's Prepare: both quotients formed in float32, widened to double.
    float sx = scale_of(g, n, x), sf = scale_of(g, n, n.inputs[2]), ss = scale_of(g, n, state);
    float stime = scale_of(g, n, n.inputs[3]), sy = scale_of(g, n, y);
    float e1 = sx * sf / ss, e2 = ss * stime / sy;
    int32_t m1 = 0, m2 = 0;
    int s1 = 0, s2 = 0;
    tigris_s8::quantize_multiplier(static_cast<double>(e1), &m1, &s1);
    tigris_s8::quantize_multiplier(static_cast<double>(e2), &m2, &s2);
    if (m1 < 0 || m2 < 0 || s1 < -31 || s1 > 31 || s2 < -31 || s2 > 31)
      unsupported(n, "requantization factors out of range (scales too far apart)");
    attr.i32(m1).i32(s1).i32(m2).i32(s2);
    constants.u16(w.get_stored(g, n.inputs[2])).u16(w.get_stored(g, n.inputs[3]));
    constants.u16(bias >= 0 ? w.get_stored(g, bias) : TIGRIS_NONE);
  }
  add_attr(op, TIGRIS_ATTR_CONSTANTS, constants);
  add_attr(op, TIGRIS_ATTR_SVDF, attr);
}

}  // namespace

void register_svdf(std::map<std::string, LowerFn>& table) { table["Svdf"] = svdf; }

}  // namespace tigris::plan::detail
