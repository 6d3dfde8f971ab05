// Channel shuffle (Reshape → Transpose → Reshape permuting one axis) becomes one Gather of
// hand-derivable indices; with the channel Slices and Concats around it (ShuffleNetV2's block)
// every one of them runs in row bands, and the banded plan equals the whole one bit for bit
// and a plain NCHW evaluation of the model written here.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/plan/emit.h"
#include "compiler/plan/plan_writer.h"
#include "compiler/schedule/stages.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "unit/compiler/pass_helpers.h"

namespace {

using namespace tigris;

// x [1,C,H,W] → Reshape [1,g,C/g,H,W] → Transpose perm → Reshape [1,C,H,W] named `out`.
void shuffle(test::OnnxBuilder& b, const std::string& x, const std::string& out, int64_t C, int64_t g, int64_t H,
             int64_t W, const std::vector<int64_t>& perm = {0, 2, 1, 3, 4}) {
  b.init_ints(out + "_s5", {5}, {1, g, C / g, H, W});
  b.init_ints(out + "_s4", {4}, {1, C, H, W});
  b.node("Reshape", {x, out + "_s5"}, {out + "_r5"});
  auto& t = b.node("Transpose", {out + "_r5"}, {out + "_t5"});
  test::OnnxBuilder::attr(t, "perm", perm);
  b.node("Reshape", {out + "_t5", out + "_s4"}, {out});
}

void slice_channels(test::OnnxBuilder& b, const std::string& x, const std::string& out, int64_t from, int64_t to) {
  b.init_ints(out + "_b", {1}, {from});
  b.init_ints(out + "_e", {1}, {to});
  b.init_ints(out + "_a", {1}, {1});
  b.node("Slice", {x, out + "_b", out + "_e", out + "_a"}, {out});
}

std::vector<int64_t> gather_indices(const ir::Graph& g) {
  const ir::Node& n = test::node_of(g, "Gather");
  return passes::const_ints(g.tensor(n.inputs.at(1)));
}

std::vector<uint8_t> plan_bytes(const ir::Graph& g, uint64_t budget) {
  const schedule::Schedule sch = schedule::partition(g, budget);
  plan::EmitOptions eo;
  eo.model_name = "shuffle";
  return plan::write_plan(plan::describe_plan(g, sch, eo));
}

TEST(ChannelShuffle, BecomesAGatherOfTheInterleavedChannels) {
  // 6 channels in 2 groups of 3: output channel k is input channel (k % 2) * 3 + k / 2.
  test::OnnxBuilder b;
  b.input("x", {1, 6, 2, 2});
  shuffle(b, "x", "y", 6, 2, 2, 2);
  b.output("y", {1, 6, 2, 2});
  const ir::Graph g = test::normalized(b);
  EXPECT_EQ(test::ops(g), std::vector<std::string>{"Gather"});
  EXPECT_EQ(gather_indices(g), (std::vector<int64_t>{0, 3, 1, 4, 2, 5}));
  std::vector<float> x(24);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i);
  const test::PlanRun r = test::run_plan(plan_bytes(g, 0), {test::floats(x)}, 1 << 20);
  ASSERT_EQ(r.error, "");
  // Channels of x are 0-3, 4-7, ..., 20-23; y takes x's channels 0, 3, 1, 4, 2, 5.
  const std::vector<float> want = {0,  1,  2,  3,  12, 13, 14, 15, 4,  5,  6,  7,
                                   16, 17, 18, 19, 8,  9,  10, 11, 20, 21, 22, 23};
  EXPECT_EQ(test::values_of<float>(r.outputs.at(0)), want);
}

