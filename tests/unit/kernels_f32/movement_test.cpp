// Movement kernels: Concat/Split on any axis (and banded), Pad/MirrorPad, Transpose (any
// permutation, transposed tile), Reshape, Gather/GatherND/EmbeddingLookup, StridedSlice,
// ReverseV2, DynamicUpdateSlice; hand values and index loops.
#include <cstring>

#include "unit/kernels_f32/kernel_test_util.h"

namespace {

using fixture::Plan;

std::vector<float> iota(size_t n, float start = 0) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + (float)i;
  return v;
}

TEST(Concat, MiddleAxisAndLastAxisBanded) {
  Plan p;
  uint16_t a = p.tensor({2, 1, 2}), b = p.tensor({2, 2, 2}), out = p.tensor({2, 3, 2});
  uint16_t op = p.op(TIGRIS_OP_CONCAT, {a, b}, {out});
  p.attr(op, TIGRIS_ATTR_AXES, {1});
  tigris_mem_t* m = p.mem();
  p.set<float>(a, {1, 2, 3, 4});
  p.set<float>(b, {10, 11, 12, 13, 14, 15, 16, 17});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {1, 2, 10, 11, 12, 13, 3, 4, 14, 15, 16, 17});
  // Channel concat of NHWC stripes: band rows [1,3) of H = 3.
  Plan q;
  uint16_t x = q.tensor({1, 3, 1, 1}), y = q.tensor({1, 3, 1, 2}), o = q.tensor({1, 3, 1, 3});
  uint16_t op2 = q.op(TIGRIS_OP_CONCAT, {x, y}, {o});
  tigris_mem_t* mq = q.mem();
  std::vector<float> xb = {-1, 1, 2}, yb = {-1, -1, 10, 11, 20, 21}, ob(9, 0.0f);  // one junk row each
  q.bind(x, xb.data()), q.bind(y, yb.data()), q.bind(o, ob.data());
  mq->tile = tigris_tile_ctx_t{};
  mq->tile.active = 1, mq->tile.out_h = 2, mq->tile.in_row_start = 1, mq->tile.out_row_start = 1, mq->tile.out_row0 = 1;
  ASSERT_EQ(kt::run(q, op2, mq), 0);
  kt::expect_near(ob, {0, 0, 0, 1, 10, 11, 2, 20, 21});
}

TEST(Split, LastAxisUnevenParts) {
  Plan p;
  uint16_t in = p.tensor({2, 5}), o1 = p.tensor({2, 2}), o2 = p.tensor({2, 3});
  uint16_t op = p.op(TIGRIS_OP_SPLIT, {in}, {o1, o2});
  tigris_mem_t* m = p.mem();
  p.set(in, iota(10));
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(o1), {0, 1, 5, 6});
  kt::expect_near(p.get<float>(o2), {2, 3, 4, 7, 8, 9});
}

TEST(Pad, ConstantWithCropAndFill) {
  Plan p;
  uint16_t in = p.tensor({2, 3}), out = p.tensor({3, 3});
  uint16_t op = p.op(TIGRIS_OP_PAD, {in}, {out});
  p.attr_i32(op, TIGRIS_ATTR_PADS, {1, -1, 0, 1});  // rows: +1 before; cols: crop 1 before, +1 after
  p.attr_f32(op, TIGRIS_ATTR_ALPHA, {9.5f});
  tigris_mem_t* m = p.mem();
  p.set<float>(in, {1, 2, 3, 4, 5, 6});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {9.5f, 9.5f, 9.5f, 2, 3, 9.5f, 5, 6, 9.5f});
}

