// ONNX If and Loop compiled and run on the host runtime: an If on a run-time condition whose
// branches compute different things from outer tensors, and Loops ending on a run-time
// condition or trip count; Scan 8 unrolled per batch element. Expected values and copy_bytes are derived by hand from
// the ONNX specification and the copy rules of docs/executor.md.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/api.h"
#include "compiler/ir/graph.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "onnx_builder.h"
#include "tigris_loader.h"

namespace {

using namespace tigris;
using onnx::TensorProto;

using test::bytes_of;
using test::values_of;

void value(onnx::ValueInfoProto* vi, const std::string& name, int elem, const std::vector<int64_t>& dims) {
  vi->set_name(name);
  auto* tt = vi->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(elem);
  auto* shape = tt->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, const std::vector<std::string>& in,
                          const std::vector<std::string>& out) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(g->name() + "_" + op + std::to_string(g->node_size()));
  for (const auto& i : in) n->add_input(i);
  for (const auto& o : out) n->add_output(o);
  return n;
}

onnx::GraphProto* graph_attr(onnx::NodeProto& n, const std::string& name) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

void float_init(onnx::GraphProto* g, const std::string& name, float v) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(TensorProto::FLOAT);
  t->add_dims(1);
  t->add_float_data(v);
}

struct Compiled {
  std::vector<uint8_t> plan;
  test::PlanRun run;
};

Compiled compile_and_run(test::OnnxBuilder& b, const std::vector<std::vector<uint8_t>>& inputs) {
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  EXPECT_TRUE(m.summary().supported()) << (m.summary().supported() ? "" : m.summary().unsupported_operators.at(0).reason);
  compiler::Budgets budget;
  budget.fast = 4096;
  compiler::CompileResult c = compiler::compile(m, budget);
  EXPECT_TRUE(c.ok()) << c.error;
  Compiled out;
  if (!c.ok()) return out;
  out.plan = c.plan;
  out.run = test::run_plan(c.plan, inputs, 1 << 16);
  EXPECT_EQ(out.run.error, "");
  return out;
}

// z = Relu(If(c) then x + y else x * k), k an outer initializer; x, y outer inputs.
test::OnnxBuilder if_model() {
  test::OnnxBuilder b(13);
  b.input("c", {1}, TensorProto::BOOL);
  b.input("x", {4});
  b.input("y", {4});
  b.output("z", {4});
  float_init(b.proto().mutable_graph(), "k", 3.0f);
  onnx::NodeProto& n = b.node("If", {"c"}, {"picked"}, "choose");
  onnx::GraphProto* then_g = graph_attr(n, "then_branch");
  add_node(then_g, "Add", {"x", "y"}, {"sum"});
  value(then_g->add_output(), "sum", TensorProto::FLOAT, {4});
  onnx::GraphProto* else_g = graph_attr(n, "else_branch");
  add_node(else_g, "Mul", {"x", "k"}, {"scaled"});
  value(else_g->add_output(), "scaled", TensorProto::FLOAT, {4});
  b.node("Relu", {"picked"}, {"z"});
  return b;
}

TEST(ControlFlow, IfBranchesComputeFromOuterTensors) {
  test::OnnxBuilder b = if_model();
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  // The If reads c, then the outer names its branches read: x and y (k is a constant, copied in).
  const ir::Graph& g = m.graph();
  ASSERT_EQ(g.subgraphs.size(), 2u);
  EXPECT_EQ(g.subgraphs[0].inputs.size(), 2u);
  EXPECT_EQ(g.subgraphs[1].inputs.size(), 2u);
  const std::vector<float> x = {1, -2, 3, -4}, y = {0.5f, 0.5f, -5, 1};
  for (uint8_t c : {1, 0}) {
    Compiled r = compile_and_run(b, {bytes_of(std::vector<uint8_t>{c}), bytes_of(x), bytes_of(y)});
    ASSERT_EQ(r.run.outputs.size(), 1u);
    const std::vector<float> want = c ? std::vector<float>{1.5f, 0, 0, 0} : std::vector<float>{3, 0, 9, 0};
    EXPECT_EQ(values_of<float>(r.run.outputs[0]), want) << int(c);
    // x and y (16 bytes each) into the branch, its 16-byte result out.
    EXPECT_EQ(r.run.stats.copy_bytes, 48u);
    tigris_plan_t plan;
    ASSERT_EQ(tigris_plan_load(r.plan.data(), static_cast<uint32_t>(r.plan.size()), &plan), TIGRIS_OK);
    EXPECT_EQ(plan.num_subgraphs, 3u);
    EXPECT_EQ(plan.subgraph_depth, 1u);
  }
}

