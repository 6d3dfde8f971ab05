// Each normalization pass on small graphs, checked against hand-derived results.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "unit/compiler/pass_helpers.h"

namespace {

using namespace tigris;
using test::OnnxBuilder;
using V = std::vector<std::string>;

TEST(Passes, IdentityAndDropoutAreRemoved) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.init("w", {1, 4}, {1, 2, 3, 4});
  b.node("Identity", {"x"}, {"a"});
  b.node("Identity", {"w"}, {"wi"});  // Identity on an initializer
  b.node("Add", {"a", "wi"}, {"s"});
  b.node("Dropout", {"s"}, {"y"});
  b.output("y", {1, 4});
  ir::Graph g = test::normalized_until(b, "remove_identities");
  EXPECT_EQ(test::ops(g), V{"Add"});
  const ir::Node& add = g.nodes[0];
  EXPECT_EQ(g.tensor(add.inputs[0]).name, "x");
  EXPECT_EQ(g.tensor(add.inputs[1]).name, "w");
  EXPECT_TRUE(g.tensor(add.inputs[1]).constant);
  EXPECT_EQ(g.tensor(add.outputs[0]).name, "y");  // the model output keeps its name
}

TEST(Passes, IdentityFromInputToOutputStaysACopy) {
  OnnxBuilder b;
  b.input("x", {2, 2});
  b.node("Identity", {"x"}, {"y"});
  b.output("y", {2, 2});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(test::ops(g), V{"Reshape"});
}

TEST(Passes, ConstantsAndShapeChainsFold) {
  // Flatten written the torch way: Shape -> Gather -> Unsqueeze -> Concat -> Reshape.
  OnnxBuilder b;
  b.input("x", {2, 3, 4});
  b.node("Shape", {"x"}, {"s"});
  auto& c = b.node("Constant", {}, {"zero"});
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(onnx::TensorProto::INT64);
  a->mutable_t()->add_int64_data(0);
  auto& gather = b.node("Gather", {"s", "zero"}, {"n"});
  OnnxBuilder::attr(gather, "axis", int64_t{0});
  auto& un = b.node("Unsqueeze", {"n", "ax"}, {"n1"});
  (void)un;
  b.init_ints("ax", {1}, {0});
  b.init_ints("minus1", {1}, {-1});
  auto& cat = b.node("Concat", {"n1", "minus1"}, {"shape"});
  OnnxBuilder::attr(cat, "axis", int64_t{0});
  b.node("Reshape", {"x", "shape"}, {"y"});
  b.output("y", {0, 0});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(test::ops(g), V{"Reshape"});
  EXPECT_EQ(g.nodes[0].attrs.get_ints("shape"), (std::vector<int64_t>{2, 12}));
  EXPECT_EQ(g.nodes[0].inputs.size(), 1u);
}

TEST(Passes, GemmScalarsAndTransposesFold) {
  // y = 2 * A^T * B^T + 0.5 * C with A [3,2] (transA), B [4,3] (transB), C [4].
  OnnxBuilder b;
  b.input("a", {3, 2});
  std::vector<float> bw = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  b.init("b", {4, 3}, bw);
  b.init("c", {4}, {1, 2, 3, 4});
  auto& n = b.node("Gemm", {"a", "b", "c"}, {"y"});
  OnnxBuilder::attr(n, "alpha", 2.0f);
  OnnxBuilder::attr(n, "beta", 0.5f);
  OnnxBuilder::attr(n, "transA", int64_t{1});
  OnnxBuilder::attr(n, "transB", int64_t{1});
  b.output("y", {2, 4});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(test::ops(g), (V{"Transpose", "Gemm"}));
  const ir::Node& gemm = test::node_of(g, "Gemm");
  std::vector<float> w = test::values(g, gemm.inputs[1]);  // [N=4, K=3] = 2 * B
  ASSERT_EQ(w.size(), 12u);
  for (size_t i = 0; i < 12; ++i) EXPECT_EQ(w[i], 2 * bw[i]);
  EXPECT_EQ(test::values(g, gemm.inputs[2]), (std::vector<float>{0.5f, 1, 1.5f, 2}));
  EXPECT_EQ(test::node_of(g, "Transpose").attrs.get_ints("perm"), (std::vector<int64_t>{1, 0}));
}

