// Single-op bands: layout conversions (TRANSPOSE by rows or BAND_ON_COLUMNS, LEADING in both
// modes, RESHAPE), global reductions by input (BY_INPUT), and row bands of matrix pipelines
// (ROWS). Banded outputs equal whole outputs (float and int8), fast peak = cost model.
#include <algorithm>

#include "bands_fixture.h"

using namespace bandtest;

namespace {

std::vector<int32_t> permuted(const std::vector<int32_t>& in, const std::vector<uint8_t>& perm) {
  std::vector<int32_t> out;
  for (uint8_t a : perm) out.push_back(in[a]);
  return out;
}

// x -> op -> y, one stage with `rec`.
PlanDesc one_op(std::vector<int32_t> in, std::vector<int32_t> out, uint8_t type, bool int8,
                const tigris_tile_plan_v11_t& rec, std::vector<AttrDesc> attrs = {}) {
  PlanDesc p;
  const uint8_t dt = int8 ? TIGRIS_DTYPE_INT8 : TIGRIS_DTYPE_FLOAT32;
  uint16_t x = add_tensor(p, "x", in, TIGRIS_TENSOR_MODEL_INPUT, dt, int8 ? add_quant(p, 0.05f, 2) : TIGRIS_NONE);
  uint16_t y = add_tensor(p, "y", out, TIGRIS_TENSOR_MODEL_OUTPUT, dt, int8 ? add_quant(p, 0.05f, 2) : TIGRIS_NONE);
  add_op(p, type, {x}, {y});
  p.attributes = std::move(attrs);
  add_stage(p, {0}, {x}, {y});
  p.model_inputs = {x};
  p.model_outputs = {y};
  tile_stage(p, 0, rec);
  return p;
}

PlanDesc transpose(std::vector<int32_t> in, std::vector<uint8_t> perm, bool int8, uint8_t kind, uint32_t band,
                   bool columns = false, uint8_t mode = 0) {
  return one_op(in, permuted(in, perm), TIGRIS_OP_TRANSPOSE, int8,
                record(TIGRIS_TILE_AXIS_HEIGHT, band, kind, 0, columns ? TIGRIS_TILE_BAND_ON_COLUMNS : 0, mode),
                {AttrDesc{0, TIGRIS_ATTR_TRANSPOSE_PERM, perm}});
}

uint8_t path_of(const PlanDesc& p) {
  switch (TIGRIS_TILE_BAND_KIND(p.tile_plans[0].facts.band)) {
  case TIGRIS_BAND_KIND_TRANSPOSE: return TIGRIS_PATH_TRANSPOSE;
  case TIGRIS_BAND_KIND_LEADING: return TIGRIS_PATH_LEADING;
  case TIGRIS_BAND_KIND_RESHAPE: return TIGRIS_PATH_RESHAPE;
  case TIGRIS_BAND_KIND_BY_INPUT: return TIGRIS_PATH_BY_INPUT;
  default: return 0xFF;
  }
}

void check(const PlanDesc& p, const std::string& what, uint32_t tiles) {
  const RunResult r = expect_banded_equals_whole(p, inputs_for(p), what);
  EXPECT_EQ(stage_paths(r), std::vector<uint8_t>{path_of(p)}) << what;
  EXPECT_EQ(r.stats.stages_tiled, 1u) << what;
  EXPECT_EQ(r.stats.total_tiles, tiles) << what;
  EXPECT_EQ(r.stats.loads_bytes, (uint32_t)inputs_for(p)[0].size()) << what;
  EXPECT_EQ(r.stats.spills_bytes, (uint32_t)r.outputs[0].size()) << what;
}

uint32_t ceil_div(uint32_t a, uint32_t b) { return (a + b - 1) / b; }

TEST(Transpose, RowsAndColumns) {
  for (bool int8 : {false, true}) {
    // NHWC -> NCHW of [1,6,4,3]: rows = H*W = 24, columns = C = 3.
    for (uint32_t b : {1u, 5u, 24u, 30u})
      check(transpose({1, 6, 4, 3}, {0, 3, 1, 2}, int8, TIGRIS_BAND_KIND_TRANSPOSE, b), "nhwc->nchw rows",
            ceil_div(24, std::min(b, 24u)));
    for (uint32_t b : {1u, 2u, 3u})
      check(transpose({1, 6, 4, 3}, {0, 3, 1, 2}, int8, TIGRIS_BAND_KIND_TRANSPOSE, b, true), "nhwc->nchw cols",
            ceil_div(3, b));
    // NCHW -> NHWC of [1,3,5,4]: rows = C = 3, columns = H*W = 20.
    for (uint32_t b : {1u, 2u})
      check(transpose({1, 3, 5, 4}, {0, 2, 3, 1}, int8, TIGRIS_BAND_KIND_TRANSPOSE, b), "nchw->nhwc rows",
            ceil_div(3, b));
    for (uint32_t b : {1u, 7u, 20u})
      check(transpose({1, 3, 5, 4}, {0, 2, 3, 1}, int8, TIGRIS_BAND_KIND_TRANSPOSE, b, true), "nchw->nhwc cols",
            ceil_div(20, b));
    // Rank 3 (0,2,1) of [1,7,5].
    for (uint32_t b : {1u, 3u, 7u})
      check(transpose({1, 7, 5}, {0, 2, 1}, int8, TIGRIS_BAND_KIND_TRANSPOSE, b), "nlc->ncl", ceil_div(7, b));
    check(transpose({1, 7, 5}, {0, 2, 1}, int8, TIGRIS_BAND_KIND_TRANSPOSE, 2, true), "nlc->ncl cols", 3);
  }
}

TEST(Leading, BatchAndRowsModes) {
  for (bool int8 : {false, true}) {
    // Batch mode: [3,4,5] (0,2,1) in blocks of the leading 3; [2,3,4,5] (0,1,3,2) over 6 blocks.
    for (uint32_t b : {1u, 2u, 3u})
      check(transpose({3, 4, 5}, {0, 2, 1}, int8, TIGRIS_BAND_KIND_LEADING, b, false, TIGRIS_LEADING_MODE_BATCH),
            "batch (0,2,1)", ceil_div(3, b));
    for (uint32_t b : {1u, 4u})
      check(transpose({2, 3, 4, 5}, {0, 1, 3, 2}, int8, TIGRIS_BAND_KIND_LEADING, b, false, TIGRIS_LEADING_MODE_BATCH),
            "batch (0,1,3,2)", ceil_div(6, b));
    check(transpose({2, 3, 4, 5}, {0, 2, 1, 3}, int8, TIGRIS_BAND_KIND_LEADING, 1, false, TIGRIS_LEADING_MODE_BATCH),
          "batch (0,2,1,3) with trailing block", 2);
    // Rows mode: output axis 0 = input axis perm[0].
    for (uint32_t b : {1u, 3u, 4u})
      check(transpose({3, 4, 5}, {1, 0, 2}, int8, TIGRIS_BAND_KIND_LEADING, b, false, TIGRIS_LEADING_MODE_ROWS),
            "rows (1,0,2)", ceil_div(4, b));
    for (uint32_t b : {1u, 2u})
      check(transpose({3, 4, 5}, {1, 2, 0}, int8, TIGRIS_BAND_KIND_LEADING, b, false, TIGRIS_LEADING_MODE_ROWS),
            "rows (1,2,0)", ceil_div(4, b));
    for (uint32_t b : {2u, 5u})
      check(transpose({3, 4, 5}, {2, 0, 1}, int8, TIGRIS_BAND_KIND_LEADING, b, false, TIGRIS_LEADING_MODE_ROWS),
            "rows (2,0,1)", ceil_div(5, b));
  }
}

TEST(Reshape, SharedLeadingExtent) {
  for (bool int8 : {false, true}) {
    for (uint32_t b : {1u, 3u, 4u})
      check(one_op({1, 4, 6, 2}, {1, 4, 12}, TIGRIS_OP_RESHAPE, int8,
                   record(TIGRIS_TILE_AXIS_HEIGHT, b, TIGRIS_BAND_KIND_RESHAPE)),
            "reshape", ceil_div(4, b));
    for (uint32_t b : {5u, 48u})
      check(one_op({1, 4, 6, 2}, {1, 48}, TIGRIS_OP_FLATTEN, int8,
                   record(TIGRIS_TILE_AXIS_HEIGHT, b, TIGRIS_BAND_KIND_RESHAPE)),
            "flatten", ceil_div(48, b));
  }
}

TEST(ByInput, GlobalReductions) {
  for (bool int8 : {false, true}) {
    for (uint8_t type : {TIGRIS_OP_GLOBAL_AVG, TIGRIS_OP_GLOBAL_MAX})
      for (uint32_t b : {1u, 2u, 4u, 7u, 9u})
        check(one_op({2, 7, 5, 3}, {2, 1, 1, 3}, type, int8,
                     record(TIGRIS_TILE_AXIS_HEIGHT, b, TIGRIS_BAND_KIND_BY_INPUT)),
              type == TIGRIS_OP_GLOBAL_AVG ? "global avg" : "global max", ceil_div(7, std::min(b, 7u)));
  }
  // ReduceMean over axes (1, 2) keeping dims (float).
  for (uint32_t b : {1u, 3u})
    check(
        one_op({1, 6, 4, 3}, {1, 1, 1, 3}, TIGRIS_OP_REDUCE_MEAN, false,
               record(TIGRIS_TILE_AXIS_HEIGHT, b, TIGRIS_BAND_KIND_BY_INPUT), {AttrDesc{0, TIGRIS_ATTR_AXES, {1, 2}}}),
        "reduce mean", ceil_div(6, b));
}

TEST(Leading, OnlyGroupSwapsAreLeadingBands) {
  // (0,3,2,1) reverses three axes after the batch: not a swap of two axis groups, so a
  // stated LEADING band is refused (TILE_FACTS) and fill_tile_facts rejects it.
  PlanDesc p =
      transpose({2, 3, 4, 5}, {0, 1, 3, 2}, false, TIGRIS_BAND_KIND_LEADING, 1, false, TIGRIS_LEADING_MODE_BATCH);
  p.attributes = {AttrDesc{0, TIGRIS_ATTR_TRANSPOSE_PERM, {0, 3, 2, 1}}};
  p.tensors[1].shape = permuted(p.tensors[0].shape, {0, 3, 2, 1});
  Loaded f;
  load(p, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
  EXPECT_THROW(tigris::plan::fill_tile_facts(p), tigris::plan::PlanWriteError);
  // Rows mode (2,1,0): likewise.
  PlanDesc q = transpose({3, 4, 5}, {1, 0, 2}, false, TIGRIS_BAND_KIND_LEADING, 1, false, TIGRIS_LEADING_MODE_ROWS);
  q.attributes = {AttrDesc{0, TIGRIS_ATTR_TRANSPOSE_PERM, {2, 1, 0}}};
  q.tensors[1].shape = permuted(q.tensors[0].shape, {2, 1, 0});
  load(q, &f);
  EXPECT_EQ(f.err, TIGRIS_ERR_TILE_FACTS);
}

}  // namespace
