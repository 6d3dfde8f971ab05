// The int8 additions to the operator rules (runtime/src/plan/op_rules_quant.cpp).
#include <gtest/gtest.h>

#include "plan/op_rules.h"
#include "s8_fixture.h"

using namespace s8test;

namespace {

tigris_error_t softmax_rule(float out_scale, int32_t out_zp, std::vector<uint8_t> axes) {
  PlanFixture f;
  const uint16_t x = f.tensor({2, 3, 4}, TIGRIS_DTYPE_INT8, f.quant(0.1f, 0));
  const uint16_t y = f.tensor({2, 3, 4}, TIGRIS_DTYPE_INT8, f.quant(out_scale, out_zp));
  const uint16_t op = f.op(TIGRIS_OP_SOFTMAX, {x}, {y});
  if (!axes.empty()) f.attr(op, TIGRIS_ATTR_AXES, axes);
  return tigris_rt::check_operator(f.finalize(), op);
}

}  // namespace

TEST(S8OpRules, SoftmaxNeedsTfliteOutputQuantAndTrailingAxes) {
  EXPECT_EQ(softmax_rule(1.0f / 256, -128, {}), TIGRIS_OK);
  EXPECT_EQ(softmax_rule(1.0f / 256, -128, {1, 2}), TIGRIS_OK);
  EXPECT_EQ(softmax_rule(1.0f / 256, -128, {1}), TIGRIS_ERR_BAD_OPERATOR);  // not trailing
  EXPECT_EQ(softmax_rule(1.0f / 255, -128, {}), TIGRIS_ERR_BAD_OPERATOR);
  EXPECT_EQ(softmax_rule(1.0f / 256, 0, {}), TIGRIS_ERR_BAD_OPERATOR);
}
