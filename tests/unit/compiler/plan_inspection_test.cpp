// tigris inspect's tables of a loaded plan (compiler/report/plan_inspection.cpp).
#include <gtest/gtest.h>

#include "compiler/report/plan_inspection.h"
#include "unit/loader/loader_fixture.h"

// Regression (UBSan under `tigris inspect -v` on every int8 plan): a tensor record is packed,
// so its quant_param_idx may sit at an odd address; the tensor rows copy it by value.
TEST(PlanInspection, Int8TensorRowsCarryTheirQuantParam) {
  const lf::Bytes bytes = lf::write_plan(lf::int8_conv());
  const lf::Loaded l = lf::load(bytes);
  ASSERT_EQ(l.err, TIGRIS_OK);
  const auto rows = tigris::report::inspect_plan(l.plan, l.required, "int8_conv.tgrs", bytes.size()).tensors;
  ASSERT_EQ(rows.size(), 2u);
  ASSERT_TRUE(rows[0].quant.has_value());
  ASSERT_TRUE(rows[1].quant.has_value());
  EXPECT_EQ(*rows[0].quant, 0u);
  EXPECT_EQ(*rows[1].quant, 1u);
  EXPECT_FALSE(tigris::report::render_text(tigris::report::inspect_plan(l.plan, l.required, "x", bytes.size()), true)
                   .empty());
}
