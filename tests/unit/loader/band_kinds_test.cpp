// Band kinds and tile facts on crafted stages: each kind's conditions, facts hand-derived
// from the shapes and the record, verified by the loader (TILE_FACTS), derived for pre-v11
// plans, and the geometry helpers of band_rules.h.
#include "loader_fixture.h"
#include "runtime/src/plan/band_rules.h"

using namespace lf;

namespace {

// One-stage plan: model input x, ops, model output = last tensor; stage 0 holds every op.
PlanDesc one_stage(std::vector<TensorDesc> tensors, std::vector<OpDesc> ops, std::vector<uint16_t> stage_in) {
  PlanDesc p;
  p.model_name = "band";
  p.tensors = std::move(tensors);
  p.tensors.front().flags |= TIGRIS_TENSOR_MODEL_INPUT;
  p.tensors.back().flags |= TIGRIS_TENSOR_MODEL_OUTPUT;
  p.ops = std::move(ops);
  std::vector<uint16_t> all;
  for (size_t i = 0; i < p.ops.size(); ++i) all.push_back(static_cast<uint16_t>(i));
  p.stages = {stage(all, std::move(stage_in), {static_cast<uint16_t>(p.tensors.size() - 1)})};
  p.model_inputs = {0};
  p.model_outputs = {static_cast<uint16_t>(p.tensors.size() - 1)};
  return p;
}

void tile(PlanDesc& p, tigris_tile_plan_v11_t rec) {
  p.tile_plans = {rec};
  p.stages[0].tile_plan = 0;
}

// x [1,10,8,2] -> conv 3x3 s2 p1 (OC 4) -> y [1,5,4,4] -> relu -> z.
PlanDesc conv_s2() {
  OpDesc c = op(TIGRIS_OP_CONV, "conv", {0}, {1});
  c.spatial = window(3, 2, 1);
  c.weight = 0;
  PlanDesc p = one_stage({tensor("x", {1, 10, 8, 2}), tensor("y", {1, 5, 4, 4}), tensor("z", {1, 5, 4, 4})},
                         {c, op(TIGRIS_OP_RELU, "relu", {1}, {2})}, {0});
  p.weights = {weight("w", 4 * 3 * 3 * 2 * 4)};
  return p;
}

struct Derived {
  tigris_error_t err;
  tigris_band_kind_t kind;
  tigris_stage_band_t band;
  tigris_tile_facts_t facts;
  int facts_rc;
};

Derived derive(const PlanDesc& p) {
  static Bytes keep;  // the plan points into the bytes
  keep = write_plan(p);
  Derived d{};
  tigris_plan_t plan;
  d.err = tigris_plan_load(keep.data(), static_cast<uint32_t>(keep.size()), &plan);
  if (d.err != TIGRIS_OK) return d;
  d.kind = tigris_stage_band_kind(&plan, &plan.stages[0], &d.band);
  d.facts_rc = tigris_stage_tile_facts(&plan, &plan.stages[0], &d.facts);
  return d;
}

void expect_facts(const tigris_tile_facts_t& f, uint32_t tile, uint32_t tiles, uint32_t extent, uint16_t halo,
                  uint8_t axis, uint8_t kind, uint8_t mode = 0) {
  EXPECT_EQ(f.tile_extent, tile);
  EXPECT_EQ(f.num_tiles, tiles);
  EXPECT_EQ(f.original_extent, extent);
  EXPECT_EQ(f.halo, halo);
  EXPECT_EQ(f.band_axis, axis);
  EXPECT_EQ(f.band, TIGRIS_TILE_BAND(kind, mode));
}

TEST(BandKinds, StripeConvStride2) {
  // Output rows 5 in bands of 2: 3 bands; halo = eff_k 3 - stride 2 = 1.
  PlanDesc p = conv_s2();
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 3, 5, 1, 1, TIGRIS_BAND_KIND_STRIPE)));
  Derived d = derive(p);
  ASSERT_EQ(d.err, TIGRIS_OK) << tigris_error_str(d.err);
  EXPECT_EQ(d.kind, TIGRIS_BAND_KIND_STRIPE);
  EXPECT_EQ(d.band.extent, 5u);
  EXPECT_EQ(d.band.axis, 1);
  EXPECT_EQ(d.facts_rc, 1);
  expect_facts(d.facts, 2, 3, 5, 1, 1, TIGRIS_BAND_KIND_STRIPE);
  // Each stated fact is verified.
  for (int field = 0; field < 6; ++field) {
    tigris_tile_facts_t f = facts(2, 3, 5, 1, 1, TIGRIS_BAND_KIND_STRIPE);
    if (field == 0) f.tile_extent = 3;
    if (field == 1) f.num_tiles = 2;
    if (field == 2) f.original_extent = 10;
    if (field == 3) f.halo = 2;
    if (field == 4) f.band_axis = 2;
    if (field == 5) f.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_STRIPE, 1);
    tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, f));
    EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS) << "field " << field;
  }
  // A band longer than the extent is clamped to it.
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 9, facts(5, 1, 5, 1, 1, TIGRIS_BAND_KIND_STRIPE)));
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
}

