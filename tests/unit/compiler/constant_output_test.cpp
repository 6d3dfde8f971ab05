// Graph outputs that fold to compile-time constants (Shape, Size, Constant, ConstantOfShape)
// are still written at run time: the compiler gives each a CONSTANT op whose weight is the
// value (passes::produce_constant_outputs). Hand-derived values; the output keeps the model's
// axis order and dtype (int64 for Shape and Size). A zero-size constant output has no plan
// form and is refused in one line naming it.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/api.h"
#include "compiler/ir/graph.h"
#include "compiler_support/plan_runner.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;

template <typename T>
std::vector<uint8_t> constant_bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

void constant_value_attr(onnx::NodeProto& n, const std::vector<int64_t>& dims, const std::vector<float>& values) {
  auto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  auto* t = a->mutable_t();
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
}

// Opcodes of the plan's ops, in order.
std::vector<int> plan_op_types(const std::vector<uint8_t>& plan_bytes) {
  tigris_plan_t plan;
  std::vector<int> types;
  if (tigris_plan_load(plan_bytes.data(), static_cast<uint32_t>(plan_bytes.size()), &plan) != TIGRIS_OK) return types;
  for (uint16_t i = 0; i < plan.header->num_ops; ++i) types.push_back(plan.ops[i].op_type);
  return types;
}

compiler::CompileResult compile_constant_model(const compiler::Model& m) {
  compiler::Budgets b;
  b.fast = 1 << 20;
  return compiler::compile(m, b);
}

// x [2,3,4,5] (rank 4, stored channels-last): Shape(x, start=1) is [3,4,5] in the model's
// order, Size(x) is 120; both int64, written by CONSTANT ops next to the Relu.
TEST(ConstantOutputs, ShapeAndSizeOfAnInputAreWrittenAtRunTime) {
  test::OnnxBuilder b(15);  // Shape's start from opset 15
  b.input("x", {2, 3, 4, 5});
  b.node("Relu", {"x"}, {"y"}, "relu");
  test::OnnxBuilder::attr(b.node("Shape", {"x"}, {"s"}, "shape"), "start", int64_t{1});
  b.node("Size", {"x"}, {"n"}, "size");
  b.output("y", {2, 3, 4, 5});
  b.output("s", {3}, onnx::TensorProto::INT64);
  b.output("n", {}, onnx::TensorProto::INT64);
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "shape.onnx");
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  int constants = 0;
  for (const ir::Node& n : m.graph().nodes) {
    EXPECT_NE(n.op, "Shape");
    EXPECT_NE(n.op, "Size");
    if (n.op == "Constant") {
      ++constants;
      ASSERT_EQ(n.inputs.size(), 1u);
      EXPECT_TRUE(m.graph().tensor(n.inputs[0]).constant);
      EXPECT_FALSE(m.graph().tensor(n.outputs.at(0)).constant);
    }
  }
  EXPECT_EQ(constants, 2);
  compiler::CompileResult r = compile_constant_model(m);
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<int> types = plan_op_types(r.plan);
  EXPECT_EQ(std::count(types.begin(), types.end(), TIGRIS_OP_CONSTANT), 2);
  std::vector<float> x(120);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 60.0f;
  test::PlanRun run = test::run_plan(r.plan, {constant_bytes(x)}, 1 << 20);
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.outputs.size(), 3u);
  std::vector<float> y(120);
  ASSERT_EQ(run.outputs[0].size(), 480u);
  std::memcpy(y.data(), run.outputs[0].data(), 480);
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_EQ(y[119], 59.0f);
  EXPECT_EQ(run.outputs[1], constant_bytes(std::vector<int64_t>{3, 4, 5}));
  EXPECT_EQ(run.outputs[2], constant_bytes(std::vector<int64_t>{120}));
}

// No input at all: a Constant [1,2,3] (rank 3, values 0..5) comes out in the model's order,
// ConstantOfShape([2,1,3], 7.0) as six 7s.
TEST(ConstantOutputs, AModelWithoutInputsGivesItsConstantsInTheModelsOrder) {
  test::OnnxBuilder b;
  constant_value_attr(b.node("Constant", {}, {"c"}, "constant"), {1, 2, 3}, {0, 1, 2, 3, 4, 5});
  b.init_ints("dims", {3}, {2, 1, 3});
  constant_value_attr(b.node("ConstantOfShape", {"dims"}, {"k"}, "fill"), {1}, {7.0f});
  b.output("c", {1, 2, 3});
  b.output("k", {2, 1, 3});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "constant.onnx");
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  compiler::CompileResult r = compile_constant_model(m);
  ASSERT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(plan_op_types(r.plan), (std::vector<int>{TIGRIS_OP_CONSTANT, TIGRIS_OP_CONSTANT}));
  test::PlanRun run = test::run_plan(r.plan, {}, 1 << 20);
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.outputs.size(), 2u);
  EXPECT_EQ(run.outputs[0], constant_bytes(std::vector<float>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(run.outputs[1], constant_bytes(std::vector<float>(6, 7.0f)));
}

// An Identity copying an initializer to an output: the output is that constant.
TEST(ConstantOutputs, AnIdentityOfAnInitializerIsAConstantOutput) {
  test::OnnxBuilder b;
  b.init_ints("w", {2}, {-1, 9});
  b.node("Identity", {"w"}, {"out"}, "copy");
  b.output("out", {2}, onnx::TensorProto::INT64);
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "identity.onnx");
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  compiler::CompileResult r = compile_constant_model(m);
  ASSERT_TRUE(r.ok()) << r.error;
  test::PlanRun run = test::run_plan(r.plan, {}, 1 << 20);
  ASSERT_EQ(run.error, "");
  ASSERT_EQ(run.outputs.size(), 1u);
  EXPECT_EQ(run.outputs[0], constant_bytes(std::vector<int64_t>{-1, 9}));
}

// ConstantOfShape([0]): no plan tensor has zero elements, so the load fails in one line
// naming the output.
TEST(ConstantOutputs, AZeroSizeConstantOutputIsRefusedNamingIt) {
  test::OnnxBuilder b;
  b.init_ints("dims", {1}, {0});
  b.node("ConstantOfShape", {"dims"}, {"empty"}, "fill");
  b.output("empty", {0});
  try {
    compiler::load_model_bytes(b.bytes(), "zero.onnx");
    FAIL() << "a zero-size constant output was accepted";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("graph output 'empty'"), std::string::npos) << what;
    EXPECT_NE(what.find("zero-size"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

// A float64 constant output: plans hold no float64 tensor, so the load fails in one line
// naming the output.
TEST(ConstantOutputs, AConstantOutputOfADtypePlansDoNotHoldIsRefusedNamingIt) {
  test::OnnxBuilder b;
  auto& n = b.node("Constant", {}, {"d"}, "constant");
  auto* a = n.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::DOUBLE);
  a->mutable_t()->add_dims(2);
  a->mutable_t()->add_double_data(0.5);
  a->mutable_t()->add_double_data(-1.0);
  b.output("d", {2}, onnx::TensorProto::DOUBLE);
  try {
    compiler::load_model_bytes(b.bytes(), "double.onnx");
    FAIL() << "a float64 constant output was accepted";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("graph output 'd' is a constant of float64 data"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

}  // namespace
