#include "compiler/passes/const_eval.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

using ir::DType;
using Inputs = std::vector<std::optional<Value>>;
constexpr int64_t kMaxElements = 16 << 20;  // larger constants are not materialized
using Result = std::optional<std::vector<Value>>;

bool is_float(DType t) { return t == DType::Float32 || t == DType::Float64 || t == DType::Float16; }

double round_to(DType t, double x) {
  if (t == DType::Float32) return static_cast<float>(x);
  if (is_float(t)) return x;
  if (t == DType::Bool) return x != 0.0 ? 1.0 : 0.0;
  return std::trunc(x);
}

// Index into an input of `in_shape` broadcast to `out_shape`, for output element `o`.
int64_t broadcast_index(int64_t o, const ir::Shape& out_shape, const ir::Shape& in_shape) {
  int64_t idx = 0, stride = 1;
  size_t offset = out_shape.size() - in_shape.size();
  for (size_t d = out_shape.size(); d-- > 0;) {
    int64_t coord = o % out_shape[d];
    o /= out_shape[d];
    if (d >= offset) {
      int64_t extent = in_shape[d - offset];
      if (extent != 1) idx += coord * stride;
      stride *= extent;
    }
  }
  return idx;
}

Value elementwise(const std::vector<const Value*>& in, DType out_type, const std::function<double(const double*)>& f) {
  ir::Shape shape = in[0]->shape;
  for (size_t i = 1; i < in.size(); ++i) shape = ir::broadcast_shapes(shape, in[i]->shape);
  Value out{out_type, shape, {}};
  int64_t count = ir::num_elements(shape);
  out.v.resize(static_cast<size_t>(count));
  std::vector<double> args(in.size());
  for (int64_t o = 0; o < count; ++o) {
    for (size_t i = 0; i < in.size(); ++i)
      args[i] = in[i]->v[static_cast<size_t>(broadcast_index(o, shape, in[i]->shape))];
    out.v[static_cast<size_t>(o)] = round_to(out_type, f(args.data()));
  }
  return out;
}

std::optional<double> binary(const std::string& op, double a, double b, bool integer) {
  if (op == "Add") return a + b;
  if (op == "Sub") return a - b;
  if (op == "Mul") return a * b;
  if (op == "Div") return integer ? (b == 0 ? 0 : std::trunc(a / b)) : a / b;
  if (op == "Pow") return std::pow(a, b);
  if (op == "Mod") return integer ? (b == 0 ? 0 : a - b * std::floor(a / b)) : std::fmod(a, b);
  if (op == "Max") return std::max(a, b);
  if (op == "Min") return std::min(a, b);
  if (op == "Equal") return a == b;
  if (op == "Less") return a < b;
  if (op == "Greater") return a > b;
  if (op == "LessOrEqual") return a <= b;
  if (op == "GreaterOrEqual") return a >= b;
  if (op == "And") return (a != 0) && (b != 0);
  if (op == "Or") return (a != 0) || (b != 0);
  return std::nullopt;
}

std::optional<double> unary(const std::string& op, double a) {
  if (op == "Neg") return -a;
  if (op == "Abs") return std::fabs(a);
  if (op == "Sqrt") return std::sqrt(a);
  if (op == "Reciprocal") return 1.0 / a;
  if (op == "Floor") return std::floor(a);
  if (op == "Ceil") return std::ceil(a);
  if (op == "Not") return a == 0;
  if (op == "Relu") return std::max(a, 0.0);
  if (op == "Exp") return std::exp(a);
  if (op == "Sign") return a > 0 ? 1.0 : a < 0 ? -1.0 : 0.0;
  return std::nullopt;
}

bool is_comparison(const std::string& op) {
  return op == "Equal" || op == "Less" || op == "Greater" || op == "LessOrEqual" || op == "GreaterOrEqual" ||
         op == "And" || op == "Or" || op == "Not";
}

std::vector<int64_t> ints(const Value& v) {
  std::vector<int64_t> r;
  for (double d : v.v) r.push_back(static_cast<int64_t>(std::clamp(d, -9.2e18, 9.2e18)));
  return r;
}

