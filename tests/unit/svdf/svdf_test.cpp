// TFLite SVDF, float and int8 (int16 and int8 state), through the whole path: a model
// written with the project's TFLite writer (two SVDF layers, unscrambled weights, so every
// output depends on the state), compiled, and run step by step with tigris_run_with_state,
// the state never reset. Each step is checked bit for bit against a plain per-step
// reference written here from TensorFlow Lite Micro's formulas (svdf_common.cc at
// 90b983c2: the state shifted left by one, the feature product written as the newest
// column, the time products per filter, summed over rank onto the bias; the integer form
// with QuantizeMultiplier / MultiplyByQuantizedMultiplier rescaling), with its own state.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>

#include <filesystem>

#include "compiler/api.h"
#include "compiler_support/npy.h"
#include "compiler_support/raw_bytes.h"
#include "export/tflite/model.h"
#include "export/tflite/writer.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_kernels.h"
#include "tigris_kernels_s8.h"
#include "tigris_loader.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;
using tigris::test::bytes_of;

// ---- reference arithmetic (TFLite's, written out here) ------------------------------------
void quantize_multiplier_ref(double real, int32_t* m, int* shift) {
  if (real == 0.0) {
    *m = 0, *shift = 0;
    return;
  }
  double q = std::frexp(real, shift);
  int64_t qf = static_cast<int64_t>(std::round(q * 2147483648.0));
  if (qf == 2147483648LL) qf /= 2, ++*shift;
  if (*shift < -31) *shift = 0, qf = 0;
  *m = static_cast<int32_t>(qf);
}

int32_t mbqm_ref(int32_t x, int32_t m, int shift) {
  int left = shift > 0 ? shift : 0, right = shift > 0 ? 0 : -shift;
  int64_t a = static_cast<int64_t>(static_cast<int32_t>(static_cast<uint32_t>(x) << left));
  int32_t high;
  if (a == INT32_MIN && m == INT32_MIN) {
    high = INT32_MAX;
  } else {
    int64_t ab = a * m;
    int64_t nudge = ab >= 0 ? (1LL << 30) : (1 - (1LL << 30));
    high = static_cast<int32_t>((ab + nudge) / (1LL << 31));
  }
  int32_t mask = static_cast<int32_t>((1LL << right) - 1);
  int32_t rem = high & mask, threshold = (mask >> 1) + (high < 0 ? 1 : 0);
  return (high >> right) + (rem > threshold ? 1 : 0);
}

// ---- model building -----------------------------------------------------------------------
struct Layer {
  int units = 0, rank = 0, memory = 0, in = 0;
  bool bias = false;
  tfl::Activation act = tfl::Activation::None;
  // float weights
  std::vector<float> feature, time, bias_f;
  // quantized
  std::vector<int8_t> feature_q;
  std::vector<int32_t> time_q;  // int16 or int8 values
  std::vector<int32_t> bias_q;
  float feature_scale = 0, time_scale = 0, state_scale = 0, out_scale = 0;
  int32_t state_zp = 0, out_zp = 0;
  bool state16 = true;
  int filters() const { return units * rank; }
};

// Deterministic weights: small integers of a hash, different per layer.
int32_t pattern(int layer, int i, int span) {
  uint32_t h = static_cast<uint32_t>(layer * 7919 + i * 104729 + 17);
  h ^= h >> 13, h *= 0x5bd1e995u, h ^= h >> 15;
  return static_cast<int32_t>(h % static_cast<uint32_t>(2 * span + 1)) - span;
}

Layer float_layer(int id, int in, int units, int rank, int memory, bool bias, tfl::Activation act) {
  Layer l;
  l.units = units, l.rank = rank, l.memory = memory, l.in = in, l.bias = bias, l.act = act;
  for (int i = 0; i < l.filters() * in; ++i) l.feature.push_back(pattern(id, i, 8) * 0.125f);
  for (int i = 0; i < l.filters() * memory; ++i) l.time.push_back(pattern(id + 10, i, 8) * 0.0625f);
  if (bias)
    for (int i = 0; i < units; ++i) l.bias_f.push_back(pattern(id + 20, i, 4) * 0.25f);
  return l;
}

