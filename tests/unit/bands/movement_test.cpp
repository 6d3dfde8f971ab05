// Channel movement in row bands: Concat along the channels, a Gather of a constant channel
// list (the channel shuffle) and channel StridedSlices ride a stripe like elementwise ops —
// an output band reads the same rows of each input. Banded outputs equal whole outputs bit for
// bit (float and int8, every band height), each element moves once, and a Gather or slice
// that touches the rows keeps the stripe from holding (TILE_FACTS). Both are chain members too.
#include "bands_fixture.h"

using namespace bandtest;

namespace {

constexpr int32_t H = 7, W = 3;

void movement_attr(PlanDesc& p, uint16_t op, const std::vector<int32_t>& values) {
  AttrDesc a;
  a.op = op;
  a.kind = TIGRIS_ATTR_MOVEMENT;
  a.data.resize(values.size() * 4);
  std::memcpy(a.data.data(), values.data(), a.data.size());
  p.attributes.push_back(a);
}

void axes_attr(PlanDesc& p, uint16_t op, uint8_t axis) {
  AttrDesc a;
  a.op = op;
  a.kind = TIGRIS_ATTR_AXES;
  a.data = {axis};
  p.attributes.push_back(a);
}

// (start, end, step) per NHWC axis: rows and columns whole, channels [c0, c1) by `step`.
std::vector<int32_t> channel_slice(int32_t c0, int32_t c1, int32_t step) {
  return {0, 1, 1, 0, H, 1, 0, W, 1, c0, c1, step};
}

Bytes int32_bytes(const std::vector<int32_t>& v) {
  Bytes b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

// x0 [1,7,3,6], x1 [1,7,3,4] → Concat (channels) → c [1,7,3,10] → Gather of the 2-group shuffle
// → g → slices of channels [0,4) and [4,10) step 2 → Concat(s2, s1) → y [1,7,3,7]; one stage.
struct ShufflePlan {
  PlanDesc p;
  uint16_t gather = 0, slice = 0;

  explicit ShufflePlan(bool int8) {
    const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
    auto q = [&]() { return int8 ? add_quant(p, 0.05f, 3) : (uint16_t)TIGRIS_NONE; };
    const uint16_t x0 = add_tensor(p, "x0", {1, H, W, 6}, TIGRIS_TENSOR_MODEL_INPUT, dt, q());
    const uint16_t x1 = add_tensor(p, "x1", {1, H, W, 4}, TIGRIS_TENSOR_MODEL_INPUT, dt, q());
    const uint16_t c = add_tensor(p, "c", {1, H, W, 10}, 0, dt, q());
    const uint16_t g = add_tensor(p, "g", {1, H, W, 10}, 0, dt, q());
    const uint16_t s1 = add_tensor(p, "s1", {1, H, W, 4}, 0, dt, q());
    const uint16_t s2 = add_tensor(p, "s2", {1, H, W, 3}, 0, dt, q());
    const uint16_t y = add_tensor(p, "y", {1, H, W, 7}, TIGRIS_TENSOR_MODEL_OUTPUT, dt, q());
    const uint16_t cat = add_op(p, TIGRIS_OP_CONCAT, {x0, x1}, {c});
    axes_attr(p, cat, 3);
    std::vector<int32_t> idx;  // 2 groups of 5: channel k reads (k % 2) * 5 + k / 2
    for (int32_t k = 0; k < 10; ++k) idx.push_back((k % 2) * 5 + k / 2);
    gather = add_op(p, TIGRIS_OP_GATHER, {c}, {g}, add_weight_bytes(p, int32_bytes(idx)));
    movement_attr(p, gather, {3, 0, 1, 10});
    slice = add_op(p, TIGRIS_OP_STRIDED_SLICE, {g}, {s1});
    movement_attr(p, slice, channel_slice(0, 4, 1));
    const uint16_t slice2 = add_op(p, TIGRIS_OP_STRIDED_SLICE, {g}, {s2});
    movement_attr(p, slice2, channel_slice(4, 10, 2));
    const uint16_t join = add_op(p, TIGRIS_OP_CONCAT, {s2, s1}, {y});
    axes_attr(p, join, 3);
    add_stage(p, {cat, gather, slice, slice2, join}, {x0, x1}, {y});
    p.model_inputs = {x0, x1};
    p.model_outputs = {y};
  }
};

TEST(MovementBands, ShuffleSliceConcatBandsEqualWhole) {
  for (bool int8 : {false, true}) {
    for (uint32_t rows : {1u, 2u, 3u, 7u}) {
      ShufflePlan s(int8);
      tile_stage(s.p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, rows, TIGRIS_BAND_KIND_STRIPE));
      const std::string what = std::string(int8 ? "int8" : "float") + " bands of " + std::to_string(rows);
      const RunResult r = expect_banded_equals_whole(s.p, inputs_for(s.p), what);
      EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_TILED}) << what;
      EXPECT_EQ(r.stats.total_tiles, (H + rows - 1) / rows) << what;
      // Every input element is loaded once and every output element spilled once.
      const uint32_t e = int8 ? 1 : 4;
      EXPECT_EQ(r.stats.loads_bytes, (uint32_t)(H * W * 10) * e) << what;
      EXPECT_EQ(r.stats.spills_bytes, (uint32_t)(H * W * 7) * e) << what;
    }
  }
}