Value gather(const ir::Node& n, const Value& data, const Value& idx) {
  int64_t rank = static_cast<int64_t>(data.shape.size());
  int64_t axis = normalize_axis(n.attrs.get_int("axis", 0), rank, n);
  ir::Shape out_shape(data.shape.begin(), data.shape.begin() + axis);
  out_shape.insert(out_shape.end(), idx.shape.begin(), idx.shape.end());
  out_shape.insert(out_shape.end(), data.shape.begin() + axis + 1, data.shape.end());
  int64_t outer = ir::num_elements(ir::Shape(data.shape.begin(), data.shape.begin() + axis));
  int64_t inner = ir::num_elements(ir::Shape(data.shape.begin() + axis + 1, data.shape.end()));
  int64_t extent = data.shape[static_cast<size_t>(axis)];
  Value out{data.dtype, out_shape, {}};
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i : ints(idx)) {
      int64_t k = i < 0 ? i + extent : i;
      if (k < 0 || k >= extent) throw node_error(n, "index " + std::to_string(i) + " out of range");
      for (int64_t j = 0; j < inner; ++j) out.v.push_back(data.v[static_cast<size_t>((o * extent + k) * inner + j)]);
    }
  return out;
}

Value concat(const ir::Node& n, const std::vector<const Value*>& in) {
  int64_t rank = static_cast<int64_t>(in[0]->shape.size());
  int64_t axis = normalize_axis(n.attrs.get_int("axis", 0), rank, n);
  ir::Shape shape = in[0]->shape;
  shape[static_cast<size_t>(axis)] = 0;
  for (const Value* v : in) shape[static_cast<size_t>(axis)] += v->shape[static_cast<size_t>(axis)];
  int64_t outer = ir::num_elements(ir::Shape(shape.begin(), shape.begin() + axis));
  Value out{in[0]->dtype, shape, {}};
  for (int64_t o = 0; o < outer; ++o)
    for (const Value* v : in) {
      int64_t chunk = ir::num_elements(ir::Shape(v->shape.begin() + axis, v->shape.end()));
      out.v.insert(out.v.end(), v->v.begin() + o * chunk, v->v.begin() + (o + 1) * chunk);
    }
  return out;
}

Value slice(const ir::Node& n, const Value& data, std::vector<int64_t> starts, std::vector<int64_t> ends,
            std::vector<int64_t> axes, std::vector<int64_t> steps) {
  size_t rank = data.shape.size();
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  std::vector<int64_t> begin(rank, 0), step(rank, 1), count(data.shape.begin(), data.shape.end());
  for (size_t i = 0; i < axes.size(); ++i) {
    size_t a = static_cast<size_t>(normalize_axis(axes[i], static_cast<int64_t>(rank), n));
    int64_t dim = data.shape[a], s = steps[i];
    if (s == 0) throw node_error(n, "step 0");
    auto clampi = [&](int64_t x, int64_t lo, int64_t hi) { return std::clamp(x < 0 ? x + dim : x, lo, hi); };
    int64_t b = s > 0 ? clampi(starts[i], 0, dim) : clampi(starts[i], -1, dim - 1);
    int64_t e = s > 0 ? clampi(ends[i], 0, dim) : clampi(ends[i], -1, dim - 1);
    begin[a] = b;
    step[a] = s;
    count[a] = s > 0 ? std::max<int64_t>(0, (e - b + s - 1) / s) : std::max<int64_t>(0, (b - e - s - 1) / -s);
  }
  Value out{data.dtype, ir::Shape(count.begin(), count.end()), {}};
  std::vector<int64_t> strides = ir::strides_of(data.shape);
  int64_t total = ir::num_elements(out.shape);
  for (int64_t o = 0; o < total; ++o) {
    int64_t rem = o, src = 0;
    for (size_t d = rank; d-- > 0;) {
      int64_t c = rem % count[d];
      rem /= count[d];
      src += (begin[d] + c * step[d]) * strides[d];
    }
    out.v.push_back(data.v[static_cast<size_t>(src)]);
  }
  return out;
}

ir::Shape unsqueezed(const ir::Node& n, const ir::Shape& in, std::vector<int64_t> axes) {
  int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  for (int64_t& a : axes) a = normalize_axis(a, rank, n);
  std::sort(axes.begin(), axes.end());
  ir::Shape out;
  size_t src = 0;
  for (int64_t d = 0; d < rank; ++d) out.push_back(std::binary_search(axes.begin(), axes.end(), d) ? 1 : in.at(src++));
  return out;
}

