// A valid plan exposes exactly the tables it holds (pointers located independently from
// the directory); arena helpers: compressed-weight room (chains included) and the fast
// arena requirement (saturating).
#include "feature_plans.h"
#include "loader_fixture.h"

using namespace lf;

namespace {

uint32_t at(const tigris_plan_t& p, const void* ptr, const Bytes& b) {
  (void)p;
  return static_cast<uint32_t>(static_cast<const uint8_t*>(ptr) - b.data());
}

TEST(LoaderExposure, Schema11PlanTables) {
  PlanDesc d = conv_relu();
  d.ops[1].type = TIGRIS_OP_CLIP;
  d.attributes = {AttrDesc{1, TIGRIS_ATTR_CLIP_BOUNDS, {0, 0, 0, 0, 0, 0, 0xC0, 0x40}}};  // 0, 6
  d.quant = {QuantDesc{0.25f, 3, {11, 12}, {-1, -2}}};
  d.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HEIGHT, 4, facts(4, 2, 8, 0, 1, TIGRIS_BAND_KIND_STRIPE))};
  d.stages[1].tile_plan = 0;
  d.flags = TIGRIS_FLAG_XIP;
  Bytes b = write_plan(d);
  tigris_plan_t p;
  ASSERT_EQ(tigris_plan_load(b.data(), static_cast<uint32_t>(b.size()), &p), TIGRIS_OK);
  EXPECT_EQ(static_cast<const void*>(p.header), b.data());
  EXPECT_EQ(at(p, p.tensors, b), sec(b, TIGRIS_SEC_TENSORS));
  EXPECT_EQ(at(p, p.ops, b), sec(b, TIGRIS_SEC_OPS));
  EXPECT_EQ(at(p, p.stages, b), sec(b, TIGRIS_SEC_STAGES));
  EXPECT_EQ(at(p, p.index_pool, b), sec(b, TIGRIS_SEC_INDEX_POOL));
  EXPECT_EQ(at(p, p.shape_pool, b), sec(b, TIGRIS_SEC_SHAPE_POOL));
  EXPECT_EQ(at(p, p.strings, b), sec(b, TIGRIS_SEC_STRINGS));
  EXPECT_EQ(at(p, p.weight_entries, b), sec(b, TIGRIS_SEC_WEIGHTS));
  EXPECT_EQ(at(p, p.weight_blob, b), sec(b, TIGRIS_SEC_WEIGHTS) + 32);  // 2 entries, 16-aligned
  EXPECT_EQ(at(p, p.weight_blob, b) % 16, 0u);
  EXPECT_EQ(at(p, p.tile_plans_v11, b), sec(b, TIGRIS_SEC_TILE_PLANS));
  EXPECT_EQ(p.tile_plans, nullptr);
  EXPECT_EQ(p.tile_plans_v10, nullptr);
  EXPECT_EQ(at(p, p.op_attributes, b), sec(b, TIGRIS_SEC_OP_ATTRIBUTES) + 4);
  EXPECT_EQ(p.num_op_attributes, 1);
  EXPECT_EQ(at(p, p.quant_params, b), sec(b, TIGRIS_SEC_QUANT_PARAMS) + 4);
  EXPECT_EQ(at(p, p.quant_data, b), sec(b, TIGRIS_SEC_QUANT_PARAMS) + 20);
  EXPECT_EQ(p.num_quant_params, 1);
  EXPECT_EQ(p.weight_blocks, nullptr);
  EXPECT_EQ(p.weight_blocks_data, nullptr);
  EXPECT_EQ(p.num_weight_blocks, 0);
  EXPECT_EQ(p.state_entries, nullptr);
  EXPECT_EQ(p.state_section, nullptr);
  EXPECT_EQ(p.num_state, 0);
  EXPECT_EQ(p.state_bytes, 0u);
  EXPECT_EQ(p.subgraphs, nullptr);
  EXPECT_EQ(p.num_subgraphs, 0);
  EXPECT_EQ(p.subgraph_depth, 0);
  EXPECT_EQ(p.scheduled_peak, 4096u);
  ASSERT_NE(p.model_inputs, nullptr);
  EXPECT_EQ(p.model_inputs[0], 0);
  EXPECT_EQ(p.model_outputs[0], 2);
  EXPECT_STREQ(tigris_model_name(&p), "conv_relu");
  EXPECT_STREQ(tigris_tensor_name(&p, &p.tensors[1]), "y");
  EXPECT_EQ(tigris_tensor_shape(&p, &p.tensors[2])[1], 8);
  uint8_t len = 0;
  const uint8_t* clip = tigris_op_attribute_data(&p, 1, TIGRIS_ATTR_CLIP_BOUNDS, &len);
  ASSERT_NE(clip, nullptr);
  EXPECT_EQ(len, 8);
  float hi;
  std::memcpy(&hi, clip + 4, 4);
  EXPECT_EQ(hi, 6.0f);
  const tigris_quant_param_t* q = &p.quant_params[0];
  EXPECT_EQ(tigris_quant_multipliers(&p, q)[1], 12);
  EXPECT_EQ(tigris_quant_shifts(&p, q)[0], -1);
  EXPECT_EQ(0, std::memcmp(tigris_op_weight(&p, &p.ops[0]), d.weights[0].data.data(), d.weights[0].data.size()));
  EXPECT_EQ(0, std::memcmp(tigris_op_bias(&p, &p.ops[0]), d.weights[1].data.data(), 16));
  EXPECT_EQ(tigris_stage_tiles(&p, &p.stages[1]).tile_extent_wide, 4u);
}

