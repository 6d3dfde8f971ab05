// TFLite SVDF -> IR "Svdf" (inputs x, state, feature, time, bias or none; outputs y, new
// state; attribute "rank"). The activation state is a variable tensor: read through
// variable(), the op's new state assigned back, so it carries into the next run. float32,
// or TFLite Micro's integer SVDF (int8 input, int8 feature weights, int16 or int8 time
// weights and state, int32 bias, int8 output).
#include <cmath>

#include "compiler/frontend/tflite/importer.h"

namespace tigris::frontend::tflite {

namespace {

using tfl::TensorType;

void convert_svdf(Importer& imp) {
  const tfl::SVDFOptions* o = imp.op().options.get<tfl::SVDFOptions>();
  if (o == nullptr) refuse("SVDF without SVDFOptions");
  if (imp.num_inputs() != 5) refuse("SVDF needs 5 inputs (input, feature, time, bias, state)");
  int32_t x = imp.input(0), wf = imp.input(1), wt = imp.input(2), b = imp.input(3), s = imp.input(4);
  int32_t y = imp.output(0);
  imp.tensor(x), imp.tensor(wf), imp.tensor(wt), imp.tensor(s), imp.tensor(y);
  if (!imp.is_variable(s)) refuse("the activation state '" + imp.tensor(s).name + "' is not a variable tensor");
  if (!imp.is_const(wf) || !imp.is_const(wt)) refuse("the feature and time weights must be constants");
  if (b >= 0 && !imp.is_const(b)) refuse("the bias '" + imp.tensor(b).name + "' is computed at run time");
  std::vector<int64_t> xs = imp.tfl_shape(x), fs = imp.tfl_shape(wf), ts = imp.tfl_shape(wt), ss = imp.tfl_shape(s);
  std::vector<int64_t> ys = imp.tfl_shape(y);
  if (xs.size() != 2 || fs.size() != 2 || ts.size() != 2 || ss.size() != 2 || ys.size() != 2)
    refuse("input, weights, state and output must be rank 2");
  int64_t rank = o->rank, filters = fs[0], memory = ts[1];
  if (rank < 1 || filters % rank != 0)
    refuse("rank " + std::to_string(rank) + " does not divide the " + std::to_string(filters) + " filters");
  int64_t units = filters / rank;
  if (fs[1] != xs[1] || ts[0] != filters || ss[0] != xs[0] || ss[1] != filters * memory || ys[0] != xs[0] ||
      ys[1] != units)
    refuse(
        "operand shapes do not agree (feature [filters, input], time [filters, memory], state [batch, "
        "filters*memory], output [batch, filters/rank])");
  if (b >= 0 && (imp.tfl_shape(b).size() != 1 || imp.tfl_shape(b)[0] != units))
    refuse("bias '" + imp.tensor(b).name + "' is not a vector of " + std::to_string(units));

  TensorType tx = imp.type(x), tf = imp.type(wf), tt = imp.type(wt), tst = imp.type(s), ty = imp.type(y);
  bool quantized = tx == TensorType::Int8;
  if (quantized) {
    // TFLite Micro's PrepareSvdf and EvalSvdf: the time weights' type is the state's.
    if (tf != TensorType::Int8 || !imp.quant(wf)) refuse("int8 SVDF needs quantized int8 feature weights");
    if ((tt != TensorType::Int16 && tt != TensorType::Int8) || !imp.quant(wt))
      refuse("int8 SVDF needs quantized int16 or int8 time weights");
    if (tst != tt)
      refuse(std::string("the state is ") + tfl::tensor_type_name(tst) + " and the time weights " +
             tfl::tensor_type_name(tt) + "; TFLite Micro computes both in the time weights' type");
    if (!imp.act_quant(s)) refuse("the int8 SVDF state '" + imp.tensor(s).name + "' has no quantization");
    if (ty != TensorType::Int8) refuse("int8 SVDF needs an int8 output");
    if (b >= 0) {
      if (imp.type(b) != TensorType::Int32) refuse("int8 SVDF needs an int32 bias");
      // TFLite Micro refuses a bias whose scale is not the state's times the time weights'.
      std::optional<ir::QuantParam> qb = imp.quant(b);
      float expect = imp.act_quant(s)->scales[0] * imp.quant(wt)->scales[0];
      if (!qb || !(std::abs(static_cast<double>(qb->scales[0]) - static_cast<double>(expect)) < 1e-5))
        refuse("the bias scale is not the state scale times the time weights' scale");
    }
  } else if (tx == TensorType::Float32) {
    if (tf != TensorType::Float32 || tt != TensorType::Float32 || tst != TensorType::Float32 ||
        ty != TensorType::Float32 || (b >= 0 && imp.type(b) != TensorType::Float32))
      refuse("float SVDF with operands that are not all float32 (hybrid SVDF is not supported)");
    if (o->activation == tfl::Activation::Tanh || o->activation == tfl::Activation::SignBit)
      refuse("fused activation TANH or SIGN_BIT is not supported");
  } else {
    refuse(std::string("SVDF on ") + tfl::tensor_type_name(tx) + " input (TFLite Micro takes float32 and int8)");
  }

  ir::TensorId in = imp.act(x);
  ir::TensorId fw = imp.constant(wf), tw = imp.constant(wt);
  ir::TensorId bias = b >= 0 ? imp.bias(b) : ir::kNoTensor;
  ir::TensorId out = imp.act(y);
  // Last, after everything that may refuse: a refused operator's rollback drops its tensors.
  ir::TensorId state = imp.variable(s);
  ir::TensorId next = imp.temp(state, imp.g.tensor(state).shape, "next");
  std::vector<ir::TensorId> inputs = {in, state, fw, tw};
  if (bias != ir::kNoTensor) inputs.push_back(bias);
  imp.add_node("Svdf", inputs, {out, next}).attrs.set("rank", rank);
  // The integer SVDF of TFLite Micro applies no fused activation (it clamps to int8 only).
  if (!quantized) imp.fuse(imp.g.nodes.size() - 1, o->activation, true);
  imp.assign(s, next);
}

}  // namespace

void register_svdf(std::map<int32_t, Converter>& table) { table[tfl::op::kSvdf] = convert_svdf; }

}  // namespace tigris::frontend::tflite