ir::Shape squeezed(const ir::Node& n, const ir::Shape& in, std::vector<int64_t> axes) {
  for (int64_t& a : axes) a = normalize_axis(a, static_cast<int64_t>(in.size()), n);
  ir::Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    bool listed = std::find(axes.begin(), axes.end(), static_cast<int64_t>(d)) != axes.end();
    if (axes.empty() ? in[d] == 1 : listed) continue;
    out.push_back(in[d]);
  }
  return out;
}

}  // namespace

Value value_of(const ir::Tensor& t) { return Value{t.dtype, t.shape, const_doubles(t)}; }

std::vector<uint8_t> encode_value(const Value& v) { return encode(v.dtype, v.v); }

namespace {

using Arg = std::function<const Value*(size_t)>;

Result one(Value v) { return Result(std::vector<Value>{std::move(v)}); }

// Casts, unary and binary arithmetic, comparisons, Where.
Result evaluate_arithmetic(const ir::Node& n, const Inputs& in, const Arg& arg) {
  const std::string& op = n.op;
  const Value* x = arg(0);
  if (op == "Identity") return one(*x);
  if (op == "Cast") {
    DType to = ir::dtype_from_code(static_cast<int32_t>(n.attrs.get_int("to", 1)));
    Value out{to, x->shape, {}};
    for (double d : x->v) out.v.push_back(round_to(to, d));
    return one(out);
  }
  if (auto u = unary(op, 0.0); u && in.size() == 1) {
    DType t = op == "Not" ? DType::Bool : x->dtype;
    return one(elementwise({x}, t, [&](const double* a) { return *unary(op, a[0]); }));
  }
  if (binary(op, 0, 1, false) && arg(1)) {
    DType t = is_comparison(op) ? DType::Bool : x->dtype;
    bool integer = !is_float(x->dtype);
    // Mod: integer remainders follow the divisor's sign unless fmod = 1 (C's fmod).
    bool c_mod = op == "Mod" && n.attrs.get_int("fmod", 0) != 0;
    Value r = elementwise({x, arg(1)}, t, [&](const double* a) {
      return c_mod ? std::fmod(a[0], a[1]) : *binary(op, a[0], a[1], integer);
    });
    // Max and Min take any number of operands.
    for (size_t i = 2; (op == "Max" || op == "Min") && i < in.size() && arg(i); ++i)
      r = elementwise({&r, arg(i)}, t, [&](const double* a) { return *binary(op, a[0], a[1], integer); });
    return one(r);
  }
  if (op == "Where" && arg(1) && arg(2))
    return one(elementwise({x, arg(1), arg(2)}, arg(1)->dtype, [](const double* a) { return a[0] ? a[1] : a[2]; }));
  return std::nullopt;
}

Value transposed(const Value& x, std::vector<int64_t> perm) {
  if (perm.empty())
    for (size_t i = x.shape.size(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  ir::Tensor t;
  t.dtype = DType::Float64;
  t.shape = ir::permute_shape(x.shape, perm);
  t.data = transpose_data(encode(DType::Float64, x.v), x.shape, perm, 8);
  return Value{x.dtype, t.shape, const_doubles(t)};
}

// Gather, Concat, Squeeze/Unsqueeze, Reshape, Flatten, Slice, Transpose.
Result evaluate_movement(const ir::Node& n, const Inputs& in, int64_t opset, const Arg& arg) {
  const std::string& op = n.op;
  const Value* x = arg(0);
  if (op == "Gather" && arg(1)) return one(gather(n, *x, *arg(1)));
  if (op == "Concat") {
    std::vector<const Value*> all;
    for (size_t i = 0; i < in.size(); ++i)
      if (arg(i)) all.push_back(arg(i));
    return one(concat(n, all));
  }
  if (op == "Unsqueeze" || op == "Squeeze") {
    std::vector<int64_t> axes =
        opset >= 13 ? (arg(1) ? ints(*arg(1)) : std::vector<int64_t>{}) : n.attrs.get_ints("axes");
    Value out = *x;
    out.shape = op == "Unsqueeze" ? unsqueezed(n, x->shape, axes) : squeezed(n, x->shape, axes);
    return one(out);
  }
  if (op == "Reshape" && arg(1)) {
    Value out = *x;
    out.shape = reshape_target(n, x->shape, ints(*arg(1)), n.attrs.get_int("allowzero", 0) != 0);
    return one(out);
  }
  if (op == "Flatten") {
    int64_t rank = static_cast<int64_t>(x->shape.size());
    int64_t axis = std::clamp<int64_t>(
        n.attrs.get_int("axis", 1) < 0 ? n.attrs.get_int("axis", 1) + rank : n.attrs.get_int("axis", 1), 0, rank);
    Value out = *x;
    int64_t outer = ir::num_elements(ir::Shape(x->shape.begin(), x->shape.begin() + axis));
    out.shape = {outer, outer ? ir::num_elements(x->shape) / outer : 0};
    return one(out);
  }
  if (op == "Slice") {
    if (opset < 10)
      return one(slice(n, *x, n.attrs.get_ints("starts"), n.attrs.get_ints("ends"), n.attrs.get_ints("axes"), {}));
    if (!arg(1) || !arg(2)) return std::nullopt;
    return one(slice(n, *x, ints(*arg(1)), ints(*arg(2)), arg(3) ? ints(*arg(3)) : std::vector<int64_t>{},
                     arg(4) ? ints(*arg(4)) : std::vector<int64_t>{}));
  }
  if (op == "Transpose") return one(transposed(*x, n.attrs.get_ints("perm")));
  return std::nullopt;
}

// ReduceSum/Prod/Max/Min/Mean over the node's axes (attribute, or input 1 from opset 13 for
// ReduceSum and 18 for the others), keepdims honoured; an empty list reduces every axis.
Result evaluate_reduction(const ir::Node& n, int64_t opset, const Arg& arg) {
  static const char* ops[] = {"ReduceSum", "ReduceProd", "ReduceMax", "ReduceMin", "ReduceMean"};
  if (std::find_if(std::begin(ops), std::end(ops), [&](const char* o) { return n.op == o; }) == std::end(ops))
    return std::nullopt;
  const Value* x = arg(0);
  bool axes_input = opset >= (n.op == "ReduceSum" ? 13 : 18);
  std::vector<int64_t> axes = axes_input ? (arg(1) ? ints(*arg(1)) : std::vector<int64_t>{}) : n.attrs.get_ints("axes");
  size_t rank = x->shape.size();
  if (axes.empty() && n.attrs.get_int("noop_with_empty_axes", 0)) return one(*x);
  std::vector<bool> reduced(rank, axes.empty());
  for (int64_t a : axes) reduced[static_cast<size_t>(normalize_axis(a, static_cast<int64_t>(rank), n))] = true;
  ir::Shape kept, out_shape;
  for (size_t d = 0; d < rank; ++d) {
    kept.push_back(reduced[d] ? 1 : x->shape[d]);
    if (!reduced[d]) out_shape.push_back(x->shape[d]);
  }
  int64_t count = ir::num_elements(kept);
  std::vector<double> acc(static_cast<size_t>(count), n.op == "ReduceProd"  ? 1.0
                                                      : n.op == "ReduceMax" ? -INFINITY
                                                      : n.op == "ReduceMin" ? INFINITY
                                                                            : 0.0);
  std::vector<int64_t> kept_strides = ir::strides_of(kept);
  for (int64_t i = 0; i < static_cast<int64_t>(x->v.size()); ++i) {
    int64_t rem = i, o = 0;
    for (size_t d = rank; d-- > 0;) {
      int64_t c = rem % x->shape[d];
      rem /= x->shape[d];
      if (!reduced[d]) o += c * kept_strides[d];
    }
    double& a = acc[static_cast<size_t>(o)];
    double v = x->v[static_cast<size_t>(i)];
    a = n.op == "ReduceProd"  ? a * v
        : n.op == "ReduceMax" ? std::max(a, v)
        : n.op == "ReduceMin" ? std::min(a, v)
                              : a + v;
  }
  if (n.op == "ReduceMean" && count > 0)
    for (double& a : acc) a /= static_cast<double>(static_cast<int64_t>(x->v.size()) / count);
  Value out{x->dtype, n.attrs.get_int("keepdims", 1) ? kept : out_shape, {}};
  for (double a : acc) out.v.push_back(round_to(x->dtype, a));
  return one(out);
}

// Split into the node's outputs: `split` sizes (attribute, or input 1 from opset 13), else equal parts.
Result evaluate_split(const ir::Node& n, int64_t opset, const Arg& arg) {
  if (n.op != "Split") return std::nullopt;
  const Value* x = arg(0);
  int64_t rank = static_cast<int64_t>(x->shape.size());
  int64_t axis = normalize_axis(n.attrs.get_int("axis", 0), rank, n);
  int64_t extent = x->shape[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes =
      opset >= 13 ? (arg(1) ? ints(*arg(1)) : std::vector<int64_t>{}) : n.attrs.get_ints("split");
  size_t parts = n.outputs.size();
  if (sizes.empty()) {
    if (parts == 0) return std::nullopt;
    int64_t each = (extent + static_cast<int64_t>(parts) - 1) / static_cast<int64_t>(parts);
    for (size_t k = 0; k < parts; ++k) sizes.push_back(std::min(each, extent - each * static_cast<int64_t>(k)));
  }
  std::vector<Value> out;
  int64_t start = 0;
  for (int64_t size : sizes) {
    out.push_back(slice(n, *x, {start}, {start + size}, {axis}, {1}));
    start += size;
  }
  return out;
}

// ConstantOfShape, Range, Expand, Size: bounded in size.
Result evaluate_generators(const ir::Node& n, const Arg& arg) {
  const std::string& op = n.op;
  const Value* x = arg(0);
  if (op == "ConstantOfShape") {
    const ir::TensorValue* tv = n.attrs.get_tensor("value");
    Value out{DType::Float32, ir::Shape(), {}};
    double fill = 0;
    if (tv) {
      ir::Tensor t;
      t.dtype = tv->dtype;
      t.shape = tv->shape;
      t.data = tv->data;
      out.dtype = tv->dtype;
      std::vector<double> d = const_doubles(t);
      if (!d.empty()) fill = d[0];
    }
    for (int64_t d : ints(*x)) {
      if (d < 0 || d > kMaxElements) return std::nullopt;
      out.shape.push_back(d);
    }
    if (ir::num_elements(out.shape) > kMaxElements) return std::nullopt;
    out.v.assign(static_cast<size_t>(ir::num_elements(out.shape)), fill);
    return one(out);
  }
  if (op == "Range" && arg(1) && arg(2)) {
    double start = x->v.at(0), limit = arg(1)->v.at(0), delta = arg(2)->v.at(0);
    if (delta == 0) throw node_error(n, "delta 0");
    double steps = std::ceil((limit - start) / delta);
    if (!(steps < static_cast<double>(kMaxElements))) return std::nullopt;
    int64_t count = std::max<int64_t>(0, static_cast<int64_t>(steps));
    Value out{x->dtype, {count}, {}};
    for (int64_t i = 0; i < count; ++i) out.v.push_back(round_to(x->dtype, start + static_cast<double>(i) * delta));
    return one(out);
  }
  if (op == "Expand" && arg(1)) {
    Value shape_only{x->dtype, {}, {}};
    for (int64_t d : ints(*arg(1))) {
      if (d < 0 || d > kMaxElements) return std::nullopt;
      shape_only.shape.push_back(d);
    }
    if (ir::num_elements(ir::broadcast_shapes(x->shape, shape_only.shape)) > kMaxElements) return std::nullopt;
    shape_only.v.assign(static_cast<size_t>(ir::num_elements(shape_only.shape)), 0.0);
    return one(elementwise({x, &shape_only}, x->dtype, [](const double* a) { return a[0]; }));
  }
  if (op == "Size") return one(Value{DType::Int64, {}, {static_cast<double>(x->v.size())}});
  return std::nullopt;
}

}  // namespace

std::optional<std::vector<Value>> evaluate(const ir::Node& n, const Inputs& in, int64_t opset) {
  if (!n.domain.empty()) return std::nullopt;
  Arg arg = [&](size_t i) -> const Value* { return i < in.size() && in[i] ? &*in[i] : nullptr; };
  if (!arg(0)) return std::nullopt;
  if (Result r = evaluate_arithmetic(n, in, arg)) return r;
  if (Result r = evaluate_movement(n, in, opset, arg)) return r;
  if (Result r = evaluate_reduction(n, opset, arg)) return r;
  if (Result r = evaluate_split(n, opset, arg)) return r;
  return evaluate_generators(n, arg);
}

}  // namespace tigris::passes
