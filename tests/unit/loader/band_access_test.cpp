// CHAIN_BAND and TILE_BAND: the tensors a chained or banded stage may read and write.
#include "loader_fixture.h"

using namespace lf;

namespace {

OpDesc conv3(const std::string& name, uint16_t in, uint16_t out, uint16_t w) {
  OpDesc c = op(TIGRIS_OP_CONV, name, {in}, {out});
  c.spatial = window(3, 1, 1);
  c.weight = w;
  return c;
}

// x [1,8,8,4] -> conv -> a -> relu -> b -> add(b, ?) -> c, as stages s0 {conv}, s1 {relu}, s2 {add}.
PlanDesc three_stage_chain(uint16_t add_other) {
  PlanDesc p;
  p.model_name = "chain";
  p.tensors = {tensor("x", {1, 8, 8, 4}, TIGRIS_TENSOR_MODEL_INPUT), tensor("a", {1, 8, 8, 4}),
               tensor("b", {1, 8, 8, 4}), tensor("c", {1, 8, 8, 4}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  p.ops = {conv3("conv", 0, 1, 0), op(TIGRIS_OP_RELU, "relu", {1}, {2}), op(TIGRIS_OP_ADD, "add", {2, add_other}, {3})};
  p.weights = {weight("w", 4 * 9 * 4 * 4)};
  std::vector<uint16_t> s2_in = {2};
  if (add_other != 2) s2_in.push_back(add_other);
  p.stages = {stage({0}, {0}, {1}), stage({1}, {1}, {2}), stage({2}, s2_in, {3})};
  for (auto& s : p.stages) s.chain_id = 0, s.chain_len = 3;
  p.stages[0].chain_tile_h = 2;
  p.model_inputs = {0};
  p.model_outputs = {3};
  return p;
}

TEST(ChainBand, MembersReadOnlyThePreviousMembersBand) {
  EXPECT_EQ(load_err(write_plan(three_stage_chain(2))), TIGRIS_OK);  // add(b, b)
  // The last member reads the chain input x (a residual): the head loads it, so it is loaded
  // again at the rows of the space that reads it.
  EXPECT_EQ(load_err(write_plan(three_stage_chain(0))), TIGRIS_OK);
  // The same read without declaring x as a stage input: outside the band.
  PlanDesc p = three_stage_chain(0);
  p.stages[2].inputs = {2};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_CHAIN_BAND);
  // A tensor the head does not load, read by the last member: neither the previous member's
  // band nor a chain input.
  PlanDesc q = three_stage_chain(2);
  q.tensors.push_back(tensor("s", {1, 8, 8, 4}, TIGRIS_TENSOR_MODEL_INPUT));
  q.ops[2].inputs = {2, 4};
  q.stages[2].inputs = {2, 4};
  q.model_inputs = {0, 4};
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_ERR_CHAIN_BAND);
  q.stages[0].inputs = {0, 4};  // the head loads it: a residual operand
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_OK);
}

TEST(ChainBand, IntermediateBandsStayInTheChain) {
  // a (member 0's output) is also read by a stage after the chain.
  PlanDesc p = three_stage_chain(2);
  p.tensors.push_back(tensor("d", {1, 8, 8, 4}));
  p.tensors[3].flags = 0;
  p.tensors[4].flags = TIGRIS_TENSOR_MODEL_OUTPUT;
  p.ops.push_back(op(TIGRIS_OP_ADD, "late", {3, 1}, {4}));
  p.stages.push_back(stage({3}, {3, 1}, {4}));
  p.model_outputs = {4};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_CHAIN_BAND);
  // A member's output that is a model output cannot live as a band only.
  PlanDesc q = three_stage_chain(2);
  q.tensors[2].flags = TIGRIS_TENSOR_MODEL_OUTPUT;
  q.model_outputs = {2, 3};
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_ERR_CHAIN_BAND);
}

TEST(ChainBand, StageInputsArriveBeforeTheFirstSpatialOp) {
  // Member 1 = {conv, add(conv_out, a)}: a is read after the conv, in the conv's output rows.
  PlanDesc p = three_stage_chain(2);
  p.tensors.insert(p.tensors.begin() + 2, tensor("a2", {1, 8, 8, 4}));  // index 2
  // tensors: x0 a1 a2(2) b3 c4
  p.ops = {conv3("conv", 0, 1, 0), conv3("conv2", 1, 2, 1), op(TIGRIS_OP_ADD, "add", {2, 1}, {3}),
           op(TIGRIS_OP_RELU, "relu", {3}, {4})};
  p.weights.push_back(weight("w2", 4 * 9 * 4 * 4));
  p.stages = {stage({0}, {0}, {1}), stage({1, 2}, {1}, {3}), stage({3}, {3}, {4})};
  for (auto& s : p.stages) s.chain_id = 0, s.chain_len = 3;
  p.stages[0].chain_tile_h = 2;
  p.model_outputs = {4};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_CHAIN_BAND);
}