TEST(MovementBands, ShuffledChannelsAreHandDerived) {
  // g_k = c_{(k % 2) * 5 + k / 2}: g = c0 c5 c1 c6 c2 c7 c3 c8 c4 c9, so y = [g4 g6 g8 | g0 g1 g2 g3]
  // = c2 c3 c4 c0 c5 c1 c6; with c = [x0 | x1]: x0[2] x0[3] x0[4] x0[0] x0[5] x0[1] x1[0].
  ShufflePlan s(false);
  tile_stage(s.p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
  const std::vector<Bytes> in = inputs_for(s.p);
  const RunResult r = expect_banded_equals_whole(s.p, in, "bands of 2");
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  const std::vector<float> x0 = as_floats(in[0]), x1 = as_floats(in[1]), y = as_floats(r.outputs.at(0));
  const std::pair<int, int> from[7] = {{0, 2}, {0, 3}, {0, 4}, {0, 0}, {0, 5}, {0, 1}, {1, 0}};
  for (int32_t px = 0; px < H * W; ++px)
    for (int k = 0; k < 7; ++k) {
      const auto [src, ch] = from[k];
      const float want = src == 0 ? x0[(size_t)(px * 6 + ch)] : x1[(size_t)(px * 4 + ch)];
      EXPECT_EQ(y[(size_t)(px * 7 + k)], want) << "pixel " << px << " channel " << k;
    }
}

// Without a spatial op the stage takes 2-D tiles too (HW): pixels x every channel, so a
// channel shuffle's band need not hold a whole row. Bit for bit the whole stage at every
// tile shape, each element moved once; the hand-derived shuffle holds at 1x1 pixel tiles.
TEST(MovementBands, ShuffleSliceConcatInPixelTilesEqualWhole) {
  for (bool int8 : {false, true}) {
    for (uint32_t rows : {1u, 2u, 7u}) {
      for (uint16_t cols : {1, 2, 3}) {
        ShufflePlan s(int8);
        tile_stage(s.p, 0, record(TIGRIS_TILE_AXIS_HW, rows, TIGRIS_BAND_KIND_HW, cols));
        const std::string what = std::string(int8 ? "int8" : "float") + " tiles of " + std::to_string(rows) + "x" +
                                 std::to_string(cols);
        EXPECT_EQ(s.p.tile_plans[0].facts.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_HW, 0)) << what;
        const RunResult r = expect_banded_equals_whole(s.p, inputs_for(s.p), what);
        EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_TILED_2D}) << what;
        const uint32_t tiles = ((H + rows - 1) / rows) * ((W + cols - 1) / cols);
        EXPECT_EQ(r.stats.total_tiles, tiles) << what;
        EXPECT_EQ(s.p.tile_plans[0].facts.num_tiles, tiles) << what;
        const uint32_t e = int8 ? 1 : 4;
        EXPECT_EQ(r.stats.loads_bytes, (uint32_t)(H * W * 10) * e) << what;
        EXPECT_EQ(r.stats.spills_bytes, (uint32_t)(H * W * 7) * e) << what;
      }
    }
  }
  ShufflePlan s(false);
  tile_stage(s.p, 0, record(TIGRIS_TILE_AXIS_HW, 1, TIGRIS_BAND_KIND_HW, 1));
  const std::vector<Bytes> in = inputs_for(s.p);
  const RunResult r = expect_banded_equals_whole(s.p, in, "1x1 tiles");
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  const std::vector<float> x0 = as_floats(in[0]), x1 = as_floats(in[1]), y = as_floats(r.outputs.at(0));
  const std::pair<int, int> from[7] = {{0, 2}, {0, 3}, {0, 4}, {0, 0}, {0, 5}, {0, 1}, {1, 0}};
  for (int32_t px = 0; px < H * W; ++px)
    for (int k = 0; k < 7; ++k) {
      const auto [src, ch] = from[k];
      const float want = src == 0 ? x0[(size_t)(px * 6 + ch)] : x1[(size_t)(px * 4 + ch)];
      EXPECT_EQ(y[(size_t)(px * 7 + k)], want) << "pixel " << px << " channel " << k;
    }
}

