// FEATURE_DISABLED: this suite's loader is built without bands, control flow, weight blocks,
// state and interface conversions (TIGRIS_NO_BANDS, TIGRIS_NO_CONTROL_FLOW,
// TIGRIS_NO_WEIGHT_BLOCKS, TIGRIS_NO_STATE, TIGRIS_NO_IFACE_CONVERSION, as
// `tigris codegen` writes them for a plan that uses none). A plan needing either is refused and the caller's plan left all zero; the
// same plans load on the whole runtime (tests/unit/loader/feature_plans_test.cpp).
#include "unit/loader/feature_plans.h"

using namespace lf;

namespace {

TEST(NoFeatures, APlanWithoutThemLoads) {
  EXPECT_EQ(load_err(write_plan(conv_relu())), TIGRIS_OK);
  // A tile record that is not tileable needs no band (its facts are all zero).
  PlanDesc p = conv_relu();
  tigris_tile_plan_v11_t untiled{};
  p.tile_plans = {untiled};
  p.stages[1].tile_plan = 0;
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
  p.tile_plans[0].facts.num_tiles = 1;  // ... and must state none
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_TILE_FACTS);
}

TEST(NoFeatures, ABandedStageIsRefused) {
  Loaded r = load(write_plan(banded_conv_relu()));
  EXPECT_EQ(r.err, TIGRIS_ERR_FEATURE_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
}

TEST(NoFeatures, AChainIsRefused) {
  Loaded r = load(write_plan(chained_conv_relu()));
  EXPECT_EQ(r.err, TIGRIS_ERR_FEATURE_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
}

TEST(NoFeatures, ControlFlowIsRefused) {
  Loaded r = load(write_plan(if_plan()));
  EXPECT_EQ(r.err, TIGRIS_ERR_FEATURE_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
}

// The SUBGRAPHS section is refused when it is read (step 11), so the graph checks of step 23
// are not in this build: graphs the whole loader refuses there stay refused.
TEST(NoFeatures, GraphsAreRefusedWhereTheSectionIsRead) {
  PlanDesc p = if_plan();
  p.subgraphs[1].first_stage = 2;  // graphs no longer partition the stages (BAD_SECTION, step 23)
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_FEATURE_DISABLED);
  p = if_plan();
  p.attributes[0].data = {1, 0, 9, 0};  // names a graph that does not exist (BAD_SECTION, step 19)
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_FEATURE_DISABLED);
  p = if_plan();
  p.subgraphs.clear();  // an If without the section: MISSING_SEC, as on the whole runtime (step 12b)
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_MISSING_SEC);
}

TEST(NoFeatures, WeightBlocksAreRefused) {
  PlanDesc p = weight_block_plan();
  Loaded r = load(write_plan(p));
  EXPECT_EQ(r.err, TIGRIS_ERR_FEATURE_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
  p.compression = TIGRIS_COMPRESSION_NONE;  // stored blocks are blocks too
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_FEATURE_DISABLED);
  // Refused where the section is read (step 10): blocks the whole loader refuses at its block
  // checks (step 22, feature_plans_test) stay refused without those checks.
  p = weight_block_plan();
  p.weight_blocks[0].stage = 5;  // no such stage
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_FEATURE_DISABLED);
}

TEST(NoFeatures, AConvertingInterfaceIsRefused) {
  EXPECT_EQ(load_err(write_plan(int8_conv())), TIGRIS_OK);  // int8 in, int8 out: no conversion
  Loaded r = load(write_plan(converting_plan()));
  EXPECT_EQ(r.err, TIGRIS_ERR_FEATURE_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
  PlanDesc p = converting_plan();
  p.tensors[0].iface_dtype = TIGRIS_DTYPE_INT8;  // BAD_TENSOR on the whole runtime: still refused
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_FEATURE_DISABLED);
}

TEST(NoFeatures, StateIsRefused) {
  Loaded r = load(write_plan(state_plan()));
  EXPECT_EQ(r.err, TIGRIS_ERR_FEATURE_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
}

TEST(NoFeatures, TheErrorHasItsOwnText) {
  EXPECT_STRNE(tigris_error_str(TIGRIS_ERR_FEATURE_DISABLED), tigris_error_str(TIGRIS_ERR_KERNEL_DISABLED));
  EXPECT_STRNE(tigris_error_str(TIGRIS_ERR_FEATURE_DISABLED), "unknown error");
}

}  // namespace
