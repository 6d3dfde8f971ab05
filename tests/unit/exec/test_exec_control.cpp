// Control flow (If / While) on crafted plans with the float reference kernels: results,
// COPY events and copy_bytes derived by hand from the copy rules of docs/executor.md
// (If: operands in, outputs out; While: operands to the loop variables, the variables into
// the condition each round and into the body per iteration, the body's outputs back).
#include "exec_fixture.h"
#include "tigris_kernels.h"

using namespace exectest;
using tigris::plan::AttrDesc;
using tigris::plan::SubgraphDesc;

namespace {

constexpr uint8_t kBool = TIGRIS_DTYPE_BOOL;

std::vector<uint8_t> graphs(uint16_t a, uint16_t b) {
  return {(uint8_t)a, (uint8_t)(a >> 8), (uint8_t)b, (uint8_t)(b >> 8)};
}

// A plan run on the float reference dispatcher, traced.
struct FlowRun : PlanRun {
  using PlanRun::PlanRun;
  tigris_exec_error_t run_real() { return tigris_run(&plan.plan, &mem, tigris_dispatch_kernel, nullptr, &stats); }
  void write_bool(uint16_t t, uint8_t v) { ASSERT_EQ(tigris_input_write(&plan.plan, &mem, t, &v, 1), TIGRIS_OK); }
  std::vector<uint16_t> copied_tensors() const {
    std::vector<uint16_t> t;
    for (const auto& e : rec.events)
      if (e.kind == TIGRIS_TRACE_COPY) t.push_back(e.tensor);
    return t;
  }
};

// y = If(c, x): then y = relu(x), else y = x + x. Graph 0 = [If], 1 = then, 2 = else.
PlanDesc if_plan() {
  PlanDesc p;
  uint16_t c = add_tensor(p, "c", {1}, TIGRIS_TENSOR_MODEL_INPUT, kBool);
  uint16_t x = add_tensor(p, "x", {1, 4}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(p, "y", {1, 4}, TIGRIS_TENSOR_MODEL_OUTPUT);
  uint16_t tx = add_tensor(p, "tx", {1, 4}), ty = add_tensor(p, "ty", {1, 4});
  uint16_t ex = add_tensor(p, "ex", {1, 4}), ey = add_tensor(p, "ey", {1, 4});
  add_op(p, TIGRIS_OP_IF, {c, x}, {y});
  add_op(p, TIGRIS_OP_RELU, {tx}, {ty});
  add_op(p, TIGRIS_OP_ADD, {ex, ex}, {ey});
  add_stage(p, {0}, {c, x}, {y});
  add_stage(p, {1}, {tx}, {ty});
  add_stage(p, {2}, {ex}, {ey});
  p.attributes = {AttrDesc{0, TIGRIS_ATTR_SUBGRAPHS, graphs(1, 2)}};
  p.subgraphs = {SubgraphDesc{0, 1, {c, x}, {y}}, SubgraphDesc{1, 1, {tx}, {ty}}, SubgraphDesc{2, 1, {ex}, {ey}}};
  p.model_inputs = {c, x};
  p.model_outputs = {y};
  p.scheduled_peak = 64;
  return p;
}

TEST(ExecControl, IfRunsTheBranchTheConditionChooses) {
  const std::vector<float> xv = {1, -2, 3, -4};
  for (uint8_t cond : {1, 0}) {
    FlowRun r(if_plan(), 1024, 1024);
    r.write_bool(0, cond);
    r.write(1, xv);
    ASSERT_EQ(r.run_real(), TIGRIS_EXEC_OK) << int(cond);
    const std::vector<float> want = cond ? std::vector<float>{1, 0, 3, 0} : std::vector<float>{2, -4, 6, -8};
    EXPECT_EQ(r.read(2, 4), want);
    // x -> tx (or ex), then ty (or ey) -> y: 16 bytes each.
    const uint16_t in = cond ? 3 : 5;
    EXPECT_EQ(r.copied_tensors(), (std::vector<uint16_t>{in, 2}));
    EXPECT_EQ(r.stats.copy_bytes, 32u);
    EXPECT_EQ(r.stats.stages_normal, 2u);  // the If stage and the branch's one stage
    EXPECT_EQ(r.stats.loads_bytes, 16u);   // tx (or ex) loaded by the branch stage
    // The If stage is reported on the CONTROL path; the branch stage inside it on NORMAL.
    std::vector<std::pair<uint16_t, uint8_t>> begins;
    for (const auto& e : r.rec.events) {
      if (e.kind == TIGRIS_TRACE_STAGE_BEGIN) begins.push_back({e.stage, e.path});
      if (e.kind == TIGRIS_TRACE_COPY) {
        EXPECT_EQ(e.stage, 0u);
        EXPECT_EQ(e.pool, TIGRIS_TRACE_POOL_SLOW);
        EXPECT_EQ(e.bytes, 16u);
      }
    }
    const uint16_t branch = cond ? 1 : 2;
    EXPECT_EQ(begins, (std::vector<std::pair<uint16_t, uint8_t>>{{0, TIGRIS_PATH_CONTROL}, {branch, TIGRIS_PATH_NORMAL}}));
    EXPECT_EQ(r.mem.fast_used, 0u);
  }
}

// (i, n, one) -> While(i < n) { i = i + one }: graph 1 = condition, graph 2 = body, whose
// outputs n and one are its inputs passed through.
PlanDesc counting_plan() {
  PlanDesc p;
  uint16_t i = add_tensor(p, "i", {1}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t n = add_tensor(p, "n", {1}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t one = add_tensor(p, "one", {1}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t io = add_tensor(p, "i_out", {1}, TIGRIS_TENSOR_MODEL_OUTPUT);
  uint16_t no = add_tensor(p, "n_out", {1});
  uint16_t oo = add_tensor(p, "one_out", {1});
  uint16_t ci = add_tensor(p, "ci", {1}), cn = add_tensor(p, "cn", {1}), co = add_tensor(p, "cone", {1});
  uint16_t cc = add_tensor(p, "cc", {1}, 0, kBool);
  uint16_t bi = add_tensor(p, "bi", {1}), bn = add_tensor(p, "bn", {1}), bo = add_tensor(p, "bone", {1});
  uint16_t bi2 = add_tensor(p, "bi2", {1});
  add_op(p, TIGRIS_OP_WHILE, {i, n, one}, {io, no, oo});
  add_op(p, TIGRIS_OP_LESS, {ci, cn}, {cc});
  add_op(p, TIGRIS_OP_ADD, {bi, bo}, {bi2});
  add_stage(p, {0}, {i, n, one}, {io, no, oo});
  add_stage(p, {1}, {ci, cn}, {cc});
  add_stage(p, {2}, {bi, bo}, {bi2});
  p.attributes = {AttrDesc{0, TIGRIS_ATTR_SUBGRAPHS, graphs(1, 2)}};
  p.subgraphs = {SubgraphDesc{0, 1, {i, n, one}, {io}}, SubgraphDesc{1, 1, {ci, cn, co}, {cc}},
                 SubgraphDesc{2, 1, {bi, bn, bo}, {bi2, bn, bo}}};
  p.model_inputs = {i, n, one};
  p.model_outputs = {io};
  p.scheduled_peak = 64;
  return p;
}

TEST(ExecControl, WhileCountsToN) {
  for (float n : {5.0f, 0.0f}) {
    FlowRun r(counting_plan(), 1024, 1024);
    r.write(0, {0.0f});
    r.write(1, {n});
    r.write(2, {1.0f});
    ASSERT_EQ(r.run_real(), TIGRIS_EXEC_OK);
    EXPECT_EQ(r.read(3, 1), std::vector<float>{n});
    // 12 bytes of loop variables: operands -> variables once, variables -> condition
    // n + 1 times, variables -> body and body -> variables n times each.
    const uint32_t rounds = (uint32_t)n;
    EXPECT_EQ(r.stats.copy_bytes, 12u * (1u + (rounds + 1u) + 2u * rounds));
    EXPECT_EQ(r.rec.count(TIGRIS_TRACE_COPY), 3u * (1u + (rounds + 1u) + 2u * rounds));
    EXPECT_EQ(r.stats.stages_normal, 1u + (rounds + 1u) + rounds);
    EXPECT_EQ(r.mem.fast_used, 0u);
  }
}

// While (i < n) { i = i + one; acc = If(acc < n) then acc + acc else acc + one }:
// graphs 0 main, 1 condition, 2 body (stages: add, less, If), 3 then, 4 else. Depth 2.
PlanDesc nested_plan() {
  PlanDesc p;
  auto t = [&](const char* name, uint8_t flags = 0, uint8_t dtype = TIGRIS_DTYPE_FLOAT32) {
    return add_tensor(p, name, {1}, flags, dtype);
  };
  const uint8_t in = TIGRIS_TENSOR_MODEL_INPUT;
  uint16_t i = t("i", in), n = t("n", in), one = t("one", in), acc = t("acc", in);
  uint16_t io = t("i_out"), no = t("n_out"), oo = t("one_out"), ao = t("acc_out", TIGRIS_TENSOR_MODEL_OUTPUT);
  uint16_t ci = t("ci"), cn = t("cn"), co = t("cone"), ca = t("cacc"), cc = t("cc", 0, kBool);
  uint16_t bi = t("bi"), bn = t("bn"), bo = t("bone"), ba = t("bacc"), bi2 = t("bi2"), bc = t("bc", 0, kBool),
           ba2 = t("bacc2");
  uint16_t ta = t("tacc"), to = t("tone"), ts = t("tsum");
  uint16_t ea = t("eacc"), eo = t("eone"), es = t("esum");
  add_op(p, TIGRIS_OP_WHILE, {i, n, one, acc}, {io, no, oo, ao});  // 0
  add_op(p, TIGRIS_OP_LESS, {ci, cn}, {cc});                       // 1
  add_op(p, TIGRIS_OP_ADD, {bi, bo}, {bi2});                       // 2
  add_op(p, TIGRIS_OP_LESS, {ba, bn}, {bc});                       // 3
  add_op(p, TIGRIS_OP_IF, {bc, ba, bo}, {ba2});                    // 4
  add_op(p, TIGRIS_OP_ADD, {ta, ta}, {ts});                        // 5
  add_op(p, TIGRIS_OP_ADD, {ea, eo}, {es});                        // 6
  add_stage(p, {0}, {i, n, one, acc}, {io, no, oo, ao});
  add_stage(p, {1}, {ci, cn}, {cc});
  add_stage(p, {2}, {bi, bo}, {bi2});
  add_stage(p, {3}, {ba, bn}, {bc});
  add_stage(p, {4}, {bc, ba, bo}, {ba2});
  add_stage(p, {5}, {ta}, {ts});
  add_stage(p, {6}, {ea, eo}, {es});
  p.attributes = {AttrDesc{0, TIGRIS_ATTR_SUBGRAPHS, graphs(1, 2)}, AttrDesc{4, TIGRIS_ATTR_SUBGRAPHS, graphs(3, 4)}};
  p.subgraphs = {SubgraphDesc{0, 1, {i, n, one, acc}, {ao}}, SubgraphDesc{1, 1, {ci, cn, co, ca}, {cc}},
                 SubgraphDesc{2, 3, {bi, bn, bo, ba}, {bi2, bn, bo, ba2}}, SubgraphDesc{5, 1, {ta, to}, {ts}},
                 SubgraphDesc{6, 1, {ea, eo}, {es}}};
  p.model_inputs = {i, n, one, acc};
  p.model_outputs = {ao};
  p.scheduled_peak = 64;
  return p;
}

TEST(ExecControl, IfNestedInWhile) {
  FlowRun r(nested_plan(), 1024, 2048);
  EXPECT_EQ(r.plan.plan.subgraph_depth, 2u);
  r.write(0, {0.0f});
  r.write(1, {4.0f});
  r.write(2, {1.0f});
  r.write(3, {1.0f});
  ASSERT_EQ(r.run_real(), TIGRIS_EXEC_OK);
  // acc: 1 -> 2 -> 4 (doubled while below 4) -> 5 -> 6 (one added), four rounds.
  EXPECT_EQ(r.read(7, 1), std::vector<float>{6.0f});
  // While: 16 bytes of variables x (1 + 5 conditions + 2 x 4 rounds) = 224; the If per
  // round: acc and one in (8), the sum out (4), x 4 = 48.
  EXPECT_EQ(r.stats.copy_bytes, 224u + 48u);
  // Stages: While 1, conditions 5, per round add + less + If + branch = 4 -> 22.
  EXPECT_EQ(r.stats.stages_normal, 22u);
  EXPECT_EQ(r.mem.fast_used, 0u);
  // Nothing of the loop is left in slow but the model output.
  EXPECT_EQ(r.mem.slow_used, aligned(4));
}

TEST(ExecControl, WorkspaceHoldsTheNestingDepth) {
  Loaded f;
  ASSERT_EQ(load(nested_plan(), &f), TIGRIS_OK);
  Loaded g;
  ASSERT_EQ(load(counting_plan(), &g), TIGRIS_OK);
  // docs/executor.md §4 with I/O the most stage inputs/outputs, no chains, D the depth.
  auto formula = [](const tigris_plan_t& p, uint32_t io, uint32_t depth) {
    return sizeof(void*) * (2u * io + 2u * depth) + 4u * (2u * p.header->num_tensors + 16u * depth) +
           2u * 2u * p.header->num_tensors + 64u;
  };
  EXPECT_EQ(tigris_executor_workspace_required(&f.plan), formula(f.plan, 4, 2));
  EXPECT_EQ(tigris_executor_workspace_required(&g.plan), formula(g.plan, 3, 1));
}

TEST(ExecControl, OperandsNotMatchingTheGraphsFailClosed) {
  PlanDesc p = if_plan();
  p.subgraphs[2].outputs = {5};  // else gives its input back: a graph output may be an input
  {
    FlowRun r(p, 1024, 1024);
    r.write_bool(0, 0);
    r.write(1, {1, 2, 3, 4});
    ASSERT_EQ(r.run_real(), TIGRIS_EXEC_OK);
    EXPECT_EQ(r.read(2, 4), (std::vector<float>{1, 2, 3, 4}));
  }
  p.tensors[5].shape = {1, 2};  // else's input ex is 8 bytes against x's 16: nothing runs
  p.tensors[6].shape = {1, 2};
  FlowRun r(p, 1024, 1024);
  r.write_bool(0, 1);
  r.write(1, {1, 2, 3, 4});
  EXPECT_EQ(r.run(), TIGRIS_EXEC_ERR_KERNEL);
  EXPECT_TRUE(r.log.ops.empty());
  EXPECT_EQ(r.stats.copy_bytes, 0u);
  EXPECT_EQ(r.mem.fast_used, 0u);
}

TEST(ExecControl, SlowTooSmallForTheLoopIsMem) {
  // The three variables need 3 aligned blocks in slow besides the inputs; give fewer.
  PlanDesc p = counting_plan();
  const uint32_t slow = 4u * aligned(4);  // inputs (3) and one more block
  FlowRun r(p, 1024, slow);
  r.write(0, {0.0f});
  r.write(1, {3.0f});
  r.write(2, {1.0f});
  r.mem.fast_used = 32;  // caller data below the floor
  r.mem.fast_reserved = 32;
  EXPECT_EQ(r.run_real(), TIGRIS_EXEC_ERR_MEM);
  EXPECT_EQ(r.mem.fast_used, 32u);
  EXPECT_EQ(r.mem.fast_reserved, 32u);
}

TEST(ExecControl, LoaderRefusesNestingBeyondTheLimit) {
  // A line of graphs, g holding an If over g + 1 (both branches), the last a ReLU: the
  // depth is the number of Ifs.
  auto line = [](int levels) {
    PlanDesc p;
    std::vector<uint16_t> c, x, y;
    for (int g = 0; g <= levels; ++g) {
      const uint8_t fi = g == 0 ? TIGRIS_TENSOR_MODEL_INPUT : 0, fo = g == 0 ? TIGRIS_TENSOR_MODEL_OUTPUT : 0;
      c.push_back(add_tensor(p, "c" + std::to_string(g), {1}, fi, kBool));
      x.push_back(add_tensor(p, "x" + std::to_string(g), {2}, fi));
      y.push_back(add_tensor(p, "y" + std::to_string(g), {2}, fo));
    }
    for (int g = 0; g <= levels; ++g) {
      uint16_t op;
      if (g < levels) {
        op = add_op(p, TIGRIS_OP_IF, {c[g], c[g], x[g]}, {y[g]});
        p.attributes.push_back(AttrDesc{op, TIGRIS_ATTR_SUBGRAPHS, graphs((uint16_t)(g + 1), (uint16_t)(g + 1))});
        add_stage(p, {op}, {c[g], x[g]}, {y[g]});
      } else {
        op = add_op(p, TIGRIS_OP_RELU, {x[g]}, {y[g]});
        add_stage(p, {op}, {x[g]}, {y[g]});
      }
      p.subgraphs.push_back(SubgraphDesc{(uint16_t)g, 1, {c[g], x[g]}, {y[g]}});
    }
    p.model_inputs = {c[0], x[0]};
    p.model_outputs = {y[0]};
    p.scheduled_peak = 64;
    return p;
  };
  Loaded ok, over;
  ASSERT_EQ(load(line(TIGRIS_MAX_SUBGRAPH_DEPTH), &ok), TIGRIS_OK);
  EXPECT_EQ(ok.plan.subgraph_depth, (uint16_t)TIGRIS_MAX_SUBGRAPH_DEPTH);
  EXPECT_EQ(load(line(TIGRIS_MAX_SUBGRAPH_DEPTH + 1), &over), TIGRIS_ERR_PLAN_LIMITS);
  // At the limit it runs: each level's If takes (c, x), the innermost ReLU gives relu(x);
  // copies per level: c and x in (1 + 8 bytes), y out (8 bytes).
  FlowRun r(line(TIGRIS_MAX_SUBGRAPH_DEPTH), 1024, 4096);
  r.write_bool(0, 1);
  r.write(1, {-1.5f, 2.5f});
  ASSERT_EQ(r.run_real(), TIGRIS_EXEC_OK);
  EXPECT_EQ(r.read(2, 2), (std::vector<float>{0.0f, 2.5f}));
  EXPECT_EQ(r.stats.copy_bytes, (uint32_t)TIGRIS_MAX_SUBGRAPH_DEPTH * 17u);
}

}  // namespace
