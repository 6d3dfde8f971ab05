// ONNX LSTM / GRU / RNN: the plans (unrolled, or an LSTM mapped onto the LSTM op; check() asserts
// which) against a per-step reference written here from the
// specification's formulas (one batch row and one direction at a time, in double), for what
// the official node tests do not cover: reverse, bidirectional, clip, layout 1, constant
// sequence_lens, GRU linear_before_reset 0 and 1, non-default activations with alpha/beta,
// input_forget, peepholes, constant and run-time initial states, omitted outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <optional>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "onnx_builder.h"

namespace {

using namespace tigris;

struct Cfg {
  std::string op = "LSTM";
  int64_t T = 3, B = 2, I = 3, H = 4;
  std::string direction = "forward";
  int64_t layout = 0;
  std::vector<std::string> acts;  // empty: the defaults
  std::vector<float> alpha, beta;
  std::optional<float> clip;
  bool input_forget = false;
  int64_t lbr = 0;
  bool bias = true, peep = false;
  int initial = 0;            // 0 absent, 1 run-time inputs, 2 constants
  std::vector<int64_t> lens;  // empty: absent
  bool y = true, yh = true, yc = true;
  uint32_t seed = 1;
};

int64_t gates(const Cfg& c) { return c.op == "LSTM" ? 4 : c.op == "GRU" ? 3 : 1; }
int64_t dirs(const Cfg& c) { return c.direction == "bidirectional" ? 2 : 1; }

std::vector<float> random(size_t n, uint32_t& s, float scale) {
  std::vector<float> v(n);
  for (float& x : v) {
    s = s * 1664525u + 1013904223u;
    x = scale * (static_cast<float>(s >> 8) / static_cast<float>(1u << 24) - 0.5f) * 2.0f;
  }
  return v;
}

struct Data {
  std::vector<float> X, W, R, Bias, P, h0, c0;
};

Data make_data(const Cfg& c) {
  uint32_t s = c.seed;
  int64_t D = dirs(c), G = gates(c);
  Data d;
  d.X = random(static_cast<size_t>(c.T * c.B * c.I), s, 1.0f);
  d.W = random(static_cast<size_t>(D * G * c.H * c.I), s, 0.6f);
  d.R = random(static_cast<size_t>(D * G * c.H * c.H), s, 0.6f);
  d.Bias = random(static_cast<size_t>(D * 2 * G * c.H), s, 0.3f);
  d.P = random(static_cast<size_t>(D * 3 * c.H), s, 0.5f);
  d.h0 = random(static_cast<size_t>(D * c.B * c.H), s, 0.5f);
  d.c0 = random(static_cast<size_t>(D * c.B * c.H), s, 0.5f);
  return d;
}

// ---- the reference: the specification's equations, row by row ----

double activation(const std::string& name, double a, double b, double x) {
  std::string f;
  for (char ch : name) f += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (f == "relu") return std::max(0.0, x);
  if (f == "tanh") return std::tanh(x);
  if (f == "sigmoid") return 1.0 / (1.0 + std::exp(-x));
  if (f == "affine") return a * x + b;
  if (f == "leakyrelu") return x < 0 ? a * x : x;
  if (f == "thresholdedrelu") return x > a ? x : 0.0;
  if (f == "scaledtanh") return a * std::tanh(b * x);
  if (f == "hardsigmoid") return std::max(0.0, std::min(1.0, a * x + b));
  if (f == "elu") return x < 0 ? a * (std::exp(x) - 1.0) : x;
  if (f == "softsign") return x / (1.0 + std::fabs(x));
  if (f == "softplus") return std::log(1.0 + std::exp(x));
  ADD_FAILURE() << "activation " << name;
  return 0;
}

struct Act {
  std::string name;
  double a = 0, b = 0;
};

// Activations with alpha/beta given in order to those that take them, defaults otherwise.
std::vector<Act> activations(const Cfg& c) {
  std::vector<std::string> names = c.acts;
  if (names.empty()) {
    std::vector<std::string> def = c.op == "LSTM"  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
                                   : c.op == "GRU" ? std::vector<std::string>{"Sigmoid", "Tanh"}
                                                   : std::vector<std::string>{"Tanh"};
    for (int64_t d = 0; d < dirs(c); ++d) names.insert(names.end(), def.begin(), def.end());
  }
  size_t ai = 0, bi = 0;
  std::vector<Act> out;
  for (const std::string& n : names) {
    Act a{n};
    auto alpha = [&](double def) { a.a = ai < c.alpha.size() ? c.alpha[ai++] : def; };
    auto beta = [&](double def) { a.b = bi < c.beta.size() ? c.beta[bi++] : def; };
    if (n == "Affine") alpha(1.0), beta(0.0);
    if (n == "LeakyRelu") alpha(0.01);
    if (n == "ThresholdedRelu") alpha(1.0);
    if (n == "ScaledTanh") alpha(1.0), beta(1.0);
    if (n == "HardSigmoid") alpha(0.2), beta(0.5);
    if (n == "Elu") alpha(1.0);
    out.push_back(a);
  }
  return out;
}

struct Outputs {
  std::vector<double> Y, Yh, Yc;  // in the node's layout
};

Outputs reference(const Cfg& c, const Data& d) {
  int64_t D = dirs(c), G = gates(c), T = c.T, B = c.B, I = c.I, H = c.H;
  std::vector<Act> acts = activations(c);
  size_t per_dir = c.op == "LSTM" ? 3 : c.op == "GRU" ? 2 : 1;
  Outputs o;
  o.Y.assign(static_cast<size_t>(T * D * B * H), 0.0);
  o.Yh.assign(static_cast<size_t>(D * B * H), 0.0);
  o.Yc.assign(static_cast<size_t>(D * B * H), 0.0);
  auto x_at = [&](int64_t t, int64_t b, int64_t i) {
    return static_cast<double>(c.layout ? d.X[static_cast<size_t>((b * T + t) * I + i)]
                                        : d.X[static_cast<size_t>((t * B + b) * I + i)]);
  };
  auto state_at = [&](const std::vector<float>& v, int64_t dir, int64_t b, int64_t j) {
    return static_cast<double>(c.layout ? v[static_cast<size_t>((b * D + dir) * H + j)]
                                        : v[static_cast<size_t>((dir * B + b) * H + j)]);
  };
  auto clip = [&](double v) { return c.clip ? std::clamp(v, -double(*c.clip), double(*c.clip)) : v; };
  for (int64_t dir = 0; dir < D; ++dir) {
    bool reverse = c.direction == "reverse" || (D == 2 && dir == 1);
    auto f = [&](size_t k, double v) {
      const Act& a = acts[static_cast<size_t>(dir) * per_dir + k];
      return activation(a.name, a.a, a.b, v);
    };
    // W row r (gate-major) times x; R row r times h; biases.
    auto wx = [&](int64_t r, const std::vector<double>& x) {
      double s = 0;
      for (int64_t i = 0; i < I; ++i)
        s += d.W[static_cast<size_t>((dir * G * H + r) * I + i)] * x[static_cast<size_t>(i)];
      return s;
    };
    auto rh = [&](int64_t r, const std::vector<double>& h) {
      double s = 0;
      for (int64_t k = 0; k < H; ++k)
        s += d.R[static_cast<size_t>((dir * G * H + r) * H + k)] * h[static_cast<size_t>(k)];
      return s;
    };
    auto wb = [&](int64_t r) { return c.bias ? double(d.Bias[static_cast<size_t>(dir * 2 * G * H + r)]) : 0.0; };
    auto rb = [&](int64_t r) {
      return c.bias ? double(d.Bias[static_cast<size_t>(dir * 2 * G * H + G * H + r)]) : 0.0;
    };
    auto p = [&](int64_t which, int64_t j) {
      return c.peep ? double(d.P[static_cast<size_t>(dir * 3 * H + which * H + j)]) : 0.0;
    };
    for (int64_t b = 0; b < B; ++b) {
      std::vector<double> h(static_cast<size_t>(H), 0.0), cell(static_cast<size_t>(H), 0.0);
      if (c.initial)
        for (int64_t j = 0; j < H; ++j) {
          h[static_cast<size_t>(j)] = state_at(d.h0, dir, b, j);
          cell[static_cast<size_t>(j)] = state_at(d.c0, dir, b, j);
        }
      int64_t L = c.lens.empty() ? T : c.lens[static_cast<size_t>(b)];
      for (int64_t k = 0; k < L; ++k) {
        int64_t t = reverse ? L - 1 - k : k;
        std::vector<double> x(static_cast<size_t>(I));
        for (int64_t i = 0; i < I; ++i) x[static_cast<size_t>(i)] = x_at(t, b, i);
        std::vector<double> hn(static_cast<size_t>(H)), cn(static_cast<size_t>(H));
        for (int64_t j = 0; j < H; ++j) {
          size_t J = static_cast<size_t>(j);
          if (c.op == "LSTM") {  // i, o, f, c
            double it = f(0, clip(wx(j, x) + rh(j, h) + p(0, j) * cell[J] + wb(j) + rb(j)));
            double ft = c.input_forget ? 1.0 - it
                                       : f(0, clip(wx(2 * H + j, x) + rh(2 * H + j, h) + p(2, j) * cell[J] +
                                                   wb(2 * H + j) + rb(2 * H + j)));
            double ct = f(1, clip(wx(3 * H + j, x) + rh(3 * H + j, h) + wb(3 * H + j) + rb(3 * H + j)));
            cn[J] = ft * cell[J] + it * ct;
            double ot = f(0, clip(wx(H + j, x) + rh(H + j, h) + p(1, j) * cn[J] + wb(H + j) + rb(H + j)));
            hn[J] = ot * f(2, cn[J]);
          } else if (c.op == "GRU") {  // z, r, h
            double zt = f(0, clip(wx(j, x) + rh(j, h) + wb(j) + rb(j)));
            double rt_j = 0;  // r is needed for every k below
            std::vector<double> r(static_cast<size_t>(H));
            for (int64_t k2 = 0; k2 < H; ++k2)
              r[static_cast<size_t>(k2)] = f(0, clip(wx(H + k2, x) + rh(H + k2, h) + wb(H + k2) + rb(H + k2)));
            rt_j = r[J];
            double pre;
            if (c.lbr) {
              pre = wx(2 * H + j, x) + wb(2 * H + j) + rt_j * (rh(2 * H + j, h) + rb(2 * H + j));
            } else {
              std::vector<double> rhv(static_cast<size_t>(H));
              for (int64_t k2 = 0; k2 < H; ++k2)
                rhv[static_cast<size_t>(k2)] = r[static_cast<size_t>(k2)] * h[static_cast<size_t>(k2)];
              pre = wx(2 * H + j, x) + rh(2 * H + j, rhv) + rb(2 * H + j) + wb(2 * H + j);
            }
            double ht = f(1, clip(pre));
            hn[J] = (1.0 - zt) * ht + zt * h[J];
          } else {
            hn[J] = f(0, clip(wx(j, x) + rh(j, h) + wb(j) + rb(j)));
          }
        }
        h = hn;
        if (c.op == "LSTM") cell = cn;
        for (int64_t j = 0; j < H; ++j) {
          size_t at = static_cast<size_t>(c.layout ? ((b * T + t) * D + dir) * H + j : ((t * D + dir) * B + b) * H + j);
          o.Y[at] = h[static_cast<size_t>(j)];
        }
      }
      for (int64_t j = 0; j < H; ++j) {
        size_t at = static_cast<size_t>(c.layout ? (b * D + dir) * H + j : (dir * B + b) * H + j);
        o.Yh[at] = h[static_cast<size_t>(j)];
        o.Yc[at] = cell[static_cast<size_t>(j)];
      }
    }
  }
  return o;
}

// ---- the model ----

void strings_attr(onnx::NodeProto& n, const std::string& name, const std::vector<std::string>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const auto& s : v) a->add_strings(s);
}

