// Binary and unary elementwise operators, comparisons and logical operators, QUANTIZE and
// DEQUANTIZE.
#include <cmath>
#include <cstring>

#include "compiler/frontend/tflite/importer.h"
#include "compiler/passes/util.h"

namespace tigris::frontend::tflite {

namespace {

template <class T>
const T* options_or_null(Importer& imp) {
  return imp.op().options.get<T>();
}

// Operand i brought to `rank` (numpy: leading 1s), in IR order.
ir::TensorId operand_at_rank(Importer& imp, int32_t i, int rank) {
  std::vector<int64_t> s = imp.tfl_shape(i);
  int r0 = static_cast<int>(s.size());
  if (r0 > rank) refuse("an operand has a higher rank than the output");
  if (r0 == rank) return imp.operand(i);
  std::vector<int64_t> expanded(static_cast<size_t>(rank - r0), 1);
  std::string suffix = "r";
  suffix += std::to_string(rank);  // (not "r" + to_string: GCC 12 -Wrestrict false positive)
  expanded.insert(expanded.end(), s.begin(), s.end());
  if (imp.is_const(i)) {
    // Prepending 1s does not move data; the IR-order permutation of the expanded shape may.
    ir::TensorId c = imp.weight(i, ir_perm(r0), suffix);
    ir::Tensor& t = imp.g.tensor(c);
    std::vector<int64_t> perm = ir_perm(rank);
    std::vector<uint8_t> raw(imp.data(i).begin(), imp.data(i).end());
    t.data = passes::transpose_data(raw, expanded, perm, ir::dtype_size(t.dtype));
    t.shape = ir::permute_shape(expanded, perm);
    if (t.quant && t.quant->per_channel()) refuse("a per-channel quantized constant operand");
    return c;
  }
  ir::TensorId a = imp.tfl_order(imp.act(i));
  ir::TensorId r = imp.temp(a, expanded, suffix);
  imp.add_node("Reshape", {a}, {r}, "rank").attrs.set("shape", expanded);
  if (rank != 3 && rank != 4) return r;
  ir::TensorId ir_order = imp.temp(r, ir::permute_shape(expanded, ir_perm(rank)), "ir");
  imp.from_tfl_order(r, ir_order);
  return ir_order;
}

ir::DType operand_dtype(Importer& imp, int32_t i) {
  if (!imp.is_const(i)) return imp.act_dtype(i);
  switch (imp.type(i)) {
  case tfl::TensorType::Float32: return ir::DType::Float32;
  case tfl::TensorType::Int32: return ir::DType::Int32;
  case tfl::TensorType::Int64: return ir::DType::Int64;
  case tfl::TensorType::Int8:
    if (!imp.quant(i)) refuse("int8 constant without quantization");
    return ir::DType::Int8;
  case tfl::TensorType::Int16:
    if (!imp.quant(i)) refuse("int16 constant without quantization");
    return ir::DType::Int16;
  default: refuse(std::string("constant of type ") + tfl::tensor_type_name(imp.type(i)));
  }
}

// Data dtype of an elementwise op: its operands and output agree.
ir::DType common_dtype(Importer& imp, std::initializer_list<int32_t> tensors) {
  ir::DType t = ir::DType::Undefined;
  for (int32_t i : tensors) {
    ir::DType d = operand_dtype(imp, i);
    if (t != ir::DType::Undefined && d != t) refuse("operands of different types");
    t = d;
  }
  return t;
}

void binary(Importer& imp, const char* op, tfl::Activation act, bool float_clamps) {
  int32_t a = imp.input(0), b = imp.input(1), y = imp.output(0);
  ir::DType t = common_dtype(imp, {a, b, y});
  if (imp.is_const(a) && imp.is_const(b)) refuse("both operands are constants");
  int rank = static_cast<int>(imp.tfl_shape(y).size());
  ir::TensorId ia = operand_at_rank(imp, a, rank), ib = operand_at_rank(imp, b, rank);
  imp.add_node(op, {ia, ib}, {imp.act(y)});
  imp.fuse(imp.g.nodes.size() - 1, act, quantized_dtype(t) || float_clamps);
}

void add(Importer& imp) {
  const auto* o = options_or_null<tfl::AddSubOptions>(imp);
  binary(imp, "Add", o ? o->activation : tfl::Activation::None, true);
}
void sub(Importer& imp) {
  const auto* o = options_or_null<tfl::AddSubOptions>(imp);
  binary(imp, "Sub", o ? o->activation : tfl::Activation::None, false);
}
void mul(Importer& imp) {
  const auto* o = options_or_null<tfl::MulOptions>(imp);
  binary(imp, "Mul", o ? o->activation : tfl::Activation::None, false);
}
// float32, and TensorFlow Lite Micro's unquantized int32 DIV (C++'s truncating division).
// Not int8: TFLM's int8 DIV rescales through its own fixed-point reciprocal, which no int8
// kernel here reproduces yet.
void div(Importer& imp) {
  const auto* o = options_or_null<tfl::MulOptions>(imp);
  const tfl::Activation act = o ? o->activation : tfl::Activation::None;
  const tfl::TensorType t = imp.type(imp.output(0));
  if (t == tfl::TensorType::Int32) {
    if (imp.quant(imp.input(0)) || imp.quant(imp.input(1))) refuse("quantized int32 DIV");
    if (act != tfl::Activation::None) refuse("int32 DIV with a fused activation");
  } else if (t != tfl::TensorType::Float32) {
    refuse("only float32 and int32 DIV are supported");
  }
  binary(imp, "Div", act, false);
}
void maximum(Importer& imp) { binary(imp, "Max", tfl::Activation::None, false); }

// Comparisons of float32, int32 and int64 values, as TensorFlow Lite Micro compares them
// (its int8 comparisons rescale quantized operands first: not supported here).
void compare(Importer& imp, const char* op) {
  int32_t a = imp.input(0), b = imp.input(1), y = imp.output(0);
  ir::DType t = common_dtype(imp, {a, b});
  if (t != ir::DType::Float32 && t != ir::DType::Int32 && t != ir::DType::Int64)
    refuse("compares " + ir::dtype_name(t) + " data; float32, int32 and int64 are supported");
  if (imp.act_dtype(y) != ir::DType::Bool) refuse("the output is not bool");
  if (imp.is_const(a) && imp.is_const(b)) refuse("both operands are constants");
  int rank = static_cast<int>(imp.tfl_shape(y).size());
  imp.add_node(op, {operand_at_rank(imp, a, rank), operand_at_rank(imp, b, rank)}, {imp.act(y)});
}
void less(Importer& imp) { compare(imp, "Less"); }
void less_equal(Importer& imp) { compare(imp, "LessOrEqual"); }
void greater(Importer& imp) { compare(imp, "Greater"); }
void greater_equal(Importer& imp) { compare(imp, "GreaterOrEqual"); }
void equal(Importer& imp) { compare(imp, "Equal"); }

// LOGICAL_AND / OR / NOT of bool activations.
void logical(Importer& imp, const char* op) {
  std::vector<ir::TensorId> in;
  const int32_t y = imp.output(0);
  const int rank = static_cast<int>(imp.tfl_shape(y).size());
  for (size_t k = 0; k < imp.num_inputs(); ++k) {
    const int32_t x = imp.input(k);
    if (imp.is_const(x)) refuse("a constant operand");
    if (imp.act_dtype(x) != ir::DType::Bool) refuse("an operand is not bool");
    in.push_back(operand_at_rank(imp, x, rank));
  }
  if (imp.act_dtype(y) != ir::DType::Bool) refuse("the output is not bool");
  imp.add_node(op, in, {imp.act(y)});
}
void logical_and(Importer& imp) { logical(imp, "And"); }
void logical_or(Importer& imp) { logical(imp, "Or"); }
void logical_not(Importer& imp) { logical(imp, "Not"); }
void minimum(Importer& imp) { binary(imp, "Min", tfl::Activation::None, false); }

ir::Node& unary(Importer& imp, const char* op) {
  int32_t x = imp.input(0), y = imp.output(0);
  ir::DType t = common_dtype(imp, {x, y});
  if (imp.is_const(x)) refuse("constant input");
  if (t != ir::DType::Float32 && !quantized_dtype(t)) refuse("no kernel for " + ir::dtype_name(t) + " data");
  return imp.add_node(op, {imp.act(x)}, {imp.act(y)});
}

void logistic(Importer& imp) { unary(imp, "Sigmoid"); }
void tanh_op(Importer& imp) { unary(imp, "Tanh"); }
void relu(Importer& imp) { unary(imp, "Relu"); }
void relu6(Importer& imp) { unary(imp, "Relu6"); }
void hard_swish(Importer& imp) { unary(imp, "HardSwish"); }
void relu_n1_to_1(Importer& imp) {
  ir::Node& n = unary(imp, "Clip");
  n.attrs.set("min", -1.0f);
  n.attrs.set("max", 1.0f);
}
void leaky_relu(Importer& imp) {
  const auto* o = options_or_null<tfl::LeakyReluOptions>(imp);
  if (!o) refuse("its options table is missing");
  float alpha = o->alpha;
  unary(imp, "LeakyRelu").attrs.set("alpha", alpha);
}

void quantize(Importer& imp) {
  int32_t x = imp.input(0), y = imp.output(0);
  if (imp.is_const(x)) refuse("constant input");
  ir::DType from = imp.act_dtype(x), to = imp.act_dtype(y);
  // TFLite Micro: float32 -> int8/int16; requantizing int8 <-> int8/int16, int16 <-> int16/int32,
  // int32 -> int8/int16 (int32 sides carry a quantization).
  bool ok = (from == ir::DType::Float32 && quantized_dtype(to)) || (from == ir::DType::Int8 && quantized_dtype(to)) ||
            (from == ir::DType::Int16 && (quantized_dtype(to) || to == ir::DType::Int32)) ||
            (from == ir::DType::Int32 && quantized_dtype(to));
  if (!ok) refuse("quantizes " + ir::dtype_name(from) + " data to " + ir::dtype_name(to));
  if (!imp.act_quant(y) || (from != ir::DType::Float32 && !imp.act_quant(x)))
    refuse("a quantized side has no quantization");
  imp.add_node("Cast", {imp.act(x)}, {imp.act(y)}).attrs.set("to", static_cast<int64_t>(to));
}

float half_to_float(uint16_t h) {
  uint32_t sign = (h >> 15) & 1u, exp = (h >> 10) & 0x1Fu, man = h & 0x3FFu;
  float v;
  if (exp == 0)
    v = std::ldexp(static_cast<float>(man), -24);
  else if (exp == 31)
    v = man ? NAN : INFINITY;
  else
    v = std::ldexp(static_cast<float>(man | 0x400u), static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

// DEQUANTIZE of a constant (float16 weights, int8 weights of a float graph): folded here.
void fold_dequantize(Importer& imp, int32_t x, int32_t y) {
  std::span<const uint8_t> d = imp.data(x);
  std::vector<float> out;
  if (imp.type(x) == tfl::TensorType::Float16) {
    for (size_t k = 0; k + 2 <= d.size(); k += 2) {
      uint16_t h;
      std::memcpy(&h, d.data() + k, 2);
      out.push_back(half_to_float(h));
    }
  } else if (imp.type(x) == tfl::TensorType::Int8 && imp.quant(x)) {
    ir::QuantParam q = *imp.quant(x);
    std::vector<int64_t> shape = imp.tfl_shape(x);
    int64_t inner = 1;
    if (q.per_channel() && (q.axis < 0 || q.axis >= static_cast<int>(shape.size())))
      refuse("constant '" + imp.tensor(x).name + "' has a bad quantized dimension");
    if (q.per_channel())
      for (size_t a = static_cast<size_t>(q.axis) + 1; a < shape.size(); ++a) inner *= shape[a];
    for (size_t k = 0; k < d.size(); ++k) {
      size_t c = q.per_channel()
                     ? static_cast<size_t>((static_cast<int64_t>(k) / inner) % static_cast<int64_t>(q.scales.size()))
                     : 0;
      double v = static_cast<double>(q.scales[c]) * (static_cast<int8_t>(d[k]) - q.zero_points[c]);
      out.push_back(static_cast<float>(v));
    }
  } else {
    refuse(std::string("dequantizes a ") + tfl::tensor_type_name(imp.type(x)) + " constant");
  }
  std::vector<uint8_t> bytes(out.size() * 4);
  if (!out.empty()) std::memcpy(bytes.data(), out.data(), bytes.size());
  imp.fold_to(y, tfl::TensorType::Float32, std::move(bytes));
}

// CAST: TensorFlow Lite Micro's static_cast between plain (unquantized) types. UINT32 <->
// INT32 keeps the bits, and both are int32 here: the output is the input.
void cast(Importer& imp) {
  int32_t x = imp.input(0), y = imp.output(0);
  if (imp.is_const(x)) refuse("constant input");
  const tfl::TensorType from = imp.type(x), to = imp.type(y);
  auto u32_or_i32 = [](tfl::TensorType t) { return t == tfl::TensorType::UInt32 || t == tfl::TensorType::Int32; };
  if (imp.tfl_shape(x) != imp.tfl_shape(y)) refuse("input and output shapes differ");
  if (u32_or_i32(from) && u32_or_i32(to) && (from == tfl::TensorType::UInt32 || to == tfl::TensorType::UInt32)) {
    imp.alias(y, imp.act(x));
    return;
  }
  imp.act_dtype(x);  // refuses types plans do not hold
  const ir::DType to_dtype = imp.act_dtype(y);
  if (imp.act_quant(x) || imp.act_quant(y)) refuse("a quantized side (TFLite Micro's CAST ignores quantization)");
  imp.add_node("Cast", {imp.act(x)}, {imp.act(y)}).attrs.set("to", static_cast<int64_t>(to_dtype));
}

void dequantize(Importer& imp) {
  int32_t x = imp.input(0), y = imp.output(0);
  if (imp.act_dtype(y) != ir::DType::Float32) refuse("dequantizes to a type other than float32");
  if (imp.is_const(x)) {
    fold_dequantize(imp, x, y);
    return;
  }
  if (!quantized_dtype(imp.act_dtype(x)) || !imp.act_quant(x))
    refuse("dequantizes " + ir::dtype_name(imp.act_dtype(x)) + " data");
  imp.add_node("Cast", {imp.act(x)}, {imp.act(y)}).attrs.set("to", static_cast<int64_t>(ir::DType::Float32));
}

}  // namespace

void register_elementwise(std::map<int32_t, Converter>& t) {
  t[tfl::op::kAdd] = add;
  t[tfl::op::kSub] = sub;
  t[tfl::op::kMul] = mul;
  t[tfl::op::kDiv] = div;
  t[tfl::op::kMaximum] = maximum;
  t[tfl::op::kMinimum] = minimum;
  t[tfl::op::kLogistic] = logistic;
  t[tfl::op::kTanh] = tanh_op;
  t[tfl::op::kRelu] = relu;
  t[tfl::op::kRelu6] = relu6;
  t[20] = relu_n1_to_1;  // RELU_N1_TO_1
  t[tfl::op::kHardSwish] = hard_swish;
  t[tfl::op::kLeakyRelu] = leaky_relu;
  t[tfl::op::kQuantize] = quantize;
  t[tfl::op::kDequantize] = dequantize;
  t[53] = cast;  // CAST
  t[58] = less;  // LESS
  t[61] = greater;
  t[62] = greater_equal;
  t[63] = less_equal;
  t[71] = equal;
  t[84] = logical_or;
  t[86] = logical_and;
  t[87] = logical_not;
}

}  // namespace tigris::frontend::tflite
