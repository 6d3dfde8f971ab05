// UNIDIRECTIONAL_SEQUENCE_LSTM through the TFLite frontend and the plan lowering, on
// hand-built one-operator models (hidden 2, input 3, 2 steps): float and int8 convert and
// compile, h and c become the plan's state (int8 h starting at its zero point, as TensorFlow
// Lite Micro resets it) and carry from one run to the next; what TensorFlow Lite Micro's
// kernel does not do is refused with the feature named.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiler/api.h"
#include "compiler/report/plan_inspection.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "export/tflite/model.h"
#include "export/tflite/writer.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;
using tigris::test::bytes_of;

constexpr int kT = 2, kI = 3, kH = 2;

struct LstmModel {
  bool int8 = false;   // int8 x, h, y (int32 biases)
  bool int16 = false;  // with int8: 16x8, int16 x, h, y (int64 biases)
  tfl::Activation activation = tfl::Activation::Tanh;
  bool cifg = false, peephole = false, projection = false, layer_norm = false, time_major = false;
  float cell_clip = 0.0f;
};

std::vector<uint8_t> build(const LstmModel& s) {
  tfl::Model m;
  tfl::SubGraph sg;
  m.buffers.resize(1);
  auto add = [&](const std::string& name, std::vector<int32_t> shape, tfl::TensorType type, float scale, int64_t zp,
                 std::vector<uint8_t> data, bool variable = false) {
    tfl::Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.type = type;
    t.is_variable = variable;
    if (scale > 0.0f) t.quantization = tfl::Quantization{{}, {}, {scale}, {zp}, 0, false};
    if (!data.empty()) {
      m.buffers.push_back(tfl::Buffer{std::move(data)});
      t.buffer = static_cast<uint32_t>(m.buffers.size() - 1);
    }
    sg.tensors.push_back(t);
    return static_cast<int32_t>(sg.tensors.size() - 1);
  };
  const auto act = s.int16 ? tfl::TensorType::Int16 : s.int8 ? tfl::TensorType::Int8 : tfl::TensorType::Float32;
  const float as = s.int16 ? 0.0005f : s.int8 ? 0.05f : 0.0f;
  auto weight = [&](const std::string& name, int cols, int seed) {
    if (s.int8) {
      std::vector<int8_t> v;
      for (int k = 0; k < kH * cols; ++k) v.push_back(static_cast<int8_t>((k * 37 + seed * 11) % 200 - 100));
      return add(name, {kH, cols}, tfl::TensorType::Int8, 0.01f, 0, bytes_of(v));
    }
    std::vector<float> v;
    for (int k = 0; k < kH * cols; ++k) v.push_back(std::sin(0.7f * k + seed));
    return add(name, {kH, cols}, tfl::TensorType::Float32, 0.0f, 0, bytes_of(v));
  };
  auto bias = [&](const std::string& name, int seed) {
    if (s.int16) return add(name, {kH}, tfl::TensorType::Int64, 0.0f, 0, bytes_of(std::vector<int64_t>{40 * seed, -9}));
    if (s.int8) return add(name, {kH}, tfl::TensorType::Int32, 0.0f, 0, bytes_of(std::vector<int32_t>{40 * seed, -9}));
    return add(name, {kH}, tfl::TensorType::Float32, 0.0f, 0, bytes_of(std::vector<float>{0.1f * seed, -0.2f}));
  };
  std::vector<int32_t> in(24, -1);
  const std::vector<int32_t> xs = s.time_major ? std::vector<int32_t>{kT, 1, kI} : std::vector<int32_t>{1, kT, kI};
  const std::vector<int32_t> ys = s.time_major ? std::vector<int32_t>{kT, 1, kH} : std::vector<int32_t>{1, kT, kH};
  in[0] = add("x", xs, act, as, s.int8 ? -3 : 0, {});
  for (int g = 0; g < 4; ++g) in[1 + g] = weight("w" + std::to_string(g), kI, g);
  for (int g = 0; g < 4; ++g) in[5 + g] = weight("r" + std::to_string(g), kH, 4 + g);
  for (int g = 0; g < 4; ++g) in[12 + g] = bias("b" + std::to_string(g), g);
  if (s.cifg) in[1] = in[5] = in[12] = -1;
  if (s.peephole) in[10] = add("peephole", {kH}, act, as, 0, bytes_of(std::vector<int8_t>(s.int8 ? kH : kH * 4, 1)));
  if (s.projection) in[16] = weight("projection", kH, 9);
  if (s.layer_norm) in[21] = bias("norm", 1);
  const float hs = s.int16 ? 1.0f / 32768 : s.int8 ? 1.0f / 128 : 0.0f;
  in[18] = add("h", {1, kH}, act, hs, s.int8 ? 5 : 0, {}, true);
  in[19] = add("c", {1, kH}, s.int8 ? tfl::TensorType::Int16 : tfl::TensorType::Float32, s.int8 ? 1.0f / 2048 : 0.0f, 0,
               {}, true);
  const int32_t y = add("y", ys, act, hs, s.int8 ? 5 : 0, {});
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kUnidirectionalSequenceLstm, std::nullopt, 1});
  tfl::Operator op;
  op.inputs = in;
  op.outputs = {y};
  tfl::UnidirectionalSequenceLstmOptions o;
  o.activation = s.activation;
  o.cell_clip = s.cell_clip;
  o.time_major = s.time_major;
  op.options.type = tfl::OptionsType::UnidirectionalSequenceLstm;
  op.options.value = o;
  sg.operators.push_back(op);
  sg.inputs = {in[0]};
  sg.outputs = {y};
  m.subgraphs.push_back(sg);
  return tfl::write_model(m);
}

