// Decompositions through logarithms and reductions (see decompose.cpp): Pow with a general or
// run-time exponent and ReduceProd, as |x|^y = exp(y·log|x|) with the sign, zero and integer
// cases of the specification handled by comparisons (float32 arithmetic: relative error a few
// float ulps times |y·log|x||, integer results rounded); MeanVarianceNormalization and LRN.
#include <algorithm>
#include <limits>

#include "compiler/passes/decompose_internal.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

using ir::DType;
using ir::TensorId;

bool numeric(DType t) {
  return t == DType::Float32 || t == DType::Int32 || t == DType::Int64 || t == DType::Int8 || t == DType::UInt8;
}

TensorId as_float(ir::Graph& g, Rewrite& r, TensorId x) {
  if (g.tensor(x).dtype == DType::Float32) return x;
  return r.op("Cast", {x}, g.tensor(x).shape, DType::Float32, attr("to", static_cast<int64_t>(DType::Float32)));
}

TensorId cmp(ir::Graph& g, Rewrite& r, const char* op, TensorId a, TensorId b) {
  return r.op(op, {a, b}, ir::broadcast_shapes(g.tensor(a).shape, g.tensor(b).shape), DType::Bool);
}

// v is odd (v integral): floor(v/2) != v/2.
TensorId is_odd(ir::Graph& g, Rewrite& r, TensorId v) {
  TensorId half = r.op_like("Mul", {v, r.scalar(0.5f)}, v);
  return r.op("Not", {cmp(g, r, "Equal", r.op_like("Floor", {half}, half), half)}, g.tensor(v).shape, DType::Bool);
}

TensorId negate_where(ir::Graph& g, Rewrite& r, TensorId cond, TensorId v, TensorId out = ir::kNoTensor) {
  TensorId neg = r.op_like("Mul", {v, r.scalar(-1.0f)}, v);
  return r.op("Where", {cond, neg, v}, g.tensor(v).shape, DType::Float32, {}, out);
}

bool pow_general(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (n.inputs.size() != 2) return false;
  TensorId x = n.inputs[0], e = n.inputs[1], y = n.outputs[0];
  DType out = g.tensor(y).dtype;
  if (!numeric(g.tensor(x).dtype) || !numeric(g.tensor(e).dtype) || g.tensor(x).constant) return false;
  bool int_out = out != DType::Float32;
  ir::Shape shape = g.tensor(y).shape;
  if (shape.empty()) return false;
  TensorId xf = as_float(g, r, x), ef = as_float(g, r, e);
  // A scalar operand as [1] (same broadcast; the kernels' contracts want rank >= 1).
  auto one_d = [&](TensorId t) {
    if (g.tensor(t).rank() != 0) return t;
    return r.op("Reshape", {t}, {1}, DType::Float32, attr("shape", ir::Shape{1}));
  };
  xf = one_d(xf);
  ef = one_d(ef);
  TensorId mag = r.op_like("Log", {r.op_like("Abs", {xf}, xf)}, xf);
  TensorId p = r.op("Mul", {ef, mag}, shape, DType::Float32);
  TensorId v = r.op_like("Exp", {p}, p);
  // x^0 = 1 (also 0^0, where y·log|x| is NaN).
  v = r.op("Where", {cmp(g, r, "Equal", ef, r.scalar(0.0f)), r.scalar(1.0f), v}, shape, DType::Float32);
  // Negative bases: odd integer exponents negate, non-integer ones give NaN.
  TensorId neg = cmp(g, r, "Less", xf, r.scalar(0.0f));
  TensorId integral = cmp(g, r, "Equal", r.op_like("Floor", {ef}, ef), ef);
  TensorId flip = r.op("And", {neg, r.op("And", {integral, is_odd(g, r, ef)}, g.tensor(ef).shape, DType::Bool)}, shape,
                       DType::Bool);
  v = negate_where(g, r, flip, v);
  TensorId bad = r.op("And", {neg, r.op("Not", {integral}, g.tensor(ef).shape, DType::Bool)}, shape, DType::Bool);
  TensorId last = int_out ? ir::kNoTensor : y;
  v = r.op("Where", {bad, r.scalar(std::numeric_limits<float>::quiet_NaN()), v}, shape, DType::Float32, {}, last);
  if (int_out) {
    TensorId rounded = r.op_like("Round", {v}, v);
    r.op("Cast", {rounded}, shape, out, attr("to", static_cast<int64_t>(out)), y);
  }
  return true;
}

// prod = ±exp(Σ log|x|): the sign from the count of negative factors; a zero factor gives
// log 0 = -inf and so exp(-inf) = 0.
bool reduce_prod(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (n.inputs.size() != 1) return false;
  TensorId x = n.inputs[0], y = n.outputs[0];
  if (g.tensor(x).dtype != DType::Float32 || g.tensor(x).constant) return false;
  ir::Attributes ra = n.attrs;
  TensorId logs = r.op_like("Log", {r.op_like("Abs", {x}, x)}, x);
  TensorId mag = r.op_like("Exp", {r.op_like("ReduceSum", {logs}, y, ra)}, y);
  TensorId negs =
      r.op_like("Cast", {cmp(g, r, "Less", x, r.scalar(0.0f))}, x, attr("to", static_cast<int64_t>(DType::Float32)));
  TensorId count = r.op_like("ReduceSum", {negs}, y, ra);
  negate_where(g, r, is_odd(g, r, count), mag, y);
  return true;
}

