// ONNX sequence and optional values of static length lowered to tensors at import
// (frontend/onnx/sequence_lowering.cpp), compiled and run on the host runtime. Expected values
// are derived by hand from the ONNX specification of each operator.
#include <gtest/gtest.h>

#include "compiler/api.h"
#include "compiler/ir/error.h"
#include "compiler/ir/graph.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "onnx_builder.h"

namespace {

using namespace tigris;
using onnx::TensorProto;
using test::bytes_of;
using test::values_of;

void sequence_output(test::OnnxBuilder& b, const std::string& name) {
  auto* vi = b.proto().mutable_graph()->add_output();
  vi->set_name(name);
  vi->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
      TensorProto::FLOAT);
}

std::vector<std::vector<float>> run_lowered(test::OnnxBuilder& b, const std::vector<std::vector<float>>& inputs,
                                            std::vector<std::string>* output_names = nullptr) {
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  if (output_names)
    for (ir::TensorId id : m.graph().outputs) output_names->push_back(m.graph().tensor(id).name);
  compiler::Budgets budget;
  budget.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, budget);
  EXPECT_TRUE(c.ok()) << c.error;
  if (!c.ok()) return {};
  std::vector<std::vector<uint8_t>> feed;
  for (const auto& in : inputs) feed.push_back(bytes_of(in));
  test::PlanRun r = test::run_plan(c.plan, feed, 1 << 16);
  EXPECT_EQ(r.error, "");
  std::vector<std::vector<float>> out;
  for (const auto& o : r.outputs) out.push_back(values_of<float>(o));
  return out;
}

// The one line the frontend refuses the model with.
std::string sequence_refusal(test::OnnxBuilder& b) {
  try {
    compiler::load_model_bytes(b.bytes(), "m.onnx");
  } catch (const ir::CompileError& e) {
    return e.what();
  }
  return "";
}

// [a] -> insert b at the back (no position) -> insert c at position 0 -> [c, a, b], concatenated.
TEST(Sequences, InsertAtFrontAndBackThenConcat) {
  test::OnnxBuilder b(13);
  b.input("a", {2});
  b.input("b", {2});
  b.input("c", {2});
  b.output("y", {6});
  b.init_ints("front", {}, {0});
  b.node("SequenceConstruct", {"a"}, {"s0"});
  b.node("SequenceInsert", {"s0", "b"}, {"s1"});
  b.node("SequenceInsert", {"s1", "c", "front"}, {"s2"});
  test::OnnxBuilder::attr(b.node("ConcatFromSequence", {"s2"}, {"y"}), "axis", int64_t{0});
  auto out = run_lowered(b, {{1, 2}, {3, 4}, {5, 6}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{5, 6, 1, 2, 3, 4}));
}

// new_axis=1 stacks the [2] elements as columns of a [2, 3] tensor.
TEST(Sequences, ConcatWithNewAxisStacks) {
  test::OnnxBuilder b(13);
  b.input("a", {2});
  b.input("b", {2});
  b.input("c", {2});
  b.output("y", {2, 3});
  b.node("SequenceConstruct", {"a", "b", "c"}, {"s"});
  auto& n = b.node("ConcatFromSequence", {"s"}, {"y"});
  test::OnnxBuilder::attr(n, "axis", int64_t{1});
  test::OnnxBuilder::attr(n, "new_axis", int64_t{1});
  auto out = run_lowered(b, {{1, 2}, {3, 4}, {5, 6}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{1, 3, 5, 2, 4, 6}));
}

// A scalar split of 2 over 5 values gives [x0 x1] [x2 x3] [x4]; position -1 is the last,
// and the length (3) is a constant.
TEST(Sequences, SplitToSequenceThenSequenceAtAndLength) {
  test::OnnxBuilder b(13);
  b.input("x", {5});
  b.output("last", {1});
  b.output("scaled", {1});
  b.init_ints("two", {}, {2});
  b.init_ints("minus_one", {}, {-1});
  b.node("SplitToSequence", {"x", "two"}, {"s"});
  b.node("SequenceAt", {"s", "minus_one"}, {"last"});
  b.node("SequenceLength", {"s"}, {"n"});
  test::OnnxBuilder::attr(b.node("Cast", {"n"}, {"nf"}), "to", int64_t{TensorProto::FLOAT});
  b.node("Mul", {"last", "nf"}, {"scaled"});
  auto out = run_lowered(b, {{10, 20, 30, 40, 50}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (std::vector<float>{50}));
  EXPECT_EQ(out[1], (std::vector<float>{150}));
}

// Without a split and keepdims=0, x[2,3] split on axis 1 gives its three columns ([2] each);
// erasing position 1 leaves columns 0 and 2.
TEST(Sequences, SplitColumnsEraseOneConcat) {
  test::OnnxBuilder b(13);
  b.input("x", {2, 3});
  b.output("y", {4});
  b.init_ints("one", {}, {1});
  auto& split = b.node("SplitToSequence", {"x"}, {"s"});
  test::OnnxBuilder::attr(split, "axis", int64_t{1});
  test::OnnxBuilder::attr(split, "keepdims", int64_t{0});
  b.node("SequenceErase", {"s", "one"}, {"t"});
  test::OnnxBuilder::attr(b.node("ConcatFromSequence", {"t"}, {"y"}), "axis", int64_t{0});
  auto out = run_lowered(b, {{1, 2, 3, 4, 5, 6}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{1, 4, 3, 6}));
}

// A sequence graph output: one plan output per element, named "<output>[i]".
TEST(Sequences, SequenceOutputIsOnePlanOutputPerElement) {
  test::OnnxBuilder b(13);
  b.input("a", {2});
  b.input("b", {3});
  b.node("Neg", {"b"}, {"nb"});
  b.node("SequenceConstruct", {"a", "nb"}, {"s"});
  sequence_output(b, "s");
  std::vector<std::string> names;
  auto out = run_lowered(b, {{1, 2}, {3, 4, 5}}, &names);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (std::vector<float>{1, 2}));
  EXPECT_EQ(out[1], (std::vector<float>{-3, -4, -5}));
  EXPECT_EQ(names, (std::vector<std::string>{"s[0]", "s[1]"}));
}