Layer int8_layer(int id, int in, int units, int rank, int memory, bool bias, bool state16, float state_scale,
                 int32_t state_zp, float out_scale, int32_t out_zp) {
  Layer l;
  l.units = units, l.rank = rank, l.memory = memory, l.in = in, l.bias = bias;
  l.state16 = state16;
  l.feature_scale = 0.0123f;
  l.time_scale = state16 ? 0.00071f : 0.0213f;
  l.state_scale = state_scale, l.state_zp = state_zp, l.out_scale = out_scale, l.out_zp = out_zp;
  for (int i = 0; i < l.filters() * in; ++i) l.feature_q.push_back(static_cast<int8_t>(pattern(id, i, 127)));
  for (int i = 0; i < l.filters() * memory; ++i) l.time_q.push_back(pattern(id + 10, i, state16 ? 3000 : 127));
  if (bias)
    for (int i = 0; i < units; ++i) l.bias_q.push_back(pattern(id + 20, i, 20000));
  return l;
}

struct Builder {
  tfl::Model m;
  tfl::SubGraph sg;
  Builder() {
    m.buffers.resize(1);
    m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kSvdf, std::nullopt, 1});
  }
  int32_t tensor(const std::string& name, std::vector<int32_t> shape, tfl::TensorType type,
                 std::vector<uint8_t> data = {}, float scale = 0, int32_t zp = 0, bool variable = false) {
    tfl::Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.type = type;
    t.is_variable = variable;
    if (!data.empty()) {
      m.buffers.push_back(tfl::Buffer{std::move(data)});
      t.buffer = static_cast<uint32_t>(m.buffers.size() - 1);
    }
    if (scale > 0) {
      tfl::Quantization q;
      q.scale = {scale};
      q.zero_point = {zp};
      t.quantization = q;
    }
    sg.tensors.push_back(std::move(t));
    return static_cast<int32_t>(sg.tensors.size() - 1);
  }
  // One SVDF from x to a new output tensor.
  int32_t svdf(int32_t x, const Layer& l, const std::string& tag, bool quantized) {
    using TT = tfl::TensorType;
    int32_t wf, wt, b = -1, s, y;
    int f = l.filters();
    if (!quantized) {
      wf = tensor(tag + "_feature", {f, l.in}, TT::Float32, bytes_of(l.feature));
      wt = tensor(tag + "_time", {f, l.memory}, TT::Float32, bytes_of(l.time));
      if (l.bias) b = tensor(tag + "_bias", {l.units}, TT::Float32, bytes_of(l.bias_f));
      s = tensor(tag + "_state", {1, f * l.memory}, TT::Float32, {}, 0, 0, true);
      y = tensor(tag + "_out", {1, l.units}, TT::Float32);
    } else {
      wf = tensor(tag + "_feature", {f, l.in}, TT::Int8, bytes_of(l.feature_q), l.feature_scale);
      std::vector<uint8_t> tb;
      if (l.state16) {
        std::vector<int16_t> v(l.time_q.begin(), l.time_q.end());
        tb = bytes_of(v);
      } else {
        std::vector<int8_t> v(l.time_q.begin(), l.time_q.end());
        tb = bytes_of(v);
      }
      TT st = l.state16 ? TT::Int16 : TT::Int8;
      wt = tensor(tag + "_time", {f, l.memory}, st, tb, l.time_scale);
      if (l.bias) b = tensor(tag + "_bias", {l.units}, TT::Int32, bytes_of(l.bias_q), l.state_scale * l.time_scale);
      s = tensor(tag + "_state", {1, f * l.memory}, st, {}, l.state_scale, l.state_zp, true);
      y = tensor(tag + "_out", {1, l.units}, TT::Int8, {}, l.out_scale, l.out_zp);
    }
    tfl::Operator op;
    op.inputs = {x, wf, wt, b, s};
    op.outputs = {y};
    tfl::SVDFOptions o;
    o.rank = l.rank;
    o.activation = l.act;
    op.options.type = tfl::OptionsType::Svdf;
    op.options.value = o;
    sg.operators.push_back(op);
    return y;
  }
};

