// passes::split_wide_concats: a Concat of more inputs than a stage may list becomes a tree
// of Concats of at most kConcatFanIn inputs on the same axis, and the plan computes the
// hand-derived concatenation.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/passes/concat_split.h"
#include "compiler/plan/emit.h"
#include "compiler/plan/plan_writer.h"
#include "compiler/schedule/stages.h"
#include "compiler_support/plan_runner.h"
#include "tigris_config.h"
#include "unit/compiler/pass_helpers.h"

namespace {

using namespace tigris;

TEST(ConcatSplit, ManyInputsBecomeATreeThatComputesTheConcat) {
  // x [1,2,3,3]; p_i = x * (i + 1); y = Concat(p_0 .. p_19) along the channels: [1,40,3,3].
  constexpr int kInputs = 20;
  static_assert(kInputs > TIGRIS_MAX_STAGE_INPUTS, "the test needs more inputs than a stage holds");
  test::OnnxBuilder b;
  b.input("x", {1, 2, 3, 3});
  std::vector<std::string> parts;
  for (int i = 0; i < kInputs; ++i) {
    const std::string k = "k" + std::to_string(i), p = "p" + std::to_string(i);
    b.init(k, {1}, {static_cast<float>(i + 1)});
    b.node("Mul", {"x", k}, {p});
    parts.push_back(p);
  }
  auto& cat = b.node("Concat", parts, {"y"});
  test::OnnxBuilder::attr(cat, "axis", int64_t{1});
  b.output("y", {1, 2 * kInputs, 3, 3});
  const ir::Graph g = test::normalized(b);
  int concats = 0;
  for (const ir::Node& n : g.nodes) {
    if (n.op != "Concat") continue;
    ++concats;
    EXPECT_LE(n.inputs.size(), passes::kConcatFanIn) << n.name;
    EXPECT_EQ(n.attrs.get_int("axis", -1), 1) << n.name;  // no spatial op: the model's own order
  }
  EXPECT_EQ(concats, 4);  // 20 inputs: a root of 8 joining three trees of 7, 7 and 6

  const schedule::Schedule sch = schedule::partition(g, 0);
  plan::EmitOptions eo;
  eo.model_name = "concat";
  const std::vector<uint8_t> bytes = plan::write_plan(plan::describe_plan(g, sch, eo));
  std::vector<float> x(18);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 7.5f;
  std::vector<uint8_t> in(x.size() * 4);
  std::memcpy(in.data(), x.data(), in.size());
  const test::PlanRun r = test::run_plan(bytes, {in}, 1 << 20);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.outputs.at(0).size(), 40u * 9 * 4);
  std::vector<float> y(40 * 9);
  std::memcpy(y.data(), r.outputs[0].data(), r.outputs[0].size());
  // NCHW: channel c of y is channel c % 2 of x times (c / 2 + 1).
  for (int c = 0; c < 40; ++c)
    for (int p = 0; p < 9; ++p) EXPECT_EQ(y[c * 9 + p], x[(c % 2) * 9 + p] * static_cast<float>(c / 2 + 1)) << c;
}

TEST(ConcatSplit, NarrowConcatsStayWhole) {
  test::OnnxBuilder b;
  b.input("x", {1, 2, 3, 3});
  std::vector<std::string> parts(TIGRIS_MAX_STAGE_INPUTS, "x");
  auto& cat = b.node("Concat", parts, {"y"});
  test::OnnxBuilder::attr(cat, "axis", int64_t{1});
  b.output("y", {1, 2 * TIGRIS_MAX_STAGE_INPUTS, 3, 3});
  ir::Graph g = test::normalized(b);
  EXPECT_EQ(passes::split_wide_concats(g), 0);
  int concats = 0;
  for (const ir::Node& n : g.nodes) concats += n.op == "Concat";
  EXPECT_EQ(concats, 1);
}

