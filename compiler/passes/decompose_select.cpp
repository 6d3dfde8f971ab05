// Decompositions that select or place elements (see decompose.cpp): Hardmax, Trilu,
// GatherElements, OneHot, Scatter / ScatterElements / ScatterND (constant indices), TopK
// (constant k), ReverseSequence (constant lengths) and EyeLike as comparisons, Where, Cast,
// Gather, ArgMax and Reduce, each exact.
// A run-time zero of x's type is Cast(Less(x, x)) (false for every value, NaN included), so a
// Where never needs two constant operands.
#include <algorithm>
#include <limits>
#include <optional>

#include "compiler/passes/decompose_internal.h"
#include "compiler/passes/util.h"

namespace tigris::passes {

namespace {

using ir::DType;
using ir::TensorId;

TensorId int_constant(ir::Graph& g, const std::string& base, const ir::Shape& shape, const std::vector<int64_t>& v) {
  return add_constant(g, base, DType::Int64, shape, encode(DType::Int64, std::vector<double>(v.begin(), v.end())));
}

// 0, 1, ..., n-1 along `axis` of a rank-`rank` tensor, ones elsewhere (full rank, so the layout
// pass reorders it with the tensor it meets).
TensorId iota_along(ir::Graph& g, const std::string& base, int64_t n, int64_t axis, int64_t rank) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  ir::Shape shape(static_cast<size_t>(rank), 1);
  shape[static_cast<size_t>(axis)] = n;
  return int_constant(g, base + "_iota", shape, v);
}

// Zeros shaped and typed like x, computed at run time.
TensorId zeros_like(ir::Graph& g, Rewrite& r, TensorId x) {
  TensorId f = r.op("Less", {x, x}, g.tensor(x).shape, DType::Bool);
  return r.op_like("Cast", {f}, x, attr("to", static_cast<int64_t>(g.tensor(x).dtype)));
}

// Negative indices counted from the end of an axis of `extent`.
TensorId wrap_negative(ir::Graph& g, Rewrite& r, TensorId idx, int64_t extent) {
  DType t = g.tensor(idx).dtype;
  TensorId zero = add_constant(g, g.tensor(idx).name + "_zero", t, {}, encode(t, {0.0}));
  TensorId ext = add_constant(g, g.tensor(idx).name + "_extent", t, {}, encode(t, {static_cast<double>(extent)}));
  TensorId neg = r.op("Less", {idx, zero}, g.tensor(idx).shape, DType::Bool);
  return r.op_like("Where", {neg, r.op_like("Add", {idx, ext}, idx), idx}, idx);
}

bool is_integer(DType t) { return t == DType::Int64 || t == DType::Int32; }

// One at the first maximum along the axis, zero elsewhere.
bool hardmax(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  TensorId x = n.inputs[0], y = n.outputs[0];
  if (g.tensor(x).dtype != DType::Float32) return false;
  ir::Shape shape = g.tensor(x).shape;
  int64_t rank = static_cast<int64_t>(shape.size());
  if (rank == 0) return false;
  int64_t axis = normalize_axis(n.attrs.get_int("axis", g.opset >= 13 ? -1 : 1), rank, n);
  TensorId in = x;
  ir::Shape work = shape;
  if (g.opset < 13) {  // coerced to 2-D at `axis`
    int64_t outer = 1, inner = 1;
    for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= shape[static_cast<size_t>(d)];
    work = {outer, inner};
    in = r.op("Reshape", {x}, work, DType::Float32, attr("shape", work));
    axis = 1;
  }
  int64_t wrank = static_cast<int64_t>(work.size());
  ir::Shape reduced = work;
  reduced[static_cast<size_t>(axis)] = 1;
  ir::Attributes am = attr("axis", axis);
  am.set("keepdims", int64_t{1});
  TensorId arg = r.op("ArgMax", {in}, reduced, DType::Int64, am);
  TensorId iota = iota_along(g, n.name, work[static_cast<size_t>(axis)], axis, wrank);
  TensorId eq = r.op("Equal", {arg, iota}, work, DType::Bool);
  bool reshape = work != shape;
  TensorId one = r.op("Cast", {eq}, work, DType::Float32, attr("to", static_cast<int64_t>(DType::Float32)),
                      reshape ? ir::kNoTensor : y);
  if (reshape) r.op_like("Reshape", {one}, y, attr("shape", shape), y);
  return true;
}

// Upper or lower triangle of the last two axes (diagonal offset k), zeros elsewhere.
bool trilu(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  TensorId x = n.inputs[0], y = n.outputs[0];
  ir::Shape shape = g.tensor(x).shape;
  if (shape.size() < 2) return false;
  int64_t k = 0;
  TensorId kt = input_or_none(n, 1);
  if (kt >= 0) {
    if (!g.tensor(kt).constant) {
      g.nodes[i].attrs.set("__dynamic_operand", g.tensor(kt).name);
      return false;
    }
    std::vector<int64_t> kv = const_ints(g.tensor(kt));
    if (kv.size() != 1) return false;
    k = kv[0];
  }
  bool upper = n.attrs.get_int("upper", 1) != 0;
  int64_t rows = shape[shape.size() - 2], cols = shape.back();
  std::vector<double> mask;
  for (int64_t a = 0; a < rows; ++a)
    for (int64_t b = 0; b < cols; ++b) mask.push_back(upper ? b - a >= k : b - a <= k);
  ir::Shape ms(shape.size(), 1);
  ms[shape.size() - 2] = rows;
  ms.back() = cols;
  TensorId m = add_constant(g, n.name + "_mask", DType::Bool, ms, encode(DType::Bool, mask));
  r.op_like("Where", {m, x, zeros_like(g, r, x)}, y, {}, y);
  return true;
}

// data[..., idx[...], ...] along `axis`: one Gather of the flattened data at
// idx * stride(axis) + the other coordinates' offsets.
bool gather_elements(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (n.inputs.size() != 2) return false;
  TensorId data = n.inputs[0], idx = n.inputs[1], y = n.outputs[0];
  const ir::Shape ds = g.tensor(data).shape, qs = g.tensor(idx).shape;
  int64_t rank = static_cast<int64_t>(ds.size());
  if (rank == 0 || static_cast<int64_t>(qs.size()) != rank || !is_integer(g.tensor(idx).dtype)) return false;
  int64_t axis = normalize_axis(n.attrs.get_int("axis", 0), rank, n);
  std::vector<int64_t> dstride = ir::strides_of(ds), qstride = ir::strides_of(qs);
  int64_t count = ir::num_elements(qs);
  std::vector<int64_t> offset(static_cast<size_t>(count));
  for (int64_t e = 0; e < count; ++e) {
    int64_t o = 0;
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis)
        o += (e / qstride[static_cast<size_t>(d)] % qs[static_cast<size_t>(d)]) * dstride[static_cast<size_t>(d)];
    offset[static_cast<size_t>(e)] = o;
  }
  int64_t extent = ds[static_cast<size_t>(axis)], stride = dstride[static_cast<size_t>(axis)];
  TensorId flat_index;
  if (g.tensor(idx).constant) {
    std::vector<int64_t> v = const_ints(g.tensor(idx));
    for (int64_t e = 0; e < count; ++e) {
      int64_t q = v[static_cast<size_t>(e)];
      if (q < -extent || q >= extent) return false;
      offset[static_cast<size_t>(e)] += (q < 0 ? q + extent : q) * stride;
    }
    flat_index = int_constant(g, n.name + "_index", qs, offset);
  } else {
    DType t = g.tensor(idx).dtype;
    TensorId q = wrap_negative(g, r, idx, extent);
    if (stride != 1)
      q = r.op_like("Mul", {q, add_constant(g, n.name + "_stride", t, {}, encode(t, {static_cast<double>(stride)}))},
                    q);
    std::vector<double> od(offset.begin(), offset.end());
    flat_index = r.op_like("Add", {q, add_constant(g, n.name + "_offset", t, qs, encode(t, od))}, q);
  }
  ir::Shape flat = {ir::num_elements(ds)};
  TensorId d1 = r.op("Reshape", {data}, flat, g.tensor(data).dtype, attr("shape", flat));
  r.op_like("Gather", {d1, flat_index}, y, attr("axis", int64_t{0}), y);
  return true;
}

