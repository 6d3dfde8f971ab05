// Float FULLY_CONNECTED with a fused ReLU / ReLU6 (hello_world_float's pattern: three layers,
// the first two fused), through the frontend, the passes, lowering and the float kernels;
// values derived by hand, exact in binary floating point:
//   x = 2: layer 1 W = {1, -1}, b = {0.5, 0.5}      -> {2.5, -1.5} -> ReLU {2.5, 0}
//          layer 2 W = {{1, 1}, {-1, 0}}, b = {0, 0.5} -> {2.5, -2}  -> ReLU {2.5, 0}
//          layer 3 W = {{1, 1}}, b = {-1}             -> 1.5
//   (dropping the activations gives layer 2 {1, -2} and -2: the bug this pins.)
//   x = 10 with ReLU6: {10.5, -9.5} -> {6, 0}; {6, -5.5} -> {6, 0}; 6 - 1 = 5.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "compiler/api.h"
#include "compiler/passes/pipeline.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "export/tflite/model.h"
#include "export/tflite/writer.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;
using tigris::test::floats;

tfl::Tensor tensor(const std::string& name, std::vector<int32_t> shape, uint32_t buffer) {
  tfl::Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.type = tfl::TensorType::Float32;
  t.buffer = buffer;
  return t;
}

// Three float FULLY_CONNECTED layers; the first two with activation `act`.
std::vector<uint8_t> three_layers(tfl::Activation act) {
  tfl::Model m;
  m.buffers.resize(7);
  m.buffers[1].data = floats({1, -1});
  m.buffers[2].data = floats({0.5f, 0.5f});
  m.buffers[3].data = floats({1, 1, -1, 0});
  m.buffers[4].data = floats({0, 0.5f});
  m.buffers[5].data = floats({1, 1});
  m.buffers[6].data = floats({-1});
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kFullyConnected, std::nullopt, 1});
  tfl::SubGraph sg;
  sg.tensors = {tensor("x", {1, 1}, 0),  tensor("w1", {2, 1}, 1), tensor("b1", {2}, 2),    tensor("h1", {1, 2}, 0),
                tensor("w2", {2, 2}, 3), tensor("b2", {2}, 4),    tensor("h2", {1, 2}, 0), tensor("w3", {1, 2}, 5),
                tensor("b3", {1}, 6),    tensor("y", {1, 1}, 0)};
  auto layer = [&](int32_t in, int32_t w, int32_t b, int32_t out, tfl::Activation a) {
    tfl::Operator op;
    op.inputs = {in, w, b};
    op.outputs = {out};
    tfl::FullyConnectedOptions o;
    o.activation = a;
    op.options.type = tfl::OptionsType::FullyConnected;
    op.options.value = o;
    sg.operators.push_back(op);
  };
  layer(0, 1, 2, 3, act);
  layer(3, 4, 5, 6, act);
  layer(6, 7, 8, 9, tfl::Activation::None);
  sg.inputs = {0};
  sg.outputs = {9};
  m.subgraphs.push_back(sg);
  return tfl::write_model(m);
}

float run(const std::vector<uint8_t>& model, float x) {
  compiler::Model m = compiler::load_model_bytes(model, "fc.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  EXPECT_TRUE(c.ok()) << c.error;
  if (!c.ok()) return NAN;
  test::PlanRun r = test::run_plan(c.plan, {floats({x})}, 1 << 16);
  EXPECT_EQ(r.error, "");
  if (!r.error.empty()) return NAN;
  float y;
  std::memcpy(&y, r.outputs.at(0).data(), 4);
  return y;
}

TEST(TfliteFloatFullyConnected, FusedReluIsApplied) { EXPECT_EQ(run(three_layers(tfl::Activation::Relu), 2.0f), 1.5f); }

TEST(TfliteFloatFullyConnected, FusedRelu6IsApplied) {
  EXPECT_EQ(run(three_layers(tfl::Activation::Relu6), 10.0f), 5.0f);
}

TEST(TfliteFloatFullyConnected, WithoutActivationNothingIsClamped) {
  EXPECT_EQ(run(three_layers(tfl::Activation::None), 2.0f), -2.0f);
}

// The pass that rebuilt the Gemm dropped the activation: it must stay on the node that
// ends the computation (the Gemm, or the Add of a full C matrix).
TEST(TfliteFloatFullyConnected, GemmFoldingKeepsTheFusedActivation) {
  ir::Graph g;
  auto add = [&](const std::string& name, ir::Shape shape, std::vector<float> data) {
    ir::Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    if (!data.empty()) {
      t.constant = true;
      t.data = floats(data);
    }
    return g.add_tensor(std::move(t));
  };
  ir::TensorId a = add("a", {2, 2}, {}), w = add("w", {2, 2}, {1, 2, 3, 4}), c = add("c", {2, 2}, {1, 1, 1, 1});
  ir::TensorId y = add("y", {2, 2}, {}), y2 = add("y2", {2, 2}, {});
  g.inputs = {a};
  g.outputs = {y, y2};
  ir::Node direct;
  direct.name = "fc";
  direct.op = "Gemm";
  direct.inputs = {a, w};
  direct.outputs = {y};
  direct.attrs.set("transB", int64_t{1});
  direct.attrs.set("alpha", 2.0f);
  direct.attrs.set("fused_activation", std::string("Relu6"));
  ir::Node full = direct;
  full.name = "fc_c";
  full.inputs = {a, w, c};
  full.outputs = {y2};
  g.nodes = {direct, full};
  passes::fold_gemm_scalars(g);
  ASSERT_EQ(g.nodes.size(), 3u);
  EXPECT_EQ(g.nodes[0].op, "Gemm");
  EXPECT_EQ(g.nodes[0].attrs.get_string("fused_activation", ""), "Relu6");
  EXPECT_EQ(g.nodes[1].op, "Gemm");
  EXPECT_FALSE(g.nodes[1].attrs.has("fused_activation"));
  EXPECT_EQ(g.nodes[2].op, "Add");
  EXPECT_EQ(g.nodes[2].attrs.get_string("fused_activation", ""), "Relu6");
}

}  // namespace