TEST(MovementBands, PixelTilesOfAnOpAcrossTheColumnsAreRefused) {
  // A Softmax over the channels takes pixel tiles; over W (axis 2) it reads other columns than
  // its tile's: HW does not hold (TILE_FACTS), as a stripe does not over H.
  PlanDesc p;
  const uint16_t x = add_tensor(p, "x", {1, H, W, 6}, TIGRIS_TENSOR_MODEL_INPUT);
  const uint16_t y = add_tensor(p, "y", {1, H, W, 6}, TIGRIS_TENSOR_MODEL_OUTPUT);
  const uint16_t op = add_op(p, TIGRIS_OP_SOFTMAX, {x}, {y});
  axes_attr(p, op, 3);
  add_stage(p, {op}, {x}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  tile_stage(p, 0, record(TIGRIS_TILE_AXIS_HW, 2, TIGRIS_BAND_KIND_HW, 2));
  expect_banded_equals_whole(p, inputs_for(p), "softmax over channels in 2x2 tiles");
  p.attributes[0].data = {2};
  Loaded f;
  load(p, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  EXPECT_THROW(tigris::plan::fill_tile_facts(p), tigris::plan::PlanWriteError);
}

// x [1,9,3,6] → depthwise 3x3 → y | Gather (2-group shuffle) → g → channels [1,5) → s |
// depthwise 3x3 → z: three stages chained, the middle one a shuffle and a slice.
PlanDesc shuffle_chain(uint16_t tile_h, bool line_buffered) {
  PlanDesc p;
  const uint16_t x = add_tensor(p, "x", {1, 9, W, 6}, TIGRIS_TENSOR_MODEL_INPUT);
  const uint16_t y = add_tensor(p, "y", {1, 9, W, 6});
  const uint16_t g = add_tensor(p, "g", {1, 9, W, 6});
  const uint16_t s = add_tensor(p, "s", {1, 9, W, 4});
  const uint16_t z = add_tensor(p, "z", {1, 9, W, 4}, TIGRIS_TENSOR_MODEL_OUTPUT);
  auto depthwise = [&](uint16_t in, uint16_t out, int32_t c, int seed) {
    OpDesc op;
    op.name = "dw" + std::to_string(seed);
    op.type = TIGRIS_OP_DEPTHWISE;
    op.inputs = {in};
    op.outputs = {out};
    op.spatial = window(3, 3, 1, 1, 1, 1, 1, 1, 1, 1, (uint16_t)c);
    op.weight = add_weight(p, pattern((size_t)(9 * c), 9, 0.125f, 5 + seed));
    op.bias = add_weight(p, pattern((size_t)c, 5, 0.25f));
    p.ops.push_back(op);
    return (uint16_t)(p.ops.size() - 1);
  };
  const uint16_t d0 = depthwise(x, y, 6, 0);
  const uint16_t ga = add_op(p, TIGRIS_OP_GATHER, {y}, {g}, add_weight_bytes(p, int32_bytes({0, 3, 1, 4, 2, 5})));
  movement_attr(p, ga, {3, 0, 1, 6});
  const uint16_t sl = add_op(p, TIGRIS_OP_STRIDED_SLICE, {g}, {s});
  movement_attr(p, sl, {0, 1, 1, 0, 9, 1, 0, W, 1, 1, 5, 1});
  const uint16_t d1 = depthwise(s, z, 4, 1);
  add_stage(p, {d0}, {x}, {y});
  add_stage(p, {ga, sl}, {y}, {s});
  add_stage(p, {d1}, {s}, {z});
  p.model_inputs = {x};
  p.model_outputs = {z};
  chain_stages(p, 0, 3, tile_h, line_buffered);
  return p;
}

TEST(MovementBands, ShuffleAndSliceChainBetweenDepthwiseLayers) {
  for (bool lb : {false, true})
    for (uint16_t h : {1, 2, 4, 9}) {
      const PlanDesc p = shuffle_chain(h, lb);
      const std::string what = std::string("chain") + (lb ? " lb" : "") + " h" + std::to_string(h);
      const RunResult r = expect_banded_equals_whole(p, inputs_for(p), what);
      EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CHAIN}) << what;
      EXPECT_EQ(r.stats.spills_bytes, 9u * W * 4 * 4) << what;  // only z leaves the chain
    }
}