// ---- the plain references -------------------------------------------------------------------
struct FloatRef {
  Layer l;
  std::vector<float> state;
  explicit FloatRef(const Layer& layer) : l(layer), state(static_cast<size_t>(layer.filters() * layer.memory), 0.0f) {}
  std::vector<float> step(const std::vector<float>& x) {
    const int F = l.filters(), M = l.memory;
    for (int i = 0; i + 1 < F * M; ++i) state[i] = state[i + 1];
    for (int f = 0; f < F; ++f) {
      float dot = 0.0f;
      for (int k = 0; k < l.in; ++k) dot += l.feature[f * l.in + k] * x[k];
      state[f * M + M - 1] = dot;
    }
    std::vector<float> y(static_cast<size_t>(l.units));
    for (int u = 0; u < l.units; ++u) {
      float acc = l.bias ? l.bias_f[u] : 0.0f;
      for (int r = 0; r < l.rank; ++r) {
        int f = u * l.rank + r;
        float t = 0.0f;
        for (int m = 0; m < M; ++m) t += l.time[f * M + m] * state[f * M + m];
        acc += t;
      }
      if (l.act == tfl::Activation::Relu) acc = std::max(0.0f, acc);
      if (l.act == tfl::Activation::Relu6) acc = std::max(0.0f, std::min(acc, 6.0f));
      y[u] = acc;
    }
    return y;
  }
};

struct IntRef {
  Layer l;
  float in_scale;
  int32_t in_zp;
  std::vector<int32_t> state;
  IntRef(const Layer& layer, float s, int32_t z)
      : l(layer), in_scale(s), in_zp(z), state(static_cast<size_t>(layer.filters() * layer.memory), layer.state_zp) {}
  std::vector<int8_t> step(const std::vector<int8_t>& x) {
    const int F = l.filters(), M = l.memory;
    const int32_t lo = l.state16 ? -32768 : -128, hi = l.state16 ? 32767 : 127;
    int32_t m1, m2;
    int s1, s2;
    quantize_multiplier_ref(static_cast<double>(in_scale * l.feature_scale / l.state_scale), &m1, &s1);
    quantize_multiplier_ref(static_cast<double>(l.state_scale * l.time_scale / l.out_scale), &m2, &s2);
    for (int i = 0; i + 1 < F * M; ++i) state[i] = state[i + 1];
    for (int f = 0; f < F; ++f) {
      int32_t dot = 0;
      for (int k = 0; k < l.in; ++k) dot += l.feature_q[f * l.in + k] * (x[k] - in_zp);
      dot = std::min(std::max(mbqm_ref(dot, m1, s1), lo), hi);
      int32_t v = l.state_zp + dot;  // stored as the state's type (wraps like TFLM's store)
      state[f * M + M - 1] = l.state16 ? static_cast<int16_t>(v) : static_cast<int8_t>(v);
    }
    std::vector<int8_t> y(static_cast<size_t>(l.units));
    for (int u = 0; u < l.units; ++u) {
      int64_t acc = l.bias ? l.bias_q[u] : 0;
      for (int r = 0; r < l.rank; ++r) {
        int f = u * l.rank + r;
        for (int m = 0; m < M; ++m) acc += static_cast<int64_t>(l.time_q[f * M + m]) * (state[f * M + m] - l.state_zp);
      }
      EXPECT_EQ(acc, static_cast<int32_t>(acc)) << "test weights overflow int32";
      int32_t v = mbqm_ref(static_cast<int32_t>(acc), m2, s2) + l.out_zp;
      y[u] = static_cast<int8_t>(std::min(std::max(v, -128), 127));
    }
    return y;
  }
};

// ---- running a plan with state --------------------------------------------------------------
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};

struct StatefulRun {
  std::vector<uint8_t> bytes;
  tigris_plan_t plan{};
  std::unique_ptr<void, FreeDeleter> fast, slow;
  std::vector<void*> ptrs;
  tigris_mem_t mem{};
  std::vector<uint8_t> ws, state;
  uint32_t fast_size = 0;
  bool loaded = false;

