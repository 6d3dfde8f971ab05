// Lifetimes, the memory timeline and stage costs against hand-computed bytes (sizes are
// rounded up to 32: a [1,10] float tensor holds 40 bytes and costs 64, a [1,100] one 416).
#include <gtest/gtest.h>

#include "compiler/api.h"
#include "compiler/schedule/lifetimes.h"
#include "compiler/schedule/stages.h"
#include "tigris_loader.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;

ir::TensorId tensor(ir::Graph& g, const std::string& name, int64_t n) {
  ir::Tensor t;
  t.name = name;
  t.shape = {1, n};
  return g.add_tensor(t);
}

void node(ir::Graph& g, const std::string& op, std::vector<ir::TensorId> in, ir::TensorId out) {
  ir::Node n;
  n.name = op + std::to_string(g.nodes.size());
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = {out};
  g.nodes.push_back(n);
}

// x -> Relu -> a -> Relu -> b -> Relu -> y, every tensor [1, n].
ir::Graph chain(int64_t n, int ops) {
  ir::Graph g;
  ir::TensorId prev = tensor(g, "x", n);
  g.inputs = {prev};
  for (int i = 0; i < ops; ++i) {
    std::string name = "t";
    name += std::to_string(i);
    ir::TensorId t = tensor(g, i + 1 == ops ? std::string("y") : name, n);
    node(g, "Relu", {prev}, t);
    prev = t;
  }
  g.outputs = {prev};
  return g;
}

TEST(Schedule, AlignedSizes) {
  EXPECT_EQ(schedule::aligned_size(40), 64u);
  EXPECT_EQ(schedule::aligned_size(64), 64u);
  EXPECT_EQ(schedule::aligned_size(400), 416u);
  EXPECT_EQ(schedule::aligned_size(0), 0u);
}

TEST(Schedule, LifetimesOfAChain) {
  ir::Graph g = chain(10, 3);
  std::vector<schedule::Lifetime> lt = schedule::compute_lifetimes(g);
  ASSERT_EQ(lt.size(), 4u);
  int want[4][2] = {{-1, 0}, {0, 1}, {1, 2}, {2, 3}};  // x, t0, t1, y (output dies after the last op)
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(lt[i].birth, want[i][0]) << g.tensor(lt[i].tensor).name;
    EXPECT_EQ(lt[i].death, want[i][1]) << g.tensor(lt[i].tensor).name;
    EXPECT_EQ(lt[i].bytes, 64u);
  }
}

TEST(Schedule, TimelineCountsAnOutputWithTheInputsItConsumes) {
  ir::Graph g = chain(10, 3);
  schedule::Timeline tl = schedule::memory_timeline(g, schedule::compute_lifetimes(g));
  EXPECT_EQ(tl.live_bytes, (std::vector<uint64_t>{128, 128, 128}));
  EXPECT_EQ(tl.peak_bytes, 128u);
}

TEST(Schedule, AStageReleasesEachTensorAfterItsLastRead) {
  ir::Graph g = chain(10, 3);
  // step 0: x + t0; step 1: t0 + t1; step 2: t1 + y. Inputs read in place (one stage) are
  // released like loaded ones: the executor compacts over them at the stage's stated peak.
  EXPECT_EQ(schedule::stage_cost(g, 0, 3, true), 128u);
  EXPECT_EQ(schedule::stage_cost(g, 0, 3, false), 128u);
}

// x -> A -> a; a -> B -> b; Add(a, b) -> y, every tensor 400 bytes (416 aligned).
ir::Graph skip_graph() {
  ir::Graph g;
  ir::TensorId x = tensor(g, "x", 100), a = tensor(g, "a", 100), b = tensor(g, "b", 100), y = tensor(g, "y", 100);
  g.inputs = {x};
  node(g, "Relu", {x}, a);
  node(g, "Relu", {a}, b);
  node(g, "Add", {a, b}, y);
  g.outputs = {y};
  return g;
}