tigris_error_t load_error(const PlanDesc& p) {
  Loaded f;
  load(p, &f);
  return f.err;
}

TEST(MovementBands, RowMovementDoesNotBand) {
  // A Gather along the rows (axis 1, 7 rows reversed: same shapes, same facts) is a valid op
  // but not a stripe's: the stated STRIPE kind does not hold.
  {
    ShufflePlan s(false);
    tile_stage(s.p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
    ASSERT_EQ(load_error(s.p), TIGRIS_OK);
    PlanDesc p = s.p;
    p.tensors[p.ops[s.gather].inputs[0]].shape = {1, H, W, 10};
    p.weights[p.ops[s.gather].weight].data = int32_bytes({6, 5, 4, 3, 2, 1, 0});
    for (AttrDesc& a : p.attributes)
      if (a.op == s.gather && a.kind == TIGRIS_ATTR_MOVEMENT) {
        const int32_t rows[4] = {1, 0, 1, H};
        std::memcpy(a.data.data(), rows, sizeof(rows));
      }
    EXPECT_EQ(load_error(p), TIGRIS_ERR_TILE_FACTS);
    EXPECT_EQ(load_error(whole_plan(p)), TIGRIS_OK);  // the op itself is valid
  }
  // A slice that does not take the rows whole (rows 0..6 of 7 by step 1, i.e. end short of the
  // extent is not possible with equal shapes, so: rows read backwards) likewise.
  {
    ShufflePlan s(false);
    tile_stage(s.p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
    PlanDesc p = s.p;
    for (AttrDesc& a : p.attributes)
      if (a.op == s.slice && a.kind == TIGRIS_ATTR_MOVEMENT) {
        const int32_t rows[3] = {H - 1, -1, -1};  // start, end, step of axis 1
        std::memcpy(a.data.data() + 12, rows, sizeof(rows));
      }
    EXPECT_EQ(load_error(p), TIGRIS_ERR_TILE_FACTS);
    EXPECT_EQ(load_error(whole_plan(p)), TIGRIS_OK);
  }
}

// ---- Concat along the banded axis (band kind CONCAT) ----

// x0 [1,3,W,4], x1 [1,1,W,4], x2 [1,5,W,4] -> Concat along the rows -> y [1,9,W,4], one stage
// banded by `rows` output rows. int8: each input quantized on its own (`requant`: not the
// output's, so the kernel requantizes them) or all like the output.
PlanDesc concat_rows(bool int8, bool requant, uint32_t rows) {
  PlanDesc p;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  auto q = [&](float scale, int32_t zp) {
    return int8 ? add_quant(p, requant ? scale : 0.05f, requant ? zp : 3) : (uint16_t)TIGRIS_NONE;
  };
  const uint16_t x0 = add_tensor(p, "x0", {1, 3, W, 4}, TIGRIS_TENSOR_MODEL_INPUT, dt, q(0.04f, -7));
  const uint16_t x1 = add_tensor(p, "x1", {1, 1, W, 4}, TIGRIS_TENSOR_MODEL_INPUT, dt, q(0.05f, 3));
  const uint16_t x2 = add_tensor(p, "x2", {1, 5, W, 4}, TIGRIS_TENSOR_MODEL_INPUT, dt, q(0.09f, 11));
  const uint16_t y = add_tensor(p, "y", {1, 9, W, 4}, TIGRIS_TENSOR_MODEL_OUTPUT, dt, q(0.05f, 3));
  const uint16_t cat = add_op(p, TIGRIS_OP_CONCAT, {x0, x1, x2}, {y});
  axes_attr(p, cat, 1);
  add_stage(p, {cat}, {x0, x1, x2}, {y});
  p.model_inputs = {x0, x1, x2};
  p.model_outputs = {y};
  tile_stage(p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, rows, TIGRIS_BAND_KIND_CONCAT));
  return p;
}

TEST(ConcatBands, AlongRowsEqualWholeAtEveryBandHeight) {
  struct Form {
    bool int8, requant;
    const char* what;
  };
  for (Form f : {Form{false, false, "float"}, Form{true, false, "int8"}, Form{true, true, "int8 requantized"}}) {
    for (uint32_t rows : {1u, 2u, 3u, 7u, 9u}) {
      const PlanDesc p = concat_rows(f.int8, f.requant, rows);
      const std::string what = std::string(f.what) + " " + std::to_string(rows) + " rows";
      const RunResult r = expect_banded_equals_whole(p, inputs_for(p), what);
      EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CONCAT}) << what;
      EXPECT_EQ(r.stats.total_tiles, (9 + rows - 1) / rows) << what;
      // Every input element is loaded once, every output element spilled once.
      const uint32_t e = f.int8 ? 1 : 4;
      EXPECT_EQ(r.stats.loads_bytes, 9u * W * 4 * e) << what;
      EXPECT_EQ(r.stats.spills_bytes, 9u * W * 4 * e) << what;
    }
  }
}