// values[1] where the (wrapped) index equals the position along the new axis, else values[0].
bool one_hot(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (n.inputs.size() != 3) return false;
  TensorId idx = n.inputs[0], depth_t = n.inputs[1], values_t = n.inputs[2], y = n.outputs[0];
  for (TensorId t : {depth_t, values_t})
    if (!g.tensor(t).constant) {
      g.nodes[i].attrs.set("__dynamic_operand", g.tensor(t).name);
      return false;
    }
  std::vector<double> dv = const_doubles(g.tensor(depth_t)), vv = const_doubles(g.tensor(values_t));
  if (dv.size() != 1 || vv.size() != 2 || dv[0] < 1) return false;
  int64_t depth = static_cast<int64_t>(dv[0]);
  DType vt = g.tensor(values_t).dtype;
  const ir::Shape ys = g.tensor(y).shape;
  int64_t out_rank = static_cast<int64_t>(ys.size());
  int64_t axis = normalize_axis(n.attrs.get_int("axis", -1), out_rank, n);
  if (ys[static_cast<size_t>(axis)] != depth) return false;
  // Indices as int64 (non-integer ones truncated), wrapped, given a unit axis.
  TensorId q = idx;
  if (g.tensor(q).dtype != DType::Int64)
    q = r.op("Cast", {q}, g.tensor(q).shape, DType::Int64, attr("to", static_cast<int64_t>(DType::Int64)));
  q = wrap_negative(g, r, q, depth);
  ir::Shape unit = ys;
  unit[static_cast<size_t>(axis)] = 1;
  q = r.op("Reshape", {q}, unit, DType::Int64, attr("shape", unit));
  TensorId eq = r.op("Equal", {q, iota_along(g, n.name, depth, axis, out_rank)}, ys, DType::Bool);
  TensorId ones = r.op("Cast", {eq}, ys, vt, attr("to", static_cast<int64_t>(vt)));
  TensorId on = r.op("Mul", {ones, add_constant(g, n.name + "_on", vt, {}, encode(vt, {vv[1]}))}, ys, vt);
  r.op("Where", {eq, on, add_constant(g, n.name + "_off", vt, {}, encode(vt, {vv[0]}))}, ys, vt, {}, y);
  return true;
}