  explicit StatefulRun(std::vector<uint8_t> plan_bytes) : bytes(std::move(plan_bytes)) {
    loaded = tigris_plan_load(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan) == TIGRIS_OK;
    EXPECT_TRUE(loaded) << "the loader refuses the plan";
    if (!loaded) return;
    fast_size = tigris_fast_arena_required(&plan);
    const uint32_t slow_size = 1 << 16;
    fast.reset(std::aligned_alloc(64, (fast_size + 64) / 64 * 64));
    slow.reset(std::aligned_alloc(64, slow_size));
    ptrs.assign(plan.header->num_tensors, nullptr);
    EXPECT_EQ(
        tigris_mem_init(&mem, ptrs.data(), plan.header->num_tensors, fast.get(), fast_size, slow.get(), slow_size),
        TIGRIS_MEM_OK);
    ws.resize(tigris_executor_workspace_required(&plan) + 64);
    state.resize(tigris_state_required(&plan));
    EXPECT_GT(state.size(), 0u);
    EXPECT_EQ(tigris_state_init(&plan, state.data(), state.size()), TIGRIS_EXEC_OK);
  }
  std::vector<uint8_t> step(const std::vector<uint8_t>& x) {
    if (!loaded) return {};
    uint16_t in = plan.model_inputs[0], out = plan.model_outputs[0];
    EXPECT_EQ(tigris_input_write(&plan, &mem, in, x.data(), static_cast<uint32_t>(x.size())), TIGRIS_OK);
    tigris_kernel_fn k =
        tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8 ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
    tigris_exec_stats_t stats{};
    tigris_exec_error_t e =
        tigris_run_with_state(&plan, &mem, k, nullptr, &stats, ws.data(), ws.size(), state.data(), state.size());
    EXPECT_EQ(e, TIGRIS_EXEC_OK) << tigris_exec_error_str(e);
    std::vector<uint8_t> y(tigris_iface_bytes(&plan, out));
    EXPECT_EQ(tigris_output_read(&plan, &mem, out, y.data(), static_cast<uint32_t>(y.size())), TIGRIS_OK);
    return y;
  }
};

// kFloor: compiled at the model's floor (the smallest fast budget any plan fits).
constexpr uint64_t kFloor = 0;

std::vector<uint8_t> compile_bytes(const std::vector<uint8_t>& model, uint64_t fast) {
  compiler::Model m = compiler::load_model_bytes(model, "svdf.tflite");
  compiler::Budgets b;
  b.fast = fast == kFloor ? 16u << 20 : fast;
  compiler::CompileResult c = compiler::compile(m, b);
  EXPECT_TRUE(c.ok()) << c.error;
  if (fast == kFloor && c.ok()) {
    b.fast = c.schedule.fast.minimum_for_partition_bytes;
    EXPECT_GT(b.fast, 0u);
    c = compiler::compile(m, b);
    EXPECT_TRUE(c.ok()) << "at the floor " << b.fast << ": " << c.error;
  }
  return c.plan;
}

// x_t for step t: a fixed deterministic sequence.
std::vector<float> float_input(int t, int n) {
  std::vector<float> x;
  for (int k = 0; k < n; ++k) x.push_back(static_cast<float>(pattern(100 + t, k, 16)) * 0.0625f);
  return x;
}
std::vector<int8_t> int8_input(int t, int n) {
  std::vector<int8_t> x;
  for (int k = 0; k < n; ++k) x.push_back(static_cast<int8_t>(pattern(200 + t, k, 127)));
  return x;
}

constexpr int kSteps = 9;

// With TIGRIS_SVDF_DUMP=<dir>, the test models, their inputs and TiGrIS's outputs are written
// there (<case>.tflite, <case>/in_k.bin, <case>/tigris_out_k.bin, the state buffer after the
// run as <case>/tigris_state_k.bin) for a check against a local
// TensorFlow Lite Micro build (docs/operators.md §3.8 notes the one made).
void dump(const std::string& name, const std::vector<uint8_t>& model, int k, const std::vector<uint8_t>& x,
          const std::vector<uint8_t>& y, const std::vector<uint8_t>& state = {}) {
  const char* root = std::getenv("TIGRIS_SVDF_DUMP");
  if (root == nullptr) return;
  const std::string dir = std::string(root) + "/" + name;
  std::filesystem::create_directories(dir);
  auto write = [](const std::string& path, const std::vector<uint8_t>& b) {
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  };
  if (k == 0) write(dir + ".tflite", model);
  write(dir + "/in_" + std::to_string(k) + ".bin", x);
  write(dir + "/tigris_out_" + std::to_string(k) + ".bin", y);
  if (!state.empty()) write(dir + "/tigris_state_" + std::to_string(k) + ".bin", state);
}