TEST(Passes, GemmWithoutTransBTransposesTheWeight) {
  OnnxBuilder b;
  b.input("a", {1, 2});
  b.init("b", {2, 3}, {1, 2, 3, 4, 5, 6});  // [K=2, N=3]
  b.node("Gemm", {"a", "b"}, {"y"});
  b.output("y", {1, 3});
  ir::Graph g = test::normalized(b);
  const ir::Node& gemm = test::node_of(g, "Gemm");
  EXPECT_EQ(g.tensor(gemm.inputs[1]).shape, (ir::Shape{3, 2}));
  EXPECT_EQ(test::values(g, gemm.inputs[1]), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Passes, MatMulWithConstantWeightBecomesGemm) {
  OnnxBuilder b;
  b.input("a", {2, 2});
  b.init("w", {2, 3}, {1, 2, 3, 4, 5, 6});
  b.node("MatMul", {"a", "w"}, {"y"});
  b.output("y", {2, 3});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(test::ops(g), V{"Gemm"});
  EXPECT_EQ(test::values(g, g.nodes[0].inputs[1]), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST(Passes, BatchedMatMulIsReshapedAroundGemm) {
  OnnxBuilder b;
  b.input("a", {2, 3, 4});
  b.init("w", {4, 5}, std::vector<float>(20, 1.0f));
  b.node("MatMul", {"a", "w"}, {"y"});
  b.output("y", {2, 3, 5});
  ir::Graph g = test::normalized(b);
  // The rows Reshape is folded: FullyConnected reads the [2,3,4] bytes as 6 rows.
  EXPECT_EQ(test::ops(test::normalized_until(b, "lower_batched_matmul")), (V{"Reshape", "Gemm", "Reshape"}));
  EXPECT_EQ(test::ops(g), (V{"Gemm", "Reshape"}));
  EXPECT_EQ(g.tensor(g.nodes[0].inputs[0]).shape, (ir::Shape{2, 3, 4}));
  EXPECT_EQ(g.tensor(g.nodes[0].outputs[0]).shape, (ir::Shape{6, 5}));
  EXPECT_EQ(g.tensor(g.nodes[1].outputs[0]).shape, (ir::Shape{2, 3, 5}));
}

TEST(Passes, BatchNormFoldsIntoConvAndStandaloneBecomesMulAdd) {
  OnnxBuilder b;
  b.input("x", {1, 1, 3, 3});
  b.init("w", {2, 1, 1, 1}, {1, 2});
  b.init("cb", {2}, {0.5f, -1});
  b.init("gamma", {2}, {2, 3});
  b.init("beta", {2}, {1, 1});
  b.init("mean", {2}, {0, 1});
  b.init("var", {2}, {3, 8});
  b.node("Conv", {"x", "w", "cb"}, {"c"});
  auto& bn = b.node("BatchNormalization", {"c", "gamma", "beta", "mean", "var"}, {"y"});
  OnnxBuilder::attr(bn, "epsilon", 1.0f);
  b.output("y", {1, 2, 3, 3});
  ir::Graph g = test::normalized_until(b, "fold_batchnorm");
  EXPECT_EQ(test::ops(g), V{"Conv"});
  // s = gamma / sqrt(var + eps) = {1, 1}; w' = w * s; b' = (b - mean) * s + beta.
  EXPECT_EQ(test::values(g, g.nodes[0].inputs[1]), (std::vector<float>{1, 2}));
  EXPECT_EQ(test::values(g, g.nodes[0].inputs[2]), (std::vector<float>{1.5f, -1}));

  OnnxBuilder s;
  s.input("x", {1, 2, 2, 2});
  s.init("gamma", {2}, {2, 3});
  s.init("beta", {2}, {1, 1});
  s.init("mean", {2}, {0, 1});
  s.init("var", {2}, {3, 8});
  auto& bn2 = s.node("BatchNormalization", {"x", "gamma", "beta", "mean", "var"}, {"y"});
  OnnxBuilder::attr(bn2, "epsilon", 1.0f);
  s.output("y", {1, 2, 2, 2});
  ir::Graph g2 = test::normalized_until(s, "fold_batchnorm");
  EXPECT_EQ(test::ops(g2), (V{"Mul", "Add"}));
  EXPECT_EQ(test::values(g2, g2.nodes[0].inputs[1]), (std::vector<float>{1, 1}));
  EXPECT_EQ(test::values(g2, g2.nodes[1].inputs[1]), (std::vector<float>{1, 0}));
  EXPECT_EQ(g2.tensor(g2.nodes[0].inputs[1]).shape, (ir::Shape{2, 1, 1}));
}

TEST(Passes, NegSubDivWithConstantsAndASharedDivisorConvertedOnce) {
  OnnxBuilder b;
  b.input("x", {1, 2});
  b.init("c", {2}, {2, 4});
  b.node("Div", {"x", "c"}, {"d1"});
  b.node("Div", {"d1", "c"}, {"d2"});
  b.node("Sub", {"d2", "c"}, {"s"});
  b.node("Neg", {"s"}, {"y"});
  b.output("y", {1, 2});
  ir::Graph g = test::normalized_until(b, "fold_constant_arithmetic");
  EXPECT_EQ(test::ops(g), (V{"Mul", "Mul", "Add", "Mul"}));
  EXPECT_EQ(g.nodes[0].inputs[1], g.nodes[1].inputs[1]);  // one reciprocal for both readers
  EXPECT_EQ(test::values(g, g.nodes[0].inputs[1]), (std::vector<float>{0.5f, 0.25f}));
  EXPECT_EQ(test::values(g, g.nodes[2].inputs[1]), (std::vector<float>{-2, -4}));
  EXPECT_EQ(test::values(g, g.nodes[3].inputs[1]), (std::vector<float>{-1}));
}

TEST(Passes, PerChannelAddFoldsIntoConvBias) {
  OnnxBuilder b;
  b.input("x", {1, 1, 2, 2});
  b.init("w", {2, 1, 1, 1}, {1, 1});
  b.init("k", {1, 2, 1, 1}, {3, 4});
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("Add", {"c", "k"}, {"y"});
  b.output("y", {1, 2, 2, 2});
  ir::Graph g = test::normalized_until(b, "fold_bias");
  EXPECT_EQ(test::ops(g), V{"Conv"});
  EXPECT_EQ(test::values(g, g.nodes[0].inputs[2]), (std::vector<float>{3, 4}));
  EXPECT_EQ(g.tensor(g.nodes[0].outputs[0]).name, "y");
}

TEST(Passes, SiluDepthwiseConv1dClipAndReduceMeanAreRelabelled) {
  OnnxBuilder b;
  b.input("x", {1, 4, 5, 5});
  b.init("dw", {8, 1, 3, 3}, std::vector<float>(72, 0.1f));
  auto& conv = b.node("Conv", {"x", "dw"}, {"c"});
  OnnxBuilder::attr(conv, "group", int64_t{4});
  OnnxBuilder::attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.init("lo", {}, {0});
  b.init("hi", {}, {6});
  b.node("Clip", {"c", "lo", "hi"}, {"r6"});
  auto& mean = b.node("ReduceMean", {"r6"}, {"m"});
  OnnxBuilder::attr(mean, "axes", std::vector<int64_t>{2, 3});
  b.output("m", {1, 8, 1, 1});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(test::ops(g), (V{"DepthwiseConv", "GlobalAveragePool"}));
  EXPECT_EQ(g.nodes[0].attrs.get_string("fused_activation", ""), "Relu6");

  OnnxBuilder s;
  s.input("x", {1, 2, 8});
  s.init("w", {3, 2, 3}, std::vector<float>(18, 0.5f));
  s.node("Conv", {"x", "w"}, {"c"});
  auto& silu = s.node("Silu", {"c"}, {"y"});
  silu.set_domain("com.example");
  s.proto().add_opset_import()->set_domain("com.example");
  s.proto().mutable_opset_import(1)->set_version(1);
  s.output("y", {1, 3, 6});
  ir::Graph g2 = test::import(s);
  // The custom-domain node has no schema: give its output the conv's inferred type.
  g2.tensor(g2.nodes[1].outputs[0]) = g2.tensor(g2.nodes[0].outputs[0]);
  g2.tensor(g2.nodes[1].outputs[0]).name = "y";
  g2.nodes[1].domain = "";
  passes::normalize(g2);
  EXPECT_EQ(test::ops(g2), (V{"Conv1D", "Silu"}));
}

// x * Sigmoid(x) and x * HardSigmoid(x; 1/6, 1/2) (how PyTorch exports SiLU and hard-swish)
// become one operator, either operand order; a gate that something else also reads, another
// HardSigmoid, or a product of two different tensors stay as they are.
TEST(Passes, SwishPatternsFuseIntoOneOperator) {
  auto fused = [](const std::string& gate, bool gate_first, float alpha, bool gate_read_twice) {
    OnnxBuilder b;
    b.input("x", {1, 4, 3, 3});
    auto& n = b.node(gate, {"x"}, {"g"});
    if (gate == "HardSigmoid") OnnxBuilder::attr(n, "alpha", alpha);
    b.node("Mul", gate_first ? std::vector<std::string>{"g", "x"} : std::vector<std::string>{"x", "g"}, {"y"});
    b.output("y", {1, 4, 3, 3});
    if (gate_read_twice) b.output("g", {1, 4, 3, 3});
    return test::ops(test::normalized(b));
  };
  EXPECT_EQ(fused("Sigmoid", false, 0, false), V{"Silu"});
  EXPECT_EQ(fused("Sigmoid", true, 0, false), V{"Silu"});
  EXPECT_EQ(fused("HardSigmoid", false, 1.0f / 6.0f, false), V{"HardSwish"});
  EXPECT_EQ(fused("Sigmoid", false, 0, true), (V{"Sigmoid", "Mul"}));
  EXPECT_NE(fused("HardSigmoid", false, 0.2f, false), V{"HardSwish"});

  OnnxBuilder b;
  b.input("x", {1, 4});
  b.input("z", {1, 4});
  b.node("Sigmoid", {"z"}, {"g"});
  b.node("Mul", {"x", "g"}, {"y"});
  b.output("y", {1, 4});
  EXPECT_EQ(test::ops(test::normalized(b)), (V{"Sigmoid", "Mul"}));
}

TEST(Passes, ClipBoundsSelectTheOperator) {
  for (auto [lo, hi, op] :
       {std::tuple{0.0f, 6.0f, "Relu6"}, std::tuple{0.0f, INFINITY, "Relu"}, std::tuple{-1.0f, 1.0f, "Clip"}}) {
    OnnxBuilder b(11);
    b.input("x", {1, 4});
    b.init("lo", {}, {lo});
    b.init("hi", {}, {hi});
    b.node("Clip", {"x", "lo", "hi"}, {"y"});
    b.output("y", {1, 4});
    EXPECT_EQ(test::ops(test::normalized(b)), V{op});
  }
}

TEST(Passes, SqueezeAndUnsqueezeBecomeReshape) {
  OnnxBuilder b;
  b.input("x", {1, 3, 1});
  b.init_ints("a0", {1}, {2});
  b.init_ints("a1", {1}, {0});
  b.node("Squeeze", {"x", "a0"}, {"s"});
  b.node("Unsqueeze", {"s", "a1"}, {"y"});
  b.output("y", {1, 1, 3});
  ir::Graph g = test::normalized_until(b, "squeeze_to_reshape");
  EXPECT_EQ(test::ops(g), (V{"Reshape", "Reshape"}));
  EXPECT_EQ(g.nodes[1].attrs.get_ints("shape"), (std::vector<int64_t>{1, 1, 3}));
}

TEST(Passes, LayoutsGoChannelsLastWithConcatAxisAndPermutationsRemapped) {
  OnnxBuilder b;
  b.input("x", {1, 2, 4, 4});
  b.init("w", {3, 2, 1, 1}, std::vector<float>(6, 1.0f));
  b.node("Conv", {"x", "w"}, {"c"});
  auto& cat = b.node("Concat", {"c", "c"}, {"k"});
  OnnxBuilder::attr(cat, "axis", int64_t{1});
  b.node("Relu", {"k"}, {"r"});
  auto& tr = b.node("Transpose", {"r"}, {"y"});
  OnnxBuilder::attr(tr, "perm", std::vector<int64_t>{0, 2, 3, 1});  // NCHW -> NHWC in model terms
  b.output("y", {1, 4, 4, 6});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(g.tensor(g.inputs[0]).layout, ir::Layout::ChannelsLast);
  EXPECT_EQ(g.tensor(g.inputs[0]).shape, (ir::Shape{1, 4, 4, 2}));
  EXPECT_EQ(test::node_of(g, "Concat").attrs.get_int("axis", -1), 3);
  // Input stored NHWC, output wanted NHWC in model order: the stored permutation is the
  // identity, so the Transpose is a plain copy.
  EXPECT_EQ(test::ops(g), (V{"Conv", "Concat", "Relu", "Reshape"}));
  EXPECT_EQ(g.tensor(g.outputs[0]).layout, ir::Layout::Model);
  EXPECT_EQ(g.tensor(g.outputs[0]).shape, (ir::Shape{1, 4, 4, 6}));
}

TEST(Passes, TransposeOfAChannelsLastTensorGetsAStoredPermutation) {
  OnnxBuilder b;
  b.input("x", {1, 2, 3, 4});
  b.init("w", {2, 2, 1, 1}, std::vector<float>(4, 1.0f));
  b.node("Conv", {"x", "w"}, {"c"});
  auto& tr = b.node("Transpose", {"c"}, {"y"});
  OnnxBuilder::attr(tr, "perm", std::vector<int64_t>{0, 3, 2, 1});  // N, W, H, C in model terms
  b.output("y", {1, 4, 3, 2});
  ir::Graph g = test::normalized(b);
  // Stored input N,H,W,C: output axis j reads stored axis q[j] = {0, 2, 1, 3}.
  EXPECT_EQ(test::node_of(g, "Transpose").attrs.get_ints("perm"), (std::vector<int64_t>{0, 2, 1, 3}));
}

TEST(Passes, FlattenOfASpatialTensorGetsAnExplicitLayoutTranspose) {
  OnnxBuilder b;
  b.input("x", {1, 2, 3, 3});
  b.init("w", {2, 2, 1, 1}, std::vector<float>(4, 1.0f));
  b.node("Conv", {"x", "w"}, {"c"});
  b.node("Flatten", {"c"}, {"y"});
  b.output("y", {1, 18});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(test::ops(g), (V{"Conv", "Transpose", "Reshape"}));
  EXPECT_EQ(g.nodes[1].name, "layout_0");
  EXPECT_EQ(g.nodes[1].attrs.get_ints("perm"), (std::vector<int64_t>{0, 3, 1, 2}));
}

TEST(Passes, ReluFusesIntoConvGemmAndAdd) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.init("w", {4, 4}, std::vector<float>(16, 0.25f));
  b.node("Gemm", {"x", "w"}, {"g"});
  b.node("Relu", {"g"}, {"r"});
  b.node("Add", {"r", "x"}, {"a"});
  b.node("Relu", {"a"}, {"y"});
  b.output("y", {1, 4});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(test::ops(g), (V{"Gemm", "Add"}));
  for (const ir::Node& n : g.nodes) EXPECT_EQ(n.attrs.get_string("fused_activation", ""), "Relu");
}

TEST(Passes, UnusedWeightsAndDeadNodesAreRemoved) {
  OnnxBuilder b;
  b.input("x", {1, 4});
  b.init("unused", {4}, {1, 2, 3, 4});
  b.init("w", {1, 4}, {1, 2, 3, 4});
  b.node("Mul", {"x", "w"}, {"dead"});
  b.node("Relu", {"x"}, {"y"});
  b.output("y", {1, 4});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(test::ops(g), V{"Relu"});
  EXPECT_EQ(g.tensors.size(), 2u);
}

TEST(Passes, PipelineOrderIsListedOnce) {
  const auto& p = passes::normalization_pipeline();
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p.front().name, "remove_identities");
  EXPECT_EQ(p.back().name, "remove_unused");
}

}  // namespace