TEST(LoaderExposure, OlderSchemasAndCompressedWeights) {
  Bytes b = write_plan(weight_block_plan());
  tigris_plan_t p;
  ASSERT_EQ(tigris_plan_load(b.data(), static_cast<uint32_t>(b.size()), &p), TIGRIS_OK);
  EXPECT_EQ(p.scheduled_peak, 0u);
  EXPECT_EQ(at(p, p.tile_plans, b), sec(b, TIGRIS_SEC_TILE_PLANS));
  EXPECT_EQ(p.tile_plans_v11, nullptr);
  EXPECT_EQ(p.weight_blob, nullptr);  // decoded per stage by the executor
  EXPECT_EQ(at(p, p.weight_blocks, b), sec(b, TIGRIS_SEC_WEIGHT_BLOCKS) + 4);
  EXPECT_EQ(at(p, p.weight_blocks_data, b), sec(b, TIGRIS_SEC_WEIGHT_BLOCKS) + 24);
  EXPECT_EQ(p.num_weight_blocks, 1);
  EXPECT_EQ(p.weight_compression, TIGRIS_COMPRESSION_LZ4);
  EXPECT_EQ(p.weight_blocks[0].uncompressed_size, 288u + 16u);
  EXPECT_EQ(tigris_op_weight(&p, &p.ops[0]), nullptr);
}

TEST(LoaderExposure, StateAndSubgraphs) {
  // Main graph = stage 0 (If), then-graph = stage 1, else-graph = stage 2; a state tensor.
  PlanDesc d;
  d.model_name = "flow";
  d.tensors = {tensor("c", {1}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_BOOL),
               tensor("v", {4}),
               tensor("o", {4}, TIGRIS_TENSOR_MODEL_OUTPUT),
               tensor("t_in", {4}),
               tensor("t_out", {4}),
               tensor("e_in", {4}),
               tensor("e_out", {4}),
               tensor("s", {4}, TIGRIS_TENSOR_STATE)};
  d.ops = {op(TIGRIS_OP_IF, "if", {0, 7}, {2}), op(TIGRIS_OP_RELU, "tr", {3}, {4}), op(TIGRIS_OP_NEG, "en", {5}, {6})};
  d.attributes = {AttrDesc{0, TIGRIS_ATTR_SUBGRAPHS, {1, 0, 2, 0}}};
  d.stages = {stage({0}, {0, 7}, {2}), stage({1}, {3}, {4}), stage({2}, {5}, {6})};
  d.subgraphs = {SubgraphDesc{0, 1, {0}, {2}}, SubgraphDesc{1, 1, {3}, {4}}, SubgraphDesc{2, 1, {5}, {6}}};
  d.state = {StateDesc{7, TIGRIS_NONE, 0, std::vector<uint8_t>(16, 1)}};
  d.model_inputs = {0};
  d.model_outputs = {2};
  Bytes b = write_plan(d);
  tigris_plan_t p;
  ASSERT_EQ(tigris_plan_load(b.data(), static_cast<uint32_t>(b.size()), &p), TIGRIS_OK);
  EXPECT_EQ(p.num_subgraphs, 3);
  EXPECT_EQ(p.subgraph_depth, 1);
  EXPECT_EQ(at(p, p.subgraphs, b), sec(b, TIGRIS_SEC_SUBGRAPHS) + 4);
  EXPECT_EQ(p.num_state, 1);
  EXPECT_EQ(p.state_bytes, 16u);
  EXPECT_EQ(at(p, p.state_section, b), sec(b, TIGRIS_SEC_STATE));
  EXPECT_EQ(p.state_entries[0].input, 7);
  // The If names the main graph: refused; a state entry of the wrong size: refused.
  PlanDesc bad = d;
  bad.attributes[0].data = {0, 0, 2, 0};
  EXPECT_EQ(load_err(write_plan(bad)), TIGRIS_ERR_BAD_SECTION);
  bad = d;
  bad.state[0].initial.resize(12);
  EXPECT_EQ(load_err(write_plan(bad)), TIGRIS_ERR_BAD_SECTION);
  bad = d;  // graphs not partitioning the stages
  bad.subgraphs[2].first_stage = 1;
  EXPECT_EQ(load_err(write_plan(bad)), TIGRIS_ERR_BAD_SECTION);
  bad = d;  // the then-graph holds an If naming itself: a cycle
  bad.ops[1] = op(TIGRIS_OP_IF, "loop", {0, 3}, {4});
  bad.attributes.push_back(AttrDesc{1, TIGRIS_ATTR_SUBGRAPHS, {1, 0, 2, 0}});
  bad.stages[1].inputs = {0, 3};
  EXPECT_EQ(load_err(write_plan(bad)), TIGRIS_ERR_BAD_SECTION);
}