TEST(BandKinds, StatedKindMustHold) {
  PlanDesc p = conv_s2();
  // BY_INPUT does not hold for a conv stage; HW needs the HW axis; NONE is no kind.
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 3, 5, 1, 1, TIGRIS_BAND_KIND_BY_INPUT)));
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS);
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 3, 5, 1, 1, TIGRIS_BAND_KIND_HW)));
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS);
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 3, 5, 1, 1, TIGRIS_BAND_KIND_NONE)));
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS);
  // An untileable record states all-zero facts.
  tigris_tile_plan_v11_t none{};
  tile(p, none);
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
  none.facts.halo = 1;
  tile(p, none);
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS);
}

TEST(BandKinds, HwTiles) {
  // 5 output rows in bands of 2 (3) times 4 output columns in tiles of 3 (2) = 6 tiles.
  PlanDesc p = conv_s2();
  tile(p, tile_record(TIGRIS_TILE_AXIS_HW, 2, facts(2, 6, 5, 1, 1, TIGRIS_BAND_KIND_HW), 3));
  Derived d = derive(p);
  ASSERT_EQ(d.err, TIGRIS_OK) << tigris_error_str(d.err);
  EXPECT_EQ(d.kind, TIGRIS_BAND_KIND_HW);
  expect_facts(d.facts, 2, 6, 5, 1, 1, TIGRIS_BAND_KIND_HW);
}

TEST(BandKinds, ChannelBands) {
  // x [1,10,8,4] -> depthwise 3x3 s2 p1 -> y [1,5,4,4] -> relu -> z: 5 output rows in bands
  // of 2 (3) times 4 channels in bands of 3 (2) = 6 tiles; halo 3 - 2 = 1.
  OpDesc c = op(TIGRIS_OP_DEPTHWISE, "dw", {0}, {1});
  c.spatial = window(3, 2, 1);
  c.spatial.group = 4;
  c.weight = 0;
  PlanDesc p = one_stage({tensor("x", {1, 10, 8, 4}), tensor("y", {1, 5, 4, 4}), tensor("z", {1, 5, 4, 4})},
                         {c, op(TIGRIS_OP_RELU, "relu", {1}, {2})}, {0});
  p.weights = {weight("w", 4 * 3 * 3 * 4)};
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 6, 5, 1, 1, TIGRIS_BAND_KIND_CHANNELS), 3));
  Derived d = derive(p);
  ASSERT_EQ(d.err, TIGRIS_OK) << tigris_error_str(d.err);
  EXPECT_EQ(d.kind, TIGRIS_BAND_KIND_CHANNELS);
  expect_facts(d.facts, 2, 6, 5, 1, 1, TIGRIS_BAND_KIND_CHANNELS);
  // Counting the row bands only, or stating the HW axis, is refused.
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 3, 5, 1, 1, TIGRIS_BAND_KIND_CHANNELS), 3));
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS);
  tile(p, tile_record(TIGRIS_TILE_AXIS_HW, 2, facts(2, 6, 5, 1, 1, TIGRIS_BAND_KIND_CHANNELS), 3));
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS);
  // A convolution mixes channels: CHANNELS does not hold.
  PlanDesc q = conv_s2();
  tile(q, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 6, 5, 1, 1, TIGRIS_BAND_KIND_CHANNELS), 3));
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_ERR_TILE_FACTS);
}

