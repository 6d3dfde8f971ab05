// Concat bands that also cut the blocks before the concat axis (CONCAT mode BLOCKS): a channel
// Concat of NHWC tensors banded by pixels x channels, and a row Concat by batch blocks x rows,
// equal the whole op bit for bit (float, int8, int8 requantized) at every band shape, load
// every input element and spill every output element once, hold exactly the cost model's
// peak (hand-derived for one shape), and inconsistent records are refused.
#include "bands_fixture.h"

using namespace bandtest;

namespace concat_blocks_test {

constexpr int32_t H = 5, W = 3;

// Concat of inputs `in` along `axis` into `out`, one stage stating CONCAT mode BLOCKS with
// `units` per band and `blocks` blocks per band.
PlanDesc concat_blocks(const std::vector<std::vector<int32_t>>& in, std::vector<int32_t> out, uint8_t axis, bool int8,
                       bool requant, uint32_t units, uint16_t blocks) {
  PlanDesc p;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  auto q = [&](float scale, int32_t zp) {
    return int8 ? add_quant(p, requant ? scale : 0.05f, requant ? zp : 3) : (uint16_t)TIGRIS_NONE;
  };
  std::vector<uint16_t> xs;
  for (size_t k = 0; k < in.size(); ++k)
    xs.push_back(add_tensor(p, "x" + std::to_string(k), in[k], TIGRIS_TENSOR_MODEL_INPUT, dt,
                            q(0.03f + 0.02f * (float)k, (int32_t)k * 5 - 6)));
  const uint16_t y = add_tensor(p, "y", std::move(out), TIGRIS_TENSOR_MODEL_OUTPUT, dt, q(0.05f, 3));
  const uint16_t cat = add_op(p, TIGRIS_OP_CONCAT, xs, {y});
  p.attributes.push_back(AttrDesc{cat, TIGRIS_ATTR_AXES, {axis}});
  add_stage(p, {cat}, xs, {y});
  p.model_inputs = xs;
  p.model_outputs = {y};
  tile_stage(p, 0, record(TIGRIS_TILE_AXIS_HEIGHT, units, TIGRIS_BAND_KIND_CONCAT, blocks, 0, TIGRIS_CONCAT_MODE_BLOCKS));
  return p;
}

// Three inputs of 4, 1 and 6 channels -> 11 channels; 15 pixel blocks.
PlanDesc channel_concat(bool int8, bool requant, uint32_t units, uint16_t blocks) {
  return concat_blocks({{1, H, W, 4}, {1, H, W, 1}, {1, H, W, 6}}, {1, H, W, 11}, 3, int8, requant, units, blocks);
}

struct Form {
  bool int8, requant;
  const char* what;
};
const Form kForms[] = {{false, false, "float"}, {true, false, "int8"}, {true, true, "int8 requantized"}};

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

TEST(ConcatBlocks, ChannelConcatByPixelsAndChannelsEqualsWhole) {
  for (const Form& f : kForms) {
    for (uint32_t units : {1u, 3u, 5u, 11u}) {
      for (uint16_t blocks : {1, 2, 7, 15}) {
        const PlanDesc p = channel_concat(f.int8, f.requant, units, blocks);
        const std::string what =
            std::string(f.what) + " " + std::to_string(units) + " channels x " + std::to_string(blocks) + " pixels";
        const tigris_tile_facts_t& facts = p.tile_plans[0].facts;
        EXPECT_EQ(facts.band, TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_CONCAT, TIGRIS_CONCAT_MODE_BLOCKS)) << what;
        EXPECT_EQ(facts.original_extent, 11u) << what;
        EXPECT_EQ(facts.band_axis, 3u) << what;
        const uint32_t tiles = ceil_div(11, units) * ceil_div(H * W, blocks);
        EXPECT_EQ(facts.num_tiles, tiles) << what;
        const RunResult r = expect_banded_equals_whole(p, inputs_for(p), what);
        EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{TIGRIS_PATH_CONCAT}) << what;
        EXPECT_EQ(r.stats.total_tiles, tiles) << what;
        const uint32_t e = f.int8 ? 1 : 4;
        EXPECT_EQ(r.stats.loads_bytes, (uint32_t)(H * W * 11) * e) << what;
        EXPECT_EQ(r.stats.spills_bytes, (uint32_t)(H * W * 11) * e) << what;
      }
    }
  }
}

TEST(ConcatBlocks, RowConcatByBatchBlocksEqualsWhole) {
  // Along the rows of a batch of 3: the blocks are the images.
  for (const Form& f : kForms) {
    for (uint32_t units : {1u, 4u, 9u}) {
      for (uint16_t blocks : {1, 2, 3}) {
        const PlanDesc p = concat_blocks({{3, 3, W, 2}, {3, 1, W, 2}, {3, 5, W, 2}}, {3, 9, W, 2}, 1, f.int8,
                                         f.requant, units, blocks);
        const std::string what =
            std::string(f.what) + " rows " + std::to_string(units) + " x images " + std::to_string(blocks);
        const RunResult r = expect_banded_equals_whole(p, inputs_for(p), what);
        EXPECT_EQ(r.stats.total_tiles, ceil_div(9, units) * ceil_div(3, blocks)) << what;
      }
    }
  }
}

TEST(ConcatBlocks, PeakIsHandDerived) {
  // Float, 2 channels x 4 pixels: the band [0, 2) of the 4-channel input is one piece; the
  // band [4, 6) holds x1's channel 4 and x2's channel 5 (two pieces of one channel). Each
  // buffer is pixels x channels x 4 bytes, aligned: 32 + 32, or 32 + 16 + 16.
  PlanDesc p = channel_concat(false, false, 2, 4);
  set_scheduled_peak(p);
  EXPECT_EQ(p.scheduled_peak, std::max(al(32) + al(32), al(32) + al(16) + al(16)));
  const RunResult r = run_plan(p, inputs_for(p));
  ASSERT_EQ(r.rc, TIGRIS_EXEC_OK);
  EXPECT_EQ(r.fast_peak, p.scheduled_peak);
  // No input is ever held whole: the peak is below the smallest input (15 x 4 floats).
  EXPECT_LT(p.scheduled_peak, 15u * 4 * 4);
}

TEST(ConcatBlocks, InconsistentRecordsAreRefused) {
  Loaded f;
  PlanDesc p = channel_concat(false, false, 2, 4);
  p.tile_plans[0].facts.num_tiles = ceil_div(11, 2);  // the tiles of mode UNITS
  load(p, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  // BLOCKS stated for a stage that is no Concat (a ReLU of the first input).
  PlanDesc relu = channel_concat(false, false, 2, 4);
  relu.ops[0].type = TIGRIS_OP_RELU;
  relu.ops[0].inputs = {0};
  relu.stages[0].inputs = {0};
  relu.tensors[3].shape = relu.tensors[0].shape;
  relu.attributes.clear();
  load(relu, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  EXPECT_THROW(tigris::plan::fill_tile_facts(relu), tigris::plan::PlanWriteError);
  // An input the stage does not list as its input (it would not be loaded in pieces): the
  // band access rule refuses it.
  PlanDesc unlisted = channel_concat(false, false, 2, 4);
  unlisted.stages[0].inputs = {0, 1};
  load(unlisted, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_BAND);
  // Inputs that disagree on an axis before the concat axis: no Concat band holds.
  PlanDesc bad = channel_concat(false, false, 2, 4);
  bad.tensors[1].shape = {1, H, W + 1, 1};
  EXPECT_THROW(tigris::plan::fill_tile_facts(bad), tigris::plan::PlanWriteError);
}

}  // namespace concat_blocks_test