void floats_attr(onnx::NodeProto& n, const std::string& name, const std::vector<float>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOATS);
  for (float x : v) a->add_floats(x);
}

std::vector<uint8_t> bytes_of(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

test::OnnxBuilder model(const Cfg& c, const Data& d, bool lens_at_run_time = false) {
  int64_t D = dirs(c), G = gates(c);
  test::OnnxBuilder b(14);
  b.input("X", c.layout ? std::vector<int64_t>{c.B, c.T, c.I} : std::vector<int64_t>{c.T, c.B, c.I});
  b.init("W", {D, G * c.H, c.I}, d.W);
  b.init("R", {D, G * c.H, c.H}, d.R);
  std::vector<int64_t> state = c.layout ? std::vector<int64_t>{c.B, D, c.H} : std::vector<int64_t>{D, c.B, c.H};
  std::vector<std::string> in = {"X", "W", "R", c.bias ? "B" : ""};
  if (c.bias) b.init("B", {D, 2 * G * c.H}, d.Bias);
  if (!c.lens.empty()) {
    if (lens_at_run_time) {
      b.input("seq", {c.B}, onnx::TensorProto::INT32);
    } else {
      auto* t = b.proto().mutable_graph()->add_initializer();
      t->set_name("seq");
      t->set_data_type(onnx::TensorProto::INT32);
      t->add_dims(c.B);
      for (int64_t v : c.lens) t->add_int32_data(static_cast<int32_t>(v));
    }
  }
  in.push_back(c.lens.empty() ? "" : "seq");
  if (c.initial == 1) {
    b.input("h0", state);
    if (c.op == "LSTM") b.input("c0", state);
  } else if (c.initial == 2) {
    b.init("h0", state, d.h0);
    if (c.op == "LSTM") b.init("c0", state, d.c0);
  }
  in.push_back(c.initial ? "h0" : "");
  if (c.op == "LSTM") {
    in.push_back(c.initial ? "c0" : "");
    if (c.peep) b.init("P", {D, 3 * c.H}, d.P);
    in.push_back(c.peep ? "P" : "");
  }
  while (!in.empty() && in.back().empty()) in.pop_back();
  std::vector<std::string> out = {c.y ? "Y" : "", c.yh ? "Y_h" : ""};
  if (c.op == "LSTM") out.push_back(c.yc ? "Y_c" : "");
  while (!out.empty() && out.back().empty()) out.pop_back();
  if (c.y) b.output("Y", c.layout ? std::vector<int64_t>{c.B, c.T, D, c.H} : std::vector<int64_t>{c.T, D, c.B, c.H});
  if (c.yh) b.output("Y_h", state);
  if (c.op == "LSTM" && c.yc) b.output("Y_c", state);
  onnx::NodeProto& n = b.node(c.op, in, out, "rec");
  test::OnnxBuilder::attr(n, "hidden_size", c.H);
  test::OnnxBuilder::attr(n, "direction", c.direction);
  if (c.layout) test::OnnxBuilder::attr(n, "layout", c.layout);
  if (!c.acts.empty()) strings_attr(n, "activations", c.acts);
  if (!c.alpha.empty()) floats_attr(n, "activation_alpha", c.alpha);
  if (!c.beta.empty()) floats_attr(n, "activation_beta", c.beta);
  if (c.clip) test::OnnxBuilder::attr(n, "clip", *c.clip);
  if (c.input_forget) test::OnnxBuilder::attr(n, "input_forget", int64_t{1});
  if (c.op == "GRU") test::OnnxBuilder::attr(n, "linear_before_reset", c.lbr);
  return b;
}

void expect_close(const std::vector<uint8_t>& got, const std::vector<double>& want, const std::string& what,
                  double abs_tol = 1e-5, double rel_tol = 1e-4) {
  ASSERT_EQ(got.size(), want.size() * 4) << what;
  double max_ref = 0, max_err = 0;
  size_t worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    float v;
    std::memcpy(&v, &got[i * 4], 4);
    max_ref = std::max(max_ref, std::fabs(want[i]));
    double e = std::fabs(v - want[i]);
    if (e > max_err) max_err = e, worst = i;
  }
  EXPECT_LE(max_err, abs_tol + rel_tol * max_ref) << what << ": element " << worst << " differs by " << max_err;
}

