// TIGRIS_ONLY_OPS: this suite's loader sees a build that keeps Conv, Relu and
// GlobalAveragePool only (every family, float32 and int16 still built).
#include "ops/op_table.h"
#include "unit/loader/loader_fixture.h"

using namespace lf;
namespace ops = tigris_rt::ops;

namespace {

// The device's operator rows: the three kept ops and the empty row of every other opcode.
static_assert(ops::built_row_count() == 3, "three kept rows");
static_assert(!ops::kEveryRowBuilt, "a trimmed table");
static_assert(ops::op_built(TIGRIS_OP_CONV) && ops::op_built(TIGRIS_OP_RELU) && ops::op_built(TIGRIS_OP_GLOBAL_AVG),
              "the listed ops are kept");
static_assert(!ops::op_built(TIGRIS_OP_MAX_POOL) && !ops::op_built(TIGRIS_OP_DEPTHWISE) &&
                  !ops::op_built(TIGRIS_OP_TRANSPOSE) && !ops::op_built(TIGRIS_OP_NEG),
              "no other op, even of a kept family");
static_assert(sizeof(ops::kBuiltRows) < sizeof(ops::kOpTable) / 4, "the device copy is a fraction of the table");

TEST(OnlyOps, RowsOfKeptOpsAreTheTablesAndOthersAreEmpty) {
  for (uint32_t code = 1; code <= ops::kOpCount; ++code) {
    const ops::OpInfo* row = ops::op_info(static_cast<uint8_t>(code));
    ASSERT_NE(row, nullptr) << "opcode " << code;
    const bool kept = code == TIGRIS_OP_CONV || code == TIGRIS_OP_RELU || code == TIGRIS_OP_GLOBAL_AVG;
    EXPECT_EQ(ops::row_built(*row), kept) << "opcode " << code;
    if (kept) {
      EXPECT_EQ(std::memcmp(row, &ops::kOpTable.rows[code - 1], sizeof(*row)), 0) << "opcode " << code;
    } else {
      EXPECT_EQ(row->code, 0) << "opcode " << code;
    }
  }
  EXPECT_EQ(ops::op_info(0), nullptr);
  EXPECT_EQ(ops::op_info(static_cast<uint8_t>(ops::kOpCount + 1)), nullptr);
}

TEST(OnlyOps, PlanOfKeptOpsLoads) { EXPECT_EQ(load_err(write_plan(conv_relu())), TIGRIS_OK); }

TEST(OnlyOps, OpOfAKeptFamilyOutsideTheListIsRefused) {
  PlanDesc p = conv_relu();
  p.ops[1].type = TIGRIS_OP_NEG;  // family MATH is built, NEG is not listed
  auto r = load(write_plan(p));
  EXPECT_EQ(r.err, TIGRIS_ERR_KERNEL_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
  p = conv_relu();
  p.ops[1].type = TIGRIS_OP_LEAKY_RELU;  // family ACTIVATION is kept for RELU
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_KERNEL_DISABLED);
  p = conv_relu();
  p.ops[0].type = TIGRIS_OP_DEPTHWISE;  // family CONV is kept for CONV
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_KERNEL_DISABLED);
}

// What the full loader refuses stays refused: a left-out op with a defect of its own, an
// opcode without a row, and the attribute checks compiled out with their op.
TEST(OnlyOps, WhatTheFullLoaderRefusesStaysRefused) {
  PlanDesc p = conv_relu();
  p.ops[1].type = TIGRIS_OP_NEG;
  p.ops[1].fused_act = TIGRIS_ACT_RELU;  // NEG takes no fused activation (BAD_OPERATOR in full)
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_KERNEL_DISABLED);
  p = conv_relu();
  p.ops[1].type = 250;  // no such opcode
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_OPERATOR);
  // A Transpose with a valid permutation (the full loader takes it; refusal_content_test).
  p = conv_relu();
  p.tensors[2].shape = {1, 4, 8, 8};
  p.ops[1].type = TIGRIS_OP_TRANSPOSE;
  p.attributes = {AttrDesc{1, TIGRIS_ATTR_TRANSPOSE_PERM, {0, 3, 1, 2}}};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_KERNEL_DISABLED);
  // A permutation on a kept op: BAD_SECTION as in the full loader, with the check compiled out.
  p = conv_relu();
  p.attributes = {AttrDesc{0, TIGRIS_ATTR_TRANSPOSE_PERM, {0, 1, 2, 3}}};
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
}

}  // namespace