// second_bias: TFLite Micro (90b983c2) aborts in PrepareSvdf on an SVDF without a bias (its
// TODO #1751), so only the models with both biases were also checked against it.
void float_model(const std::string& name, tfl::Activation act, uint64_t fast, bool second_bias) {
  Layer a = float_layer(1, 5, 4, 2, 3, true, act), b = float_layer(2, 4, 3, 1, 4, second_bias, tfl::Activation::None);
  Builder m;
  int32_t x = m.tensor("x", {1, 5}, tfl::TensorType::Float32);
  int32_t h = m.svdf(x, a, "svdf1", false);
  int32_t y = m.svdf(h, b, "svdf2", false);
  m.sg.inputs = {x};
  m.sg.outputs = {y};
  m.m.subgraphs.push_back(m.sg);
  std::vector<uint8_t> tflite = tfl::write_model(m.m);
  std::vector<uint8_t> plan = compile_bytes(tflite, fast);
  ASSERT_FALSE(plan.empty());
  StatefulRun run(plan);
  ASSERT_TRUE(run.loaded);
  FloatRef ra(a), rb(b);
  bool state_visible = false;
  for (int t = 0; t < kSteps; ++t) {
    std::vector<float> xin = float_input(t, 5);
    std::vector<float> expect = rb.step(ra.step(xin));
    std::vector<uint8_t> got = run.step(bytes_of(xin));
    dump(name, tflite, t, bytes_of(xin), got, run.state);
    ASSERT_EQ(got.size(), expect.size() * 4);
    std::vector<float> g(expect.size());
    std::memcpy(g.data(), got.data(), got.size());
    for (size_t u = 0; u < expect.size(); ++u) EXPECT_EQ(g[u], expect[u]) << "step " << t << " unit " << u;
    // The same input on fresh state gives something else from the second step on.
    FloatRef fa(a), fb(b);
    if (fb.step(fa.step(xin)) != expect) state_visible = true;
  }
  EXPECT_TRUE(state_visible) << "the test model's outputs do not depend on the state";
  // tigris_state_init resets: the first step repeats.
  ASSERT_EQ(tigris_state_init(&run.plan, run.state.data(), run.state.size()), TIGRIS_EXEC_OK);
  FloatRef fa(a), fb(b);
  std::vector<float> x0 = float_input(0, 5), e0 = fb.step(fa.step(x0));
  std::vector<uint8_t> got = run.step(bytes_of(x0));
  EXPECT_EQ(got, bytes_of(e0));
}

TEST(TfliteSvdf, FloatTwoLayersRank2And1AcrossRuns) {
  float_model("float_none", tfl::Activation::None, 1 << 16, false);
}
TEST(TfliteSvdf, FloatFusedReluAcrossRuns) { float_model("float_relu", tfl::Activation::Relu, 1 << 16, true); }
TEST(TfliteSvdf, FloatAtTheFloor) { float_model("float_relu6_floor", tfl::Activation::Relu6, kFloor, true); }