TEST(ChannelShuffle, AnyGroupCountAndFactorOrder) {
  {  // g = 3 of 12 channels: k reads (k % 3) * 4 + k / 3.
    test::OnnxBuilder b;
    b.input("x", {1, 12, 1, 1});
    shuffle(b, "x", "y", 12, 3, 1, 1);
    b.output("y", {1, 12, 1, 1});
    EXPECT_EQ(gather_indices(test::normalized(b)), (std::vector<int64_t>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}));
  }
  {  // 12 = 2 x 3 x 2 factors, transposed (2, 0, 1): [a, b, c] read at output [c, a, b].
    test::OnnxBuilder b;
    b.input("x", {1, 12, 1, 1});
    b.init_ints("s6", {6}, {1, 2, 3, 2, 1, 1});
    b.init_ints("s4", {4}, {1, 12, 1, 1});
    b.node("Reshape", {"x", "s6"}, {"r"});
    auto& t = b.node("Transpose", {"r"}, {"t"});
    test::OnnxBuilder::attr(t, "perm", std::vector<int64_t>{0, 3, 1, 2, 4, 5});
    b.node("Reshape", {"t", "s4"}, {"y"});
    b.output("y", {1, 12, 1, 1});
    std::vector<int64_t> want;
    for (int64_t c = 0; c < 2; ++c)
      for (int64_t a = 0; a < 2; ++a)
        for (int64_t bb = 0; bb < 3; ++bb) want.push_back(a * 6 + bb * 2 + c);
    EXPECT_EQ(gather_indices(test::normalized(b)), want);
  }
  {  // A Transpose that also moves a spatial axis is not a channel permutation: kept.
    test::OnnxBuilder b;
    b.input("x", {1, 4, 2, 2});
    shuffle(b, "x", "y", 4, 2, 2, 2, {0, 3, 2, 1, 4});
    b.output("y", {1, 4, 2, 2});
    for (const std::string& op : test::ops(test::normalized(b))) EXPECT_NE(op, "Gather");
  }
}

// int8 x → Reshape → Transpose → Reshape → y, y quantized as `y_quant`.
ir::Graph int8_shuffle(const ir::QuantParam& y_quant) {
  ir::Graph g;
  const ir::QuantParam q{{0.5f}, {3}, -1};
  auto tensor = [&](const std::string& name, ir::Shape shape, const ir::QuantParam& qp) {
    ir::Tensor t;
    t.name = name;
    t.dtype = ir::DType::Int8;
    t.shape = std::move(shape);
    t.quant = qp;
    return g.add_tensor(std::move(t));
  };
  const ir::TensorId x = tensor("x", {1, 4, 2, 2}, q), r = tensor("r", {1, 2, 2, 2, 2}, q);
  const ir::TensorId t = tensor("t", {1, 2, 2, 2, 2}, q), y = tensor("y", {1, 4, 2, 2}, y_quant);
  auto node = [&](const std::string& op, ir::TensorId in, ir::TensorId out) {
    ir::Node n;
    n.name = op + std::to_string(g.nodes.size());
    n.op = op;
    n.inputs = {in};
    n.outputs = {out};
    g.nodes.push_back(std::move(n));
    return &g.nodes.back();
  };
  node("Reshape", x, r);
  node("Transpose", r, t)->attrs.set("perm", std::vector<int64_t>{0, 2, 1, 3, 4});
  node("Reshape", t, y);
  g.inputs = {x};
  g.outputs = {y};
  return g;
}

TEST(ChannelShuffle, Int8OnlyWhenNoStepRequantizes) {
  ir::Graph same = int8_shuffle(ir::QuantParam{{0.5f}, {3}, -1});
  passes::channel_shuffle_to_gather(same);
  EXPECT_EQ(test::ops(same), std::vector<std::string>{"Gather"});
  EXPECT_EQ(gather_indices(same), (std::vector<int64_t>{0, 2, 1, 3}));
  ir::Graph rescaled = int8_shuffle(ir::QuantParam{{0.25f}, {3}, -1});  // the last Reshape requantizes
  passes::channel_shuffle_to_gather(rescaled);
  EXPECT_EQ(test::ops(rescaled), (std::vector<std::string>{"Reshape", "Transpose", "Reshape"}));
}

// ShuffleNetV2's unit: two 1x1 branches joined, shuffled in 3 groups, split unevenly (5 | 7
// channels), one part through a 1x1 convolution and joined back.
struct Block {
  static constexpr int64_t C = 12, H = 9, W = 5, half = 6, cut = 5;
  std::vector<float> w1, w2, w3;  // 1x1 weights [out][in]
  test::OnnxBuilder b;

