// Reductions banded by blocks of input elements (BY_INPUT mode FLAT): any reduction op, any
// AXES, any rank, float32 bit-identical to the whole op (inputs whose sums depend on the
// order of addition) and int8 exact, at several band sizes including bands that cut rows;
// the fast peak equals the cost model; inconsistent records are refused (TILE_FACTS) and an
// understated band fails closed (TILE).
#include <cmath>

#include "bands_fixture.h"

using namespace bandtest;

namespace flat_reduce_test {

struct Reduction {
  const char* what;
  uint8_t type;
  std::vector<int32_t> in, out;
  std::vector<uint8_t> axes;  // empty: no AXES attribute
};

PlanDesc reduction_plan(const Reduction& c, bool int8, uint32_t band, uint8_t mode = TIGRIS_BY_INPUT_MODE_FLAT) {
  PlanDesc p;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  const uint16_t x = add_tensor(p, "x", c.in, TIGRIS_TENSOR_MODEL_INPUT, dt, int8 ? add_quant(p, 0.05f, 2) : TIGRIS_NONE);
  const uint16_t y =
      add_tensor(p, "y", c.out, TIGRIS_TENSOR_MODEL_OUTPUT, dt, int8 ? add_quant(p, 0.04f, -3) : TIGRIS_NONE);
  add_op(p, c.type, {x}, {y});
  if (!c.axes.empty()) p.attributes = {AttrDesc{0, TIGRIS_ATTR_AXES, c.axes}};
  add_stage(p, {0}, {x}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  tile_stage(p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, band, TIGRIS_BAND_KIND_BY_INPUT, 0, 0, mode));
  return p;
}

// Float inputs spanning six orders of magnitude: a sum taken in another order rounds
// differently, so only the whole kernel's order per output reproduces its bits.
Bytes order_sensitive_floats(size_t n) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i)
    v[i] = std::sin((float)i * 1.7f + 0.3f) * std::pow(10.0f, (float)((i * 7) % 6) - 2.0f);
  return float_bytes(v);
}

size_t elements(const std::vector<int32_t>& s) {
  size_t n = 1;
  for (int32_t d : s) n *= (size_t)d;
  return n;
}

const Reduction kCases[] = {
    {"global avg", TIGRIS_OP_GLOBAL_AVG, {2, 7, 5, 3}, {2, 1, 1, 3}, {}},
    {"global max", TIGRIS_OP_GLOBAL_MAX, {2, 7, 5, 3}, {2, 1, 1, 3}, {}},
    {"global avg rank 3", TIGRIS_OP_GLOBAL_AVG, {1, 9, 4}, {1, 1, 4}, {}},
    // audio1d's head: the mean over the last axis of [1, C, L] (axis 1 kept).
    {"mean over the last axis", TIGRIS_OP_REDUCE_MEAN, {1, 6, 11}, {1, 6, 1}, {2}},
    {"mean over H and W", TIGRIS_OP_REDUCE_MEAN, {1, 6, 4, 5}, {1, 1, 1, 5}, {1, 2}},
    {"sum over batch and W", TIGRIS_OP_REDUCE_SUM, {2, 3, 4, 5}, {1, 3, 1, 5}, {0, 2}},
    {"max over axes 1 and 3", TIGRIS_OP_REDUCE_MAX, {2, 5, 3, 4}, {2, 1, 3, 1}, {1, 3}},
    {"min over axis 0", TIGRIS_OP_REDUCE_MIN, {5, 3, 2}, {1, 3, 2}, {0}},
    {"mean over every axis", TIGRIS_OP_REDUCE_MEAN, {3, 4, 5}, {1, 1, 1}, {0, 1, 2}},
};