// Scatter with constant indices: contributions[p] lists the flat updates written to output
// position p, in order. reduction "none": the last one, by a Gather and a Where; "add" /
// "mul": data combined with each in turn (a neutral element where fewer arrive).
bool emit_scatter(ir::Graph& g, const ir::Node& n, Rewrite& r, const std::vector<std::vector<int64_t>>& contributions,
                  const std::string& reduction) {
  TensorId data = n.inputs[0], updates = n.inputs[2], y = n.outputs[0];
  DType t = g.tensor(data).dtype;
  const ir::Shape ds = g.tensor(data).shape;
  int64_t count = g.tensor(updates).elements();
  ir::Shape flat = {count};
  TensorId u = r.op("Reshape", {updates}, flat, t, attr("shape", flat));
  auto gather = [&](TensorId from, const std::vector<int64_t>& src) {
    return r.op("Gather", {from, int_constant(g, n.name + "_source", ds, src)}, ds, t, attr("axis", int64_t{0}));
  };
  size_t positions = contributions.size();
  if (reduction == "none") {
    std::vector<int64_t> src(positions, 0);
    std::vector<double> written(positions, 0.0);
    for (size_t p = 0; p < positions; ++p)
      if (!contributions[p].empty()) {
        src[p] = contributions[p].back();
        written[p] = 1;
      }
    TensorId mask = add_constant(g, n.name + "_written", DType::Bool, ds, encode(DType::Bool, written));
    r.op_like("Where", {mask, gather(u, src), data}, y, {}, y);
    return true;
  }
  if (reduction != "add" && reduction != "mul") return false;
  size_t most = 0;
  for (const auto& c : contributions) most = std::max(most, c.size());
  // updates followed by one neutral element (0 or 1), made at run time from the first update.
  ir::Shape one = {1};
  TensorId first = r.op("Slice", {u}, one, t, [] {
    ir::Attributes a;
    a.set("starts", std::vector<int64_t>{0});
    a.set("ends", std::vector<int64_t>{1});
    a.set("axes", std::vector<int64_t>{0});
    return a;
  }());
  TensorId never = r.op("Less", {first, first}, one, DType::Bool);
  if (reduction == "mul") never = r.op("Not", {never}, one, DType::Bool);
  TensorId neutral = r.op("Cast", {never}, one, t, attr("to", static_cast<int64_t>(t)));
  TensorId ext = r.op("Concat", {u, neutral}, {count + 1}, t, attr("axis", int64_t{0}));
  TensorId acc = data;
  for (size_t k = 0; k < most; ++k) {
    std::vector<int64_t> src(positions, count);
    for (size_t p = 0; p < positions; ++p)
      if (k < contributions[p].size()) src[p] = contributions[p][k];
    acc = r.op_like(reduction == "add" ? "Add" : "Mul", {acc, gather(ext, src)}, y, {},
                    k + 1 == most ? y : ir::kNoTensor);
  }
  if (most == 0) r.op_like("Reshape", {data}, y, attr("shape", ds), y);
  return true;
}