// v = x; while (v < limit) v = v + 1.5: Loop without a trip count, its condition computed
// before the loop and by the body from the outer run-time `limit`.
test::OnnxBuilder accumulating_loop() {
  test::OnnxBuilder b(13);
  b.input("x", {1});
  b.input("limit", {1});
  b.output("v_final", {1});
  float_init(b.proto().mutable_graph(), "step", 1.5f);
  b.node("Less", {"x", "limit"}, {"go"});
  onnx::NodeProto& n = b.node("Loop", {"", "go", "x"}, {"v_final"}, "accumulate");
  onnx::GraphProto* body = graph_attr(n, "body");
  value(body->add_input(), "i", TensorProto::INT64, {});
  value(body->add_input(), "cond_in", TensorProto::BOOL, {});
  value(body->add_input(), "v_in", TensorProto::FLOAT, {1});
  add_node(body, "Add", {"v_in", "step"}, {"v_out"});
  add_node(body, "Less", {"v_out", "limit"}, {"cond_out"});
  value(body->add_output(), "cond_out", TensorProto::BOOL, {1});
  value(body->add_output(), "v_out", TensorProto::FLOAT, {1});
  return b;
}

TEST(ControlFlow, LoopAccumulatesUntilARunTimeCondition) {
  test::OnnxBuilder b = accumulating_loop();
  // x = 0, limit = 5: 1.5, 3, 4.5, 6 (four rounds). x = 7: the condition is false at once.
  struct Case {
    float x, want;
    uint32_t rounds;
  };
  for (const Case& k : {Case{0, 6, 4}, Case{7, 7, 0}}) {
    Compiled r = compile_and_run(b, {bytes_of(std::vector<float>{k.x}), bytes_of(std::vector<float>{5})});
    ASSERT_EQ(r.run.outputs.size(), 1u);
    EXPECT_EQ(values_of<float>(r.run.outputs[0]), std::vector<float>{k.want});
    // Loop variables: iteration (int64, 8 bytes), condition (bool, 1), v (4), limit (4) =
    // 17 bytes, copied once in, rounds + 1 times to the condition, twice per round.
    EXPECT_EQ(r.run.stats.copy_bytes, 17u * (1u + (k.rounds + 1u) + 2u * k.rounds)) << k.x;
  }
}