void int8_model(const std::string& name, bool second_state16, uint64_t fast, bool second_bias) {
  const float in_scale = 0.0472f;
  const int32_t in_zp = 3;
  Layer a = int8_layer(1, 6, 4, 2, 3, true, true, 0.0031f, 0, 1.5f, -5);
  Layer b =
      int8_layer(2, 4, 3, 1, 5, true, second_state16, second_state16 ? 0.0077f : 2.0f, second_state16 ? 0 : 7, 4.0f, 2);
  if (!second_bias) b.bias = false, b.bias_q.clear();
  Builder m;
  int32_t x = m.tensor("x", {1, 6}, tfl::TensorType::Int8, {}, in_scale, in_zp);
  int32_t h = m.svdf(x, a, "svdf1", true);
  int32_t y = m.svdf(h, b, "svdf2", true);
  m.sg.inputs = {x};
  m.sg.outputs = {y};
  m.m.subgraphs.push_back(m.sg);
  std::vector<uint8_t> tflite = tfl::write_model(m.m);
  std::vector<uint8_t> plan = compile_bytes(tflite, fast);
  ASSERT_FALSE(plan.empty());
  StatefulRun run(plan);
  ASSERT_TRUE(run.loaded);
  IntRef ra(a, in_scale, in_zp), rb(b, a.out_scale, a.out_zp);
  bool state_visible = false;
  for (int t = 0; t < kSteps; ++t) {
    std::vector<int8_t> xin = int8_input(t, 6);
    std::vector<int8_t> expect = rb.step(ra.step(xin));
    std::vector<uint8_t> got = run.step(bytes_of(xin));
    dump(name, tflite, t, bytes_of(xin), got, run.state);
    ASSERT_EQ(got.size(), expect.size());
    for (size_t u = 0; u < expect.size(); ++u)
      EXPECT_EQ(static_cast<int8_t>(got[u]), expect[u]) << "step " << t << " unit " << u;
    IntRef fa(a, in_scale, in_zp), fb(b, a.out_scale, a.out_zp);
    if (fb.step(fa.step(xin)) != expect) state_visible = true;
  }
  EXPECT_TRUE(state_visible) << "the test model's outputs do not depend on the state";
}

TEST(TfliteSvdf, Int8WithInt16StatesAcrossRuns) { int8_model("int8_state16", true, 1 << 16, true); }
TEST(TfliteSvdf, Int8WithAnInt8StateAndZeroPointAcrossRuns) { int8_model("int8_state8", false, 1 << 16, true); }
TEST(TfliteSvdf, Int8AtTheFloor) { int8_model("int8_state16_floor", true, kFloor, false); }

