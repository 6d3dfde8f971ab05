// TFLite IF and WHILE (multi-subgraph models written with our writer), and the comparisons
// and logical operators their conditions use, compiled and run on the host runtime at 16M and
// at the model's floor. Expected values are derived by hand from
// TensorFlow Lite Micro's semantics (kernels/if.cc, while.cc); copy_bytes from the copy rules
// of docs/executor.md: an If copies its operands (not the condition) in and its results out;
// a While of V bytes of variables copies V once into its results, V into the condition
// before each test (rounds + 1) and 2V per round (into the body, out of it).
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "export/tflite/model.h"
#include "export/tflite/writer.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;
using test::bytes_of;
using test::floats;
using test::values_of;
using Type = tfl::TensorType;

// A model under construction: operator codes deduplicated, constants given buffers.
struct ModelMaker {
  tfl::Model m;
  ModelMaker() {
    m.buffers.resize(1);
    m.subgraphs.reserve(8);  // graph() hands out references
  }

  tfl::SubGraph& graph(const std::string& name) {
    m.subgraphs.emplace_back();
    m.subgraphs.back().name = name;
    return m.subgraphs.back();
  }
  int32_t tensor(tfl::SubGraph& g, const std::string& name, std::vector<int32_t> shape, Type type,
                 const std::vector<uint8_t>& data = {}, float scale = 0) {
    tfl::Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.type = type;
    if (!data.empty()) {
      t.buffer = static_cast<uint32_t>(m.buffers.size());
      m.buffers.push_back(tfl::Buffer{data});
    }
    if (scale > 0) t.quantization = tfl::Quantization{{}, {}, {scale}, {0}, 0, false};
    g.tensors.push_back(std::move(t));
    return static_cast<int32_t>(g.tensors.size() - 1);
  }
  void op(tfl::SubGraph& g, int32_t code, std::vector<int32_t> in, std::vector<int32_t> out,
          tfl::OptionsType type = tfl::OptionsType::None, decltype(tfl::Options::value) value = std::monostate{}) {
    uint32_t index = 0;
    while (index < m.operator_codes.size() && m.operator_codes[index].code != code) ++index;
    if (index == m.operator_codes.size()) m.operator_codes.push_back(tfl::OperatorCode{code, std::nullopt, 1});
    tfl::Operator o;
    o.opcode_index = index;
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    o.options.type = type;
    o.options.value = std::move(value);
    g.operators.push_back(std::move(o));
  }
  std::vector<uint8_t> bytes() const { return tfl::write_model(m); }
};

constexpr int32_t kLess = 58;
const tfl::OptionsType kAddOpts = tfl::OptionsType::Add, kMulOpts = tfl::OptionsType::Mul;

tfl::IfOptions if_options(int32_t then_index, int32_t else_index) { return {then_index, else_index}; }

// Subgraph `name`: (a, b) -> a OP b, shape [1, 4] of `type` (scale > 0: int8 with that scale).
void binary_graph(ModelMaker& mm, const std::string& name, int32_t code, Type type, float scale = 0) {
  tfl::SubGraph& g = mm.graph(name);
  const int32_t a = mm.tensor(g, "a", {1, 4}, type, {}, scale), b = mm.tensor(g, "b", {1, 4}, type, {}, scale);
  const int32_t y = mm.tensor(g, "y", {1, 4}, type, {}, scale);
  if (code == tfl::op::kMul)
    mm.op(g, code, {a, b}, {y}, kMulOpts, tfl::MulOptions{});
  else
    mm.op(g, code, {a, b}, {y}, code == tfl::op::kAdd ? kAddOpts : tfl::OptionsType::Sub, tfl::AddSubOptions{});
  g.inputs = {a, b};
  g.outputs = {y};
}

// out = RELU(IF(c, x, y)): then subgraph x + y, else x OP y (MUL for float, SUB for int8).
// `then_index` >= 0: IF names that then subgraph, which the model does not hold.
std::vector<uint8_t> if_model(Type type, float scale = 0, int32_t then_index = -1) {
  ModelMaker mm;
  tfl::SubGraph& main = mm.graph("main");
  const int32_t c = mm.tensor(main, "c", {1}, Type::Bool);
  const int32_t x = mm.tensor(main, "x", {1, 4}, type, {}, scale), y = mm.tensor(main, "y", {1, 4}, type, {}, scale);
  const int32_t z = mm.tensor(main, "z", {1, 4}, type, {}, scale),
                out = mm.tensor(main, "out", {1, 4}, type, {}, scale);
  mm.op(main, tfl::op::kIf, {c, x, y}, {z}, tfl::OptionsType::If,
        then_index >= 0 ? if_options(then_index, 1) : if_options(1, 2));
  mm.op(main, tfl::op::kRelu, {z}, {out});
  main.inputs = {c, x, y};
  main.outputs = {out};
  if (then_index < 0) binary_graph(mm, "then", tfl::op::kAdd, type, scale);
  binary_graph(mm, "else", type == Type::Float32 ? tfl::op::kMul : tfl::op::kSub, type, scale);
  return mm.bytes();
}