// An LSTM the plan's LSTM op computes (one IR "Lstm" node per direction instead of the
// unrolled steps): default activations, no clip, input_forget or peepholes, every length T.
bool maps_to_lstm_op(const Cfg& c) {
  if (c.op != "LSTM" || c.clip || c.input_forget || c.peep) return false;
  const char* defaults[] = {"sigmoid", "tanh", "tanh"};
  for (size_t k = 0; k < c.acts.size(); ++k) {
    std::string a = c.acts[k];
    for (char& ch : a) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (a != defaults[k % 3]) return false;
  }
  return std::all_of(c.lens.begin(), c.lens.end(), [&](int64_t l) { return l == c.T; });
}

// Compiles and runs the node at `fast` bytes (0: at the scheduler's floor, which must then
// partition the steps) and compares every output with the reference (tolerance abs + rel·max|ref|).
void check(const Cfg& c, uint32_t fast = 1u << 20, double abs_tol = 1e-5, double rel_tol = 1e-4) {
  Data d = make_data(c);
  compiler::Model m = compiler::load_model_bytes(model(c, d).bytes(), "rec.onnx");
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  size_t lstm_ops = 0;
  for (const auto& op : m.summary().ops) {
    EXPECT_NE(op.type, c.op) << "the node is unrolled or mapped";
    lstm_ops += op.type == "Lstm";
  }
  EXPECT_EQ(lstm_ops, maps_to_lstm_op(c) ? static_cast<size_t>(dirs(c)) : 0u) << "mapped to the LSTM op";
  compiler::Budgets budget;
  budget.fast = fast;
  if (fast == 0) {
    budget.fast = 1u << 20;
    budget.fast = compiler::schedule(m, budget).fast.minimum_for_partition_bytes;
  }
  compiler::CompileResult r = compiler::compile(m, budget);
  ASSERT_TRUE(r.ok()) << r.error;
  if (fast == 0) {
    EXPECT_GT(r.schedule.stages.size(), 1u) << "one stage at the floor of " << budget.fast;
  }
  std::vector<std::vector<uint8_t>> feed = {bytes_of(d.X)};
  if (c.initial == 1) {
    feed.push_back(bytes_of(d.h0));
    if (c.op == "LSTM") feed.push_back(bytes_of(d.c0));
  }
  test::PlanRun run = test::run_plan(r.plan, feed, 1u << 20);
  ASSERT_EQ(run.error, "");
  Outputs want = reference(c, d);
  size_t k = 0;
  if (c.y) expect_close(run.outputs.at(k++), want.Y, c.op + " Y", abs_tol, rel_tol);
  if (c.yh) expect_close(run.outputs.at(k++), want.Yh, c.op + " Y_h", abs_tol, rel_tol);
  if (c.op == "LSTM" && c.yc) expect_close(run.outputs.at(k++), want.Yc, c.op + " Y_c", abs_tol, rel_tol);
}