TEST(BandKinds, ByInputGlobalAverage) {
  PlanDesc p = one_stage({tensor("x", {1, 6, 4, 3}), tensor("y", {1, 1, 1, 3})},
                         {op(TIGRIS_OP_GLOBAL_AVG, "gap", {0}, {1})}, {0});
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 4, facts(4, 2, 6, 0, 1, TIGRIS_BAND_KIND_BY_INPUT)));
  Derived d = derive(p);
  ASSERT_EQ(d.err, TIGRIS_OK) << tigris_error_str(d.err);
  EXPECT_EQ(d.kind, TIGRIS_BAND_KIND_BY_INPUT);
  EXPECT_EQ(d.band.extent, 6u);
}

PlanDesc transpose_stage(std::vector<int32_t> in, std::vector<uint8_t> perm) {
  std::vector<int32_t> out;
  for (uint8_t a : perm) out.push_back(in[a]);
  PlanDesc p = one_stage({tensor("x", in), tensor("y", out)}, {op(TIGRIS_OP_TRANSPOSE, "t", {0}, {1})}, {0});
  p.attributes = {AttrDesc{0, TIGRIS_ATTR_TRANSPOSE_PERM, perm}};
  return p;
}

TEST(BandKinds, TransposeRowsOrColumns) {
  // NHWC -> NCHW of [1,6,4,3]: rows = H*W = 24 (input axis 1), columns = C = 3 (axis 3).
  PlanDesc p = transpose_stage({1, 6, 4, 3}, {0, 3, 1, 2});
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 10, facts(10, 3, 24, 0, 1, TIGRIS_BAND_KIND_TRANSPOSE)));
  Derived d = derive(p);
  ASSERT_EQ(d.err, TIGRIS_OK) << tigris_error_str(d.err);
  EXPECT_EQ(d.kind, TIGRIS_BAND_KIND_TRANSPOSE);
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 10, facts(3, 1, 3, 0, 3, TIGRIS_BAND_KIND_TRANSPOSE), 0,
                      TIGRIS_TILE_BAND_ON_COLUMNS));
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
  // NCHW -> NHWC of [1,3,6,4]: rows = C = 3 (axis 1), columns = H*W = 24 (axis 2).
  PlanDesc q = transpose_stage({1, 3, 6, 4}, {0, 2, 3, 1});
  tile(q, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, facts(2, 2, 3, 0, 1, TIGRIS_BAND_KIND_TRANSPOSE)));
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_OK);
}

TEST(BandKinds, LeadingModes) {
  // [2,3,4] (0,2,1): batch 2 is not a TRANSPOSE band; leading batch mode over axis 0.
  PlanDesc p = transpose_stage({2, 3, 4}, {0, 2, 1});
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 1,
                      facts(1, 2, 2, 0, 0, TIGRIS_BAND_KIND_LEADING, TIGRIS_LEADING_MODE_BATCH)));
  Derived d = derive(p);
  ASSERT_EQ(d.err, TIGRIS_OK) << tigris_error_str(d.err);
  EXPECT_EQ(d.kind, TIGRIS_BAND_KIND_LEADING);
  EXPECT_EQ(d.band.mode, TIGRIS_LEADING_MODE_BATCH);
  // The same stage stated as TRANSPOSE fails its conditions.
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 1, facts(1, 2, 2, 0, 0, TIGRIS_BAND_KIND_TRANSPOSE)));
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS);
  // [1,4,6,2] (0,1,3,2): fixed prefix (0,1), outer = 1*4 = 4 over axis 1.
  PlanDesc q = transpose_stage({1, 4, 6, 2}, {0, 1, 3, 2});
  tile(q, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 3,
                      facts(3, 2, 4, 0, 1, TIGRIS_BAND_KIND_LEADING, TIGRIS_LEADING_MODE_BATCH)));
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_OK);
  // [3,4,5] (1,0,2): rows mode along input axis 1 (the output's leading axis, 4 rows).
  PlanDesc r = transpose_stage({3, 4, 5}, {1, 0, 2});
  tile(r, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 3,
                      facts(3, 2, 4, 0, 1, TIGRIS_BAND_KIND_LEADING, TIGRIS_LEADING_MODE_ROWS)));
  EXPECT_EQ(load_err(write_plan(r)), TIGRIS_OK);
  // Stated with the wrong mode.
  tile(r, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 3,
                      facts(3, 2, 4, 0, 1, TIGRIS_BAND_KIND_LEADING, TIGRIS_LEADING_MODE_BATCH)));
  EXPECT_EQ(load_err(write_plan(r)), TIGRIS_ERR_TILE_FACTS);
}