TEST(Schedule, StageCostsOfASkipConnection) {
  ir::Graph g = skip_graph();
  EXPECT_EQ(schedule::stage_cost(g, 0, 1, false), 832u);   // x + a
  EXPECT_EQ(schedule::stage_cost(g, 1, 2, false), 832u);   // a + b
  EXPECT_EQ(schedule::stage_cost(g, 2, 3, false), 1248u);  // a + b loaded, + y
  EXPECT_EQ(schedule::stage_cost(g, 0, 2, false), 832u);   // a spilled: held to the end
  EXPECT_EQ(schedule::stage_cost(g, 0, 3, true), 1248u);   // a + b + y at the Add
}

// x -> a -> p -> b (1000 floats) -> c, then Add(a, c) -> y; other tensors 100 floats.
// Whole, `a` is live beside the wide b: a + p + b = 4832 at C, a + b + c = 4832 at D.
ir::Graph wide_skip_graph() {
  ir::Graph g;
  ir::TensorId x = tensor(g, "x", 100), a = tensor(g, "a", 100), p = tensor(g, "p", 100), b = tensor(g, "b", 1000),
               c = tensor(g, "c", 100), y = tensor(g, "y", 100);
  g.inputs = {x};
  node(g, "Relu", {x}, a);
  node(g, "Relu", {a}, p);
  node(g, "Relu", {p}, b);
  node(g, "Relu", {b}, c);
  node(g, "Add", {a, c}, y);
  g.outputs = {y};
  return g;
}

TEST(Schedule, PartitionMinimisesSpillAndReload) {
  ir::Graph g = wide_skip_graph();
  schedule::PartitionOptions normal_only;
  normal_only.banding = false;
  EXPECT_EQ(schedule::partition(g, 1u << 20, normal_only).scheduled_peak, 4832u);
  schedule::Schedule s = schedule::partition(g, 4416, normal_only);
  // [0,1) spills a; [1,4) reloads a, holds p + b then b + c, spills c; [4,5) reloads a and c:
  // 2000 bytes moved. Cutting at 2 instead spills a and p (2400); [0,3) would hold a + p + b.
  ASSERT_EQ(s.stages.size(), 3u);
  EXPECT_EQ(s.stages[0].end, 1);
  EXPECT_EQ(s.stages[1].end, 4);
  EXPECT_EQ(s.stages[0].spill_bytes, 400u);
  EXPECT_EQ(s.stages[1].reload_bytes, 400u);
  EXPECT_EQ(s.stages[1].spill_bytes, 400u);
  EXPECT_EQ(s.stages[2].reload_bytes, 800u);
  EXPECT_EQ(s.stages[0].peak_bytes, 832u);
  EXPECT_EQ(s.stages[1].peak_bytes, 4416u);
  EXPECT_EQ(s.stages[2].peak_bytes, 1248u);
  EXPECT_EQ(s.scheduled_peak, 4416u);
  EXPECT_TRUE(s.fits);
  EXPECT_EQ(s.stages[0].slow_bytes_after, 832u);   // x (read by stage 0) + a
  EXPECT_EQ(s.stages[1].slow_bytes_after, 832u);   // a + c
  EXPECT_EQ(s.stages[2].slow_bytes_after, 1248u);  // a + c (read by stage 2) + y
  EXPECT_EQ(s.slow_peak, 1248u);
}

TEST(Schedule, GreedyBaselineGrowsStagesWhileTheyFit) {
  ir::Graph g = wide_skip_graph();
  schedule::PartitionOptions greedy;
  greedy.banding = false;
  greedy.greedy = true;
  schedule::Schedule s = schedule::partition(g, 4416, greedy);
  // [0,2) holds x + a, a + p (a spilled for the Add); [0,3) would hold a + p + b. Then [2,4)
  // and [4,5): 2400 bytes moved against the DP's 2000 (PartitionMinimisesSpillAndReload).
  ASSERT_EQ(s.stages.size(), 3u);
  EXPECT_EQ(s.stages[0].end, 2);
  EXPECT_EQ(s.stages[1].end, 4);
  EXPECT_EQ(s.stages[0].spill_bytes + s.stages[1].reload_bytes + s.stages[1].spill_bytes + s.stages[2].reload_bytes,
            2400u);
  EXPECT_EQ(s.scheduled_peak, 4416u);
}