TEST(Recurrent, LstmForwardRunTimeInitialState) {
  Cfg c;
  c.initial = 1;
  check(c);
}

TEST(Recurrent, LstmReversePeepholesClipConstantInitialState) {
  Cfg c;
  c.direction = "reverse";
  c.peep = true;
  c.clip = 0.4f;
  c.initial = 2;
  c.T = 4;
  check(c);
}

TEST(Recurrent, LstmBidirectionalLayout1SequenceLensInputForget) {
  Cfg c;
  c.direction = "bidirectional";
  c.layout = 1;
  c.T = 4;
  c.B = 3;
  c.lens = {4, 1, 3};
  c.input_forget = true;
  c.initial = 1;
  c.peep = true;
  check(c);
}

TEST(Recurrent, LstmNonDefaultActivationsWithAlphaBeta) {
  Cfg c;
  c.direction = "bidirectional";
  c.acts = {"HardSigmoid", "ScaledTanh", "Elu", "Sigmoid", "Affine", "LeakyRelu"};
  c.alpha = {0.3f, 0.9f, 0.7f, 1.5f, 0.2f};
  c.beta = {0.4f, 1.2f, -0.1f};
  check(c);
}

TEST(Recurrent, LstmOmittedOutputsAndRaggedReverse) {
  Cfg c;
  c.direction = "reverse";
  c.lens = {2, 3};
  c.y = false;  // Y_h and Y_c only
  c.initial = 2;
  check(c);
  c.y = true;
  c.yh = false;  // Y and Y_c
  check(c);
}

