// ONNX LSTM, GRU and RNN. An LSTM the plan's LSTM op computes (default activations, no clip,
// input_forget or peepholes, every sequence of length T; see lstm_maps) becomes one IR "Lstm"
// node per direction (map_lstm), whose tensors do not grow with T. Everything else is
// unrolled over its static sequence length into operators that have
// kernels (Gemm, Concat, Split, Add, Mul, Sub, activations, Where, Gather, Reshape, Transpose),
// with the ONNX specification's semantics: forward, reverse and bidirectional; `activations`
// with their alpha/beta; `clip`; `input_forget` (LSTM); `linear_before_reset` (GRU);
// `initial_h` / `initial_c` (constant or run-time); `layout` 0 and 1; peepholes `P`; constant
// `sequence_lens` (a row's outputs past its length are zero, Y_h / Y_c keep its last valid
// step; reverse runs each row from its own last valid step). Each step is one Gemm of
// [x_t, H_{t-1}] with the constant [W | R] (the step's working set stays small, so the
// scheduler can cut, spill and band between steps), then the gate arithmetic.
// Weights, biases and peepholes must be constants; what cannot be unrolled is left in place
// with a one-line reason (reported against the node by the lowering).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "compiler/passes/pipeline.h"
#include "compiler/passes/util.h"
#include "kernels/kernel_set.h"
#include "tigris_config.h"