TEST(FlatReduce, BitIdenticalToWholeAtEveryBand) {
  for (bool int8 : {false, true}) {
    for (const Reduction& c : kCases) {
      const uint32_t n = (uint32_t)elements(c.in);
      for (uint32_t band : {1u, 2u, 7u, 13u, n - 1, n}) {
        const std::string what = std::string(c.what) + (int8 ? " int8" : " float") + " band " + std::to_string(band);
        PlanDesc p = reduction_plan(c, int8, band);
        const tigris_tile_facts_t& f = p.tile_plans[0].facts;
        EXPECT_EQ(f.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_BY_INPUT, TIGRIS_BY_INPUT_MODE_FLAT)) << what;
        EXPECT_EQ(f.original_extent, n) << what;
        EXPECT_EQ(f.tile_extent, band) << what;
        EXPECT_EQ(f.num_tiles, (n + band - 1) / band) << what;
        const std::vector<Bytes> in = int8 ? inputs_for(p) : std::vector<Bytes>{order_sensitive_floats(n)};
        const RunResult r = expect_banded_equals_whole(p, in, what);
        EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_BY_INPUT}) << what;
        EXPECT_EQ(r.stats.total_tiles, (n + band - 1) / band) << what;
        EXPECT_EQ(r.stats.loads_bytes, (uint32_t)in[0].size()) << what;
        EXPECT_EQ(r.stats.spills_bytes, (uint32_t)elements(c.out) * (int8 ? 1u : 4u)) << what;
        // Fast peak: the accumulator, the whole output and one block of `band` elements.
        const uint32_t e = int8 ? 1u : 4u;
        EXPECT_EQ(r.fast_peak, A * ((4 * elements(c.out) + A - 1) / A) + A * ((e * elements(c.out) + A - 1) / A) +
                                   A * ((e * band + A - 1) / A))
            << what;
      }
    }
  }
}

// The float sums really depend on the order: adding a band's elements channel by channel
// after the rows before them would not give the whole kernel's bits (the test above could
// not pass by accident).
TEST(FlatReduce, TheFloatInputsAreOrderSensitive) {
  const Bytes b = order_sensitive_floats(7 * 5);
  const std::vector<float> v = as_floats(b);
  float forward = 0, backward = 0;
  for (size_t i = 0; i < v.size(); ++i) forward += v[i];
  for (size_t i = v.size(); i-- > 0;) backward += v[i];
  EXPECT_NE(forward, backward);
}

TEST(FlatReduce, InconsistentRecordsAreRefused) {
  const Reduction gap = kCases[0];
  Loaded f;
  // Facts stating another extent, or rows mode's extent, under mode FLAT.
  PlanDesc p = reduction_plan(gap, false, 4);
  p.tile_plans[0].facts.original_extent = 7;
  load(p, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  p = reduction_plan(gap, false, 4);
  p.tile_plans[0].facts.num_tiles += 1;
  load(p, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // FLAT stated for an op that is no reduction (a ReLU), and for int16 or mixed dtypes.
  PlanDesc relu = reduction_plan(gap, false, 4, TIGRIS_BY_INPUT_MODE_ROWS);
  relu.ops[0].type = TIGRIS_OP_RELU;
  relu.tensors[1].shape = relu.tensors[0].shape;
  relu.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_BY_INPUT, TIGRIS_BY_INPUT_MODE_FLAT);
  load(relu, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  EXPECT_THROW(tigris::plan::fill_tile_facts(relu), tigris::plan::PlanWriteError);
  PlanDesc mixed = reduction_plan(gap, false, 4);
  mixed.tensors[1].dtype = TIGRIS_DTYPE_INT8;
  mixed.tensors[1].quant = add_quant(mixed, 0.05f, 0);
  EXPECT_THROW(tigris::plan::fill_tile_facts(mixed), tigris::plan::PlanWriteError);
  // The reduction's input not a stage input (the stage lists another tensor): band access
  // refuses it.
  PlanDesc unlisted = reduction_plan(gap, false, 4);
  const uint16_t other = add_tensor(unlisted, "other", {1, 4}, TIGRIS_TENSOR_MODEL_INPUT);
  unlisted.stages[0].inputs = {other};
  unlisted.model_inputs.push_back(other);
  load(unlisted, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_BAND);
  // An unknown by-input mode.
  PlanDesc odd = reduction_plan(gap, false, 4);
  odd.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_BY_INPUT, 2);
  load(odd, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
}

}  // namespace flat_reduce_test