TEST(Recurrent, GruLinearBeforeReset0And1) {
  for (int64_t lbr : {0, 1}) {
    Cfg c;
    c.op = "GRU";
    c.lbr = lbr;
    c.initial = 1;
    check(c);
    c.initial = 2;  // the constant state folds into the first step
    c.direction = "reverse";
    check(c);
  }
}

TEST(Recurrent, GruBidirectionalLayout1ClipSequenceLens) {
  for (int64_t lbr : {0, 1}) {
    Cfg c;
    c.op = "GRU";
    c.lbr = lbr;
    c.direction = "bidirectional";
    c.layout = 1;
    c.clip = 0.5f;
    c.T = 5;
    c.B = 3;
    c.lens = {2, 5, 3};
    c.acts = {"Sigmoid", "Softsign", "HardSigmoid", "LeakyRelu"};
    c.alpha = {0.25f, 0.1f};
    c.beta = {0.45f};
    c.initial = 1;
    check(c);
  }
}

TEST(Recurrent, RnnActivationsAndDirections) {
  Cfg c;
  c.op = "RNN";
  c.direction = "bidirectional";
  c.acts = {"Relu", "Softplus"};
  c.lens = {3, 2};
  check(c);
  c.direction = "reverse";
  c.acts = {"ThresholdedRelu"};
  c.alpha = {0.1f};
  c.layout = 1;
  c.initial = 1;
  c.lens.clear();
  check(c);
  c.direction = "forward";
  c.acts = {"Affine"};
  c.alpha = {0.5f};
  c.beta = {0.25f};
  c.clip = 0.3f;
  c.initial = 2;
  check(c);
}