// A Pad whose pads are all zero (PyTorch's AvgPool2d export) disappears, in the attribute form
// (opset 10) and the operand form (opset 13); a Pad that pads stays.
TEST(Passes, PadWithAllZeroPadsIsRemoved) {
  OnnxBuilder a(10);
  a.input("x", {1, 2, 4, 4});
  auto& p = a.node("Pad", {"x"}, {"p"});
  OnnxBuilder::attr(p, "pads", std::vector<int64_t>(8, 0));
  a.node("Relu", {"p"}, {"y"});
  a.output("y", {1, 2, 4, 4});
  EXPECT_EQ(test::ops(test::normalized(a)), V{"Relu"});

  for (int64_t pad : {int64_t{0}, int64_t{1}}) {
    OnnxBuilder b(13);
    b.input("x", {1, 2, 4, 4});
    b.init_ints("pads", {8}, {0, 0, pad, pad, 0, 0, pad, pad});
    b.node("Pad", {"x", "pads"}, {"p"});
    b.node("Relu", {"p"}, {"y"});
    b.output("y", {1, 2, 4 + 2 * pad, 4 + 2 * pad});
    const std::vector<std::string> ops = test::ops(test::normalized(b));
    EXPECT_EQ(std::count(ops.begin(), ops.end(), "Pad"), pad == 0 ? 0 : 1) << pad;
  }
}