TEST(MirrorPad, ReflectSymmetricEdgeWrap) {
  // ONNX pad examples on [[1.0,1.2],[2.3,3.4],[4.5,5.7]] with pads (0,2) before on axis 1.
  std::vector<float> x = {1.0f, 1.2f, 2.3f, 3.4f, 4.5f, 5.7f};
  struct Case {
    int mode;
    std::vector<float> want;
  };
  for (const Case& c : {Case{2, {1.0f, 1.0f, 1.0f, 1.2f, 2.3f, 2.3f, 2.3f, 3.4f, 4.5f, 4.5f, 4.5f, 5.7f}},
                        Case{1, {1.2f, 1.0f, 1.0f, 1.2f, 3.4f, 2.3f, 2.3f, 3.4f, 5.7f, 4.5f, 4.5f, 5.7f}},
                        Case{3, {1.0f, 1.2f, 1.0f, 1.2f, 2.3f, 3.4f, 2.3f, 3.4f, 4.5f, 5.7f, 4.5f, 5.7f}}}) {
    Plan p;
    uint16_t in = p.tensor({3, 2}), out = p.tensor({3, 4});
    uint16_t op = p.op(TIGRIS_OP_MIRROR_PAD, {in}, {out});
    p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {c.mode, 0, 0, 2, 0});
    tigris_mem_t* m = p.mem();
    p.set(in, x);
    ASSERT_EQ(kt::run(p, op, m), 0) << c.mode;
    kt::expect_near(p.get<float>(out), c.want);
  }
  Plan p;  // reflect 1-D [1,2,3] pads (2,1) -> [3,2,1,2,3,2]
  uint16_t in = p.tensor({3}), out = p.tensor({6});
  uint16_t op = p.op(TIGRIS_OP_MIRROR_PAD, {in}, {out});
  p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {0, 2, 1});
  tigris_mem_t* m = p.mem();
  p.set<float>(in, {1, 2, 3});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {3, 2, 1, 2, 3, 2});
}

TEST(Transpose, AnyPermutationAndTransposedTile) {
  Plan p;
  uint16_t in = p.tensor({2, 3, 4}, TIGRIS_DTYPE_INT32), out = p.tensor({4, 2, 3}, TIGRIS_DTYPE_INT32);
  uint16_t op = p.op(TIGRIS_OP_TRANSPOSE, {in}, {out});
  p.attr(op, TIGRIS_ATTR_TRANSPOSE_PERM, {2, 0, 1});
  tigris_mem_t* m = p.mem();
  std::vector<int32_t> x(24);
  for (int i = 0; i < 24; ++i) x[i] = i;
  p.set(in, x);
  ASSERT_EQ(kt::run(p, op, m), 0);
  auto got = p.get<int32_t>(out);
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(got[(k * 2 + i) * 3 + j], x[(i * 3 + j) * 4 + k]);
  // Transposed tile: 2 blocks of [2 rows, 3 cols] of 2-element items -> [3, 2].
  std::vector<int32_t> src(24), dst(24, -1);
  for (int i = 0; i < 24; ++i) src[i] = i;
  p.bind(in, src.data());
  p.bind(out, dst.data());
  m->tile = tigris_tile_ctx_t{};
  m->tile.active = 1, m->tile.transposed_tile = 1, m->tile.t_outer = 2, m->tile.t_rows = 2, m->tile.t_cols = 3,
  m->tile.t_block = 2;
  ASSERT_EQ(kt::run(p, op, m), 0);
  for (int o = 0; o < 2; ++o)
    for (int r = 0; r < 2; ++r)
      for (int c = 0; c < 3; ++c)
        for (int e = 0; e < 2; ++e) EXPECT_EQ(dst[((o * 3 + c) * 2 + r) * 2 + e], src[((o * 2 + r) * 3 + c) * 2 + e]);
}

TEST(Reshape, CopiesOrLeavesAliasAndBandsByteRanges) {
  Plan p;
  uint16_t in = p.tensor({2, 3}), out = p.tensor({3, 2});
  uint16_t op = p.op(TIGRIS_OP_RESHAPE, {in}, {out});
  tigris_mem_t* m = p.mem();
  p.set(in, iota(6));
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), iota(6));
  std::vector<float> buf = iota(6, 1);
  p.bind(in, buf.data());
  p.bind(out, buf.data());
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(buf, iota(6, 1));
  std::vector<float> src = iota(6), dst(6, 0.0f);
  p.bind(in, src.data());
  p.bind(out, dst.data());
  m->tile = tigris_tile_ctx_t{};
  m->tile.active = 1, m->tile.t_block = 8, m->tile.out_h = 1, m->tile.in_row_start = 2, m->tile.out_row_start = 1;
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(dst, {0, 0, 4, 5, 0, 0});
}