// out = RELU(IF(c, x, y)) whose else subgraph gives its input a back unchanged (`variable`:
// reads a variable tensor instead, which a subgraph may not hold).
std::vector<uint8_t> passthrough_if_model(bool variable) {
  ModelMaker mm;
  tfl::SubGraph& main = mm.graph("main");
  const int32_t c = mm.tensor(main, "c", {1}, Type::Bool);
  const int32_t x = mm.tensor(main, "x", {1, 4}, Type::Float32), y = mm.tensor(main, "y", {1, 4}, Type::Float32);
  const int32_t z = mm.tensor(main, "z", {1, 4}, Type::Float32), out = mm.tensor(main, "out", {1, 4}, Type::Float32);
  mm.op(main, tfl::op::kIf, {c, x, y}, {z}, tfl::OptionsType::If, if_options(1, 2));
  mm.op(main, tfl::op::kRelu, {z}, {out});
  main.inputs = {c, x, y};
  main.outputs = {out};
  binary_graph(mm, "then", tfl::op::kAdd, Type::Float32);
  tfl::SubGraph& g = mm.graph("else");
  const int32_t a = mm.tensor(g, "a", {1, 4}, Type::Float32), b = mm.tensor(g, "b", {1, 4}, Type::Float32);
  g.inputs = {a, b};
  g.outputs = {a};
  if (variable) {
    const int32_t v = mm.tensor(g, "memory", {1, 4}, Type::Float32), w = mm.tensor(g, "w", {1, 4}, Type::Float32);
    g.tensors[static_cast<size_t>(v)].is_variable = true;
    mm.op(g, tfl::op::kAdd, {a, v}, {w}, kAddOpts, tfl::AddSubOptions{});
    g.outputs = {w};
  }
  return mm.bytes();
}

// The model's floor: the smallest fast budget any plan fits.
uint64_t floor_of(const compiler::Model& m) {
  compiler::Budgets b;
  b.fast = 16u << 20;
  return compiler::schedule(m, b).fast.minimum_for_partition_bytes;
}

// Compiled at 16M and at the floor (one byte less is refused); each plan run on `inputs`.
std::vector<test::PlanRun> run_at_both_budgets(const std::vector<uint8_t>& model,
                                               const std::vector<std::vector<uint8_t>>& inputs) {
  compiler::Model m = compiler::load_model_bytes(model, "m.tflite");
  EXPECT_TRUE(m.summary().supported()) << (m.summary().supported() ? ""
                                                                   : m.summary().unsupported_operators.at(0).reason);
  const uint64_t floor = floor_of(m);
  EXPECT_GT(floor, 0u);
  std::vector<test::PlanRun> runs;
  for (uint64_t fast : {uint64_t{16u << 20}, floor}) {
    compiler::Budgets b;
    b.fast = fast;
    const compiler::CompileResult c = compiler::compile(m, b);
    EXPECT_TRUE(c.ok()) << fast << ": " << c.error;
    if (!c.ok()) return runs;
    runs.push_back(test::run_plan(c.plan, inputs, 1 << 16));
    EXPECT_EQ(runs.back().error, "") << fast;
  }
  compiler::Budgets below;
  below.fast = floor - 1;
  EXPECT_FALSE(compiler::compile(m, below).ok());
  return runs;
}

TEST(TfliteControl, IfChoosesBetweenTwoFloatSubgraphs) {
  const std::vector<float> x = {1, -2, 3, -4}, y = {0.5f, 0.5f, -5, 1};
  // then: x + y = {1.5, -1.5, -2, -3}; else: x * y = {0.5, -1, -15, -4}; RELU after.
  for (uint8_t c : {1, 0}) {
    const std::vector<float> want = c ? std::vector<float>{1.5f, 0, 0, 0} : std::vector<float>{0.5f, 0, 0, 0};
    for (const test::PlanRun& r : run_at_both_budgets(if_model(Type::Float32), {{c}, floats(x), floats(y)})) {
      ASSERT_EQ(r.outputs.size(), 1u);
      EXPECT_EQ(values_of<float>(r.outputs[0]), want) << int(c);
      EXPECT_EQ(r.stats.copy_bytes, 16u + 16u + 16u);  // x, y in; the result out
    }
  }
}