TEST(BandKinds, RowsOfAMatrix) {
  // FC [6,8] -> [6,5]: rows 6 in bands of 4.
  OpDesc fc = op(TIGRIS_OP_FULLY_CONN, "fc", {0}, {1});
  fc.weight = 0;
  PlanDesc p = one_stage({tensor("x", {6, 8}), tensor("y", {6, 5}), tensor("z", {6, 5})},
                         {fc, op(TIGRIS_OP_RELU, "r", {1}, {2})}, {0});
  p.weights = {weight("w", 5 * 8 * 4)};
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 4, facts(4, 2, 6, 0, 0, TIGRIS_BAND_KIND_ROWS)));
  Derived d = derive(p);
  ASSERT_EQ(d.err, TIGRIS_OK) << tigris_error_str(d.err);
  EXPECT_EQ(d.kind, TIGRIS_BAND_KIND_ROWS);
  EXPECT_EQ(d.band.axis, 0);
}

TEST(BandKinds, ReshapeSharedLeadingExtent) {
  // [1,4,6,2] -> [1,4,12]: the first shared prefix > 1 is 4 (input axis 1).
  PlanDesc p =
      one_stage({tensor("x", {1, 4, 6, 2}), tensor("y", {1, 4, 12})}, {op(TIGRIS_OP_RESHAPE, "r", {0}, {1})}, {0});
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 3, facts(3, 2, 4, 0, 1, TIGRIS_BAND_KIND_RESHAPE)));
  Derived d = derive(p);
  ASSERT_EQ(d.err, TIGRIS_OK) << tigris_error_str(d.err);
  EXPECT_EQ(d.kind, TIGRIS_BAND_KIND_RESHAPE);
  // [1,4,6,2] -> [1,48]: only the whole element count (48, input axis 3) is shared.
  PlanDesc q =
      one_stage({tensor("x", {1, 4, 6, 2}), tensor("y", {1, 48})}, {op(TIGRIS_OP_FLATTEN, "f", {0}, {1})}, {0});
  tile(q, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 10, facts(10, 5, 48, 0, 3, TIGRIS_BAND_KIND_RESHAPE)));
  EXPECT_EQ(load_err(write_plan(q)), TIGRIS_OK);
}

TEST(BandKinds, LegacyPlansDeriveInTheExecutorsOrder) {
  // v9 records carry no facts: the kind and facts are derived.
  PlanDesc p = conv_s2();
  p.version = 9;
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, tigris_tile_facts_t{}));
  Derived d = derive(p);
  ASSERT_EQ(d.err, TIGRIS_OK) << tigris_error_str(d.err);
  EXPECT_EQ(d.kind, TIGRIS_BAND_KIND_STRIPE);
  expect_facts(d.facts, 2, 3, 5, 1, 1, TIGRIS_BAND_KIND_STRIPE);
  // Transpose before by-input before HW before rows before reshape before leading.
  PlanDesc t = transpose_stage({1, 6, 4, 3}, {0, 3, 1, 2});
  t.version = 8;  // before v9 the longer side is banded: rows 24 > columns 3
  tile(t, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 5, tigris_tile_facts_t{}));
  Derived dt = derive(t);
  ASSERT_EQ(dt.err, TIGRIS_OK);
  EXPECT_EQ(dt.kind, TIGRIS_BAND_KIND_TRANSPOSE);
  expect_facts(dt.facts, 5, 5, 24, 0, 1, TIGRIS_BAND_KIND_TRANSPOSE);
  PlanDesc l = transpose_stage({2, 3, 4}, {0, 2, 1});
  l.version = 9;
  tile(l, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 1, tigris_tile_facts_t{}));
  EXPECT_EQ(derive(l).kind, TIGRIS_BAND_KIND_LEADING);
  // An untiled stage: no kind, all-zero facts, rc 1.
  PlanDesc u = conv_s2();
  Derived du = derive(u);
  EXPECT_EQ(du.kind, TIGRIS_BAND_KIND_NONE);
  EXPECT_EQ(du.facts_rc, 1);
  expect_facts(du.facts, 0, 0, 0, 0, 0, 0);
}