TEST(Schedule, GenerousBudgetIsOneStageWithoutSlowMemory) {
  ir::Graph g = skip_graph();
  schedule::Schedule s = schedule::partition(g, 1 << 20);
  ASSERT_EQ(s.stages.size(), 1u);
  EXPECT_EQ(s.scheduled_peak, 1248u);
  EXPECT_EQ(s.slow_peak, 0u);
}

TEST(Schedule, AnOperatorOverTheBudgetFailsTheCompileWithAReason) {
  test::OnnxBuilder b;
  b.input("x", {1, 256});
  b.node("Relu", {"x"}, {"r"}, "first");
  b.node("Sigmoid", {"r"}, {"y"}, "second");
  b.output("y", {1, 256});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  compiler::Budgets budget;
  budget.fast = 1500;  // each op holds 1024 + 1024
  compiler::CompileResult r = compiler::compile(m, budget);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.schedule.fast.blocking_stages.size(), 2u);
  EXPECT_EQ(r.schedule.fast.blocking_stages[0].required_bytes, 2048u);
  EXPECT_EQ(r.schedule.fast.minimum_for_partition_bytes, 2048u);
  EXPECT_NE(r.error.find("exceed the fast budget of 1500 bytes"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("first (Relu) alone needs 2048 bytes"), std::string::npos) << r.error;
  budget.fast = 0;
  EXPECT_EQ(compiler::compile(m, budget).error, "Fast-memory budget must be greater than zero");
}

// x -> Relu a -> Sigmoid p -> Concat(p, p, p, p) b [1,1024] -> MatMul c [1,256] -> Add(a, c) y.
// Whole it holds a + p + b = 6144 bytes; each op alone at most 5120 (p + b, b + c).
compiler::Model wide_skip_model() {
  test::OnnxBuilder b;
  b.input("x", {1, 256});
  b.node("Relu", {"x"}, {"a"});
  b.node("Sigmoid", {"a"}, {"p"});
  onnx::NodeProto& cat = b.node("Concat", {"p", "p", "p", "p"}, {"b"});
  test::OnnxBuilder::attr(cat, "axis", int64_t{1});
  b.init("w", {1024, 256}, std::vector<float>(1024 * 256, 0.01f));
  b.node("MatMul", {"b", "w"}, {"c"});
  b.node("Add", {"a", "c"}, {"y"});
  b.output("y", {1, 256});
  return compiler::load_model_bytes(b.bytes(), "wide.onnx");
}

TEST(Schedule, ASlowBudgetTooSmallFailsTheCompile) {
  compiler::Model m = wide_skip_model();
  compiler::Budgets budget;
  budget.fast = 5120;
  compiler::CompileResult ok = compiler::compile(m, budget);
  ASSERT_TRUE(ok.ok()) << ok.error;
  ASSERT_GT(ok.schedule.stages.size(), 1u);
  const uint64_t needed = ok.schedule.slow.peak_bytes;
  EXPECT_GE(needed, 2048u);  // at least x + a at the end of the first stage
  budget.slow = 100;
  compiler::CompileResult slow = compiler::compile(m, budget);
  EXPECT_FALSE(slow.ok());
  EXPECT_EQ(slow.error, "no plan written: slow memory " + std::to_string(needed) + " bytes needed, 100 bytes given");
  budget.slow = needed;
  EXPECT_TRUE(compiler::compile(m, budget).ok());
}

TEST(Schedule, PlanStatesTheScheduledPeakAndStages) {
  compiler::Model m = wide_skip_model();
  compiler::Budgets budget;
  budget.fast = 5120;
  compiler::CompileResult r = compiler::compile(m, budget);
  ASSERT_TRUE(r.ok()) << r.error;
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(r.plan.data(), static_cast<uint32_t>(r.plan.size()), &plan), TIGRIS_OK);
  EXPECT_EQ(plan.scheduled_peak, r.schedule.fast.scheduled_peak_bytes);
  EXPECT_LE(plan.scheduled_peak, 5120u);
  EXPECT_EQ(plan.header->budget, 5120u);
  EXPECT_EQ(plan.header->num_stages, r.schedule.stages.size());
  EXPECT_GT(plan.header->num_stages, 1u);
  for (uint16_t s = 0; s < plan.header->num_stages; ++s) EXPECT_LE(plan.stages[s].peak_bytes, 5120u);
}

}  // namespace