// Refusals name the reason.
TEST(TfliteSvdf, MismatchedStateAndTimeTypesAreRefused) {
  Layer a = int8_layer(1, 6, 4, 2, 3, true, true, 0.0031f, 0, 0.0917f, -5);
  Builder m;
  int32_t x = m.tensor("x", {1, 6}, tfl::TensorType::Int8, {}, 0.05f, 0);
  int32_t y = m.svdf(x, a, "svdf1", true);
  m.sg.tensors[static_cast<size_t>(m.sg.operators[0].inputs[4])].type = tfl::TensorType::Int8;
  m.sg.inputs = {x};
  m.sg.outputs = {y};
  m.m.subgraphs.push_back(m.sg);
  compiler::Model model = compiler::load_model_bytes(tfl::write_model(m.m), "svdf.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(model, b);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error.find("TFLite Micro computes both in the time weights' type"), std::string::npos) << c.error;
}

// TensorFlow Lite Micro's own SVDF models (scrambled weights: their outputs are constant, so
// they check the operators and types, not the state), their recorded inputs run in order on
// one state, never reset, bit for bit against TFLM's outputs, at 16M and at the floor.
void tflm_keyword(const std::string& name, uint64_t fast) {
  const std::string dir = std::string(TIGRIS_MODELS_DIR) + "/refs/tflite-micro/" + name + "/";
  const std::string model = std::string(TIGRIS_MODELS_DIR) + "/tflite-micro/" + name + ".tflite";
  if (!std::filesystem::exists(model) || !std::filesystem::exists(dir + "STATEFUL")) GTEST_SKIP() << model;
  std::ifstream f(model, std::ios::binary);
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<uint8_t> plan = compile_bytes(bytes, fast);
  ASSERT_FALSE(plan.empty());
  StatefulRun run(plan);
  ASSERT_TRUE(run.loaded);
  int k = 0;
  for (; std::filesystem::exists(dir + "output_" + std::to_string(k) + ".npy"); ++k) {
    test::NpyArray x = test::read_npy(dir + "input_" + std::to_string(k) + ".npy");
    test::NpyArray y = test::read_npy(dir + "output_" + std::to_string(k) + ".npy");
    EXPECT_EQ(run.step(x.data), y.data) << name << " input " << k << " differs from TensorFlow Lite Micro";
  }
  EXPECT_GT(k, 0);
}

TEST(TfliteSvdf, KeywordScrambledMatchesTflm) { tflm_keyword("keyword_scrambled", 16u << 20); }
TEST(TfliteSvdf, KeywordScrambledMatchesTflmAtTheFloor) { tflm_keyword("keyword_scrambled", kFloor); }
TEST(TfliteSvdf, KeywordScrambled8bitMatchesTflm) { tflm_keyword("keyword_scrambled_8bit", 16u << 20); }
TEST(TfliteSvdf, KeywordScrambled8bitMatchesTflmAtTheFloor) { tflm_keyword("keyword_scrambled_8bit", kFloor); }

// SOFTMAX int8 -> int16 (TFLite Micro's form; keyword_scrambled* end with one): the int16
// output, (1/65536, -32768), against the float softmax of the dequantized input. TFLite's
// integer softmax is within a few output steps of it; an int8-scaled or offset result is
// off by hundreds.
TEST(TfliteSvdf, SoftmaxInt8ToInt16) {
  const float in_scale = 0.0625f;
  const int32_t in_zp = -3;
  Builder m;
  m.m.operator_codes[0] = tfl::OperatorCode{tfl::op::kSoftmax, std::nullopt, 1};
  int32_t x = m.tensor("x", {2, 10}, tfl::TensorType::Int8, {}, in_scale, in_zp);
  int32_t y = m.tensor("y", {2, 10}, tfl::TensorType::Int16, {}, 1.0f / 65536.0f, -32768);
  tfl::Operator op;
  op.inputs = {x};
  op.outputs = {y};
  op.options.type = tfl::OptionsType::Softmax;
  op.options.value = tfl::SoftmaxOptions{1.0f};
  m.sg.operators.push_back(op);
  m.sg.inputs = {x};
  m.sg.outputs = {y};
  m.m.subgraphs.push_back(m.sg);
  std::vector<uint8_t> tflite = tfl::write_model(m.m);
  compiler::Model model = compiler::load_model_bytes(tflite, "softmax.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(model, b);
  ASSERT_TRUE(c.ok()) << c.error;
  std::vector<int8_t> xin;
  for (int k = 0; k < 20; ++k) xin.push_back(static_cast<int8_t>(pattern(300, k, 60)));
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(c.plan.data(), static_cast<uint32_t>(c.plan.size()), &plan), TIGRIS_OK);
  uint32_t fast_size = tigris_fast_arena_required(&plan);
  std::unique_ptr<void, FreeDeleter> fast(std::aligned_alloc(64, (fast_size + 64) / 64 * 64));
  std::vector<void*> ptrs(plan.header->num_tensors, nullptr);
  tigris_mem_t mem;
  ASSERT_EQ(tigris_mem_init(&mem, ptrs.data(), plan.header->num_tensors, fast.get(), fast_size, nullptr, 0),
            TIGRIS_MEM_OK);
  ASSERT_EQ(tigris_input_write(&plan, &mem, plan.model_inputs[0], xin.data(), 20), TIGRIS_OK);
  std::vector<uint8_t> ws(tigris_executor_workspace_required(&plan) + 64);
  tigris_exec_stats_t stats{};
  ASSERT_EQ(
      tigris_run_with_workspace_buffer(&plan, &mem, tigris_dispatch_kernel_s8, nullptr, &stats, ws.data(), ws.size()),
      TIGRIS_EXEC_OK);
  std::vector<int16_t> got(20);
  ASSERT_EQ(tigris_output_read(&plan, &mem, plan.model_outputs[0], got.data(), 40), TIGRIS_OK);
  dump("softmax_int8_int16", tflite, 0, bytes_of(xin), bytes_of(got));
  for (int row = 0; row < 2; ++row) {
    double mx = -1e9, sum = 0;
    for (int k = 0; k < 10; ++k) mx = std::max(mx, double(in_scale) * (xin[row * 10 + k] - in_zp));
    for (int k = 0; k < 10; ++k) sum += std::exp(double(in_scale) * (xin[row * 10 + k] - in_zp) - mx);
    for (int k = 0; k < 10; ++k) {
      double p = std::exp(double(in_scale) * (xin[row * 10 + k] - in_zp) - mx) / sum;
      double q = (got[row * 10 + k] + 32768) / 65536.0;
      EXPECT_NEAR(q, p, 4.0 / 65536.0) << "row " << row << " element " << k;
    }
  }
}

}  // namespace