TEST(BandKinds, ChainMembersHaveNoDescription) {
  PlanDesc p = conv_relu();
  for (auto& s : p.stages) s.chain_id = 0, s.chain_len = 2;
  p.stages[0].chain_tile_h = 4;
  Bytes b = write_plan(p);
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(b.data(), static_cast<uint32_t>(b.size()), &plan), TIGRIS_OK);
  tigris_tile_facts_t f;
  std::memset(&f, 0xFF, sizeof(f));
  EXPECT_EQ(tigris_stage_tile_facts(&plan, &plan.stages[1], &f), 0);
  EXPECT_EQ(f.num_tiles, 0u);
  EXPECT_EQ(tigris_stage_band_kind(&plan, &plan.stages[0], nullptr), TIGRIS_BAND_KIND_NONE);
  EXPECT_EQ(tigris_stage_tile_facts(nullptr, &plan.stages[0], &f), 0);
}

TEST(BandGeometry, InputRowsHaloAndComposition) {
  using namespace tigris_rt;
  BandGeom g{3, 2, 1, 1, BAND_GEOM_WINDOW};
  BandRows r;
  band_input_rows(&g, 10, 0, 2, &r);  // rows -1..3: one padding row on top
  EXPECT_EQ(r.in0, 0);
  EXPECT_EQ(r.in1, 4);
  EXPECT_EQ(r.pad_before, 1);
  EXPECT_EQ(r.pad_after, 0);
  band_input_rows(&g, 9, 3, 5, &r);  // rows 5..10 of 9: one padding row below
  EXPECT_EQ(r.in0, 5);
  EXPECT_EQ(r.in1, 9);
  EXPECT_EQ(r.pad_after, 1);
  BandGeom up{1, 2, 0, 0, BAND_GEOM_UPSAMPLE};
  band_input_rows(&up, 4, 3, 7, &r);  // outputs 3..6 read inputs 1..3
  EXPECT_EQ(r.in0, 1);
  EXPECT_EQ(r.in1, 4);
  BandGeom tr{3, 2, 1, 1, BAND_GEOM_TRANSPOSED};
  band_input_rows(&tr, 5, 0, 2, &r);  // o = 2i - 1 + k: outputs 0,1 come from inputs 0,1
  EXPECT_EQ(r.in0, 0);
  EXPECT_EQ(r.in1, 2);
  band_input_rows(&tr, 5, 4, 5, &r);  // output 4: 2i - 1 + k = 4 -> i = 2 (k = 1)
  EXPECT_EQ(r.in0, 2);
  EXPECT_EQ(r.in1, 3);
  EXPECT_EQ(band_halo(&g), 1u);
  EXPECT_EQ(band_halo(&tr), 1u);
  EXPECT_EQ(band_halo(&up), 1u);
  BandGeom one{1, 2, 0, 0, BAND_GEOM_WINDOW};
  EXPECT_EQ(band_halo(&one), 0u);
  BandGeom acc{3, 1, 1, 1, BAND_GEOM_WINDOW};
  band_compose(&acc, &g);  // 3x3 s1 then 3x3 s2: eff 3 + 2 = 5, pad 2, stride 2
  EXPECT_EQ(acc.eff_k, 5u);
  EXPECT_EQ(acc.pad_before, 2u);
  EXPECT_EQ(acc.stride, 2u);
}

}  // namespace

namespace {

TEST(FillTileFacts, WriterStatesTheFactsTheLoaderVerifies) {
  // conv 3x3 s2 over 10 rows -> 5 output rows, band 2: 3 tiles, halo 1 (hand-derived).
  PlanDesc p = conv_s2();
  tigris_tile_facts_t stated{};
  stated.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_STRIPE, 0);
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, stated));
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS);
  fill_tile_facts(p);
  expect_facts(p.tile_plans[0].facts, 2, 3, 5, 1, 1, TIGRIS_BAND_KIND_STRIPE);
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
  // No stated kind: the executor's order picks HW for an HW record.
  tile(p, tile_record(TIGRIS_TILE_AXIS_HW, 2, tigris_tile_facts_t{}, 3));
  fill_tile_facts(p);
  expect_facts(p.tile_plans[0].facts, 2, 6, 5, 1, 1, TIGRIS_BAND_KIND_HW);
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
  // A stated kind that does not hold is refused by name.
  stated.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_BY_INPUT, 0);
  tile(p, tile_record(TIGRIS_TILE_AXIS_HEIGHT, 2, stated));
  EXPECT_THROW(fill_tile_facts(p), PlanWriteError);
  // Untileable records get zero facts.
  tigris_tile_plan_v11_t none{};
  none.facts.halo = 9;
  tile(p, none);
  fill_tile_facts(p);
  expect_facts(p.tile_plans[0].facts, 0, 0, 0, 0, 0, 0);
}

}  // namespace
