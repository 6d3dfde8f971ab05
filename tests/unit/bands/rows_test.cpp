// ROWS: rank-2 matrix pipelines banded along their rows (row_tiled): FullyConnected,
// MatMul with its second operand whole, a broadcast bias read whole, Softmax over the
// columns. Banded outputs equal whole outputs; fast peak = cost model.
#include "bands_fixture.h"
#include "kernels/s8/s8_params.h"

using namespace bandtest;

namespace {

tigris_tile_plan_v11_t rows(uint32_t band) { return record(TIGRIS_TILE_AXIS_HEIGHT, band, TIGRIS_BAND_KIND_ROWS); }

// x [M,K] -> FC (OC) -> y -> relu -> z.
PlanDesc fc_relu(int32_t M, int32_t K, int32_t OC, bool int8, uint32_t band) {
  PlanDesc p;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  uint16_t x = add_tensor(p, "x", {M, K}, TIGRIS_TENSOR_MODEL_INPUT, dt, int8 ? add_quant(p, 0.05f, 1) : TIGRIS_NONE);
  uint16_t yq = TIGRIS_NONE;
  if (int8) {
    QuantDesc q;
    q.scale = 0.2f;
    q.zero_point = -3;
    int32_t m = 0;
    int s = 0;
    tigris_s8::layer_multiplier(0.05f, 0.02f, 0.2f, true, &m, &s);
    q.multipliers = {m};
    q.shifts = {s};
    p.quant.push_back(q);
    yq = (uint16_t)(p.quant.size() - 1);
  }
  uint16_t y = add_tensor(p, "y", {M, OC}, 0, dt, yq);
  uint16_t z = add_tensor(p, "z", {M, OC}, TIGRIS_TENSOR_MODEL_OUTPUT, dt, int8 ? add_quant(p, 0.2f, -3) : TIGRIS_NONE);
  uint16_t fc = add_op(p, TIGRIS_OP_FULLY_CONN, {x}, {y});
  add_fc_weights(p, fc, OC, K, int8);
  add_op(p, TIGRIS_OP_RELU, {y}, {z});
  add_stage(p, {0, 1}, {x}, {z});
  p.model_inputs = {x};
  p.model_outputs = {z};
  tile_stage(p, 0, rows(band));
  return p;
}

TEST(Rows, FullyConnectedRelu) {
  for (bool int8 : {false, true})
    for (uint32_t b : {1u, 2u, 5u, 7u, 20u}) {
      const PlanDesc p = fc_relu(7, 6, 5, int8, b);
      const RunResult r = expect_banded_equals_whole(p, inputs_for(p), "fc band " + std::to_string(b));
      EXPECT_EQ(r.stats.stages_tiled, 1u);
      EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_ROWS});
      EXPECT_EQ(r.stats.total_tiles, (7u + std::min(b, 7u) - 1) / std::min(b, 7u));
    }
}

// a [M,K] x w [K,N] (a stage input read whole) + bias [N] (stage input, broadcast) -> softmax.
PlanDesc matmul_pipeline(uint32_t band) {
  PlanDesc p;
  const int32_t M = 9, K = 4, N = 6;
  uint16_t a = add_tensor(p, "a", {M, K}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t w = add_tensor(p, "w", {K, N}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t bias = add_tensor(p, "bias", {N}, TIGRIS_TENSOR_MODEL_INPUT);
  uint16_t y = add_tensor(p, "y", {M, N});
  uint16_t yb = add_tensor(p, "yb", {M, N});
  uint16_t z = add_tensor(p, "z", {M, N}, TIGRIS_TENSOR_MODEL_OUTPUT);
  add_op(p, TIGRIS_OP_MATMUL, {a, w}, {y});
  add_op(p, TIGRIS_OP_ADD, {y, bias}, {yb});
  add_op(p, TIGRIS_OP_SOFTMAX, {yb}, {z});
  add_stage(p, {0, 1, 2}, {a, w, bias}, {z});
  p.model_inputs = {a, w, bias};
  p.model_outputs = {z};
  tile_stage(p, 0, rows(band));
  return p;
}

TEST(Rows, MatMulWithWholeOperandsAndSoftmax) {
  for (uint32_t b : {1u, 4u, 9u}) {
    const PlanDesc p = matmul_pipeline(b);
    const RunResult r = expect_banded_equals_whole(p, inputs_for(p), "matmul band " + std::to_string(b));
    // w (96 B) and bias (24 B) are loaded once; a's rows once over the bands.
    EXPECT_EQ(r.stats.loads_bytes, 9u * 4 * 4 + 4u * 6 * 4 + 6u * 4);
    size_t whole_loads = 0;
    for (const auto& e : r.events) whole_loads += e.kind == TIGRIS_TRACE_LOAD && e.row0 < 0;
    EXPECT_EQ(whole_loads, 2u);
  }
}

}  // namespace