// x.mean([2, 3]) without keepdims (PyTorch's MnasNet-style heads) becomes a global pool and a
// Reshape, and computes the mean: channel c of x holds c·10 + 0, 1, 2, 3 -> c·10 + 1.5.
TEST(Passes, SpatialMeanWithoutKeepdimsIsAGlobalPool) {
  OnnxBuilder b(13);
  b.input("x", {1, 3, 2, 2});
  auto& mean = b.node("ReduceMean", {"x"}, {"y"});
  OnnxBuilder::attr(mean, "axes", std::vector<int64_t>{-1, 2});
  OnnxBuilder::attr(mean, "keepdims", int64_t{0});
  b.output("y", {1, 3});
  EXPECT_EQ(test::ops(test::normalized(b)), (V{"GlobalAveragePool", "Reshape"}));

  compiler::Model m = compiler::load_model_bytes(b.bytes(), "mean.onnx");
  compiler::Budgets budgets;
  budgets.fast = 1 << 16;
  const compiler::CompileResult c = compiler::compile(m, budgets);
  ASSERT_TRUE(c.ok()) << c.error;
  std::vector<float> x;
  for (int ch = 0; ch < 3; ++ch)
    for (int k = 0; k < 4; ++k) x.push_back(static_cast<float>(ch * 10 + k));
  const test::PlanRun r = test::run_plan(c.plan, {test::floats(x)}, 1 << 16);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), (std::vector<float>{1.5f, 11.5f, 21.5f}));
}
