// passes::split_wide_weights (the -c lz4 output-channel split): on hand-made weights the
// split graph has parts within the reserve, a Concat tree on the stored channel axis and the
// fused activation on every part, and its plan computes what the unsplit op's plan computes.
#include <gtest/gtest.h>

#include <cmath>

#include "compiler/passes/weight_split.h"
#include "compiler/plan/emit.h"
#include "compiler/plan/plan_writer.h"
#include "compiler/schedule/stages.h"
#include "compiler/schedule/usage.h"
#include "compiler_support/plan_runner.h"
#include "unit/compiler/pass_helpers.h"

namespace {

using namespace tigris;

std::vector<float> ramp(size_t n, float scale) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = scale * (static_cast<float>((i * 7) % 13) - 6.0f);
  return v;
}

// The graph's one-stage plan run on `x` (float32 values): output 0 as floats.
std::vector<float> run_whole(const ir::Graph& g, const std::vector<float>& x) {
  const schedule::Schedule sch = schedule::partition(g, 0);
  plan::EmitOptions eo;
  eo.model_name = "split";
  const std::vector<uint8_t> bytes = plan::write_plan(plan::describe_plan(g, sch, eo));
  std::vector<uint8_t> in(x.size() * 4);
  std::memcpy(in.data(), x.data(), in.size());
  const test::PlanRun r = test::run_plan(bytes, {in}, 1 << 20);
  EXPECT_EQ(r.error, "");
  if (!r.error.empty()) return {};
  std::vector<float> out(r.outputs.at(0).size() / 4);
  std::memcpy(out.data(), r.outputs[0].data(), r.outputs[0].size());
  return out;
}

int count(const ir::Graph& g, const std::string& op) {
  return static_cast<int>(std::count_if(g.nodes.begin(), g.nodes.end(), [&](const ir::Node& n) { return n.op == op; }));
}

void expect_split_equal(const ir::Graph& g, uint64_t reserve, const std::string& op, int parts,
                        const std::vector<float>& x) {
  ir::Graph split = g;
  ASSERT_EQ(passes::split_wide_weights(split, reserve), 1);
  EXPECT_EQ(count(split, op), parts);
  EXPECT_GE(count(split, "Concat"), 1);
  EXPECT_LE(schedule::largest_op_weights(split), reserve);
  for (const ir::Node& n : split.nodes) {
    if (n.op == op) {
      EXPECT_EQ(n.attrs.get_string("fused_activation", ""), "Relu") << n.name;
    }
    if (n.op != "Concat") continue;
    EXPECT_LE(n.inputs.size(), 8u);
    EXPECT_EQ(n.attrs.get_int("axis", -1), split.tensor(n.outputs[0]).rank() - 1);
  }
  const std::vector<float> want = run_whole(g, x), got = run_whole(split, x);
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-6f * (1.0f + std::fabs(want[i]))) << i;
}

TEST(WeightSplit, ConvOverOutputChannelsEqualsTheWholeConv) {
  test::OnnxBuilder b;
  b.input("x", {1, 3, 5, 5});
  b.init("w", {12, 3, 3, 3}, ramp(12 * 27, 0.05f));
  b.init("b", {12}, ramp(12, 0.1f));
  auto& conv = b.node("Conv", {"x", "w", "b"}, {"c"});
  test::OnnxBuilder::attr(conv, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"y"});
  b.output("y", {1, 12, 5, 5});
  const ir::Graph g = test::normalized(b);
  ASSERT_EQ(count(g, "Conv"), 1);
  // 12 x 108 weight bytes + 48 bias bytes: 256 bytes hold 2 channels (224 + 16): 6 parts.
  expect_split_equal(g, 256, "Conv", 6, ramp(75, 0.3f));
}

TEST(WeightSplit, GemmOverUnitsEqualsTheWholeGemmAndAHandComputedOne) {
  test::OnnxBuilder b;
  b.input("x", {1, 8});
  const std::vector<float> w = ramp(20 * 8, 0.1f), bias = ramp(20, 0.5f), x = ramp(8, 0.7f);
  b.init("w", {20, 8}, w);
  b.init("b", {20}, bias);
  auto& gemm = b.node("Gemm", {"x", "w", "b"}, {"m"});
  test::OnnxBuilder::attr(gemm, "transB", int64_t{1});
  b.node("Relu", {"m"}, {"y"});
  b.output("y", {1, 20});
  const ir::Graph g = test::normalized(b);
  ASSERT_EQ(count(g, "Gemm"), 1);
  // 32 bytes a unit plus 4 of bias: 64 bytes hold one unit (32 + 16): 20 parts, a Concat tree.
  expect_split_equal(g, 64, "Gemm", 20, x);
  ir::Graph split = g;
  passes::split_wide_weights(split, 64);
  const std::vector<float> got = run_whole(split, x);
  ASSERT_EQ(got.size(), 20u);
  for (size_t u = 0; u < 20; ++u) {
    float acc = bias[u];
    for (size_t k = 0; k < 8; ++k) acc += w[u * 8 + k] * x[k];
    EXPECT_NEAR(got[u], std::max(acc, 0.0f), 1e-5f) << u;
  }
}

TEST(WeightSplit, LeavesOpsWithinTheReserveAndUnsplittableOnesAlone) {
  test::OnnxBuilder b;
  b.input("x", {1, 8});
  b.init("w", {4, 8}, ramp(32, 0.1f));
  auto& gemm = b.node("Gemm", {"x", "w"}, {"y"});
  test::OnnxBuilder::attr(gemm, "transB", int64_t{1});
  b.output("y", {1, 4});
  const ir::Graph g = test::normalized(b);
  ir::Graph copy = g;
  EXPECT_EQ(passes::split_wide_weights(copy, 128), 0);  // 128 bytes of weights fit
  EXPECT_EQ(passes::split_wide_weights(copy, 16), 0);   // one unit (32 bytes) does not
  EXPECT_EQ(copy.nodes.size(), g.nodes.size());
  EXPECT_EQ(passes::split_wide_weights(copy, 64), 1);
  EXPECT_EQ(count(copy, "Gemm"), 2);
}

}  // namespace