  Block() {
    for (int64_t i = 0; i < half * C; ++i) w1.push_back(static_cast<float>((i * 7) % 11) / 8 - 0.5f);
    for (int64_t i = 0; i < half * C; ++i) w2.push_back(static_cast<float>((i * 5) % 13) / 8 - 0.75f);
    for (int64_t i = 0; i < (C - cut) * (C - cut); ++i) w3.push_back(static_cast<float>((i * 3) % 7) / 4 - 0.75f);
    b.input("x", {1, C, H, W});
    b.init("w1", {half, C, 1, 1}, w1);
    b.init("w2", {half, C, 1, 1}, w2);
    b.init("w3", {C - cut, C - cut, 1, 1}, w3);
    b.node("Conv", {"x", "w1"}, {"p"});
    b.node("Conv", {"x", "w2"}, {"q"});
    auto& c1 = b.node("Concat", {"p", "q"}, {"c"});
    test::OnnxBuilder::attr(c1, "axis", int64_t{1});
    shuffle(b, "c", "s", C, 3, H, W);
    slice_channels(b, "s", "s1", 0, cut);
    slice_channels(b, "s", "s2", cut, C);
    b.node("Conv", {"s2", "w3"}, {"u"});
    auto& c2 = b.node("Concat", {"s1", "u"}, {"y"});
    test::OnnxBuilder::attr(c2, "axis", int64_t{1});
    b.output("y", {1, C, H, W});
  }

  // The model evaluated in NCHW as written (1x1 convolutions, channel copies).
  std::vector<float> reference(const std::vector<float>& x) const {
    const int64_t P = H * W;
    auto conv = [&](const std::vector<float>& w, const float* in, int64_t cin, int64_t cout) {
      std::vector<float> out(static_cast<size_t>(cout * P), 0.0f);
      for (int64_t o = 0; o < cout; ++o)
        for (int64_t p = 0; p < P; ++p) {
          float acc = 0;
          for (int64_t i = 0; i < cin; ++i) acc += w[static_cast<size_t>(o * cin + i)] * in[i * P + p];
          out[static_cast<size_t>(o * P + p)] = acc;
        }
      return out;
    };
    std::vector<float> c = conv(w1, x.data(), C, half), q = conv(w2, x.data(), C, half);
    c.insert(c.end(), q.begin(), q.end());
    std::vector<float> s(c.size());
    for (int64_t k = 0; k < C; ++k)  // 3 groups of 4: channel k reads (k % 3) * 4 + k / 3
      std::memcpy(&s[static_cast<size_t>(k * P)], &c[static_cast<size_t>(((k % 3) * 4 + k / 3) * P)],
                  static_cast<size_t>(P) * 4);
    std::vector<float> y(s.begin(), s.begin() + cut * P);
    std::vector<float> u = conv(w3, s.data() + cut * P, C - cut, C - cut);
    y.insert(y.end(), u.begin(), u.end());
    return y;
  }
};

TEST(ChannelShuffle, ShuffleNetBlockBandsAlongRows) {
  Block blk;
  const ir::Graph g = test::normalized(blk.b);
  for (const ir::Node& n : g.nodes) {
    EXPECT_NE(n.op, "Transpose") << n.name;  // no layout conversions, no 5-D tensors
    for (ir::TensorId t : n.outputs) EXPECT_EQ(g.tensor(t).rank(), 4) << n.name;
  }
  std::vector<float> x(static_cast<size_t>(Block::C * Block::H * Block::W));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i * 37 % 101) - 50) / 25;
  const std::vector<float> want = blk.reference(x);

  const test::PlanRun whole = test::run_plan(plan_bytes(g, 0), {test::floats(x)}, 1 << 20);
  ASSERT_EQ(whole.error, "");
  const std::vector<float> y = test::values_of<float>(whole.outputs.at(0));
  ASSERT_EQ(y.size(), want.size());
  for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-5f) << i;

  // A budget of a few rows: Concat, Gather, Slice and Concat each run in row bands.
  const uint64_t tensor = Block::C * Block::H * Block::W * 4;
  const uint64_t budget = tensor;  // below any two whole tensors held together
  const schedule::Schedule sch = schedule::partition(g, budget);
  ASSERT_TRUE(sch.fits);
  for (const schedule::Stage& s : sch.stages)
    for (int i = s.first; i < s.end; ++i) {
      const std::string& op = g.nodes[static_cast<size_t>(i)].op;
      if (op == "Gather" || op == "Slice" || op == "Concat") {
        EXPECT_NE(s.form, schedule::StageForm::Normal) << op << " runs whole at " << budget;
      }
    }
  const test::PlanRun banded = test::run_plan(plan_bytes(g, budget), {test::floats(x)}, 1 << 20);
  ASSERT_EQ(banded.error, "");
  EXPECT_GT(banded.stats.total_tiles, sch.stages.size());
  EXPECT_EQ(banded.outputs.at(0), whole.outputs.at(0));  // bit for bit
  EXPECT_LE(banded.fast_size, budget);                   // the arena the plan requires
}

}  // namespace