TEST(TfliteControl, IfOverInt8) {
  // Scale 0.5, zero point 0 everywhere: x = {1, -2, 3, -4}, y = {0.5, 0.5, -5, 1} as q = 2v.
  // then ADD: {1.5, -1.5, -2, -3} -> q {3, -3, -4, -6}; else SUB: {0.5, -2.5, 8, -5} ->
  // q {1, -5, 16, -10}; RELU keeps the positive ones.
  const std::vector<int8_t> x = {2, -4, 6, -8}, y = {1, 1, -10, 2};
  for (uint8_t c : {1, 0}) {
    const std::vector<int8_t> want = c ? std::vector<int8_t>{3, 0, 0, 0} : std::vector<int8_t>{1, 0, 16, 0};
    for (const test::PlanRun& r : run_at_both_budgets(if_model(Type::Int8, 0.5f), {{c}, bytes_of(x), bytes_of(y)})) {
      ASSERT_EQ(r.outputs.size(), 1u);
      EXPECT_EQ(values_of<int8_t>(r.outputs[0]), want) << int(c);
      EXPECT_EQ(r.stats.copy_bytes, 4u + 4u + 4u);
    }
  }
}

TEST(TfliteControl, IfBranchGivingItsInputBack) {
  const std::vector<float> x = {1, -2, 3, -4}, y = {0.5f, 0.5f, -5, 1};
  for (uint8_t c : {1, 0}) {
    // then: relu(x + y); else: relu(x).
    const std::vector<float> want = c ? std::vector<float>{1.5f, 0, 0, 0} : std::vector<float>{1, 0, 3, 0};
    for (const test::PlanRun& r : run_at_both_budgets(passthrough_if_model(false), {{c}, floats(x), floats(y)})) {
      ASSERT_EQ(r.outputs.size(), 1u);
      EXPECT_EQ(values_of<float>(r.outputs[0]), want) << int(c);
    }
  }
}

// WHILE over (i: int32 [1], starting at the constant 0; acc: float [1, 4], starting at x):
// cond: i < n (n an int32 constant of the condition subgraph); body: i + 1, and
// `body_acc` on acc. With `nested`, the body's acc is IF(i < 2, acc) then acc * 2 else
// acc + 1, else acc * 2.
std::vector<uint8_t> while_model(int32_t n, bool nested, bool float_cond = false, bool widening_body = false) {
  ModelMaker mm;
  tfl::SubGraph& main = mm.graph("main");
  const int32_t i0 = mm.tensor(main, "i0", {1}, Type::Int32, bytes_of(std::vector<int32_t>{0}));
  const int32_t x = mm.tensor(main, "x", {1, 4}, Type::Float32);
  const int32_t i_end = mm.tensor(main, "i_end", {1}, Type::Int32),
                acc_end = mm.tensor(main, "acc", {1, 4}, Type::Float32);
  mm.op(main, tfl::op::kWhile, {i0, x}, {i_end, acc_end}, tfl::OptionsType::While, tfl::WhileOptions{1, 2});
  main.inputs = {x};
  main.outputs = {acc_end, i_end};

  tfl::SubGraph& cond = mm.graph("cond");
  {
    const int32_t i = mm.tensor(cond, "i", {1}, Type::Int32), acc = mm.tensor(cond, "acc", {1, 4}, Type::Float32);
    const int32_t limit = mm.tensor(cond, "n", {1}, Type::Int32, bytes_of(std::vector<int32_t>{n}));
    const int32_t go =
        float_cond ? mm.tensor(cond, "go", {1, 4}, Type::Float32) : mm.tensor(cond, "go", {1}, Type::Bool);
    if (float_cond)
      mm.op(cond, tfl::op::kMul, {acc, acc}, {go}, kMulOpts, tfl::MulOptions{});
    else
      mm.op(cond, kLess, {i, limit}, {go});
    cond.inputs = {i, acc};
    cond.outputs = {go};
  }
  tfl::SubGraph& body = mm.graph("body");
  {
    const int32_t i = mm.tensor(body, "i", {1}, Type::Int32), acc = mm.tensor(body, "acc", {1, 4}, Type::Float32);
    const int32_t one = mm.tensor(body, "one", {1}, Type::Int32, bytes_of(std::vector<int32_t>{1}));
    const int32_t next = mm.tensor(body, "i_next", {1}, Type::Int32);
    mm.op(body, tfl::op::kAdd, {i, one}, {next}, kAddOpts, tfl::AddSubOptions{});
    const int32_t two = mm.tensor(body, "two", {1}, Type::Float32, floats({2}));
    const int32_t acc_next = mm.tensor(body, "acc_next", {1, widening_body ? 8 : 4}, Type::Float32);
    if (widening_body) {
      mm.op(body, tfl::op::kConcatenation, {acc, acc}, {acc_next}, tfl::OptionsType::Concatenation,
            tfl::ConcatenationOptions{1, tfl::Activation::None});
    } else if (nested) {
      const int32_t k = mm.tensor(body, "k", {1}, Type::Int32, bytes_of(std::vector<int32_t>{2}));
      const int32_t early = mm.tensor(body, "early", {1}, Type::Bool);
      mm.op(body, kLess, {i, k}, {early});
      mm.op(body, tfl::op::kIf, {early, acc}, {acc_next}, tfl::OptionsType::If, if_options(3, 4));
    } else {
      mm.op(body, tfl::op::kMul, {acc, two}, {acc_next}, kMulOpts, tfl::MulOptions{});
    }
    body.inputs = {i, acc};
    body.outputs = {next, acc_next};
  }
  if (nested) {
    for (int b = 0; b < 2; ++b) {
      tfl::SubGraph& g = mm.graph(b == 0 ? "double" : "plus_one");
      const int32_t v = mm.tensor(g, "v", {1, 4}, Type::Float32), w = mm.tensor(g, "w", {1, 4}, Type::Float32);
      const int32_t k = mm.tensor(g, "k", {1}, Type::Float32, floats({b == 0 ? 2.0f : 1.0f}));
      if (b == 0)
        mm.op(g, tfl::op::kMul, {v, k}, {w}, kMulOpts, tfl::MulOptions{});
      else
        mm.op(g, tfl::op::kAdd, {v, k}, {w}, kAddOpts, tfl::AddSubOptions{});
      g.inputs = {v};
      g.outputs = {w};
    }
  }
  return mm.bytes();
}

