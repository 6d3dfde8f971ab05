// Shape arithmetic folded before lowering (frontend/onnx/static_shapes.cpp): PyTorch's
// chunk() written as Shape -> Gather -> Add -> Div -> Mul feeding Slice bounds gives Slices of
// static shape, the model compiles and computes the halves; a bound that depends on run-time
// data is reported at the node that stops the folding, not at a later consumer.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/api.h"
#include "compiler/ir/graph.h"
#include "compiler_support/plan_runner.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;

// x[1,6,2,2] -> chunk(2, dim=1) as torch.onnx.export writes it -> Relu(first) + second half.
test::OnnxBuilder chunk_model() {
  test::OnnxBuilder b;
  b.input("x", {1, 6, 2, 2});
  b.init_ints("one", {1}, {1});
  b.init_ints("two", {1}, {2});
  b.init_ints("zero", {1}, {0});
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("Shape", {"r"}, {"shape"}, "shape");
  test::OnnxBuilder::attr(b.node("Gather", {"shape", "one"}, {"c"}, "gather"), "axis", int64_t{0});
  b.node("Add", {"c", "one"}, {"c1"}, "add");
  b.node("Div", {"c1", "two"}, {"half"}, "div");
  b.node("Mul", {"half", "one"}, {"end0"}, "mul");
  b.node("Mul", {"half", "two"}, {"end1"}, "mul2");
  b.node("Slice", {"r", "zero", "end0", "one"}, {"a"}, "slice0");
  b.node("Slice", {"r", "end0", "end1", "one"}, {"s"}, "slice1");
  b.node("Conv", {"a", "w"}, {"y0"}, "conv");  // a 1x1 conv: its input rank must be known
  b.init("w", {3, 3, 1, 1}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  b.node("Add", {"y0", "s"}, {"y"}, "sum");
  b.output("y", {1, 3, 2, 2});
  return b;
}

TEST(StaticShapes, ChunkShapeArithmeticFoldsAndRuns) {
  compiler::Model m = compiler::load_model_bytes(chunk_model().bytes(), "chunk.onnx");
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  for (const ir::Node& n : m.graph().nodes) {
    EXPECT_NE(n.op, "Shape");
    EXPECT_NE(n.op, "Gather");
    EXPECT_NE(n.op, "Div");
  }
  compiler::Budgets b;
  b.fast = 1 << 20;
  compiler::CompileResult r = compiler::compile(m, b);
  ASSERT_TRUE(r.ok()) << r.error;
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 10.0f;  // NCHW
  std::vector<uint8_t> in(x.size() * 4);
  std::memcpy(in.data(), x.data(), in.size());
  test::PlanRun run = test::run_plan(r.plan, {in}, 1 << 20);
  ASSERT_EQ(run.error, "");
  std::vector<float> y(12);
  std::memcpy(y.data(), run.outputs.at(0).data(), 48);
  // y[c, p] = relu(x[c, p]) + relu(x[c + 3, p]) (the conv is the identity).
  for (int c = 0; c < 3; ++c)
    for (int p = 0; p < 4; ++p) {
      float lo = std::max(x[static_cast<size_t>(c * 4 + p)], 0.0f);
      float hi = std::max(x[static_cast<size_t>((c + 3) * 4 + p)], 0.0f);
      EXPECT_EQ(y[static_cast<size_t>(c * 4 + p)], lo + hi) << c << "," << p;
    }
}

TEST(StaticShapes, ReductionsSplitAndModOfShapesFold) {
  // flatten as exporters write it: Reshape(r, Concat(shape[0], ReduceProd(shape[1:]))), the
  // halves of the shape from a Split, and a Mod that must come out 0.
  test::OnnxBuilder b;
  b.input("x", {1, 6, 2, 2});
  b.init_ints("one", {1}, {1});
  b.init_ints("four", {1}, {4});
  b.init_ints("two", {2}, {2, 2});
  b.init_ints("six", {1}, {6});
  b.node("Relu", {"x"}, {"r"}, "relu");
  b.node("Shape", {"r"}, {"shape"}, "shape");
  b.node("Split", {"shape", "two"}, {"head", "tail"}, "split");
  b.node("Slice", {"shape", "one", "four"}, {"rest"}, "slice");
  test::OnnxBuilder::attr(b.node("ReduceProd", {"rest"}, {"count"}, "prod"), "keepdims", int64_t{1});
  b.node("Mod", {"count", "six"}, {"zero"}, "mod");                                                  // 24 mod 6 = 0
  b.node("Add", {"zero", "one"}, {"batch"}, "add");                                                  // 1
  test::OnnxBuilder::attr(b.node("ReduceMin", {"head"}, {"first"}, "min"), "keepdims", int64_t{1});  // min(1, 6) = 1
  b.node("Mul", {"batch", "first"}, {"b1"}, "mul");
  test::OnnxBuilder::attr(b.node("Concat", {"b1", "count"}, {"target"}, "concat"), "axis", int64_t{0});
  b.node("Reshape", {"r", "target"}, {"y"}, "flat");
  b.output("y", {1, 24});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "flat.onnx");
  ASSERT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  EXPECT_EQ(m.summary().outputs.at(0).shape, (std::vector<int64_t>{1, 24}));
  for (const ir::Node& n : m.graph().nodes) EXPECT_TRUE(n.op == "Relu" || n.op == "Reshape") << n.op;
}

TEST(StaticShapes, ARunTimeBoundIsReportedWhereTheFoldingStops) {
  // The end of the slice comes from the data (ReduceMax of x, cast to int64): the Slice's
  // shape is not static, and the message names the Slice, its operand and the node reading
  // run-time data, never the Conv that reads the Slice.
  test::OnnxBuilder b;
  b.input("x", {1, 6, 2, 2});
  b.init_ints("zero", {1}, {0});
  b.init_ints("one", {1}, {1});
  test::OnnxBuilder::attr(b.node("ReduceMax", {"x"}, {"mx"}, "data_max"), "keepdims", int64_t{0});
  test::OnnxBuilder::attr(b.node("Cast", {"mx"}, {"mi"}, "to_int"), "to", int64_t{onnx::TensorProto::INT64});
  b.node("Unsqueeze", {"mi", "zero"}, {"end"}, "unsq");
  b.node("Slice", {"x", "zero", "end", "one"}, {"a"}, "slice");
  b.init("w", {3, 6, 1, 1}, std::vector<float>(18, 1.0f));
  b.node("Conv", {"a", "w"}, {"y"}, "conv");
  b.output("y", {1, 3, 2, 2});
  try {
    compiler::load_model_bytes(b.bytes(), "dyn.onnx");
    FAIL() << "loaded";
  } catch (const compiler::CompileError& e) {
    std::string msg = e.what();
    EXPECT_EQ(e.kind(), compiler::ErrorKind::Unsupported);
    EXPECT_NE(msg.find("dyn.onnx: Slice 'slice': its output shape is not static"), std::string::npos) << msg;
    EXPECT_NE(msg.find("operand 'end'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Cast 'to_int', which reads run-time data 'mx'"), std::string::npos) << msg;
    EXPECT_EQ(msg.find("conv"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(e.ops(), std::vector<std::string>{"slice"});
  }
}

}  // namespace