// v = x; for i in 0 .. M - 1: v = 2 v + i, M a run-time trip count, no condition input.
TEST(ControlFlow, LoopWithARunTimeTripCountAndTheIterationNumber) {
  test::OnnxBuilder b(13);
  b.input("m", {}, TensorProto::INT64);
  b.input("x", {1});
  b.output("v_final", {1});
  float_init(b.proto().mutable_graph(), "two", 2.0f);
  onnx::NodeProto& n = b.node("Loop", {"m", "", "x"}, {"v_final"}, "count");
  onnx::GraphProto* body = graph_attr(n, "body");
  value(body->add_input(), "i", TensorProto::INT64, {});
  value(body->add_input(), "cond_in", TensorProto::BOOL, {});
  value(body->add_input(), "v_in", TensorProto::FLOAT, {1});
  add_node(body, "Mul", {"v_in", "two"}, {"doubled"});
  onnx::NodeProto* cast = add_node(body, "Cast", {"i"}, {"i_f"});
  test::OnnxBuilder::attr(*cast, "to", int64_t{TensorProto::FLOAT});
  add_node(body, "Add", {"doubled", "i_f"}, {"v_out"});
  add_node(body, "Identity", {"cond_in"}, {"cond_out"});
  value(body->add_output(), "cond_out", TensorProto::BOOL, {});
  value(body->add_output(), "v_out", TensorProto::FLOAT, {1});
  // M = 3, x = 1: 2·1 + 0 = 2, 2·2 + 1 = 5, 2·5 + 2 = 12. M = 0: x.
  struct Case {
    int64_t m;
    float want;
  };
  for (const Case& k : {Case{3, 12}, Case{0, 1}}) {
    Compiled r = compile_and_run(b, {bytes_of(std::vector<int64_t>{k.m}), bytes_of(std::vector<float>{1})});
    ASSERT_EQ(r.run.outputs.size(), 1u);
    EXPECT_EQ(values_of<float>(r.run.outputs[0]), std::vector<float>{k.want});
    // Variables: iteration (8), M (8), condition (1), v (4) = 21 bytes.
    const uint32_t rounds = static_cast<uint32_t>(k.m);
    EXPECT_EQ(r.run.stats.copy_bytes, 21u * (1u + (rounds + 1u) + 2u * rounds)) << k.m;
  }
}

TEST(ControlFlow, LoopScanOutputsAreRefusedWithTheReason) {
  test::OnnxBuilder b(13);
  b.input("m", {}, TensorProto::INT64);
  b.input("x", {1});
  b.output("v_final", {1});
  b.output("scan", {0, 1});
  onnx::NodeProto& n = b.node("Loop", {"m", "", "x"}, {"v_final", "scan"}, "scanning");
  onnx::GraphProto* body = graph_attr(n, "body");
  value(body->add_input(), "i", TensorProto::INT64, {});
  value(body->add_input(), "cond_in", TensorProto::BOOL, {});
  value(body->add_input(), "v_in", TensorProto::FLOAT, {1});
  add_node(body, "Identity", {"cond_in"}, {"cond_out"});
  add_node(body, "Identity", {"v_in"}, {"v_out"});
  add_node(body, "Identity", {"v_in"}, {"s_out"});
  value(body->add_output(), "cond_out", TensorProto::BOOL, {});
  value(body->add_output(), "v_out", TensorProto::FLOAT, {1});
  value(body->add_output(), "s_out", TensorProto::FLOAT, {1});
  // The scan output's extent is the run-time trip count: refused at the Loop when loading.
  try {
    compiler::load_model_bytes(b.bytes(), "m.onnx");
    ADD_FAILURE() << "loaded";
  } catch (const compiler::CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("Loop 'scanning'"), std::string::npos) << e.what();
  }
}