// Constant indices of input 1, or nullopt (the node marked: computed at run time).
std::optional<std::vector<int64_t>> scatter_indices(ir::Graph& g, size_t i) {
  const ir::Node& n = g.nodes[i];
  if (n.inputs.size() != 3) return std::nullopt;
  TensorId idx = n.inputs[1];
  if (!g.tensor(idx).constant) {
    g.nodes[i].attrs.set("__dynamic_operand", g.tensor(idx).name);
    return std::nullopt;
  }
  return const_ints(g.tensor(idx));
}

bool scatter_elements(ir::Graph& g, size_t i, Rewrite& r) {
  std::optional<std::vector<int64_t>> idx = scatter_indices(g, i);
  if (!idx) return false;
  ir::Node n = g.nodes[i];
  const ir::Shape ds = g.tensor(n.inputs[0]).shape, qs = g.tensor(n.inputs[1]).shape;
  int64_t rank = static_cast<int64_t>(ds.size());
  if (rank == 0 || static_cast<int64_t>(qs.size()) != rank || g.tensor(n.inputs[2]).shape != qs) return false;
  int64_t axis = normalize_axis(n.attrs.get_int("axis", 0), rank, n);
  std::vector<int64_t> dstride = ir::strides_of(ds), qstride = ir::strides_of(qs);
  std::vector<std::vector<int64_t>> contributions(static_cast<size_t>(ir::num_elements(ds)));
  int64_t extent = ds[static_cast<size_t>(axis)];
  for (int64_t e = 0; e < static_cast<int64_t>(idx->size()); ++e) {
    int64_t q = (*idx)[static_cast<size_t>(e)];
    if (q < -extent || q >= extent) return false;
    int64_t p = 0;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t c =
          d == axis ? (q < 0 ? q + extent : q) : e / qstride[static_cast<size_t>(d)] % qs[static_cast<size_t>(d)];
      p += c * dstride[static_cast<size_t>(d)];
    }
    contributions[static_cast<size_t>(p)].push_back(e);
  }
  return emit_scatter(g, n, r, contributions, n.attrs.get_string("reduction", "none"));
}

bool scatter_nd(ir::Graph& g, size_t i, Rewrite& r) {
  std::optional<std::vector<int64_t>> idx = scatter_indices(g, i);
  if (!idx) return false;
  ir::Node n = g.nodes[i];
  const ir::Shape ds = g.tensor(n.inputs[0]).shape, qs = g.tensor(n.inputs[1]).shape;
  if (qs.empty() || ds.empty()) return false;
  int64_t q = qs.back(), rank = static_cast<int64_t>(ds.size());
  if (q < 1 || q > rank) return false;
  std::vector<int64_t> dstride = ir::strides_of(ds);
  int64_t slice = 1;
  for (int64_t d = q; d < rank; ++d) slice *= ds[static_cast<size_t>(d)];
  int64_t tuples = static_cast<int64_t>(idx->size()) / q;
  if (g.tensor(n.inputs[2]).elements() != tuples * slice) return false;
  std::vector<std::vector<int64_t>> contributions(static_cast<size_t>(ir::num_elements(ds)));
  for (int64_t k = 0; k < tuples; ++k) {
    int64_t base = 0;
    for (int64_t d = 0; d < q; ++d) {
      int64_t v = (*idx)[static_cast<size_t>(k * q + d)], extent = ds[static_cast<size_t>(d)];
      if (v < -extent || v >= extent) return false;
      base += (v < 0 ? v + extent : v) * dstride[static_cast<size_t>(d)];
    }
    for (int64_t o = 0; o < slice; ++o) contributions[static_cast<size_t>(base + o)].push_back(k * slice + o);
  }
  return emit_scatter(g, n, r, contributions, n.attrs.get_string("reduction", "none"));
}