// A position fed at run time is refused in one line naming the node and the operand.
TEST(Sequences, RunTimePositionIsRefusedInOneLine) {
  test::OnnxBuilder b(13);
  b.input("a", {2});
  b.input("pos", {}, TensorProto::INT64);
  b.output("y", {2});
  b.node("SequenceConstruct", {"a", "a"}, {"s"});
  b.node("SequenceAt", {"s", "pos"}, {"y"}, "pick");
  const std::string why = sequence_refusal(b);
  EXPECT_NE(why.find("SequenceAt 'pick': operand 'pos' is computed at run time"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

// An If whose branches give sequences of different lengths is refused: the length would be
// chosen at run time.
TEST(Sequences, IfWithSequencesOfDifferentLengthsIsRefused) {
  test::OnnxBuilder b(13);
  b.input("c", {}, TensorProto::BOOL);
  b.input("a", {2});
  auto& n = b.node("If", {"c"}, {"r"}, "choose");
  for (int k = 0; k < 2; ++k) {
    auto* a = n.add_attribute();
    a->set_name(k == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(a->name());
    auto* sc = g->add_node();
    sc->set_op_type("SequenceConstruct");
    sc->add_input("a");
    if (k == 1) sc->add_input("a");
    sc->add_output("branch_seq");
    auto* o = g->add_output();
    o->set_name("branch_seq");
    o->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        TensorProto::FLOAT);
  }
  sequence_output(b, "r");
  const std::string why = sequence_refusal(b);
  EXPECT_NE(why.find("If 'choose': its branches give sequences of 1 and 2 elements"), std::string::npos) << why;
}

// Optional(x) holds x: OptionalHasElement is true (a constant), OptionalGetElement is x.
// OptionalGetElement of an empty optional is refused.
TEST(Sequences, OptionalOfKnownPresence) {
  test::OnnxBuilder b(18);
  b.input("x", {3});
  b.output("y", {3});
  b.node("Optional", {"x"}, {"o"});
  b.node("OptionalHasElement", {"o"}, {"has"});
  test::OnnxBuilder::attr(b.node("Cast", {"has"}, {"hasf"}), "to", int64_t{TensorProto::FLOAT});
  b.node("OptionalGetElement", {"o"}, {"v"});
  b.node("Add", {"v", "hasf"}, {"y"});
  auto out = run_lowered(b, {{1, 2, 3}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{2, 3, 4}));

  test::OnnxBuilder e(18);
  e.input("x", {3});
  e.output("y", {3});
  auto& empty = e.node("Optional", {}, {"o"});
  auto* t = empty.add_attribute();
  t->set_name("type");
  t->set_type(onnx::AttributeProto::TYPE_PROTO);
  t->mutable_tp()->mutable_tensor_type()->set_elem_type(TensorProto::FLOAT);
  e.node("OptionalGetElement", {"o"}, {"v"}, "get");
  e.node("Add", {"v", "x"}, {"y"});
  const std::string why = sequence_refusal(e);
  EXPECT_NE(why.find("OptionalGetElement 'get': the optional 'o' holds no value"), std::string::npos) << why;
}

// Loop(M=3) carrying a sequence (SequenceEmpty at the start) whose body appends x * (iter + 1):
// unrolled, the sequence is [x, 2x, 3x]; ConcatFromSequence gives them in order.
test::OnnxBuilder growing_loop(bool constant_trips) {
  test::OnnxBuilder b(13);
  b.input("x", {2});
  if (!constant_trips) b.input("trips", {}, TensorProto::INT64);
  b.output("y", {6});
  if (constant_trips) b.init_ints("trips", {}, {3});
  auto* go = b.proto().mutable_graph()->add_initializer();
  go->set_name("go");
  go->set_data_type(TensorProto::BOOL);
  go->add_int32_data(1);
  b.node("SequenceEmpty", {}, {"empty"});
  auto& loop = b.node("Loop", {"trips", "go", "empty"}, {"grown"}, "grow");
  auto* a = loop.add_attribute();
  a->set_name("body");
  a->set_type(onnx::AttributeProto::GRAPH);
  auto* g = a->mutable_g();
  g->set_name("body");
  auto in = [&](const std::string& name, int elem, bool seq) {
    auto* vi = g->add_input();
    vi->set_name(name);
    if (seq)
      vi->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(elem);
    else
      vi->mutable_type()->mutable_tensor_type()->set_elem_type(elem);
  };
  in("i", TensorProto::INT64, false);
  in("cond_in", TensorProto::BOOL, false);
  in("seq_in", TensorProto::FLOAT, true);
  auto node = [&](const std::string& op, std::vector<std::string> ins, const std::string& out) {
    auto* n = g->add_node();
    n->set_op_type(op);
    for (auto& s : ins) n->add_input(s);
    n->add_output(out);
    return n;
  };
  node("Identity", {"cond_in"}, "cond_out");
  auto* one = g->add_initializer();
  one->set_name("one");
  one->set_data_type(TensorProto::INT64);
  one->add_int64_data(1);
  node("Add", {"i", "one"}, "k");
  auto* cast = node("Cast", {"k"}, "kf");
  auto* to = cast->add_attribute();
  to->set_name("to");
  to->set_type(onnx::AttributeProto::INT);
  to->set_i(TensorProto::FLOAT);
  node("Mul", {"x", "kf"}, "scaled");
  node("SequenceInsert", {"seq_in", "scaled"}, "seq_out");
  auto* c = g->add_output();
  c->set_name("cond_out");
  c->mutable_type()->mutable_tensor_type()->set_elem_type(TensorProto::BOOL);
  auto* o = g->add_output();
  o->set_name("seq_out");
  o->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
      TensorProto::FLOAT);
  test::OnnxBuilder::attr(b.node("ConcatFromSequence", {"grown"}, {"y"}), "axis", int64_t{0});
  return b;
}

TEST(Sequences, LoopCarryingASequenceIsUnrolled) {
  test::OnnxBuilder b = growing_loop(true);
  auto out = run_lowered(b, {{1, -2}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], (std::vector<float>{1, -2, 2, -4, 3, -6}));
}

TEST(Sequences, LoopCarryingASequenceNeedsAConstantTripCount) {
  test::OnnxBuilder b = growing_loop(false);
  const std::string why = sequence_refusal(b);
  EXPECT_NE(why.find("Loop 'grow': operand 'trips' is computed at run time"), std::string::npos) << why;
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

// An If on a run-time condition whose branches give two-element sequences ([a, b] and
// [b, -a]): one If output per element, concatenated after the If.
TEST(Sequences, IfGivingSequencesOfOneLengthHasAnOutputPerElement) {
  test::OnnxBuilder b(13);
  b.input("c", {}, TensorProto::BOOL);
  b.input("a", {2});
  b.input("b", {2});
  b.output("y", {4});
  auto& n = b.node("If", {"c"}, {"r"}, "choose");
  for (int k = 0; k < 2; ++k) {
    auto* a = n.add_attribute();
    a->set_name(k == 0 ? "then_branch" : "else_branch");
    a->set_type(onnx::AttributeProto::GRAPH);
    auto* g = a->mutable_g();
    g->set_name(a->name());
    auto* sc = g->add_node();
    sc->set_op_type("SequenceConstruct");
    if (k == 0) {
      sc->add_input("a");
      sc->add_input("b");
    } else {
      auto* neg = g->add_node();
      neg->set_op_type("Neg");
      neg->add_input("a");
      neg->add_output("minus_a");
      g->mutable_node()->SwapElements(0, 1);  // Neg before SequenceConstruct
      sc = g->mutable_node(1);
      sc->add_input("b");
      sc->add_input("minus_a");
    }
    sc->add_output("branch_seq");
    auto* o = g->add_output();
    o->set_name("branch_seq");
    o->mutable_type()->mutable_sequence_type()->mutable_elem_type()->mutable_tensor_type()->set_elem_type(
        TensorProto::FLOAT);
  }
  test::OnnxBuilder::attr(b.node("ConcatFromSequence", {"r"}, {"y"}), "axis", int64_t{0});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  ASSERT_EQ(m.graph().subgraphs.size(), 2u);
  EXPECT_EQ(m.graph().subgraphs[0].outputs.size(), 2u);  // one per element
  for (float c : {1.0f, 0.0f}) {
    compiler::Budgets budget;
    budget.fast = 1 << 16;
    compiler::CompileResult r = compiler::compile(m, budget);
    ASSERT_TRUE(r.ok()) << r.error;
    test::PlanRun run = test::run_plan(r.plan,
                                       {std::vector<uint8_t>{static_cast<uint8_t>(c)},
                                        bytes_of(std::vector<float>{1, 2}), bytes_of(std::vector<float>{3, 4})},
                                       1 << 16);
    ASSERT_EQ(run.error, "");
    ASSERT_EQ(run.outputs.size(), 1u);
    const std::vector<float> want = c != 0 ? std::vector<float>{1, 2, 3, 4} : std::vector<float>{3, 4, -1, -2};
    EXPECT_EQ(values_of<float>(run.outputs[0]), want) << c;
  }
}

}  // namespace