namespace tigris::passes {

namespace {

using ir::DType;
using ir::TensorId;

constexpr size_t kFan = 8;  // inputs of one Concat / outputs of one Split (stage I/O limits)

ir::Attributes attrs_of(std::initializer_list<std::pair<const char*, ir::Attribute>> list) {
  ir::Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

// Nodes appended in order, named after the recurrent node ("<name>/<label>").
class Builder {
 public:
  Builder(ir::Graph& g, const std::string& base) : g_(g), base_(base) {
    for (const ir::Node& n : g.nodes) names_.insert(n.name);
  }

  TensorId op(const std::string& type, std::vector<TensorId> inputs, const ir::Shape& shape, const std::string& label,
              ir::Attributes attrs = {}, TensorId output = ir::kNoTensor, DType dtype = DType::Float32) {
    ir::Node n;
    n.name = unique(base_ + "/" + label);
    n.op = type;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    if (output == ir::kNoTensor) output = add_activation(g_, n.name, dtype, shape);
    n.outputs = {output};
    nodes_.push_back(std::move(n));
    return output;
  }

  // Several outputs (Split).
  std::vector<TensorId> op_multi(const std::string& type, std::vector<TensorId> inputs,
                                 const std::vector<ir::Shape>& shapes, const std::string& label, ir::Attributes attrs) {
    ir::Node n;
    n.name = unique(base_ + "/" + label);
    n.op = type;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    for (size_t k = 0; k < shapes.size(); ++k)
      n.outputs.push_back(add_activation(g_, n.name + "_" + std::to_string(k), DType::Float32, shapes[k]));
    std::vector<TensorId> outs = n.outputs;
    nodes_.push_back(std::move(n));
    return outs;
  }

  // Constants are shared: every step reads the same weight tensor (one entry in the plan).
  TensorId constant(const std::string& label, const ir::Shape& shape, const std::vector<float>& v) {
    return shared(label, DType::Float32, shape, encode_floats(v));
  }
  TensorId shared(const std::string& label, DType dtype, const ir::Shape& shape, std::vector<uint8_t> bytes) {
    auto key = std::make_tuple(static_cast<int>(dtype), shape, bytes);
    auto it = constants_.find(key);
    if (it != constants_.end()) return it->second;
    TensorId id = add_constant(g_, base_ + "/" + label, dtype, shape, std::move(bytes));
    constants_.emplace(std::move(key), id);
    return id;
  }
  TensorId scalar(float v) { return constant("k", {}, {v}); }

  // Replace node `index` by the nodes built.
  void commit(size_t index) {
    auto at = g_.nodes.erase(g_.nodes.begin() + static_cast<std::ptrdiff_t>(index));
    g_.nodes.insert(at, std::make_move_iterator(nodes_.begin()), std::make_move_iterator(nodes_.end()));
  }

  ir::Graph& g() { return g_; }

 private:
  std::string unique(const std::string& name) {
    std::string n = name;
    for (int i = 1; names_.count(n); ++i) n = name + "_" + std::to_string(i);
    names_.insert(n);
    return n;
  }
  ir::Graph& g_;
  std::string base_;
  std::set<std::string> names_;
  std::vector<ir::Node> nodes_;
  std::map<std::tuple<int, ir::Shape, std::vector<uint8_t>>, TensorId> constants_;
};

// A row-major float matrix.
struct Mat {
  int64_t rows = 0, cols = 0;
  std::vector<float> v;
  float at(int64_t r, int64_t c) const { return v[static_cast<size_t>(r * cols + c)]; }
};

// Rows [r0, r1) of slab `d` of a constant [D, rows, cols].
Mat slab_rows(const std::vector<float>& all, int64_t d, int64_t rows, int64_t cols, int64_t r0, int64_t r1) {
  Mat m{r1 - r0, cols, {}};
  auto first = all.begin() + static_cast<std::ptrdiff_t>((d * rows + r0) * cols);
  m.v.assign(first, first + static_cast<std::ptrdiff_t>((r1 - r0) * cols));
  return m;
}

// [A | B] side by side (same rows).
Mat hcat(const Mat& a, const Mat& b) {
  Mat m{a.rows, a.cols + b.cols, {}};
  for (int64_t r = 0; r < a.rows; ++r) {
    m.v.insert(m.v.end(), a.v.begin() + r * a.cols, a.v.begin() + (r + 1) * a.cols);
    m.v.insert(m.v.end(), b.v.begin() + r * b.cols, b.v.begin() + (r + 1) * b.cols);
  }
  return m;
}

struct Activation {
  std::string name;  // lower case
  float alpha = 0, beta = 0;
};

// Activations the specification lists; alpha/beta taken in order by those that use them.
std::optional<std::string> parse_activations(const ir::Node& n, size_t count, const std::vector<std::string>& defaults,
                                             std::vector<Activation>& out) {
  std::vector<std::string> names;
  if (n.attrs.has("activations")) {
    const auto* v = std::get_if<std::vector<std::string>>(&n.attrs.all().at("activations"));
    if (!v) return "attribute 'activations' is not a list of strings";
    names = *v;
  } else {
    for (size_t d = 0; d < count / defaults.size(); ++d) names.insert(names.end(), defaults.begin(), defaults.end());
  }
  if (names.size() != count)
    return "expects " + std::to_string(count) + " activations, the node lists " + std::to_string(names.size());
  std::vector<float> alphas = n.attrs.get_floats("activation_alpha"), betas = n.attrs.get_floats("activation_beta");
  size_t ai = 0, bi = 0;
  auto next = [](const std::vector<float>& v, size_t& i, float fallback) { return i < v.size() ? v[i++] : fallback; };
  for (const std::string& raw : names) {
    Activation a;
    for (char c : raw) a.name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::string& s = a.name;
    if (s == "relu" || s == "tanh" || s == "sigmoid" || s == "softsign" || s == "softplus") {
    } else if (s == "affine") {
      a.alpha = next(alphas, ai, 1.0f);
      a.beta = next(betas, bi, 0.0f);
    } else if (s == "leakyrelu") {
      a.alpha = next(alphas, ai, 0.01f);
    } else if (s == "thresholdedrelu") {
      a.alpha = next(alphas, ai, 1.0f);
    } else if (s == "scaledtanh") {
      a.alpha = next(alphas, ai, 1.0f);
      a.beta = next(betas, bi, 1.0f);
    } else if (s == "hardsigmoid") {
      a.alpha = next(alphas, ai, 0.2f);
      a.beta = next(betas, bi, 0.5f);
    } else if (s == "elu") {
      a.alpha = next(alphas, ai, 1.0f);
    } else {
      return "activation '" + raw + "' is not one the specification lists";
    }
    out.push_back(a);
  }
  return std::nullopt;
}

// The recurrent node, checked.
struct Spec {
  std::string kind;  // LSTM, GRU, RNN
  int64_t gates = 1, T = 0, B = 0, I = 0, H = 0, D = 1, layout = 0;
  bool forward = true, reverse = false;  // directions present
  std::optional<float> clip;
  bool input_forget = false, linear_before_reset = false;
  std::vector<Activation> acts;  // per direction: LSTM f,g,h; GRU f,g; RNN f
  std::vector<int64_t> lens;     // per batch row, 1..T
  bool ragged = false;           // some row shorter than T
  std::vector<float> W, R, Bias, P;
  TensorId x = ir::kNoTensor, h0 = ir::kNoTensor, c0 = ir::kNoTensor;
  TensorId y = ir::kNoTensor, yh = ir::kNoTensor, yc = ir::kNoTensor;
  size_t acts_per_dir() const { return kind == "LSTM" ? 3 : kind == "GRU" ? 2 : 1; }
};

std::string dynamic(const ir::Graph& g, TensorId id, const std::string& why) {
  return "operand '" + g.tensor(id).name + "' is computed at run time; " + why;
}

// The reason the node cannot be unrolled, or nullopt (spec filled).
std::optional<std::string> check(const ir::Graph& g, const ir::Node& n, Spec& s) {
  s.kind = n.op;
  s.gates = n.op == "LSTM" ? 4 : n.op == "GRU" ? 3 : 1;
  s.x = input_or_none(n, 0);
  TensorId w = input_or_none(n, 1), r = input_or_none(n, 2), b = input_or_none(n, 3);
  TensorId seq = input_or_none(n, 4);
  s.h0 = input_or_none(n, 5);
  s.c0 = n.op == "LSTM" ? input_or_none(n, 6) : ir::kNoTensor;
  TensorId p = n.op == "LSTM" ? input_or_none(n, 7) : ir::kNoTensor;
  if (s.x < 0 || w < 0 || r < 0) return std::string("expects inputs X, W and R");
  const ir::Tensor& xt = g.tensor(s.x);
  if (xt.dtype != DType::Float32 || xt.quant)
    return "input X is " + std::string(xt.quant ? "quantized " : "") + ir::dtype_name(xt.dtype) +
           "; recurrent operators are unrolled in float32 only";
  for (TensorId t : {s.x, w, r})
    if (!g.tensor(t).shape_known || g.tensor(t).rank() != 3) return "X, W and R must have static rank-3 shapes";
  for (TensorId t : {w, r, b, p})
    if (t >= 0 && !g.tensor(t).constant) return dynamic(g, t, "weights, biases and peepholes must be constants");
  for (TensorId t : {w, r, b, p})
    if (t >= 0 && g.tensor(t).dtype != DType::Float32)
      return "operand '" + g.tensor(t).name + "' is " + ir::dtype_name(g.tensor(t).dtype) + "; float32 only";
  for (TensorId t : {s.h0, s.c0})
    if (t >= 0 && (g.tensor(t).dtype != DType::Float32 || !g.tensor(t).shape_known))
      return "initial state '" + g.tensor(t).name + "' must be float32 with a static shape";
  s.layout = n.attrs.get_int("layout", 0);
  if (s.layout != 0 && s.layout != 1) return "layout " + std::to_string(s.layout) + " (0 or 1)";
  const ir::Shape& xs = xt.shape;
  s.T = s.layout ? xs[1] : xs[0];
  s.B = s.layout ? xs[0] : xs[1];
  s.I = xs[2];
  const ir::Shape &ws = g.tensor(w).shape, &rs = g.tensor(r).shape;
  s.D = ws[0];
  s.H = rs[2];
  int64_t hidden = n.attrs.get_int("hidden_size", s.H);
  std::string dir = n.attrs.get_string("direction", "forward");
  int64_t want_d = dir == "bidirectional" ? 2 : 1;
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional") return "direction '" + dir + "'";
  if (s.T < 1 || s.B < 1 || s.H < 1 || hidden != s.H || s.D != want_d || ws[1] != s.gates * s.H || ws[2] != s.I ||
      rs[0] != s.D || rs[1] != s.gates * s.H)
    return "W " + ir::shape_str(ws) + " and R " + ir::shape_str(rs) + " do not match X " + ir::shape_str(xs) +
           ", hidden_size " + std::to_string(hidden) + " and direction '" + dir + "'";
  s.forward = dir != "reverse";
  s.reverse = dir != "forward";
  ir::Shape state = s.layout ? ir::Shape{s.B, s.D, s.H} : ir::Shape{s.D, s.B, s.H};
  for (TensorId t : {s.h0, s.c0})
    if (t >= 0 && g.tensor(t).shape != state)
      return "initial state '" + g.tensor(t).name + "' is " + ir::shape_str(g.tensor(t).shape) + ", expected " +
             ir::shape_str(state);
  s.W = const_floats(g.tensor(w));
  s.R = const_floats(g.tensor(r));
  if (b >= 0) {
    if (g.tensor(b).shape != ir::Shape{s.D, 2 * s.gates * s.H}) return "B is " + ir::shape_str(g.tensor(b).shape);
    s.Bias = const_floats(g.tensor(b));
  } else {
    s.Bias.assign(static_cast<size_t>(s.D * 2 * s.gates * s.H), 0.0f);
  }
  if (p >= 0) {
    if (g.tensor(p).shape != ir::Shape{s.D, 3 * s.H}) return "P is " + ir::shape_str(g.tensor(p).shape);
    s.P = const_floats(g.tensor(p));
  }
  if (n.attrs.has("clip")) {
    float c = n.attrs.get_float("clip", 0.0f);
    if (!(c > 0.0f)) return "clip " + std::to_string(c) + " (must be positive)";
    s.clip = c;
  }
  s.input_forget = n.attrs.get_int("input_forget", 0) != 0;
  s.linear_before_reset = n.attrs.get_int("linear_before_reset", 0) != 0;
  std::vector<std::string> defaults = n.op == "LSTM"  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                      : n.op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                      : std::vector<std::string>{"Tanh"};
  if (auto why = parse_activations(n, defaults.size() * static_cast<size_t>(s.D), defaults, s.acts)) return why;
  s.lens.assign(static_cast<size_t>(s.B), s.T);
  if (seq >= 0) {
    if (!g.tensor(seq).constant)
      return dynamic(g, seq, "sequence_lens must be absent or constant to unroll the recurrence");
    std::vector<int64_t> l = const_ints(g.tensor(seq));
    if (static_cast<int64_t>(l.size()) != s.B)
      return "sequence_lens has " + std::to_string(l.size()) + " values for a batch of " + std::to_string(s.B);
    for (int64_t v : l)
      if (v < 1 || v > s.T) return "sequence length " + std::to_string(v) + " is outside 1.." + std::to_string(s.T);
    s.lens = l;
  }
  s.ragged = std::any_of(s.lens.begin(), s.lens.end(), [&](int64_t v) { return v != s.T; });
  s.y = n.outputs.size() > 0 ? n.outputs[0] : ir::kNoTensor;
  s.yh = n.outputs.size() > 1 ? n.outputs[1] : ir::kNoTensor;
  s.yc = n.op == "LSTM" && n.outputs.size() > 2 ? n.outputs[2] : ir::kNoTensor;
  for (TensorId o : {s.y, s.yh, s.yc})
    if (o >= 0 && !g.tensor(o).shape_known) return "output '" + g.tensor(o).name + "' has no static shape";
  return std::nullopt;
}

// Unrolls one direction of one node.
class Unroller {
 public:
  // joint: `s` is both directions as one of width 2H (see joint_spec); each step reads x at time
  // k (forward half) and x at the reverse direction's time (backward half).
  Unroller(Builder& b, const Spec& s, int64_t d, bool reverse, bool joint = false)
      : b_(b), s_(s), d_(d), reverse_(reverse), joint_(joint) {
    tag_ = s.D == 2 ? (d == 0 ? "fw_" : "bw_") : "";
    x_cols_ = joint ? s.I / 2 : s.I;
  }

  struct Result {
    std::vector<TensorId> y_by_time;  // [B, H] per time step (unless ragged reverse)
    TensorId y_rows = ir::kNoTensor;  // [T*B, H] time-ordered (ragged reverse)
    TensorId h = ir::kNoTensor, c = ir::kNoTensor;
  };

  // x_steps: [B, I] per time step; x_rows: X as [T*B, I].
  Result run(const std::vector<TensorId>& x_steps, TensorId x_rows, TensorId h0, TensorId c0, bool want_y) {
    Result res;
    TensorId h = h0, c = c0;
    std::vector<TensorId> y_iter;
    res.y_by_time.assign(static_cast<size_t>(s_.T), ir::kNoTensor);
    for (int64_t k = 0; k < s_.T; ++k) {
      step_ = std::to_string(reverse_ ? s_.T - 1 - k : k);
      step_.insert(0, 1, 't');
      step_.push_back('_');
      std::vector<TensorId> x = input_at(k, x_steps, x_rows);
      TensorId h_new = ir::kNoTensor, c_new = ir::kNoTensor;
      if (s_.kind == "LSTM")
        lstm_step(x, h, c, h_new, c_new);
      else if (s_.kind == "GRU")
        h_new = gru_step(x, h);
      else
        h_new = rnn_step(x, h);
      // Rows whose sequence has ended keep their state and output zeros.
      std::vector<char> valid(static_cast<size_t>(s_.B));
      bool all = true;
      for (int64_t bi = 0; bi < s_.B; ++bi) {
        valid[static_cast<size_t>(bi)] = k < s_.lens[static_cast<size_t>(bi)];
        all = all && valid[static_cast<size_t>(bi)];
      }
      TensorId y_k = h_new;
      if (!all) {
        TensorId mask = bool_mask(valid);
        if (want_y) {  // h ⊙ {1, 0}: one constant operand (a Where would need two)
          std::vector<float> keep(valid.begin(), valid.end());
          y_k = binary("Mul", h_new, b_.constant(name("y_keep"), {s_.B, 1}, keep), "y_masked");
        }
        h_new = where(mask, h_new, h, "h");
        if (s_.kind == "LSTM") c_new = where(mask, c_new, c, "c");
      }
      h = h_new;
      c = c_new;
      y_iter.push_back(y_k);
      if (!s_.ragged || !reverse_) res.y_by_time[static_cast<size_t>(reverse_ ? s_.T - 1 - k : k)] = y_k;
    }
    step_.clear();
    res.h = h;
    res.c = c;
    if (want_y && s_.ragged && reverse_) {
      // Iteration k of row b is time lens[b]-1-k; back to time order with one Gather.
      TensorId rows = concat_rows(y_iter, "y_iterations");
      std::vector<int64_t> idx;
      for (int64_t t = 0; t < s_.T; ++t)
        for (int64_t bi = 0; bi < s_.B; ++bi) {
          int64_t len = s_.lens[static_cast<size_t>(bi)];
          int64_t k = t < len ? len - 1 - t : s_.T - 1;  // iteration T-1 of a short row is zeros
          idx.push_back(k * s_.B + bi);
        }
      res.y_rows = gather_rows(rows, idx, {s_.T * s_.B, s_.H}, "y_time_order");
    }
    return res;
  }

  // Concat [B, H] pieces along rows, at most kFan inputs per Concat.
  TensorId concat_rows(const std::vector<TensorId>& pieces, const std::string& label, TensorId output = ir::kNoTensor) {
    if (pieces.size() == 1 && output == ir::kNoTensor) return pieces[0];
    if (pieces.size() <= kFan) {
      int64_t rows = 0;
      for (TensorId t : pieces) rows += b_.g().tensor(t).shape[0];
      int64_t cols = b_.g().tensor(pieces[0]).shape[1];
      return b_.op("Concat", pieces, {rows, cols}, tag_ + label, attrs_of({{"axis", int64_t{0}}}), output);
    }
    std::vector<TensorId> groups;
    // As few groups as the fan-in allows, of balanced sizes (fewer intermediate tensors).
    size_t groups_count = (pieces.size() + kFan - 1) / kFan;
    size_t per = (pieces.size() + groups_count - 1) / groups_count;
    for (size_t i = 0; i < pieces.size(); i += per) {
      std::vector<TensorId> part(pieces.begin() + static_cast<std::ptrdiff_t>(i),
                                 pieces.begin() + static_cast<std::ptrdiff_t>(std::min(pieces.size(), i + per)));
      groups.push_back(concat_rows(part, label));
    }
    return concat_rows(groups, label, output);
  }

 private:
  std::string name(const std::string& what) const { return tag_ + step_ + what; }

  const Activation& act(size_t which) const { return s_.acts[static_cast<size_t>(d_) * s_.acts_per_dir() + which]; }

  // The step's input: x of iteration k (forward, reverse, or both halves when joint).
  std::vector<TensorId> input_at(int64_t k, const std::vector<TensorId>& x_steps, TensorId x_rows) {
    if (joint_) return {x_steps[static_cast<size_t>(k)], reverse_input(k, x_steps, x_rows)};
    if (!reverse_) return {x_steps[static_cast<size_t>(k)]};
    return {reverse_input(k, x_steps, x_rows)};
  }

  // Reverse iteration k reads time T-1-k, or lens[b]-1-k per row when the lengths differ.
  TensorId reverse_input(int64_t k, const std::vector<TensorId>& x_steps, TensorId x_rows) {
    if (!s_.ragged) return x_steps[static_cast<size_t>(s_.T - 1 - k)];
    std::vector<int64_t> idx;
    for (int64_t bi = 0; bi < s_.B; ++bi) {
      int64_t len = s_.lens[static_cast<size_t>(bi)];
      idx.push_back((k < len ? len - 1 - k : 0) * s_.B + bi);
    }
    return gather_rows(x_rows, idx, {s_.B, x_cols_}, "x_reverse");
  }

  TensorId gather_rows(TensorId data, const std::vector<int64_t>& idx, const ir::Shape& shape,
                       const std::string& what) {
    std::vector<double> dv(idx.begin(), idx.end());
    TensorId it =
        b_.shared(name(what + "_index"), DType::Int64, {static_cast<int64_t>(idx.size())}, encode(DType::Int64, dv));
    return b_.op("Gather", {data, it}, shape, name(what), attrs_of({{"axis", int64_t{0}}}));
  }

  TensorId bool_mask(const std::vector<char>& valid) {
    std::vector<double> v(valid.begin(), valid.end());
    return b_.shared(name("valid"), DType::Bool, {s_.B, 1}, encode(DType::Bool, v));
  }

  TensorId where(TensorId mask, TensorId a, TensorId other, const std::string& what) {
    return b_.op("Where", {mask, a, other}, {s_.B, s_.H}, name(what + "_masked"));
  }

  bool is_const(TensorId t) const { return b_.g().tensor(t).constant; }
  std::vector<float> values(TensorId t) const { return const_floats(b_.g().tensor(t)); }

  // Gate rows [g0, g1) (in units of H) of W, R and their bias sums for this direction.
  Mat w_rows(int64_t g0, int64_t g1) const { return slab_rows(s_.W, d_, s_.gates * s_.H, s_.I, g0 * s_.H, g1 * s_.H); }
  Mat r_rows(int64_t g0, int64_t g1) const { return slab_rows(s_.R, d_, s_.gates * s_.H, s_.H, g0 * s_.H, g1 * s_.H); }
  std::vector<float> bias(int64_t g0, int64_t g1, bool wb, bool rb) const {
    std::vector<float> out;
    int64_t gh = s_.gates * s_.H, base = d_ * 2 * gh;
    for (int64_t j = g0 * s_.H; j < g1 * s_.H; ++j) {
      double v = 0;
      if (wb) v += s_.Bias[static_cast<size_t>(base + j)];
      if (rb) v += s_.Bias[static_cast<size_t>(base + gh + j)];
      out.push_back(static_cast<float>(v));
    }
    return out;
  }

  // a·Wp^T + h·Rp^T + bias (+ addend [B, N], constant, when given): one Gemm over [a, h] when h
  // is computed, else a Gemm over a and h's constant contribution folded in. h may be absent.
  TensorId project(std::vector<TensorId> a, const Mat& wp, TensorId h, const Mat& rp, std::vector<float> bias,
                   std::vector<float> addend, const std::string& what) {
    int64_t n = wp.rows;
    auto joined = [&](std::vector<TensorId> parts, int64_t cols, const std::string& label) {
      if (parts.size() == 1) return parts[0];
      return b_.op("Concat", parts, {s_.B, cols}, name(label), attrs_of({{"axis", int64_t{1}}}));
    };
    auto gemm = [&](TensorId in, const Mat& m, const std::vector<float>& bv) {
      TensorId wt = b_.constant(tag_ + what + "_weights", {m.rows, m.cols}, m.v);
      TensorId bt = b_.constant(tag_ + what + "_bias", {m.rows}, bv);
      return b_.op("Gemm", {in, wt, bt}, {s_.B, n}, name(what), attrs_of({{"transB", int64_t{1}}}));
    };
    if (h != ir::kNoTensor && !is_const(h)) {
      a.push_back(h);
      TensorId in = joined(a, wp.cols + rp.cols, what + "_in");
      TensorId out = gemm(in, hcat(wp, rp), bias);
      if (addend.empty()) return out;
      return b_.op("Add", {out, b_.constant(name(what + "_addend"), {s_.B, n}, addend)}, {s_.B, n},
                   name(what + "_add"));
    }
    if (h != ir::kNoTensor) {  // constant state: h·Rp^T joins the addend
      std::vector<float> hv = values(h);
      if (addend.empty()) addend.assign(static_cast<size_t>(s_.B * n), 0.0f);
      for (int64_t bi = 0; bi < s_.B; ++bi)
        for (int64_t j = 0; j < n; ++j) {
          double acc = 0;
          for (int64_t k = 0; k < s_.H; ++k)
            acc += static_cast<double>(hv[static_cast<size_t>(bi * s_.H + k)]) * rp.at(j, k);
          addend[static_cast<size_t>(bi * n + j)] += static_cast<float>(acc);
        }
    }
    if (!addend.empty() && s_.B == 1) {  // one row: the addend is a bias
      for (int64_t j = 0; j < n; ++j) bias[static_cast<size_t>(j)] += addend[static_cast<size_t>(j)];
      addend.clear();
    }
    TensorId out = gemm(joined(a, wp.cols, what + "_in"), wp, bias);
    if (addend.empty() || std::all_of(addend.begin(), addend.end(), [](float v) { return v == 0.0f; })) return out;
    return b_.op("Add", {out, b_.constant(name(what + "_addend"), {s_.B, n}, addend)}, {s_.B, n}, name(what + "_add"));
  }

  std::vector<TensorId> split_cols(TensorId t, const std::vector<int64_t>& sizes, const std::string& what) {
    std::vector<ir::Shape> shapes;
    for (int64_t w : sizes) shapes.push_back({s_.B, w});
    return b_.op_multi("Split", {t}, shapes, name(what), attrs_of({{"axis", int64_t{1}}, {"split", sizes}}));
  }

  TensorId unary(const std::string& op, TensorId x, const std::string& what, ir::Attributes a = {}) {
    return b_.op(op, {x}, b_.g().tensor(x).shape, name(what), std::move(a));
  }
  TensorId binary(const std::string& op, TensorId x, TensorId y, const std::string& what) {
    ir::Shape s = ir::broadcast_shapes(b_.g().tensor(x).shape, b_.g().tensor(y).shape);
    return b_.op(op, {x, y}, s, name(what));
  }

  TensorId clip(TensorId x, const std::string& what) {
    if (!s_.clip) return x;
    return unary("Clip", x, what + "_clip", attrs_of({{"min", -*s_.clip}, {"max", *s_.clip}}));
  }

  // The specification's activation functions, as operators with kernels (or ones the
  // decomposition pass after this one rewrites).
  TensorId apply(const Activation& a, TensorId x, const std::string& what) {
    const std::string& f = a.name;
    if (f == "sigmoid") return unary("Sigmoid", x, what);
    if (f == "tanh") return unary("Tanh", x, what);
    if (f == "relu") return unary("Relu", x, what);
    if (f == "softsign") return unary("Softsign", x, what);
    if (f == "softplus") return unary("Softplus", x, what);
    if (f == "leakyrelu") return unary("LeakyRelu", x, what, attrs_of({{"alpha", a.alpha}}));
    if (f == "thresholdedrelu") return unary("ThresholdedRelu", x, what, attrs_of({{"alpha", a.alpha}}));
    if (f == "elu") return unary("Elu", x, what, attrs_of({{"alpha", a.alpha}}));
    if (f == "hardsigmoid") return unary("HardSigmoid", x, what, attrs_of({{"alpha", a.alpha}, {"beta", a.beta}}));
    if (f == "affine") {
      TensorId m = binary("Mul", x, b_.scalar(a.alpha), what + "_scale");
      return binary("Add", m, b_.scalar(a.beta), what);
    }
    // scaledtanh: alpha * tanh(beta * x)
    TensorId m = binary("Mul", x, b_.scalar(a.beta), what + "_in");
    return binary("Mul", unary("Tanh", m, what + "_tanh"), b_.scalar(a.alpha), what);
  }

  // Peephole row `which` (0 i, 1 o, 2 f) of this direction.
  std::vector<float> peephole(int64_t which) const {
    auto first = s_.P.begin() + static_cast<std::ptrdiff_t>(d_ * 3 * s_.H + which * s_.H);
    return std::vector<float>(first, first + static_cast<std::ptrdiff_t>(s_.H));
  }

  TensorId peephole_add(TensorId gate, int64_t which, TensorId cell, const std::string& what) {
    TensorId p = b_.constant(name(what + "_peephole"), {s_.H}, peephole(which));
    return binary("Add", gate, binary("Mul", cell, p, what + "_peep"), what + "_pre");
  }

  // ONNX gate order i, o, f, c.
  void lstm_step(const std::vector<TensorId>& x, TensorId h, TensorId c, TensorId& h_out, TensorId& c_out) {
    bool peep = !s_.P.empty();
    std::vector<float> addend;
    if (peep && is_const(c)) {  // P_i ⊙ C and P_f ⊙ C are constants: they join the Gemm's addend
      std::vector<float> cv = values(c), pi = peephole(0), pf = peephole(2);
      addend.assign(static_cast<size_t>(s_.B * 4 * s_.H), 0.0f);
      for (int64_t bi = 0; bi < s_.B; ++bi)
        for (int64_t j = 0; j < s_.H; ++j) {
          float cj = cv[static_cast<size_t>(bi * s_.H + j)];
          addend[static_cast<size_t>(bi * 4 * s_.H + j)] = pi[static_cast<size_t>(j)] * cj;
          addend[static_cast<size_t>(bi * 4 * s_.H + 2 * s_.H + j)] = pf[static_cast<size_t>(j)] * cj;
        }
    }
    TensorId gates = project(x, w_rows(0, 4), h, r_rows(0, 4), bias(0, 4, true, true), addend, "gates");
    if (!peep) {
      // i, o, f are adjacent and share f(): one activation over the three (fewer tensors per step).
      gates = clip(gates, "gates");
      std::vector<TensorId> blocks = split_cols(gates, {3 * s_.H, s_.H}, "gates_split");
      std::vector<TensorId> iof = split_cols(apply(act(0), blocks[0], "iof"), {s_.H, s_.H, s_.H}, "iof_split");
      TensorId i = iof[0], o = iof[1];
      TensorId f = s_.input_forget ? binary("Sub", b_.scalar(1.0f), i, "f") : iof[2];
      TensorId z = apply(act(1), blocks[1], "c");
      TensorId cell = binary("Add", binary("Mul", f, c, "keep"), binary("Mul", i, z, "write"), "C");
      h_out = binary("Mul", o, apply(act(2), cell, "C_act"), "H");
      c_out = cell;
      return;
    }
    std::vector<TensorId> part = split_cols(gates, {s_.H, s_.H, s_.H, s_.H}, "gates_split");
    TensorId i = part[0], o = part[1], f = part[2], z = part[3];
    if (!is_const(c)) {
      i = peephole_add(i, 0, c, "i");
      f = peephole_add(f, 2, c, "f");
    }
    i = clip(i, "i");
    f = clip(f, "f");
    z = clip(z, "c");
    i = apply(act(0), i, "i");
    f = s_.input_forget ? binary("Sub", b_.scalar(1.0f), i, "f") : apply(act(0), f, "f");
    z = apply(act(1), z, "c");
    TensorId cell = binary("Add", binary("Mul", f, c, "keep"), binary("Mul", i, z, "write"), "C");
    o = clip(peephole_add(o, 1, cell, "o"), "o");
    o = apply(act(0), o, "o");
    h_out = binary("Mul", o, apply(act(2), cell, "C_act"), "H");
    c_out = cell;
  }

  // ONNX gate order z, r, h.
  TensorId gru_step(const std::vector<TensorId>& x, TensorId h) {
    TensorId zr = project(x, w_rows(0, 2), h, r_rows(0, 2), bias(0, 2, true, true), {}, "zr");
    zr = apply(act(0), clip(zr, "zr"), "zr");  // z and r share f(): one activation over both
    std::vector<TensorId> part = split_cols(zr, {s_.H, s_.H}, "zr_split");
    TensorId z = part[0], r = part[1];
    TensorId pre;
    if (s_.linear_before_reset) {
      // x·Wh^T + Wbh + r ⊙ (h·Rh^T + Rbh)
      TensorId xw = project(x, w_rows(2, 3), ir::kNoTensor, Mat{}, bias(2, 3, true, false), {}, "h_input");
      TensorId hr;
      if (is_const(h)) {
        std::vector<float> hv = values(h), rb = bias(2, 3, false, true), v;
        Mat rh = r_rows(2, 3);
        for (int64_t bi = 0; bi < s_.B; ++bi)
          for (int64_t j = 0; j < s_.H; ++j) {
            double acc = rb[static_cast<size_t>(j)];
            for (int64_t k = 0; k < s_.H; ++k)
              acc += static_cast<double>(hv[static_cast<size_t>(bi * s_.H + k)]) * rh.at(j, k);
            v.push_back(static_cast<float>(acc));
          }
        hr = b_.constant(name("h_recurrent"), {s_.B, s_.H}, v);
      } else {
        hr = project({h}, r_rows(2, 3), ir::kNoTensor, Mat{}, bias(2, 3, false, true), {}, "h_recurrent");
      }
      pre = binary("Add", xw, binary("Mul", r, hr, "h_reset"), "h_pre");
    } else {
      // x·Wh^T + (r ⊙ h)·Rh^T + Wbh + Rbh
      TensorId rh = binary("Mul", r, h, "h_reset");
      pre = project(x, w_rows(2, 3), rh, r_rows(2, 3), bias(2, 3, true, true), {}, "h_pre");
    }
    TensorId hh = apply(act(1), clip(pre, "h"), "h");
    // H = (1 - z) ⊙ h + z ⊙ H_prev
    TensorId keep = binary("Sub", b_.scalar(1.0f), z, "z_complement");
    return binary("Add", binary("Mul", keep, hh, "new"), binary("Mul", z, h, "old"), "H");
  }

  TensorId rnn_step(const std::vector<TensorId>& x, TensorId h) {
    TensorId pre = project(x, w_rows(0, 1), h, r_rows(0, 1), bias(0, 1, true, true), {}, "pre");
    return apply(act(0), clip(pre, "pre"), "H");
  }

  Builder& b_;
  const Spec& s_;
  int64_t d_;
  bool reverse_, joint_;
  int64_t x_cols_ = 0;
  std::string tag_, step_;
};

// Slab `d` of an initial state as [B, H]: a constant, or a Slice + Reshape of the run-time one.
TensorId initial_state(Builder& b, const Spec& s, TensorId t, int64_t d, const std::string& what) {
  ir::Graph& g = b.g();
  if (t < 0) return b.constant(what + "_zero", {s.B, s.H}, std::vector<float>(static_cast<size_t>(s.B * s.H), 0.0f));
  if (g.tensor(t).constant) {
    std::vector<float> all = const_floats(g.tensor(t)), v;
    for (int64_t bi = 0; bi < s.B; ++bi)
      for (int64_t j = 0; j < s.H; ++j)
        v.push_back(all[static_cast<size_t>(s.layout ? (bi * s.D + d) * s.H + j : (d * s.B + bi) * s.H + j)]);
    return b.constant(what, {s.B, s.H}, v);
  }
  if (s.D == 1) return b.op("Reshape", {t}, {s.B, s.H}, what, attrs_of({{"shape", ir::Shape{s.B, s.H}}}));
  int64_t axis = s.layout ? 1 : 0;
  ir::Shape sliced = g.tensor(t).shape;
  sliced[static_cast<size_t>(axis)] = 1;
  TensorId sl = b.op("Slice", {t}, sliced, what + "_slice",
                     attrs_of({{"starts", std::vector<int64_t>{d}},
                               {"ends", std::vector<int64_t>{d + 1}},
                               {"axes", std::vector<int64_t>{axis}}}));
  return b.op("Reshape", {sl}, {s.B, s.H}, what, attrs_of({{"shape", ir::Shape{s.B, s.H}}}));
}

// Both directions as one recurrence of width 2H: each gate's rows are [forward H | backward H],
// W [G*2H, 2I] and R [G*2H, 2H] block-diagonal (the input is [x_fw, x_bw], the state
// [h_fw, h_bw]), biases and peepholes side by side. One step then serves both directions (half
// the operators and tensors of two unrolled directions; the zero blocks cost multiplies and
// flash, so this is used only when the tensors require it, see joint_needed).
Spec joint_spec(const Spec& s) {
  Spec j = s;
  int64_t G = s.gates, H = s.H, I = s.I;
  j.D = 1;
  j.H = 2 * H;
  j.I = 2 * I;
  j.forward = true;
  j.reverse = false;
  j.acts.assign(s.acts.begin(), s.acts.begin() + static_cast<std::ptrdiff_t>(s.acts_per_dir()));
  j.W.assign(static_cast<size_t>(G * 2 * H * 2 * I), 0.0f);
  j.R.assign(static_cast<size_t>(G * 2 * H * 2 * H), 0.0f);
  j.Bias.assign(static_cast<size_t>(2 * G * 2 * H), 0.0f);
  for (int64_t g = 0; g < G; ++g)
    for (int64_t d = 0; d < 2; ++d)
      for (int64_t r = 0; r < H; ++r) {
        int64_t row = g * 2 * H + d * H + r, src = d * G * H + g * H + r;
        for (int64_t c = 0; c < I; ++c)
          j.W[static_cast<size_t>(row * 2 * I + d * I + c)] = s.W[static_cast<size_t>(src * I + c)];
        for (int64_t c = 0; c < H; ++c)
          j.R[static_cast<size_t>(row * 2 * H + d * H + c)] = s.R[static_cast<size_t>(src * H + c)];
        j.Bias[static_cast<size_t>(row)] = s.Bias[static_cast<size_t>(d * 2 * G * H + g * H + r)];
        j.Bias[static_cast<size_t>(G * 2 * H + row)] = s.Bias[static_cast<size_t>(d * 2 * G * H + G * H + g * H + r)];
      }
  if (!s.P.empty()) {
    j.P.assign(static_cast<size_t>(3 * 2 * H), 0.0f);
    for (int64_t w = 0; w < 3; ++w)
      for (int64_t d = 0; d < 2; ++d)
        for (int64_t r = 0; r < H; ++r)
          j.P[static_cast<size_t>(w * 2 * H + d * H + r)] = s.P[static_cast<size_t>(d * 3 * H + w * H + r)];
  }
  return j;
}

bool same_activations(const Spec& s) {
  size_t n = s.acts_per_dir();
  for (size_t k = 0; k < n; ++k) {
    const Activation &a = s.acts[k], &b = s.acts[n + k];
    if (a.name != b.name || a.alpha != b.alpha || a.beta != b.beta) return false;
  }
  return true;
}

// Two directions unrolled apart would take more tensors than a plan of the default runtime
// holds (TIGRIS_MAX_TENSORS): then they share their steps (joint_spec), at twice the step's
// multiplies and recurrent weights; below that they stay apart (no zero blocks).
bool joint_needed(const ir::Graph& g, const Spec& s) {
  int64_t activations = 0;
  for (const ir::Tensor& t : g.tensors) activations += t.constant ? 0 : 1;
  // Tensors one direction's step adds (the gate arithmetic, clips, peepholes, length masks).
  bool peep = !s.P.empty();
  // Measured on unrolled nodes; the comparison keeps an eighth of the limit in reserve.
  int64_t per_step = s.kind == "LSTM" ? (peep ? 20 : 15) : s.kind == "GRU" ? 15 : 5;
  if (s.clip) per_step += s.kind == "LSTM" && peep ? 4 : s.kind == "GRU" ? 2 : 1;
  if (s.ragged) per_step += s.kind == "LSTM" ? 4 : 3;
  return activations + s.T * (2 * per_step + 1) + 16 > TIGRIS_MAX_TENSORS * 7 / 8;
}

// An initial state as the joint [B, 2H] = [fw | bw] rows.
TensorId joint_initial_state(Builder& b, const Spec& s, TensorId t, const std::string& what) {
  ir::Graph& g = b.g();
  ir::Shape joint = {s.B, 2 * s.H};
  if (t < 0) return b.constant(what + "_zero", joint, std::vector<float>(static_cast<size_t>(2 * s.B * s.H), 0.0f));
  if (g.tensor(t).constant) {
    std::vector<float> all = const_floats(g.tensor(t)), v;
    for (int64_t bi = 0; bi < s.B; ++bi)
      for (int64_t d = 0; d < 2; ++d)
        for (int64_t j = 0; j < s.H; ++j)
          v.push_back(all[static_cast<size_t>(s.layout ? (bi * 2 + d) * s.H + j : (d * s.B + bi) * s.H + j)]);
    return b.constant(what, joint, v);
  }
  TensorId bdh = t;  // [B, 2, H]
  if (!s.layout)
    bdh = b.op("Transpose", {t}, {s.B, 2, s.H}, what + "_batch_major",
               attrs_of({{"perm", std::vector<int64_t>{1, 0, 2}}}));
  return b.op("Reshape", {bdh}, joint, what, attrs_of({{"shape", joint}}));
}

// X as [T*B, I] rows in time order, and one [B, I] piece per step (Split in a tree).
void split_steps(Builder& b, TensorId rows, int64_t t0, int64_t t1, const Spec& s, std::vector<TensorId>& out) {
  int64_t count = t1 - t0;
  if (count == 1) {
    out[static_cast<size_t>(t0)] = rows;
    return;
  }
  const int64_t fan = static_cast<int64_t>(kFan);
  int64_t chunks = (count + fan - 1) / fan;  // as few chunks as the fan-out allows, balanced
  int64_t per = count <= fan ? 1 : (count + chunks - 1) / chunks;
  std::vector<int64_t> starts, sizes;
  std::vector<ir::Shape> shapes;
  for (int64_t t = t0; t < t1; t += per) {
    int64_t n = std::min(per, t1 - t);
    starts.push_back(t);
    sizes.push_back(n * s.B);
    shapes.push_back({n * s.B, s.I});
  }
  std::vector<TensorId> parts = b.op_multi("Split", {rows}, shapes, "x_t" + std::to_string(t0) + "_split",
                                           attrs_of({{"axis", int64_t{0}}, {"split", sizes}}));
  for (size_t k = 0; k < parts.size(); ++k) split_steps(b, parts[k], starts[k], starts[k] + sizes[k] / s.B, s, out);
}

// Both directions as one unrolled recurrence; the outputs picked from its [fw | bw] rows.
void unroll_joint(Builder& b, const Spec& s, const std::vector<TensorId>& steps, TensorId rows) {
  Spec j = joint_spec(s);
  TensorId h0 = joint_initial_state(b, s, s.h0, "initial_h");
  TensorId c0 = s.kind == "LSTM" ? joint_initial_state(b, s, s.c0, "initial_c") : ir::kNoTensor;
  Unroller u(b, j, 0, false, true);
  Unroller::Result r = u.run(steps, rows, h0, c0, s.y >= 0);
  int64_t T = s.T, B = s.B, H = s.H;
  // Row (k, b, d) of the iterations' [T*B*2, H] view: iteration k, batch row b, direction d.
  auto row = [&](int64_t k, int64_t bi, int64_t d) { return (k * B + bi) * 2 + d; };
  auto pick = [&](TensorId from, int64_t from_rows, const ir::Shape& index_shape, const std::vector<int64_t>& idx,
                  TensorId out, const std::string& label) {
    ir::Shape flat = {from_rows, H};
    TensorId f = b.op("Reshape", {from}, flat, label + "_rows", attrs_of({{"shape", flat}}));
    std::vector<double> dv(idx.begin(), idx.end());
    TensorId it = b.shared(label + "_index", DType::Int64, index_shape, encode(DType::Int64, dv));
    ir::Shape shape = index_shape;
    shape.push_back(H);
    b.op("Gather", {f, it}, shape, label, attrs_of({{"axis", int64_t{0}}}), out);
  };
  if (s.y >= 0) {
    // Time t of direction d: forward iteration t; backward iteration T-1-t, or lens[b]-1-t
    // (a short row's iteration T-1 is zeros past its length).
    TensorId all = u.concat_rows(r.y_by_time, "y_iterations");
    std::vector<int64_t> idx;
    auto source = [&](int64_t t, int64_t d, int64_t bi) {
      if (d == 0) return row(t, bi, 0);
      int64_t len = s.lens[static_cast<size_t>(bi)];
      return row(t < len ? len - 1 - t : T - 1, bi, 1);
    };
    if (!s.layout) {
      for (int64_t t = 0; t < T; ++t)
        for (int64_t d = 0; d < 2; ++d)
          for (int64_t bi = 0; bi < B; ++bi) idx.push_back(source(t, d, bi));
      pick(all, T * B * 2, {T, 2, B}, idx, s.y, "Y");
    } else {
      for (int64_t bi = 0; bi < B; ++bi)
        for (int64_t t = 0; t < T; ++t)
          for (int64_t d = 0; d < 2; ++d) idx.push_back(source(t, d, bi));
      pick(all, T * B * 2, {B, T, 2}, idx, s.y, "Y");
    }
  }
  auto finish = [&](TensorId out, TensorId state, const std::string& label) {
    if (out < 0) return;
    std::vector<int64_t> idx;
    if (s.layout) {
      ir::Shape shape = {B, 2, H};
      b.op("Reshape", {state}, shape, label, attrs_of({{"shape", shape}}), out);
      return;
    }
    for (int64_t d = 0; d < 2; ++d)
      for (int64_t bi = 0; bi < B; ++bi) idx.push_back(bi * 2 + d);
    pick(state, B * 2, {2, B}, idx, out, label);
  };
  finish(s.yh, r.h, "Y_h");
  if (s.kind == "LSTM") finish(s.yc, r.c, "Y_c");
}

// An ONNX LSTM that the plan's LSTM op (docs/operators.md row 86, TensorFlow Lite Micro's
// float LSTM) computes: the default activations (Sigmoid, Tanh, Tanh) in every direction, no
// clip (ONNX clips the gate pre-activations, the op's cell_clip the cell), no input_forget, no
// peepholes, every sequence of length T, a run-time X, and a build with the op's kernel. It
// then takes one IR "Lstm" node per direction and tensors independent of T instead of ~15 per
// step and direction.
bool lstm_maps(const ir::Graph& g, const Spec& s) {
  if (s.kind != "LSTM" || s.clip || s.input_forget || !s.P.empty() || s.ragged) return false;
  const char* defaults[] = {"sigmoid", "tanh", "tanh"};
  for (size_t k = 0; k < s.acts.size(); ++k)
    if (s.acts[k].name != defaults[k % 3]) return false;
  if (g.tensor(s.x).constant) return false;
  for (TensorId o : {s.y, s.yh, s.yc})
    if (o >= 0 && g.tensor(o).elements() != (o == s.y ? s.T : 1) * s.D * s.B * s.H) return false;
  return tigris_rt::kernel_enabled_f32(TIGRIS_OP_LSTM, TIGRIS_DTYPE_FLOAT32);
}

// A constant [B, H] as a run-time tensor (the LSTM op reads h0 and c0 as tensors; an
// elementwise op takes at most one constant operand): Where(probe > +inf, probe, value) selects
// the constant element for element, since no float (NaN included) exceeds +inf. The probe is
// X's first element, sliced once (`probe`, `never` kept between calls).
TensorId constant_state(Builder& b, const Spec& s, TensorId value, TensorId& probe, TensorId& never,
                        const std::string& what) {
  if (probe == ir::kNoTensor) {
    ir::Shape one = b.g().tensor(s.x).shape;
    std::fill(one.begin(), one.end(), 1);
    TensorId first = b.op("Slice", {s.x}, one, "x_first",
                          attrs_of({{"starts", std::vector<int64_t>(one.size(), 0)},
                                    {"ends", std::vector<int64_t>(one.size(), 1)},
                                    {"axes", std::vector<int64_t>{0, 1, 2}}}));
    probe = b.op("Reshape", {first}, {1, 1}, "x_probe", attrs_of({{"shape", ir::Shape{1, 1}}}));
    never = b.op("Greater", {probe, b.scalar(std::numeric_limits<float>::infinity())}, {1, 1}, "never", {},
                 ir::kNoTensor, DType::Bool);
  }
  return b.op("Where", {never, probe, value}, {s.B, s.H}, what);
}

// The node as one IR "Lstm" per direction (lower_lstm.cpp): X read in place (layout 0 is
// time-major, layout 1 batch-major; the reverse direction reads it and writes its y through a
// Gather that reverses time), W, R split into the op's per-gate constants (ONNX's gate order is
// i, o, f, c; the op's i, f, c, o), each gate's bias Wb + Rb (one float addition), the outputs
// reshaped to ONNX's [T, 1, B, H] / [B, T, 1, H] and [1, B, H] / [B, 1, H] (two directions:
// concatenated on the direction axis).
void map_lstm(Builder& b, const Spec& s) {
  const int64_t H = s.H, I = s.I, B = s.B, T = s.T, D = s.D;
  const int64_t time_axis = s.layout ? 1 : 0;
  TensorId probe = ir::kNoTensor, never = ir::kNoTensor, reversed = ir::kNoTensor;
  ir::Shape y_op = s.layout ? ir::Shape{B, T, H} : ir::Shape{T, B, H};
  // `shape` by value: a reference into the graph's tensors would dangle as tensors are added.
  auto reverse_time = [&](TensorId t, ir::Shape shape, const std::string& label) {
    if (reversed == ir::kNoTensor) {
      std::vector<double> idx;
      for (int64_t k = T - 1; k >= 0; --k) idx.push_back(static_cast<double>(k));
      reversed = b.shared("time_reversed", DType::Int64, {T}, encode(DType::Int64, idx));
    }
    return b.op("Gather", {t, reversed}, shape, label, attrs_of({{"axis", time_axis}}));
  };
  std::vector<TensorId> ys, hs, cs;
  for (int64_t d = 0; d < D; ++d) {
    const bool reverse = D == 2 ? d == 1 : s.reverse;
    const std::string tag = D == 2 ? (d == 0 ? "fw_" : "bw_") : "";
    auto state = [&](TensorId t, const std::string& what) {
      TensorId v = initial_state(b, s, t, d, tag + what);
      return b.g().tensor(v).constant ? constant_state(b, s, v, probe, never, tag + what + "_tensor") : v;
    };
    TensorId x = reverse ? reverse_time(s.x, b.g().tensor(s.x).shape, tag + "x_reversed") : s.x;
    std::vector<TensorId> ins = {x, state(s.h0, "initial_h"), state(s.c0, "initial_c")};
    const int64_t onnx_gate[4] = {0, 2, 3, 1};  // the op's i, f, c, o in ONNX's i, o, f, c
    const char* gate_name[4] = {"i", "f", "c", "o"};
    for (int k = 0; k < 4; ++k) {
      int64_t r0 = onnx_gate[k] * H;
      ins.push_back(b.constant(tag + "W_" + gate_name[k], {H, I}, slab_rows(s.W, d, 4 * H, I, r0, r0 + H).v));
    }
    for (int k = 0; k < 4; ++k) {
      int64_t r0 = onnx_gate[k] * H;
      ins.push_back(b.constant(tag + "R_" + gate_name[k], {H, H}, slab_rows(s.R, d, 4 * H, H, r0, r0 + H).v));
    }
    for (int k = 0; k < 4; ++k) {
      std::vector<float> v;
      const size_t base = static_cast<size_t>(d * 8 * H);
      for (int64_t j = onnx_gate[k] * H; j < (onnx_gate[k] + 1) * H; ++j)
        v.push_back(s.Bias[base + static_cast<size_t>(j)] + s.Bias[base + static_cast<size_t>(4 * H + j)]);
      bool zero = std::all_of(v.begin(), v.end(), [](float e) { return e == 0.0f; });  // + 0 is no bias
      ins.push_back(zero ? ir::kNoTensor : b.constant(tag + "b_" + gate_name[k], {H}, v));
    }
    ir::Attributes a = attrs_of({{"time_major", int64_t{s.layout ? 0 : 1}}, {"cell_clip", 0.0f}});
    std::vector<TensorId> outs = b.op_multi("Lstm", ins, {y_op, {B, H}, {B, H}}, tag + "lstm", a);
    ys.push_back(reverse && s.y >= 0 ? reverse_time(outs[0], y_op, tag + "y_time_order") : outs[0]);
    hs.push_back(outs[1]);
    cs.push_back(outs[2]);
  }
  // Each direction's piece with a direction axis of 1, then (two directions) one Concat on it.
  auto finish = [&](TensorId out, const std::vector<TensorId>& dirs, int64_t axis, const std::string& label) {
    if (out < 0) return;
    ir::Shape shape = b.g().tensor(out).shape;
    if (D == 1) {
      b.op("Reshape", {dirs[0]}, shape, label, attrs_of({{"shape", shape}}), out);
      return;
    }
    ir::Shape one = shape;
    one[static_cast<size_t>(axis)] = 1;
    std::vector<TensorId> pieces;
    for (int64_t d = 0; d < D; ++d)
      pieces.push_back(b.op("Reshape", {dirs[static_cast<size_t>(d)]}, one, label + "_" + std::to_string(d),
                            attrs_of({{"shape", one}})));
    b.op("Concat", pieces, shape, label, attrs_of({{"axis", axis}}), out);
  };
  finish(s.y, ys, s.layout ? 2 : 1, "Y");
  finish(s.yh, hs, s.layout ? 1 : 0, "Y_h");
  finish(s.yc, cs, s.layout ? 1 : 0, "Y_c");
}

bool unroll(ir::Graph& g, size_t index) {
  const ir::Node n = g.nodes[index];
  Spec s;
  if (auto why = check(g, n, s)) {
    g.nodes[index].attrs.set("__unsupported", *why);
    return false;
  }
  Builder b(g, n.name);
  if (lstm_maps(g, s)) {
    map_lstm(b, s);
    b.commit(index);
    return true;
  }
  // X as [T*B, I], time-major.
  TensorId x = s.x;
  if (s.layout)
    x = b.op("Transpose", {x}, {s.T, s.B, s.I}, "x_time_major", attrs_of({{"perm", std::vector<int64_t>{1, 0, 2}}}));
  TensorId rows = b.op("Reshape", {x}, {s.T * s.B, s.I}, "x_rows", attrs_of({{"shape", ir::Shape{s.T * s.B, s.I}}}));
  bool want_y = s.y >= 0;
  std::vector<TensorId> steps(static_cast<size_t>(s.T), ir::kNoTensor);
  bool need_steps = s.forward || !s.ragged;
  if (need_steps) split_steps(b, rows, 0, s.T, s, steps);

  if (s.D == 2 && same_activations(s) && joint_needed(g, s)) {
    unroll_joint(b, s, steps, rows);
    b.commit(index);
    return true;
  }
  std::vector<TensorId> y_dirs, h_dirs, c_dirs;
  for (int64_t d = 0; d < s.D; ++d) {
    bool reverse = s.D == 2 ? d == 1 : s.reverse;
    std::string tag = s.D == 2 ? (d == 0 ? "fw_" : "bw_") : "";
    TensorId h0 = initial_state(b, s, s.h0, d, tag + "initial_h");
    TensorId c0 = s.kind == "LSTM" ? initial_state(b, s, s.c0, d, tag + "initial_c") : ir::kNoTensor;
    Unroller u(b, s, d, reverse);
    Unroller::Result r = u.run(steps, rows, h0, c0, want_y);
    if (want_y) {
      TensorId yr = r.y_rows != ir::kNoTensor ? r.y_rows : u.concat_rows(r.y_by_time, "y_rows");
      ir::Shape ys = {s.T, 1, s.B, s.H};
      y_dirs.push_back(s.D == 1 ? yr : b.op("Reshape", {yr}, ys, tag + "y", attrs_of({{"shape", ys}})));
    }
    h_dirs.push_back(r.h);
    c_dirs.push_back(r.c);
  }

  // Outputs in the node's layout, written into its output tensors.
  auto finish = [&](TensorId out, const std::vector<TensorId>& dirs, const std::string& label) {
    if (out < 0) return;
    ir::Shape sm = {s.D, s.B, s.H};  // layout 0
    if (s.D == 1 && !s.layout) {
      b.op("Reshape", {dirs[0]}, sm, label, attrs_of({{"shape", sm}}), out);
      return;
    }
    TensorId joined = ir::kNoTensor;
    if (s.D == 1) {
      joined = b.op("Reshape", {dirs[0]}, sm, label + "_dirs", attrs_of({{"shape", sm}}));
    } else {
      std::vector<TensorId> three;
      for (size_t d = 0; d < dirs.size(); ++d)
        three.push_back(b.op("Reshape", {dirs[d]}, {1, s.B, s.H}, label + "_" + std::to_string(d),
                             attrs_of({{"shape", ir::Shape{1, s.B, s.H}}})));
      joined = b.op("Concat", three, sm, label + (s.layout ? "_dirs" : ""), attrs_of({{"axis", int64_t{0}}}),
                    s.layout ? ir::kNoTensor : out);
    }
    if (s.layout)
      b.op("Transpose", {joined}, {s.B, s.D, s.H}, label, attrs_of({{"perm", std::vector<int64_t>{1, 0, 2}}}), out);
  };
  if (want_y) {
    ir::Shape ys = {s.T, s.D, s.B, s.H};
    if (s.D == 1 && s.layout) y_dirs[0] = b.op("Reshape", {y_dirs[0]}, ys, "Y_dirs", attrs_of({{"shape", ys}}));
    TensorId joined = s.D == 1 ? y_dirs[0]
                               : b.op("Concat", y_dirs, ys, s.layout ? "Y_dirs" : "Y", attrs_of({{"axis", int64_t{1}}}),
                                      s.layout ? ir::kNoTensor : s.y);
    if (s.layout)
      b.op("Transpose", {joined}, {s.B, s.T, s.D, s.H}, "Y", attrs_of({{"perm", std::vector<int64_t>{2, 0, 1, 3}}}),
           s.y);
    else if (s.D == 1)
      b.op("Reshape", {joined}, ys, "Y", attrs_of({{"shape", ys}}), s.y);
  }
  finish(s.yh, h_dirs, "Y_h");
  if (s.kind == "LSTM") finish(s.yc, c_dirs, "Y_c");
  b.commit(index);
  return true;
}

}  // namespace

void decompose_recurrent(ir::Graph& g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const ir::Node& n = g.nodes[i];
    if (!n.domain.empty() || (n.op != "LSTM" && n.op != "GRU" && n.op != "RNN")) continue;
    if (n.attrs.has("__unsupported") || n.attrs.has("__dynamic_operand")) continue;
    size_t before = g.nodes.size();
    if (unroll(g, i)) i += g.nodes.size() - before;  // past the nodes that replaced it
  }
  g.compact();
}

}  // namespace tigris::passes