// CONSTANT copies its weight into its output, whatever the dtype; a banded call or a weight
// of another size fails.
TEST(Constant, WritesItsWeightBytes) {
  Plan p;
  uint16_t out = p.tensor({3}, TIGRIS_DTYPE_INT64);
  const int64_t v[3] = {2, -7, int64_t{1} << 40};
  uint16_t op = p.op(TIGRIS_OP_CONSTANT, std::vector<uint16_t>{}, std::vector<uint16_t>{out});
  p.o(op).weight_idx = p.weight_bytes(v, sizeof(v));
  tigris_mem_t* m = p.mem();
  ASSERT_EQ(kt::run(p, op, m), 0);
  EXPECT_EQ(p.get<int64_t>(out), (std::vector<int64_t>{2, -7, int64_t{1} << 40}));
  Plan f;
  uint16_t y = f.tensor({2, 2});
  uint16_t op2 = f.op(TIGRIS_OP_CONSTANT, std::vector<uint16_t>{}, std::vector<uint16_t>{y});
  f.o(op2).weight_idx = f.weight({1.5f, -2.0f, 0.25f, 8.0f});
  tigris_mem_t* fm = f.mem();
  ASSERT_EQ(kt::run(f, op2, fm), 0);
  kt::expect_near(f.get<float>(y), {1.5f, -2.0f, 0.25f, 8.0f});
  fm->tile = tigris_tile_ctx_t{};
  fm->tile.active = 1;
  EXPECT_EQ(kt::run(f, op2, fm), -1);
  fm->tile = tigris_tile_ctx_t{};
  f.o(op2).weight_idx = f.weight({1.5f, -2.0f, 0.25f});
  EXPECT_EQ(kt::run(f, op2, f.mem()), -1);
}

TEST(Gather, AxisNegativeIndicesBatchDimsAndErrors) {
  Plan p;  // data [3,4] axis 1, indices [2,2] int64 -> [3,2,2]
  uint16_t d = p.tensor({3, 4}), idx = p.tensor({2, 2}, TIGRIS_DTYPE_INT64), out = p.tensor({3, 2, 2});
  uint16_t op = p.op(TIGRIS_OP_GATHER, {d, idx}, {out});
  p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {1, 0, 2, 2, 2});
  tigris_mem_t* m = p.mem();
  p.set(d, iota(12));
  p.set<int64_t>(idx, {0, -1, 2, 1});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {0, 3, 2, 1, 4, 7, 6, 5, 8, 11, 10, 9});
  p.set<int64_t>(idx, {0, 4, 2, 1});
  EXPECT_EQ(kt::run(p, op, m), -1);
  Plan q;  // batch_dims 1: data [2,3], indices [2,2] (constant) on axis 1 -> [2,2]
  uint16_t d2 = q.tensor({2, 3}), o2 = q.tensor({2, 2});
  uint16_t op2 = q.op(TIGRIS_OP_GATHER, {d2}, {o2});
  q.o(op2).weight_idx = q.weight_i32({2, 0, 1, 1});
  q.attr_i32(op2, TIGRIS_ATTR_MOVEMENT, {1, 1, 2, 2, 2});
  tigris_mem_t* mq = q.mem();
  q.set(d2, iota(6));
  ASSERT_EQ(kt::run(q, op2, mq), 0);
  kt::expect_near(q.get<float>(o2), {2, 0, 4, 4});
}

TEST(GatherND, OnnxExamples) {
  {  // gathernd_example_float32: data [2,2,2], indices [[[0,1]],[[1,0]]] -> [[[2,3]],[[4,5]]]
    Plan p;
    uint16_t d = p.tensor({2, 2, 2}), idx = p.tensor({2, 1, 2}, TIGRIS_DTYPE_INT64), out = p.tensor({2, 1, 2});
    uint16_t op = p.op(TIGRIS_OP_GATHER_ND, {d, idx}, {out});
    p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {3, 2, 1, 2});
    tigris_mem_t* m = p.mem();
    p.set(d, iota(8));
    p.set<int64_t>(idx, {0, 1, 1, 0});
    ASSERT_EQ(kt::run(p, op, m), 0);
    kt::expect_near(p.get<float>(out), {2, 3, 4, 5});
  }
  {  // gathernd_example_int32_batch_dim1: data [2,2,2], indices [[1],[0]] batch_dims 1 -> [[2,3],[4,5]]
    Plan p;
    uint16_t d = p.tensor({2, 2, 2}, TIGRIS_DTYPE_INT32), idx = p.tensor({2, 1}, TIGRIS_DTYPE_INT64),
             out = p.tensor({2, 2}, TIGRIS_DTYPE_INT32);
    uint16_t op = p.op(TIGRIS_OP_GATHER_ND, {d, idx}, {out});
    p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {2, 2, 1, 1});
    tigris_mem_t* m = p.mem();
    p.set<int32_t>(d, {0, 1, 2, 3, 4, 5, 6, 7});
    p.set<int64_t>(idx, {1, 0});
    ASSERT_EQ(kt::run(p, op, m), 0);
    EXPECT_EQ(p.get<int32_t>(out), (std::vector<int32_t>{2, 3, 4, 5}));
  }
}