// Joins pieces along `axis`, at most 8 inputs per Concat.
TensorId concat_along(ir::Graph& g, Rewrite& r, const std::vector<TensorId>& pieces, int64_t axis, TensorId out) {
  auto joined_shape = [&](const std::vector<TensorId>& ps) {
    ir::Shape s = g.tensor(ps[0]).shape;
    s[static_cast<size_t>(axis)] = 0;
    for (TensorId t : ps) s[static_cast<size_t>(axis)] += g.tensor(t).shape[static_cast<size_t>(axis)];
    return s;
  };
  DType t = g.tensor(pieces[0]).dtype;
  if (pieces.size() == 1)
    return r.op("Reshape", {pieces[0]}, g.tensor(pieces[0]).shape, t, attr("shape", g.tensor(pieces[0]).shape), out);
  if (pieces.size() <= 8) return r.op("Concat", pieces, joined_shape(pieces), t, attr("axis", axis), out);
  std::vector<TensorId> groups;
  size_t per = (pieces.size() + 7) / 8;
  for (size_t i = 0; i < pieces.size(); i += per) {
    std::vector<TensorId> part(pieces.begin() + static_cast<std::ptrdiff_t>(i),
                               pieces.begin() + static_cast<std::ptrdiff_t>(std::min(pieces.size(), i + per)));
    groups.push_back(part.size() == 1 ? part[0] : concat_along(g, r, part, axis, ir::kNoTensor));
  }
  return concat_along(g, r, groups, axis, out);
}

// The k largest (smallest) along the axis, in order, ties by lower index: k rounds of
// ArgMax / ReduceMax, each masking the element it took with -inf (+inf). (An input holding
// -inf (+inf) itself may then repeat an index among equal values.)
bool top_k(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  TensorId x = n.inputs[0];
  if (g.tensor(x).dtype != DType::Float32 || g.tensor(x).constant) return false;
  int64_t k = -1;
  if (n.attrs.has("k")) {
    const auto& a = n.attrs.all().at("k");
    if (const auto* v = std::get_if<int64_t>(&a)) k = *v;
    if (const auto* v = std::get_if<std::vector<int64_t>>(&a); v && v->size() == 1) k = (*v)[0];
  }
  const ir::Shape xs = g.tensor(x).shape;
  int64_t rank = static_cast<int64_t>(xs.size());
  if (rank == 0 || k < 1) return false;
  int64_t axis = normalize_axis(n.attrs.get_int("axis", -1), rank, n);
  if (k > xs[static_cast<size_t>(axis)]) return false;
  if (k > 64) {
    g.nodes[i].attrs.set("__unsupported", "k = " + std::to_string(k) + " is above 64, the most the compiler unrolls");
    return false;
  }
  bool largest = n.attrs.get_int("largest", 1) != 0;
  ir::Shape one = xs;
  one[static_cast<size_t>(axis)] = 1;
  ir::Attributes pick = attr("axis", axis);
  pick.set("keepdims", int64_t{1});
  ir::Attributes reduce = attr("axes", std::vector<int64_t>{axis});
  reduce.set("keepdims", int64_t{1});
  TensorId iota = k > 1 ? iota_along(g, n.name, xs[static_cast<size_t>(axis)], axis, rank) : ir::kNoTensor;
  TensorId fill = r.scalar(largest ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity());
  std::vector<TensorId> values, indices;
  TensorId cur = x;
  for (int64_t j = 0; j < k; ++j) {
    TensorId idx = r.op(largest ? "ArgMax" : "ArgMin", {cur}, one, DType::Int64, pick);
    values.push_back(r.op(largest ? "ReduceMax" : "ReduceMin", {cur}, one, DType::Float32, reduce));
    indices.push_back(idx);
    if (j + 1 < k) cur = r.op_like("Where", {r.op("Equal", {idx, iota}, xs, DType::Bool), fill, cur}, x);
  }
  TensorId vo = n.outputs.size() > 0 ? n.outputs[0] : ir::kNoTensor;
  TensorId io = n.outputs.size() > 1 ? n.outputs[1] : ir::kNoTensor;
  if (vo >= 0) concat_along(g, r, values, axis, vo);
  if (io >= 0) concat_along(g, r, indices, axis, io);
  return true;
}