TEST(TfliteControl, WhileCountsToNWithACarriedTensor) {
  const std::vector<float> x = {1, -2, 0.5f, 3};
  // n rounds: i = n, acc = x * 2^n (n = 0: the condition fails at once).
  for (int32_t n : {3, 0}) {
    const float scale = static_cast<float>(1 << n);
    const std::vector<float> want = {x[0] * scale, x[1] * scale, x[2] * scale, x[3] * scale};
    for (const test::PlanRun& r : run_at_both_budgets(while_model(n, false), {floats(x)})) {
      ASSERT_EQ(r.outputs.size(), 2u);
      EXPECT_EQ(values_of<float>(r.outputs[0]), want) << n;
      EXPECT_EQ(values_of<int32_t>(r.outputs[1]), std::vector<int32_t>{n});
      const uint32_t v = 4 + 16, rounds = static_cast<uint32_t>(n);
      EXPECT_EQ(r.stats.copy_bytes, v * (1 + (rounds + 1) + 2 * rounds)) << n;
    }
  }
}

TEST(TfliteControl, IfNestedInAWhileBody) {
  // Four rounds: i = 0, 1 double acc (i < 2), i = 2, 3 add 1: acc = 4x + 2.
  const std::vector<float> x = {1, -2, 0.5f, 3};
  for (const test::PlanRun& r : run_at_both_budgets(while_model(4, true), {floats(x)})) {
    ASSERT_EQ(r.outputs.size(), 2u);
    EXPECT_EQ(values_of<float>(r.outputs[0]), (std::vector<float>{6, -6, 4, 14}));
    EXPECT_EQ(values_of<int32_t>(r.outputs[1]), std::vector<int32_t>{4});
    // The While's 20 bytes of variables as above, and per round the If's acc in and out.
    EXPECT_EQ(r.stats.copy_bytes, 20u * (1 + 5 + 2 * 4) + 4u * (16 + 16));
  }
}