TEST(Recurrent, LongSequenceAtASmallBudgetSharesItsWeights) {
  Cfg c;
  c.clip = 50.0f;  // unrolled (the LSTM op's cell_clip is not ONNX's clip)
  c.T = 20;
  c.B = 1;
  c.I = 8;
  c.H = 16;
  c.initial = 1;
  c.y = false;  // the state alone: each step's working set is what the floor holds
  check(c, 0);
  c.y = true;
  check(c, 0);
  // Every step reads the same [W | R] and bias constants: the weights are stored once.
  Data d = make_data(c);
  compiler::Model m = compiler::load_model_bytes(model(c, d).bytes(), "rec.onnx");
  uint64_t source = (d.W.size() + d.R.size() + d.Bias.size()) * 4;
  EXPECT_LE(m.summary().weight_bytes, source + 1024) << "weights duplicated per step";
}

// LSTMs with the default activations and no clip, input_forget or peepholes map onto one LSTM
// op per direction: every direction, layout, initial state (absent, run-time, constant), batch,
// omitted output and bias, and a sequence_lens of all T.
TEST(Recurrent, LstmMapsOntoTheLstmOp) {
  for (const char* direction : {"forward", "reverse", "bidirectional"})
    for (int64_t layout : {0, 1})
      for (int initial : {0, 1, 2})
        for (int64_t B : {1, 3}) {
          Cfg c;
          SCOPED_TRACE(std::string(direction) + " layout " + std::to_string(layout) + " initial " +
                       std::to_string(initial) + " B " + std::to_string(B));
          c.direction = direction;
          c.layout = layout;
          c.initial = initial;
          c.B = B;
          c.T = 5;
          c.seed = static_cast<uint32_t>(10 + layout * 6 + initial * 2 + B);
          check(c);
        }
  for (const char* direction : {"forward", "bidirectional"}) {
    Cfg c;
    SCOPED_TRACE(direction);
    c.direction = direction;
    c.acts = {"sigmoid", "TANH", "Tanh"};  // the defaults, spelled out
    if (c.direction == "bidirectional") c.acts.insert(c.acts.end(), {"Sigmoid", "tanh", "Tanh"});
    c.lens = {3, 3};
    c.bias = false;
    check(c);
    c.y = false;
    check(c);
    c.y = true;
    c.yh = false;
    c.initial = 2;
    check(c);
    c.yh = true;
    c.yc = false;
    c.layout = 1;
    check(c);
  }
}