// out[.., t, .., b, ..] = in[.., len[b]-1-t, .., b, ..] for t < len[b], else in: one Gather of
// the flattened input at constant positions (sequence_lens constant).
bool reverse_sequence(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (n.inputs.size() != 2) return false;
  TensorId x = n.inputs[0], lens_t = n.inputs[1], y = n.outputs[0];
  if (!g.tensor(lens_t).constant) {
    g.nodes[i].attrs.set("__dynamic_operand", g.tensor(lens_t).name);
    return false;
  }
  const ir::Shape xs = g.tensor(x).shape;
  int64_t rank = static_cast<int64_t>(xs.size());
  if (rank < 2) return false;
  int64_t batch = normalize_axis(n.attrs.get_int("batch_axis", 1), rank, n);
  int64_t time = normalize_axis(n.attrs.get_int("time_axis", 0), rank, n);
  std::vector<int64_t> lens = const_ints(g.tensor(lens_t));
  if (batch == time || static_cast<int64_t>(lens.size()) != xs[static_cast<size_t>(batch)]) return false;
  std::vector<int64_t> stride = ir::strides_of(xs), src;
  int64_t count = ir::num_elements(xs);
  for (int64_t e = 0; e < count; ++e) {
    int64_t t = e / stride[static_cast<size_t>(time)] % xs[static_cast<size_t>(time)];
    int64_t b = e / stride[static_cast<size_t>(batch)] % xs[static_cast<size_t>(batch)];
    int64_t len = std::clamp<int64_t>(lens[static_cast<size_t>(b)], 0, xs[static_cast<size_t>(time)]);
    src.push_back(t < len ? e + (len - 1 - 2 * t) * stride[static_cast<size_t>(time)] : e);
  }
  ir::Shape flat = {count};
  TensorId x1 = r.op("Reshape", {x}, flat, g.tensor(x).dtype, attr("shape", flat));
  r.op_like("Gather", {x1, int_constant(g, n.name + "_source", xs, src)}, y, attr("axis", int64_t{0}), y);
  return true;
}

// Ones on the k-th diagonal of a 2-D shape, zeros elsewhere, in the output type.
bool eye_like(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  TensorId x = n.inputs[0], y = n.outputs[0];
  const ir::Shape xs = g.tensor(x).shape;
  if (xs.size() != 2) return false;
  int64_t k = n.attrs.get_int("k", 0);
  std::vector<double> eye;
  for (int64_t a = 0; a < xs[0]; ++a)
    for (int64_t b = 0; b < xs[1]; ++b) eye.push_back(b - a == k);
  TensorId m = add_constant(g, n.name + "_eye", DType::Bool, xs, encode(DType::Bool, eye));
  TensorId never = r.op("Less", {x, x}, xs, DType::Bool);  // run-time, so the Or has one constant
  TensorId on = r.op("Or", {never, m}, xs, DType::Bool);
  DType out = g.tensor(y).dtype;
  r.op("Cast", {on}, xs, out, attr("to", static_cast<int64_t>(out)), y);
  return true;
}

// Inference Dropout whose mask is read: y is x, the mask all true (Not(Less(x, x)), computed
// at run time so the plan has a producer for it). remove_identities drops the other Dropouts.
bool dropout_mask(ir::Graph& g, size_t i, Rewrite& r) {
  ir::Node n = g.nodes[i];
  if (n.outputs.size() < 2 || n.outputs[1] < 0 || n.attrs.has("__unsupported")) return false;
  TensorId x = n.inputs[0], y = n.outputs[0], mask = n.outputs[1];
  const ir::Shape xs = g.tensor(x).shape;
  if (g.tensor(mask).dtype != DType::Bool || g.tensor(mask).shape != xs) return false;
  if (y >= 0) r.op_like("Reshape", {x}, y, attr("shape", xs), y);
  r.op("Not", {r.op("Less", {x, x}, xs, DType::Bool)}, xs, DType::Bool, {}, mask);
  return true;
}

}  // namespace

void add_select_decompositions(std::map<std::string, DecomposeFn>& t) {
  t["Hardmax"] = hardmax;
  t["Trilu"] = trilu;
  t["GatherElements"] = gather_elements;
  t["OneHot"] = one_hot;
  t["ScatterElements"] = scatter_elements;
  t["Scatter"] = scatter_elements;
  t["ScatterND"] = scatter_nd;
  t["TopK"] = top_k;
  t["ReverseSequence"] = reverse_sequence;
  t["EyeLike"] = eye_like;
  t["Dropout"] = dropout_mask;
}

}  // namespace tigris::passes