// Banded stage x [1,8,8,2] -> conv 3x3 s1 -> y -> add(y, other) -> z, with a stripe record.
PlanDesc stripe_with_add(bool other_is_x, std::vector<int32_t> other_shape = {}) {
  PlanDesc p;
  p.model_name = "stripe";
  p.tensors = {tensor("x", {1, 8, 8, 2}, TIGRIS_TENSOR_MODEL_INPUT), tensor("y", {1, 8, 8, 2}),
               tensor("z", {1, 8, 8, 2}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  uint16_t other = 0;
  if (!other_is_x) {
    p.tensors.insert(p.tensors.begin() + 1, tensor("s", other_shape, TIGRIS_TENSOR_MODEL_INPUT));
    other = 1;
  }
  const uint16_t x = 0, y = other_is_x ? 1 : 2, z = other_is_x ? 2 : 3;
  OpDesc c = op(TIGRIS_OP_CONV, "conv", {x}, {y});
  c.spatial = window(3, 1, 1);
  c.weight = 0;
  p.ops = {c, op(TIGRIS_OP_ADD, "add", {y, other}, {z})};
  p.weights = {weight("w", 2 * 9 * 2 * 4)};
  std::vector<uint16_t> in = {x};
  if (!other_is_x) in.push_back(other);
  p.stages = {stage({0, 1}, in, {z})};
  p.model_inputs = other_is_x ? std::vector<uint16_t>{0} : std::vector<uint16_t>{0, 1};
  p.model_outputs = {z};
  p.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HEIGHT, 4, facts(4, 2, 8, 2, 1, TIGRIS_BAND_KIND_STRIPE))};
  p.stages[0].tile_plan = 0;
  return p;
}

TEST(TileBand, OperandsBelongToTheirRowSpace) {
  // A second stage input at the output rows: loaded as the output band.
  EXPECT_EQ(load_err(write_plan(stripe_with_add(false, {1, 8, 8, 2}))), TIGRIS_OK);
  // x is the conv's input band (with halo) and is read again at the output rows (a
  // residual): each space gets its own band of it.
  EXPECT_EQ(load_err(write_plan(stripe_with_add(true))), TIGRIS_OK);
  // A broadcast operand [1,1,1,2] is read whole.
  EXPECT_EQ(load_err(write_plan(stripe_with_add(false, {1, 1, 1, 2}))), TIGRIS_OK);
  EXPECT_EQ(load_err(write_plan(stripe_with_add(false, {2}))), TIGRIS_OK);
  // An operand broadcast along the width only is a full-height tensor: it is banded.
  EXPECT_EQ(load_err(write_plan(stripe_with_add(false, {1, 8, 1, 2}))), TIGRIS_OK);
}

TEST(TileBand, StageInputsMustBeDeclaredAndOutputsWrittenInTheLastSpace) {
  // The add's second operand is not a stage input of the banded stage.
  PlanDesc p = stripe_with_add(false, {1, 8, 8, 2});
  p.stages[0].inputs = {0};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_BAND);
  // A stage output written before the spatial op (at the input's rows).
  PlanDesc q;
  q.model_name = "pre";
  q.tensors = {tensor("x", {1, 8, 8, 2}, TIGRIS_TENSOR_MODEL_INPUT),
               tensor("r", {1, 8, 8, 2}, TIGRIS_TENSOR_MODEL_OUTPUT),
               tensor("y", {1, 4, 4, 2}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  OpDesc pool = op(TIGRIS_OP_MAX_POOL, "pool", {1}, {2});
  pool.spatial = window(2, 2, 0);
  q.ops = {op(TIGRIS_OP_RELU, "relu", {0}, {1}), pool};
  q.stages = {stage({0, 1}, {0}, {1, 2})};
  q.model_inputs = {0};
  q.model_outputs = {1, 2};
  q.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 2, 4, 0, 1, TIGRIS_BAND_KIND_STRIPE))};
  q.stages[0].tile_plan = 0;
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_ERR_TILE_BAND);
  q.stages[0].outputs = {2};
  q.tensors[1].flags = 0;
  q.model_outputs = {2};
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_OK);
}

TEST(TileBand, RowsMatMulReadsItsSecondOperandWhole) {
  // A [6,8] x B [8,5] -> Y [6,5]; B is a stage input (whole) — allowed; B produced inside
  // the stage is a band of other rows — refused.
  PlanDesc p;
  p.model_name = "mm";
  p.tensors = {tensor("a", {6, 8}, TIGRIS_TENSOR_MODEL_INPUT), tensor("b", {8, 5}, TIGRIS_TENSOR_MODEL_INPUT),
               tensor("y", {6, 5}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  p.ops = {op(TIGRIS_OP_MATMUL, "mm", {0, 1}, {2})};
  p.stages = {stage({0}, {0, 1}, {2})};
  p.model_inputs = {0, 1};
  p.model_outputs = {2};
  p.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HEIGHT, 3, facts(3, 2, 6, 0, 0, TIGRIS_BAND_KIND_ROWS))};
  p.stages[0].tile_plan = 0;
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
  PlanDesc q = p;
  q.tensors.insert(q.tensors.begin() + 2, tensor("b2", {8, 5}));
  q.ops = {op(TIGRIS_OP_RELU, "r", {1}, {2}), op(TIGRIS_OP_MATMUL, "mm", {0, 2}, {3})};
  q.stages = {stage({0, 1}, {0, 1}, {3})};
  q.stages[0].tile_plan = 0;
  q.model_outputs = {3};
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_ERR_TILE_BAND);
}

TEST(TileBand, SingleOpKindsReadOneBandedInput) {
  // A reshape stage whose stage output is not the op's output.
  PlanDesc p;
  p.model_name = "r";
  p.tensors = {tensor("x", {1, 4, 6, 2}, TIGRIS_TENSOR_MODEL_INPUT),
               tensor("y", {1, 4, 12}, TIGRIS_TENSOR_MODEL_OUTPUT),
               tensor("u", {1, 4, 12}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  p.ops = {op(TIGRIS_OP_RESHAPE, "r", {0}, {1})};
  p.stages = {stage({0}, {0}, {1})};
  p.model_inputs = {0};
  p.model_outputs = {1, 2};
  p.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 2, 4, 0, 1, TIGRIS_BAND_KIND_RESHAPE))};
  p.stages[0].tile_plan = 0;
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
  p.stages[0].outputs = {2};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_BAND);
}

}  // namespace