std::string reason(const LstmModel& s) {
  compiler::Model m = compiler::load_model_bytes(build(s), "lstm.tflite");
  return m.summary().unsupported_operators.empty() ? std::string() : m.summary().unsupported_operators[0].reason;
}

TEST(TfliteLstm, WhatTfliteMicrosKernelDoesNotDoIsRefusedByName) {
  EXPECT_EQ(reason({}), "");
  EXPECT_EQ(reason({true}), "");
  LstmModel s;
  s.cifg = true;
  EXPECT_NE(reason(s).find("CIFG"), std::string::npos) << reason(s);
  s = {};
  s.peephole = true;
  EXPECT_NE(reason(s).find("peephole"), std::string::npos) << reason(s);
  s = {};
  s.projection = true;
  EXPECT_NE(reason(s).find("projection"), std::string::npos) << reason(s);
  s = {};
  s.layer_norm = true;
  EXPECT_NE(reason(s).find("layer normalization"), std::string::npos) << reason(s);
  s = {};
  s.activation = tfl::Activation::Relu;
  EXPECT_NE(reason(s).find("cell activation"), std::string::npos) << reason(s);
}

// Compiles and runs the model twice on one state buffer; returns both outputs.
std::vector<std::vector<uint8_t>> run_twice(const LstmModel& s, const std::vector<uint8_t>& input,
                                            std::vector<uint8_t>* initial_state) {
  compiler::Model m = compiler::load_model_bytes(build(s), "lstm.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  EXPECT_TRUE(c.ok()) << c.error;
  std::vector<std::vector<uint8_t>> outs;
  if (!c.ok()) return outs;
  tigris_plan_t plan;
  EXPECT_EQ(tigris_plan_load(c.plan.data(), static_cast<uint32_t>(c.plan.size()), &plan), TIGRIS_OK);
  std::vector<uint8_t> state(tigris_state_required(&plan));
  EXPECT_EQ(tigris_state_init(&plan, state.data(), state.size()), TIGRIS_EXEC_OK);
  *initial_state = state;
  const uint32_t fast_size = tigris_fast_arena_required(&plan), slow_size = 1 << 16;
  std::unique_ptr<void, test::FreeDeleter> fast(std::aligned_alloc(64, (fast_size + 64) / 64 * 64));
  std::unique_ptr<void, test::FreeDeleter> slow(std::aligned_alloc(64, slow_size));
  std::vector<uint8_t> ws(tigris_executor_workspace_required(&plan) + 64);
  tigris_kernel_fn kernel = s.int8 ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
  for (int run = 0; run < 2; ++run) {
    std::vector<void*> ptrs(plan.header->num_tensors, nullptr);
    tigris_mem_t mem;
    EXPECT_EQ(
        tigris_mem_init(&mem, ptrs.data(), plan.header->num_tensors, fast.get(), fast_size, slow.get(), slow_size),
        TIGRIS_MEM_OK);
    EXPECT_EQ(tigris_input_write(&plan, &mem, plan.model_inputs[0], input.data(), static_cast<uint32_t>(input.size())),
              TIGRIS_OK);
    EXPECT_EQ(
        tigris_run_with_state(&plan, &mem, kernel, nullptr, nullptr, ws.data(), ws.size(), state.data(), state.size()),
        TIGRIS_EXEC_OK);
    std::vector<uint8_t> out(tigris_iface_bytes(&plan, plan.model_outputs[0]));
    EXPECT_EQ(tigris_output_read(&plan, &mem, plan.model_outputs[0], out.data(), static_cast<uint32_t>(out.size())),
              TIGRIS_OK);
    outs.push_back(out);
  }
  return outs;
}

TEST(TfliteLstm, HAndCAreThePlansStateAndCarryOver) {
  // float: state = h and c, 2 x 2 floats, zeros; int8: h (int8, its zero point 5) and c (int16, 0).
  std::vector<uint8_t> init;
  std::vector<float> xf = {0.5f, -1.0f, 0.25f, 1.0f, 0.0f, -0.5f};
  auto f = run_twice({}, bytes_of(xf), &init);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(init, std::vector<uint8_t>(16, 0));
  EXPECT_NE(f[0], f[1]);  // the same input after a first run starts from another h and c
  auto y0 = f[0];
  std::vector<float> v(4);
  std::memcpy(v.data(), y0.data(), 16);
  for (float e : v) EXPECT_TRUE(std::isfinite(e) && std::fabs(e) < 1.0f);

  LstmModel q;
  q.int8 = true;
  std::vector<int8_t> xq = {10, -20, 5, 40, -3, -13};
  auto r = run_twice(q, bytes_of(xq), &init);
  ASSERT_EQ(r.size(), 2u);
  // h's two bytes hold its zero point 5, c's four bytes (int16) and any padding 0.
  EXPECT_GE(init.size(), 6u);
  EXPECT_EQ(std::count(init.begin(), init.end(), 5), 2);
  EXPECT_EQ(std::count(init.begin(), init.end(), 0), static_cast<long>(init.size()) - 2);
  EXPECT_NE(r[0], r[1]);
}

// With one batch row, time-major [T,1,I] and batch-major [1,T,I] hold the same bytes: both
// forms give the same outputs (a time-major model read as batch-major would run T batches
// of one step each, from the initial state, and differ).
TEST(TfliteLstm, TimeMajorReadsStepsAlongAxisZero) {
  std::vector<uint8_t> init;
  std::vector<float> xf = {0.5f, -1.0f, 0.25f, 1.0f, 0.0f, -0.5f};
  LstmModel tm;
  tm.time_major = true;
  auto a = run_twice({}, bytes_of(xf), &init), b = run_twice(tm, bytes_of(xf), &init);
  EXPECT_EQ(a, b);
  LstmModel q, qt;
  q.int8 = qt.int8 = qt.time_major = true;
  std::vector<int8_t> xq = {10, -20, 5, 40, -3, -13};
  EXPECT_EQ(run_twice(q, bytes_of(xq), &init), run_twice(qt, bytes_of(xq), &init));
}

// 16x8: int16 x, h and y, int64 biases, through the frontend, lowering and int16 kernels; h
// starts at 0 (TFLite Micro resets non-int8 variables to 0 whatever their zero point) and
// the state carries over.
TEST(TfliteLstm, SixteenByEightConvertsAndKeepsState) {
  LstmModel s;
  s.int8 = s.int16 = true;
  EXPECT_EQ(reason(s), "");
  std::vector<uint8_t> init;
  std::vector<int16_t> x = {1000, -2000, 500, 4000, -300, -1300};
  auto r = run_twice(s, bytes_of(x), &init);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(init, std::vector<uint8_t>(init.size(), 0));
  EXPECT_EQ(r[0].size(), 8u);  // [1, 2, 2] int16
  EXPECT_NE(r[0], r[1]);
}

}  // namespace

namespace {

// tigris inspect counts the weights an LSTM names in CONSTANTS: 8 weight matrices of 2 x 3
// and 2 x 2 float32, 4 biases of 2 (4 x 24 + 4 x 16 + 4 x 8 = 192 bytes).
TEST(TfliteLstm, InspectCountsTheConstantsWeights) {
  compiler::Model m = compiler::load_model_bytes(build({}), "lstm.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  ASSERT_TRUE(c.ok()) << c.error;
  tigris_plan_t plan;
  tigris_plan_limits_t required;
  ASSERT_EQ(tigris_plan_load_ex(c.plan.data(), static_cast<uint32_t>(c.plan.size()), &plan, &required), TIGRIS_OK);
  const report::PlanInspection in = report::inspect_plan(plan, required, "lstm.tgrs", c.plan.size());
  uint64_t lstm_bytes = 0;
  for (const report::PlanOpType& t : in.op_types)
    if (t.type == "Lstm") lstm_bytes = t.weight_bytes;
  EXPECT_EQ(lstm_bytes, 192u);
}

}  // namespace