TEST(ConcatBands, RequantizedInt8IsHandDerived) {
  // x0 = 10 at scale 0.04, zero point -7 is (10 + 7) * 0.04 = 0.68; at the output's scale
  // 0.05 and zero point 3: 0.68 / 0.05 = 13.6 -> 14, + 3 = 17.
  PlanDesc p = concat_rows(true, true, 2);
  set_scheduled_peak(p);
  std::vector<Bytes> in = inputs_for(p);
  in[0][0] = 10;
  const RunResult r = run_plan(p, in);
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ((int8_t)r.outputs[0][0], 17);
  // x1 (same quantization as the output) moves unchanged to row 3.
  EXPECT_EQ(r.outputs[0][3 * W * 4], in[1][0]);
}

TEST(ConcatBands, BandHoldsItsRowsOfEachInputItCovers) {
  // Float, 48 bytes per row. Bands of 2 rows: [2,4) holds 2 output rows, x0's row 2 and x1's
  // row 3 (two buffers of one row), which is the largest band; the inputs are never whole.
  PlanDesc p = concat_rows(false, false, 2);
  set_scheduled_peak(p);
  EXPECT_EQ(p.scheduled_peak, al(96) + 2 * al(48));
  const RunResult r = run_plan(p, inputs_for(p));
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(r.fast_peak, p.scheduled_peak);
  const tigris_tile_facts_t& f = p.tile_plans[0].facts;
  EXPECT_EQ(f.tile_extent, 2u);
  EXPECT_EQ(f.num_tiles, 5u);
  EXPECT_EQ(f.original_extent, 9u);
  EXPECT_EQ(f.band_axis, 1u);
  EXPECT_EQ(f.halo, 0u);
  EXPECT_EQ(f.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CONCAT, 0));
}

TEST(ConcatBands, InconsistentRecordsAreRefused) {
  ASSERT_EQ(load_error(concat_rows(false, false, 2)), TIGRIS_OK);
  {  // facts that are not the stage's
    PlanDesc p = concat_rows(true, true, 2);
    p.tile_plans[0].facts.num_tiles = 4;
    EXPECT_EQ(load_error(p), TIGRIS_ERR_TILE_FACTS);
    p = concat_rows(true, true, 2);
    p.tile_plans[0].facts.band_axis = 3;
    EXPECT_EQ(load_error(p), TIGRIS_ERR_TILE_FACTS);
    p = concat_rows(false, false, 2);
    p.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CONCAT, 2);  // modes 0 and 1 only
    EXPECT_EQ(load_error(p), TIGRIS_ERR_TILE_FACTS);
  }
  {  // one input twice: its pieces would share one tensor pointer
    PlanDesc p = concat_rows(false, false, 2);
    p.tensors[p.ops[0].outputs[0]].shape = {1, 6, W, 4};
    p.ops[0].inputs = {0, 0};
    p.stages[0].inputs = {0};
    p.model_inputs = {0, 1, 2};
    EXPECT_EQ(load_error(whole_plan(p)), TIGRIS_OK);  // the op itself is valid
    EXPECT_EQ(load_error(p), TIGRIS_ERR_TILE_FACTS);
  }
  {  // a stated CONCAT on a stage whose op is not a Concat
    ShufflePlan s(false);
    tile_stage(s.p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_STRIPE));
    PlanDesc p = s.p;
    p.tile_plans[0].facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CONCAT, 0);
    EXPECT_EQ(load_error(p), TIGRIS_ERR_TILE_FACTS);
  }
  {  // an input that is a constant is not loaded in pieces
    PlanDesc p = concat_rows(false, false, 2);
    p.tensors[1].flags = TIGRIS_TENSOR_CONSTANT;
    p.model_inputs = {0, 2};
    p.stages[0].inputs = {0, 2};
    const tigris_error_t e = load_error(p);
    EXPECT_EQ(e, TIGRIS_ERR_TILE_BAND);
  }
  // The writer states no CONCAT facts for a stage it does not hold for.
  ShufflePlan s(false);
  EXPECT_THROW(tile_stage(s.p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, 2, TIGRIS_BAND_KIND_CONCAT)),
               tigris::plan::PlanWriteError);
}

}  // namespace
