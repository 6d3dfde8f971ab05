// Plans that need a runtime feature a firmware may leave out (runtime/src/common/features.h):
// a banded stage, a chain, weight blocks, state, an If. tests/unit/loader checks that the whole runtime loads them;
// tests/unit/no_features that a loader built without the feature refuses them.
#pragma once

#include "loader_fixture.h"

namespace lf {

// conv_relu with its conv stage banded in stripes of 2 rows (8 rows: 4 bands, halo 2).
inline PlanDesc banded_conv_relu() {
  PlanDesc p = conv_relu();
  p.tile_plans = {tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 4, 8, 2, 1, TIGRIS_BAND_KIND_STRIPE))};
  p.stages[0].tile_plan = 0;
  return p;
}

// conv_relu with its two stages chained (the conv stage heads it, bands of 2 rows).
inline PlanDesc chained_conv_relu() {
  PlanDesc p = conv_relu();
  for (auto& s : p.stages) s.chain_id = 0, s.chain_len = 2;
  p.stages[0].chain_tile_h = 2;
  return p;
}

// conv_relu in schema 9 (tile records v11) with its weights in one LZ4 block (loads on the
// whole runtime; its stage 1 holds the block).
inline PlanDesc weight_block_plan() {
  PlanDesc p = conv_relu();
  p.version = 9;
  tigris_tile_plan_v11_t t{};
  p.tile_plans = {t};
  p.stages[1].tile_plan = 0;
  p.compression = TIGRIS_COMPRESSION_LZ4;
  p.weight_blocks = {WeightBlockDesc{0, 0, 2}};
  return p;
}

// int8_conv with its input declared float32 (the interface quantizes the caller's floats).
inline PlanDesc converting_plan() {
  PlanDesc p = int8_conv();
  p.tensors[0].iface_dtype = TIGRIS_DTYPE_FLOAT32;
  return p;
}

// conv_relu with a state tensor s (its entry: 16 bytes, not written back).
inline PlanDesc state_plan() {
  PlanDesc p = conv_relu();
  p.tensors.push_back(tensor("s", {4}, TIGRIS_TENSOR_STATE));
  p.state = {StateDesc{3, TIGRIS_NONE, 0, std::vector<uint8_t>(16, 1)}};
  return p;
}

// c (bool) -> If(then: relu, else: neg) of v -> o; the main graph is stage 0.
inline PlanDesc if_plan() {
  PlanDesc d;
  d.model_name = "flow";
  d.tensors = {tensor("c", {1}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_BOOL),
               tensor("v", {4}, TIGRIS_TENSOR_MODEL_INPUT),
               tensor("o", {4}, TIGRIS_TENSOR_MODEL_OUTPUT),
               tensor("t_in", {4}),
               tensor("t_out", {4}),
               tensor("e_in", {4}),
               tensor("e_out", {4})};
  d.ops = {op(TIGRIS_OP_IF, "if", {0, 1}, {2}), op(TIGRIS_OP_RELU, "tr", {3}, {4}), op(TIGRIS_OP_NEG, "en", {5}, {6})};
  d.attributes = {AttrDesc{0, TIGRIS_ATTR_SUBGRAPHS, {1, 0, 2, 0}}};
  d.stages = {stage({0}, {0, 1}, {2}), stage({1}, {3}, {4}), stage({2}, {5}, {6})};
  d.subgraphs = {SubgraphDesc{0, 1, {0, 1}, {2}}, SubgraphDesc{1, 1, {3}, {4}}, SubgraphDesc{2, 1, {5}, {6}}};
  d.model_inputs = {0, 1};
  d.model_outputs = {2};
  return d;
}

}  // namespace lf