// v = x; for i in 0 .. 2: v = v + i, scanning 2 v: a constant trip count, no condition, so
// the Loop unrolls and its scan output has the extent 3. Three Negs after the scan output
// check that its shape reaches the nodes reading it.
TEST(ControlFlow, LoopScanOutputsWithAConstantTripCountUnroll) {
  test::OnnxBuilder b(13);
  b.input("x", {1});
  b.output("v_final", {1});
  b.output("negated", {3, 1});
  b.init_ints("m", {}, {3});
  float_init(b.proto().mutable_graph(), "two", 2.0f);
  onnx::NodeProto& n = b.node("Loop", {"m", "", "x"}, {"v_final", "scanned"}, "scanning");
  onnx::GraphProto* body = graph_attr(n, "body");
  value(body->add_input(), "i", TensorProto::INT64, {});
  value(body->add_input(), "cond_in", TensorProto::BOOL, {});
  value(body->add_input(), "v_in", TensorProto::FLOAT, {1});
  onnx::NodeProto* cast = add_node(body, "Cast", {"i"}, {"i_f"});
  test::OnnxBuilder::attr(*cast, "to", int64_t{TensorProto::FLOAT});
  add_node(body, "Add", {"v_in", "i_f"}, {"v_out"});
  add_node(body, "Mul", {"v_out", "two"}, {"s_out"});
  add_node(body, "Identity", {"cond_in"}, {"cond_out"});
  value(body->add_output(), "cond_out", TensorProto::BOOL, {});
  value(body->add_output(), "v_out", TensorProto::FLOAT, {1});
  value(body->add_output(), "s_out", TensorProto::FLOAT, {1});
  b.node("Neg", {"scanned"}, {"negated_once"});
  b.node("Neg", {"negated_once"}, {"negated_twice"});
  b.node("Neg", {"negated_twice"}, {"negated"});
  // x = 1: v = 1, 2, 4; scanned 2, 4, 8.
  Compiled r = compile_and_run(b, {bytes_of(std::vector<float>{1})});
  ASSERT_EQ(r.run.outputs.size(), 2u);
  EXPECT_EQ(values_of<float>(r.run.outputs[0]), std::vector<float>{4});
  EXPECT_EQ(values_of<float>(r.run.outputs[1]), (std::vector<float>{-2, -4, -8}));
}

// Scan 8 (opset 8): a batch axis 0, the sequence on axis 1, sequence_lens an int64 constant.
// Body: sum_out = sum_in + next, scan_out = sum_out (running sums per batch element).
test::OnnxBuilder scan8_model(const std::vector<int64_t>& lengths) {
  test::OnnxBuilder b(8);
  b.input("initial", {2, 2});
  b.input("x", {2, 3, 2});
  b.output("y", {2, 2});
  b.output("z", {2, 3, 2});
  b.init_ints("lens", {2}, lengths);
  onnx::NodeProto& n = b.node("Scan", {"lens", "initial", "x"}, {"y", "z"}, "running_sum");
  test::OnnxBuilder::attr(n, "num_scan_inputs", int64_t{1});
  onnx::GraphProto* body = graph_attr(n, "body");
  value(body->add_input(), "sum_in", TensorProto::FLOAT, {2});
  value(body->add_input(), "next", TensorProto::FLOAT, {2});
  add_node(body, "Add", {"sum_in", "next"}, {"sum_out"});
  add_node(body, "Identity", {"sum_out"}, {"scan_out"});
  value(body->add_output(), "sum_out", TensorProto::FLOAT, {2});
  value(body->add_output(), "scan_out", TensorProto::FLOAT, {2});
  return b;
}

TEST(ControlFlow, Scan8UnrolledPerBatchElement) {
  test::OnnxBuilder b = scan8_model({3, 3});
  // Batch 0 from {0, 0} over {1, 2}, {3, 4}, {5, 6}; batch 1 from {10, 20} over {1, 1}, {2, 2}, {3, 3}.
  Compiled r = compile_and_run(b, {bytes_of(std::vector<float>{0, 0, 10, 20}),
                                   bytes_of(std::vector<float>{1, 2, 3, 4, 5, 6, 1, 1, 2, 2, 3, 3})});
  ASSERT_EQ(r.run.outputs.size(), 2u);
  EXPECT_EQ(values_of<float>(r.run.outputs[0]), (std::vector<float>{9, 12, 16, 26}));
  EXPECT_EQ(values_of<float>(r.run.outputs[1]), (std::vector<float>{1, 2, 4, 6, 9, 12, 11, 21, 13, 23, 16, 26}));
}

TEST(ControlFlow, Scan8WithShorterSequencesIsRefusedWithTheReason) {
  test::OnnxBuilder b = scan8_model({3, 2});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  ASSERT_FALSE(m.summary().supported());
  EXPECT_NE(m.summary().unsupported_operators.at(0).reason.find("sequence_lens shorter than the sequence"),
            std::string::npos)
      << m.summary().unsupported_operators.at(0).reason;
}

}  // namespace