TEST(EmbeddingLookup, RowsOfTheTable) {
  Plan p;
  uint16_t ids = p.tensor({3}, TIGRIS_DTYPE_INT32), out = p.tensor({3, 2});
  uint16_t op = p.op(TIGRIS_OP_EMBEDDING_LOOKUP, {ids}, {out});
  p.o(op).weight_idx = p.weight({0, 1, 10, 11, 20, 21});
  p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {0, 0, 1, 3});
  tigris_mem_t* m = p.mem();
  p.set<int32_t>(ids, {2, 0, 2});
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {20, 21, 0, 1, 20, 21});
  p.set<int32_t>(ids, {3, 0, 0});
  EXPECT_EQ(kt::run(p, op, m), -1);
}

TEST(Slice, StridedSliceReverseAndDynamicUpdate) {
  Plan p;  // [5,6]: rows 4,2,0 (step -2), cols 1,3,5
  uint16_t in = p.tensor({5, 6}), out = p.tensor({3, 3});
  uint16_t op = p.op(TIGRIS_OP_STRIDED_SLICE, {in}, {out});
  p.attr_i32(op, TIGRIS_ATTR_MOVEMENT, {4, -1, -2, 1, 6, 2});
  tigris_mem_t* m = p.mem();
  p.set(in, iota(30));
  ASSERT_EQ(kt::run(p, op, m), 0);
  kt::expect_near(p.get<float>(out), {25, 27, 29, 13, 15, 17, 1, 3, 5});
  Plan q;  // shrink axis 0: row 2 -> [6]
  uint16_t i2 = q.tensor({5, 6}), o2 = q.tensor({6});
  uint16_t op2 = q.op(TIGRIS_OP_STRIDED_SLICE, {i2}, {o2});
  q.attr_i32(op2, TIGRIS_ATTR_MOVEMENT, {2, 3, 1, 0, 6, 1, 1});
  tigris_mem_t* mq = q.mem();
  q.set(i2, iota(30));
  ASSERT_EQ(kt::run(q, op2, mq), 0);
  kt::expect_near(q.get<float>(o2), {12, 13, 14, 15, 16, 17});
  Plan r;  // reverse axes 0 and 2 of [2,2,3]
  uint16_t i3 = r.tensor({2, 2, 3}), o3 = r.tensor({2, 2, 3});
  uint16_t op3 = r.op(TIGRIS_OP_REVERSE_V2, {i3}, {o3});
  r.attr_i32(op3, TIGRIS_ATTR_MOVEMENT, {5});
  tigris_mem_t* mr = r.mem();
  r.set(i3, iota(12));
  ASSERT_EQ(kt::run(r, op3, mr), 0);
  kt::expect_near(r.get<float>(o3), {8, 7, 6, 11, 10, 9, 2, 1, 0, 5, 4, 3});
  Plan s;  // DUS: [4,4] operand, [2,2] update at starts from a tensor (clamped to 2,2)
  uint16_t opd = s.tensor({4, 4}), upd = s.tensor({2, 2}), st = s.tensor({2}, TIGRIS_DTYPE_INT32),
           o4 = s.tensor({4, 4});
  uint16_t op4 = s.op(TIGRIS_OP_DYNAMIC_UPDATE_SLICE, {opd, upd, st}, {o4});
  s.attr_i32(op4, TIGRIS_ATTR_MOVEMENT, {0, 0, 2, 2});
  tigris_mem_t* ms = s.mem();
  s.set(opd, std::vector<float>(16, 0.0f));
  s.set<float>(upd, {1, 2, 3, 4});
  s.set<int32_t>(st, {1, 9});
  ASSERT_EQ(kt::run(s, op4, ms), 0);
  kt::expect_near(s.get<float>(o4), {0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0, 0, 0});
}

}  // namespace