// The comparisons and logical operators conditions are made of: x = {1, 2, 3, 4},
// y = {2, 2, 2, 5}: x > y = {0, 0, 1, 0}, x == y = {0, 1, 0, 0}, x >= y = {0, 1, 1, 0},
// x <= y = {1, 1, 0, 1}; NOT(x > y) = {1, 1, 0, 1}, (x == y) OR (x > y) = {0, 1, 1, 0},
// (x >= y) AND (x <= y) = {0, 1, 0, 0}.
TEST(TfliteControl, ComparisonsAndLogicalOperators) {
  ModelMaker mm;
  tfl::SubGraph& g = mm.graph("main");
  const int32_t x = mm.tensor(g, "x", {1, 4}, Type::Float32), y = mm.tensor(g, "y", {1, 4}, Type::Float32);
  auto flag = [&](const std::string& name) { return mm.tensor(g, name, {1, 4}, Type::Bool); };
  const int32_t gt = flag("gt"), eq = flag("eq"), ge = flag("ge"), le = flag("le");
  const int32_t not_gt = flag("not_gt"), eq_or_gt = flag("eq_or_gt"), ge_and_le = flag("ge_and_le");
  mm.op(g, 61, {x, y}, {gt});           // GREATER
  mm.op(g, 71, {x, y}, {eq});           // EQUAL
  mm.op(g, 62, {x, y}, {ge});           // GREATER_EQUAL
  mm.op(g, 63, {x, y}, {le});           // LESS_EQUAL
  mm.op(g, 87, {gt}, {not_gt});         // LOGICAL_NOT
  mm.op(g, 84, {eq, gt}, {eq_or_gt});   // LOGICAL_OR
  mm.op(g, 86, {ge, le}, {ge_and_le});  // LOGICAL_AND
  g.inputs = {x, y};
  g.outputs = {not_gt, eq_or_gt, ge_and_le};
  for (const test::PlanRun& r : run_at_both_budgets(mm.bytes(), {floats({1, 2, 3, 4}), floats({2, 2, 2, 5})})) {
    ASSERT_EQ(r.outputs.size(), 3u);
    EXPECT_EQ(r.outputs[0], (std::vector<uint8_t>{1, 1, 0, 1}));
    EXPECT_EQ(r.outputs[1], (std::vector<uint8_t>{0, 1, 1, 0}));
    EXPECT_EQ(r.outputs[2], (std::vector<uint8_t>{0, 1, 0, 0}));
  }
}

std::string refusal(const std::vector<uint8_t>& model, const std::string& type) {
  compiler::Model m = compiler::load_model_bytes(model, "m.tflite");
  EXPECT_FALSE(m.summary().supported());
  if (m.summary().supported()) return "";
  EXPECT_EQ(m.summary().unsupported_operators.at(0).type, type);
  const std::string why = m.summary().unsupported_operators.at(0).reason;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
  return why;
}

TEST(TfliteControl, RefusalsNameTheOperatorAndTheReason) {
  EXPECT_NE(refusal(if_model(Type::Float32, 0, 7), "IF").find("then subgraph index 7 is out of range for 2 subgraphs"),
            std::string::npos);
  EXPECT_NE(refusal(while_model(3, false, true), "WHILE").find("cond subgraph 1 does not give one one-element bool"),
            std::string::npos);
  EXPECT_NE(refusal(passthrough_if_model(true), "IF")
                .find("else subgraph 2, operator 0 (ADD): variable 'memory' inside a subgraph an IF or WHILE runs"),
            std::string::npos);
  const std::string widening = refusal(while_model(3, false, false, true), "WHILE");
  EXPECT_NE(widening.find("body subgraph 2's output 1 is float32 [1, 8] where the operator has float32 [1, 4]"),
            std::string::npos)
      << widening;
}

TEST(TfliteControl, ASubgraphRunningItselfIsRefused) {
  // then subgraph 1 is the IF's own graph's callee and calls graph 1 again.
  ModelMaker mm;
  tfl::SubGraph& main = mm.graph("main");
  const int32_t c = mm.tensor(main, "c", {1}, Type::Bool), x = mm.tensor(main, "x", {1, 4}, Type::Float32);
  const int32_t z = mm.tensor(main, "z", {1, 4}, Type::Float32);
  mm.op(main, tfl::op::kIf, {c, c, x}, {z}, tfl::OptionsType::If, if_options(1, 1));
  main.inputs = {c, x};
  main.outputs = {z};
  tfl::SubGraph& g = mm.graph("again");
  const int32_t gc = mm.tensor(g, "c", {1}, Type::Bool), gx = mm.tensor(g, "x", {1, 4}, Type::Float32);
  const int32_t gz = mm.tensor(g, "z", {1, 4}, Type::Float32);
  mm.op(g, tfl::op::kIf, {gc, gc, gx}, {gz}, tfl::OptionsType::If, if_options(1, 1));
  g.inputs = {gc, gx};
  g.outputs = {gz};
  EXPECT_NE(refusal(mm.bytes(), "IF").find("then subgraph 1 runs a graph that runs it (recursion)"), std::string::npos);
}

}  // namespace