// x -> conv A (2 -> 4) -> y -> conv B (4 -> 4) -> z -> relu -> o; blocks for stages 0, 1.
PlanDesc two_convs(bool chained) {
  PlanDesc p;
  p.model_name = "blocks";
  p.tensors = {tensor("x", {1, 8, 8, 2}, TIGRIS_TENSOR_MODEL_INPUT), tensor("y", {1, 8, 8, 4}),
               tensor("z", {1, 8, 8, 4}), tensor("o", {1, 8, 8, 4}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  OpDesc a = op(TIGRIS_OP_CONV, "a", {0}, {1});
  a.spatial = window(3, 1, 1);
  a.weight = 0;
  a.bias = 1;
  OpDesc c = op(TIGRIS_OP_CONV, "b", {1}, {2});
  c.spatial = window(3, 1, 1);
  c.weight = 2;
  c.bias = 3;
  p.ops = {a, c, op(TIGRIS_OP_RELU, "r", {2}, {3})};
  p.weights = {weight("wa", 4 * 9 * 2 * 4), weight("ba", 16), weight("wb", 4 * 9 * 4 * 4), weight("bb", 16)};
  p.stages = {stage({0}, {0}, {1}), stage({1}, {1}, {2}), stage({2}, {2}, {3})};
  if (chained) {
    p.stages[0].chain_id = p.stages[1].chain_id = 0;
    p.stages[0].chain_len = p.stages[1].chain_len = 2;
    p.stages[0].chain_tile_h = 2;
  }
  p.compression = TIGRIS_COMPRESSION_LZ4;
  p.weight_blocks = {WeightBlockDesc{0, 0, 2}, WeightBlockDesc{1, 2, 2}};
  p.model_inputs = {0};
  p.model_outputs = {3};
  p.scheduled_peak = 10000;
  p.budget = 20000;
  return p;
}

uint32_t aligned(uint32_t n) { return (n + TIGRIS_TENSOR_ALIGN - 1) / TIGRIS_TENSOR_ALIGN * TIGRIS_TENSOR_ALIGN; }

struct Held {
  Bytes bytes;
  tigris_plan_t plan;
};

Held loaded(const PlanDesc& d) {
  Held h{write_plan(d), {}};
  EXPECT_EQ(tigris_plan_load(h.bytes.data(), static_cast<uint32_t>(h.bytes.size()), &h.plan), TIGRIS_OK);
  return h;
}

TEST(ArenaHelpers, DecompressionOverheadAndRequirement) {
  // Raw blocks: A = w 288 at 0, b 16 at 288 -> 304; B = w 576, b 16 at 576 -> 592.
  const uint32_t a = aligned(304), bsz = aligned(592);
  Held solo = loaded(two_convs(false));
  EXPECT_EQ(tigris_weight_decompression_overhead(&solo.plan), std::max(a, bsz));
  EXPECT_EQ(tigris_fast_arena_required(&solo.plan), 10000u + std::max(a, bsz));
  Held chain = loaded(two_convs(true));  // a chain holds both members' blocks at once
  EXPECT_EQ(tigris_weight_decompression_overhead(&chain.plan), a + bsz);
  EXPECT_EQ(tigris_fast_arena_required(&chain.plan), 10000u + a + bsz);
  // Pre-v11: the budget stands for the scheduled peak.
  PlanDesc old = two_convs(false);
  old.version = 9;
  Held o = loaded(old);
  EXPECT_EQ(tigris_fast_arena_required(&o.plan), 20000u + std::max(a, bsz));
  // Saturation.
  PlanDesc big = two_convs(false);
  big.scheduled_peak = UINT32_MAX - 10;
  Held s = loaded(big);
  EXPECT_EQ(tigris_fast_arena_required(&s.plan), UINT32_MAX);
  // No blocks: no overhead.
  Held plain = loaded(conv_relu());
  EXPECT_EQ(tigris_weight_decompression_overhead(&plain.plan), 0u);
  EXPECT_EQ(tigris_fast_arena_required(&plain.plan), 4096u);
  EXPECT_EQ(tigris_weight_decompression_overhead(nullptr), 0u);
  EXPECT_EQ(tigris_fast_arena_required(nullptr), UINT32_MAX);
}

TEST(ArenaHelpers, OverheadSaturatesOnHugeBlocks) {
  Held h = loaded(two_convs(true));
  // A hand-made plan view whose block sizes overflow when aligned or summed.
  tigris_weight_block_t blocks[2];
  std::memcpy(blocks, h.plan.weight_blocks, sizeof(blocks));
  blocks[0].uncompressed_size = UINT32_MAX - 1;
  tigris_plan_t view = h.plan;
  view.weight_blocks = blocks;
  EXPECT_EQ(tigris_weight_decompression_overhead(&view), UINT32_MAX);
  blocks[0].uncompressed_size = 0x80000000u;
  blocks[1].uncompressed_size = 0x80000000u;
  EXPECT_EQ(tigris_weight_decompression_overhead(&view), UINT32_MAX);  // the chain's sum
}

}  // namespace