// Sequences the unrolled form could not fit in the default runtime's tensors (about 15 per step
// and direction): the LSTM op takes tensors independent of T, and matches the reference over
// 100 steps (run by this build's runtime, the default TIGRIS_MAX_TENSORS).
TEST(Recurrent, LongLstmMapsOntoTheLstmOpAndFitsTheDefaultRuntime) {
  Cfg c;
  c.T = 100;
  c.B = 1;
  c.I = 8;
  c.H = 16;
  check(c, 1u << 20, 0.0, 1e-5);
  Data d = make_data(c);
  compiler::Model m = compiler::load_model_bytes(model(c, d).bytes(), "rec.onnx");
  EXPECT_LE(m.summary().ops.size(), 10u) << "operators independent of T";
  c.initial = 2;
  c.layout = 1;
  check(c, 1u << 20, 0.0, 1e-5);
  c.direction = "bidirectional";
  c.B = 2;
  check(c, 1u << 20, 0.0, 1e-5);
}

TEST(Recurrent, GruAndRnnOverTwentyStepsAtTheFloor) {
  for (const char* op : {"GRU", "RNN"}) {
    Cfg c;
    c.op = op;
    c.T = 20;
    c.B = 1;
    c.I = 16;
    c.H = 32;
    c.initial = 2;
    check(c, 0);
  }
}