// (x - E[x]) / (sqrt(E[x²] - E[x]²) + 1e-9) over `axes`, as the specification's function body.
bool mean_variance_normalization(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  TensorId x = n.inputs[0], y = n.outputs[0];
  if (g.tensor(x).dtype != DType::Float32) return false;
  ir::Shape xs = g.tensor(x).shape;
  int64_t rank = static_cast<int64_t>(xs.size());
  std::vector<int64_t> axes = n.attrs.get_ints("axes", {0, 2, 3});
  ir::Shape reduced = xs;
  for (int64_t& a : axes) {
    if (a < -rank || a >= rank) return false;  // (the default axes need rank 4)
    a = a < 0 ? a + rank : a;
    reduced[static_cast<size_t>(a)] = 1;
  }
  ir::Attributes ra = attr("axes", axes);
  ra.set("keepdims", int64_t{1});
  TensorId mean = r.op("ReduceMean", {x}, reduced, DType::Float32, ra);
  TensorId ex2 = r.op("ReduceMean", {r.op_like("Mul", {x, x}, x)}, reduced, DType::Float32, ra);
  TensorId var = r.op_like("Sub", {ex2, r.op_like("Mul", {mean, mean}, mean)}, mean);
  TensorId sd = r.op_like("Add", {r.op_like("Sqrt", {var}, var), r.scalar(1e-9f)}, var);
  r.op_like("Div", {r.op_like("Sub", {x, mean}, x), sd}, y, {}, y);
  return true;
}

// x / (bias + alpha/size · Σ x² over the channel window)^beta: the window sum is a 1x1
// convolution with a constant band of ones, the power exp(beta·log(·)).
bool lrn(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  TensorId x = n.inputs[0], y = n.outputs[0];
  const ir::Shape xs = g.tensor(x).shape;
  if (g.tensor(x).dtype != DType::Float32 || xs.size() != 4) return false;
  int64_t size = n.attrs.get_int("size", 0), c = xs[1];
  if (size < 1) return false;
  float alpha = n.attrs.get_float("alpha", 1e-4f), beta = n.attrs.get_float("beta", 0.75f);
  float bias = n.attrs.get_float("bias", 1.0f);
  int64_t lo = (size - 1) / 2, hi = size - 1 - lo;  // floor and ceil of (size-1)/2
  std::vector<float> w(static_cast<size_t>(c * c), 0.0f);
  for (int64_t o = 0; o < c; ++o)
    for (int64_t k = std::max<int64_t>(0, o - lo); k <= std::min<int64_t>(c - 1, o + hi); ++k)
      w[static_cast<size_t>(o * c + k)] = 1.0f;
  TensorId wt = add_float_constant(g, n.name + "_window", {c, c, 1, 1}, w);
  TensorId sq = r.op_like("Mul", {x, x}, x);
  TensorId sum = r.op_like("Conv", {sq, wt}, x, attr("kernel_shape", std::vector<int64_t>{1, 1}));
  TensorId base =
      r.op_like("Add", {r.op_like("Mul", {sum, r.scalar(alpha / static_cast<float>(size))}, x), r.scalar(bias)}, x);
  TensorId pw = r.op_like("Exp", {r.op_like("Mul", {r.op_like("Log", {base}, x), r.scalar(beta)}, x)}, x);
  r.op_like("Div", {x, pw}, y, {}, y);
  return true;
}

// Mod with fmod = 1 (the remainder takes the dividend's sign): the floor modulo r (the divisor's
// sign), less the divisor where r != 0 and the operands' signs differ.
bool fmod_rule(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (n.inputs.size() != 2 || n.attrs.get_int("fmod", 0) == 0) return false;
  TensorId a = n.inputs[0], b = n.inputs[1], y = n.outputs[0];
  DType t = g.tensor(y).dtype;
  if (g.tensor(a).constant || g.tensor(a).dtype != t || g.tensor(b).dtype != t) return false;
  if (t != DType::Float32 && t != DType::Int32 && t != DType::Int64) return false;  // FloorMod's kernels
  const ir::Shape ys = g.tensor(y).shape;
  TensorId zero = add_constant(g, n.name + "_zero", t, {}, encode(t, {0.0}));
  TensorId rem = r.op("FloorMod", {a, b}, ys, t);
  TensorId sa = cmp(g, r, "Less", a, zero), sb;
  if (g.tensor(b).constant) {
    std::vector<double> bv = const_doubles(g.tensor(b)), neg;
    for (double v : bv) neg.push_back(v < 0);
    sb = add_constant(g, n.name + "_divisor_negative", DType::Bool, g.tensor(b).shape, encode(DType::Bool, neg));
  } else {
    sb = cmp(g, r, "Less", b, zero);
  }
  TensorId differ = r.op("Not", {cmp(g, r, "Equal", sa, sb)}, ys, DType::Bool);
  TensorId nonzero = r.op("Not", {cmp(g, r, "Equal", rem, zero)}, ys, DType::Bool);
  TensorId fix = r.op("And", {differ, nonzero}, ys, DType::Bool);
  r.op("Where", {fix, r.op("Sub", {rem, b}, ys, t), rem}, ys, t, {}, y);
  return true;
}

}  // namespace

void add_math_decompositions(std::map<std::string, DecomposeFn>& t) {
  DecomposeFn constant_exponent = t["Pow"];
  t["Pow"] = [constant_exponent](ir::Graph& g, size_t i, Rewrite& r) {
    return (constant_exponent && constant_exponent(g, i, r)) || pow_general(g, i, r);
  };
  t["ReduceProd"] = reduce_prod;
  t["MeanVarianceNormalization"] = mean_variance_normalization;
  t["LRN"] = lrn;
  t["Mod"] = fmod_rule;  // fmod = 0 is relabelled FloorMod before the table is consulted
}

}  // namespace tigris::passes
