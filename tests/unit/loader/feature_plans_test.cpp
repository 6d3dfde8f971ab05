// The plans of feature_plans.h are valid: the whole runtime loads them (so the refusals of
// tests/unit/no_features come from the left-out feature, not from a malformed plan).
#include "feature_plans.h"

using namespace lf;

namespace {

TEST(FeaturePlans, TheWholeRuntimeLoadsThem) {
  EXPECT_EQ(load_err(write_plan(conv_relu())), TIGRIS_OK);
  const Bytes banded_bytes = write_plan(banded_conv_relu()), chained_bytes = write_plan(chained_conv_relu()),
              flow_bytes = write_plan(if_plan());  // the loaded plans point into them
  Loaded banded = load(banded_bytes);
  ASSERT_EQ(banded.err, TIGRIS_OK) << tigris_error_str(banded.err);
  EXPECT_EQ(tigris_stage_band_kind(&banded.plan, &banded.plan.stages[0], nullptr), TIGRIS_BAND_KIND_STRIPE);
  Loaded chained = load(chained_bytes);
  ASSERT_EQ(chained.err, TIGRIS_OK) << tigris_error_str(chained.err);
  EXPECT_EQ(chained.plan.stages[1].chain_id, 0);
  Loaded flow = load(flow_bytes);
  ASSERT_EQ(flow.err, TIGRIS_OK) << tigris_error_str(flow.err);
  EXPECT_EQ(flow.plan.subgraph_depth, 1);
  const Bytes state_bytes = write_plan(state_plan());
  Loaded state = load(state_bytes);
  ASSERT_EQ(state.err, TIGRIS_OK) << tigris_error_str(state.err);
  EXPECT_EQ(state.plan.num_state, 1);
}

}  // namespace

namespace {

TEST(FeaturePlans, TheWholeRuntimeLoadsAConvertingInterface) {
  EXPECT_EQ(load_err(write_plan(converting_plan())), TIGRIS_OK);
  PlanDesc p = converting_plan();
  p.tensors[0].iface_dtype = TIGRIS_DTYPE_INT8;  // declared as stored: not a conversion (step 16)
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_TENSOR);
}

// The graph and block defects tests/unit/no_features refuses at the SUBGRAPHS and WEIGHT_BLOCKS
// sections: the whole runtime refuses them at its graph and block checks.
TEST(FeaturePlans, TheWholeRuntimeRefusesTheirGraphDefects) {
  PlanDesc p = if_plan();
  p.subgraphs[1].first_stage = 2;  // graphs no longer partition the stages (step 23)
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = if_plan();
  p.attributes[0].data = {1, 0, 9, 0};  // names a graph that does not exist (step 19)
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
  p = if_plan();
  p.subgraphs.clear();  // an If without the section (step 12b)
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_MISSING_SEC);
  p = weight_block_plan();
  p.weight_blocks[0].stage = 5;  // a block of no stage (step 22)
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_ERR_BAD_SECTION);
}

}  // namespace