// A Concat along the rows (ONNX axis 2, stored NHWC axis 1) of three inputs: whole it holds
// the inputs and the output (2 x 5 KiB); at 2 KiB the scheduler bands it along its own axis
// (CONCAT), each band reading only the inputs that cover its rows, and the plan computes the
// concatenation (checked element by element against the inputs) in exactly its peak.
TEST(ConcatSplit, ConcatAlongRowsBandsAlongItsAxis) {
  const int heights[3] = {3, 5, 2};
  constexpr int C = 16, W = 8, H = 10;
  test::OnnxBuilder b;
  std::vector<std::string> parts;
  for (int i = 0; i < 3; ++i) {
    parts.push_back("x" + std::to_string(i));
    b.input(parts.back(), {1, C, heights[i], W});
  }
  auto& cat = b.node("Concat", parts, {"y"});
  test::OnnxBuilder::attr(cat, "axis", int64_t{2});
  b.output("y", {1, C, H, W});
  const ir::Graph g = test::normalized(b);
  const schedule::Schedule sch = schedule::partition(g, 2048);
  ASSERT_TRUE(sch.fits);
  ASSERT_EQ(sch.stages.size(), 1u);
  EXPECT_EQ(sch.stages[0].form, schedule::StageForm::Banded);
  EXPECT_EQ(sch.stages[0].band.kind, TIGRIS_BAND_KIND_CONCAT) << sch.stages[0].decision;
  EXPECT_LE(sch.stages[0].peak_bytes, 2048u);
  plan::EmitOptions eo;
  eo.model_name = "concat_rows";
  const std::vector<uint8_t> bytes = plan::write_plan(plan::describe_plan(g, sch, eo));
  std::vector<std::vector<float>> x(3);
  std::vector<std::vector<uint8_t>> in(3);
  for (int i = 0; i < 3; ++i) {
    x[i].resize((size_t)C * heights[i] * W);
    for (size_t k = 0; k < x[i].size(); ++k) x[i][k] = static_cast<float>(i * 1000 + (int)k) * 0.5f;
    in[i].resize(x[i].size() * 4);
    std::memcpy(in[i].data(), x[i].data(), in[i].size());
  }
  const test::PlanRun r = test::run_plan(bytes, in, 1 << 20);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.fast_peak, r.fast_size);  // the runtime holds exactly the scheduled peak
  EXPECT_EQ(r.stats.total_tiles, sch.stages[0].band.tiles);
  ASSERT_EQ(r.outputs.at(0).size(), (size_t)C * H * W * 4);
  std::vector<float> y((size_t)C * H * W);
  std::memcpy(y.data(), r.outputs[0].data(), r.outputs[0].size());
  // NCHW: row h of y is row h - offset of the input that covers it.
  for (int c = 0; c < C; ++c)
    for (int h = 0, i = 0, off = 0; h < H; ++h) {
      if (h - off >= heights[i]) off += heights[i++];
      for (int w = 0; w < W; ++w)
        ASSERT_EQ(y[((size_t)c * H + h) * W + w], x[i][((size_t)c * heights[i] + (h - off)) * W + w]) << c << "," << h;
    }
}

// A Concat whose one unit of every block is over budget (here along the rows of NCHW
// inputs, which stay NCHW: one row of all 16 channels, 1 KiB of output and 1 KiB of input,
// over 512 bytes) takes blocks of the axes before its axis (channels) x units (rows):
// CONCAT mode BLOCKS. It holds exactly the scheduled peak and computes the hand-derived
// concatenation.
TEST(ConcatSplit, ConcatOverBudgetTakesBlocks) {
  const int heights[3] = {6, 4, 6};
  constexpr int C = 16, W = 16, H = 16;
  test::OnnxBuilder b;
  std::vector<std::string> parts;
  for (int i = 0; i < 3; ++i) {
    parts.push_back("x" + std::to_string(i));
    b.input(parts.back(), {1, C, heights[i], W});
  }
  auto& cat = b.node("Concat", parts, {"y"});
  test::OnnxBuilder::attr(cat, "axis", int64_t{2});
  b.output("y", {1, C, H, W});
  const ir::Graph g = test::normalized(b);
  const schedule::Schedule sch = schedule::partition(g, 512);
  ASSERT_TRUE(sch.fits) << "floor " << sch.floor << " set by " << sch.floor_op;
  ASSERT_EQ(sch.stages.size(), 1u);
  const schedule::Stage& st = sch.stages[0];
  EXPECT_EQ(st.band.kind, TIGRIS_BAND_KIND_CONCAT) << st.decision;
  EXPECT_EQ(st.band.mode, TIGRIS_CONCAT_MODE_BLOCKS) << st.decision;
  EXPECT_EQ(st.band.col_extent, static_cast<uint32_t>(C)) << st.decision;
  EXPECT_LT(st.band.rows * st.band.cols, static_cast<uint32_t>(C * H)) << st.decision;
  EXPECT_LE(st.peak_bytes, 512u);
  plan::EmitOptions eo;
  eo.model_name = "concat_blocks";
  const std::vector<uint8_t> bytes = plan::write_plan(plan::describe_plan(g, sch, eo));
  std::vector<std::vector<float>> x(3);
  std::vector<std::vector<uint8_t>> in(3);
  for (int i = 0; i < 3; ++i) {
    x[i].resize((size_t)C * heights[i] * W);
    for (size_t k = 0; k < x[i].size(); ++k) x[i][k] = static_cast<float>(i * 10000 + (int)k) * 0.25f;
    in[i].resize(x[i].size() * 4);
    std::memcpy(in[i].data(), x[i].data(), in[i].size());
  }
  const test::PlanRun r = test::run_plan(bytes, in, 1 << 20);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.fast_peak, r.fast_size);  // the runtime holds exactly the scheduled peak
  EXPECT_EQ(r.stats.total_tiles, st.band.tiles);
  ASSERT_EQ(r.outputs.at(0).size(), (size_t)C * H * W * 4);
  std::vector<float> y((size_t)C * H * W);
  std::memcpy(y.data(), r.outputs[0].data(), r.outputs[0].size());
  // NCHW: row h of y is row h - offset of the input that covers it.
  for (int c = 0; c < C; ++c)
    for (int h = 0, i = 0, off = 0; h < H; ++h) {
      if (h - off >= heights[i]) off += heights[i++];
      for (int w = 0; w < W; ++w)
        ASSERT_EQ(y[((size_t)c * H + h) * W + w], x[i][((size_t)c * heights[i] + (h - off)) * W + w]) << c << "," << h;
    }
}

}  // namespace