// X from a 1-D convolution (a channels-last tensor inside the plan), as CRNN-style audio models
// feed their LSTM: Conv (kernel 1) -> Transpose [L, N, C] -> LSTM.
TEST(Recurrent, LstmAfterAConvolution) {
  const int64_t C = 3, K = 4, L = 6, H = 5;
  uint32_t seed = 7;
  std::vector<float> x = random(static_cast<size_t>(C * L), seed, 1.0f);
  std::vector<float> w = random(static_cast<size_t>(K * C), seed, 0.8f);
  Cfg c;
  c.T = L;
  c.B = 1;
  c.I = K;
  c.H = H;
  Data d = make_data(c);
  test::OnnxBuilder b(14);
  b.input("in", {1, C, L});
  b.init("cw", {K, C, 1}, w);
  b.node("Conv", {"in", "cw"}, {"conv"}, "conv");
  test::OnnxBuilder::attr(b.node("Transpose", {"conv"}, {"X"}, "tr"), "perm", std::vector<int64_t>{2, 0, 1});
  b.init("W", {1, 4 * H, K}, d.W);
  b.init("R", {1, 4 * H, H}, d.R);
  b.init("B", {1, 8 * H}, d.Bias);
  test::OnnxBuilder::attr(b.node("LSTM", {"X", "W", "R", "B"}, {"Y"}, "rec"), "hidden_size", H);
  b.output("Y", {L, 1, 1, H});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "crnn.onnx");
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  compiler::Budgets budget;
  budget.fast = 1u << 20;
  compiler::CompileResult r = compiler::compile(m, budget);
  ASSERT_TRUE(r.ok()) << r.error;
  test::PlanRun run = test::run_plan(r.plan, {bytes_of(x)}, 1u << 20);
  ASSERT_EQ(run.error, "");
  // The reference's X: the convolution, time-major.
  d.X.assign(static_cast<size_t>(L * K), 0.0f);
  for (int64_t t = 0; t < L; ++t)
    for (int64_t k = 0; k < K; ++k) {
      double acc = 0;
      for (int64_t ch = 0; ch < C; ++ch)
        acc += double(w[static_cast<size_t>(k * C + ch)]) * x[static_cast<size_t>(ch * L + t)];
      d.X[static_cast<size_t>(t * K + k)] = static_cast<float>(acc);
    }
  expect_close(run.outputs.at(0), reference(c, d).Y, "LSTM after Conv");
}

// Long bidirectional sequences run both directions in one step (block-diagonal weights), so
// they fit the default runtime's 512 tensors: every feature through that form too.
TEST(Recurrent, LongBidirectionalSequencesShareTheirSteps) {
  for (const char* op : {"LSTM", "GRU", "RNN"})
    for (int64_t layout : {0, 1}) {
      Cfg c;
      SCOPED_TRACE(std::string(op) + " layout " + std::to_string(layout));
      c.op = op;
      c.direction = "bidirectional";
      c.layout = layout;
      c.T = c.op == "RNN" ? 52 : c.op == "LSTM" ? 12 : 18;
      c.B = 3;
      c.I = 5;
      c.H = 6;
      c.lens = {c.T, 7, c.T - 3};
      c.initial = layout ? 2 : 1;
      c.clip = 0.6f;
      c.peep = c.op == "LSTM";
      c.lbr = layout;
      check(c);
      c.lens.clear();
      c.initial = 0;
      c.clip.reset();
      c.lbr = 1 - layout;
      check(c);
    }
  for (const char* op : {"LSTM", "GRU"}) {
    Cfg c;
    c.op = op;
    c.direction = "bidirectional";
    c.T = 20;
    c.B = 1;
    c.I = 16;
    c.H = 32;
    check(c);
  }
}

TEST(Recurrent, RunTimeSequenceLensIsRefusedInOneLineNamingTheNode) {
  Cfg c;
  c.lens = {3, 2};
  Data d = make_data(c);
  compiler::Model m = compiler::load_model_bytes(model(c, d, true).bytes(), "rec.onnx");
  ASSERT_EQ(m.summary().unsupported_operators.size(), 1u);
  EXPECT_EQ(m.summary().unsupported_operators[0].name, "rec");
  compiler::Budgets budget;
  budget.fast = 1u << 20;
  compiler::CompileResult r = compiler::compile(m, budget);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("rec (LSTM: operand 'seq' is computed at run time"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("sequence_lens"), std::string::npos) << r.error;
}

TEST(Recurrent, UnlistedActivationIsRefusedNamingTheNode) {
  Cfg c;
  c.op = "RNN";
  c.acts = {"Gelu"};
  Data d = make_data(c);
  compiler::Model m = compiler::load_model_bytes(model(c, d).bytes(), "rec.onnx");
  ASSERT_EQ(m.summary().unsupported_operators.size(), 1u);
  EXPECT_EQ(m.summary().unsupported_operators[0].name, "rec");
  EXPECT_NE(m.summary().unsupported_operators[0].reason.find("'Gelu'"), std::string::npos);
}

}  // namespace
