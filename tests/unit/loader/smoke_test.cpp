#include "loader_fixture.h"
using namespace lf;
TEST(LoaderSmoke, ConvReluLoads) {
  auto b = write_plan(conv_relu());
  auto r = load(b);
  EXPECT_EQ(r.err, TIGRIS_OK) << tigris_error_str(r.err);
}

// Both output forms of the int8 softmax load in the full build (tests/unit/loader_kernel_set:
// a build without the int16 kernels refuses the int16 one).
TEST(LoaderSmoke, Int8SoftmaxLoadsWithEitherOutput) {
  EXPECT_EQ(load_err(write_plan(int8_softmax(TIGRIS_DTYPE_INT8))), TIGRIS_OK);
  EXPECT_EQ(load_err(write_plan(int8_softmax(TIGRIS_DTYPE_INT16))), TIGRIS_OK);
  PlanDesc wrong = int8_softmax(TIGRIS_DTYPE_INT16);
  wrong.quant[1].zero_point = 0;  // not TFLite's int16 form
  EXPECT_EQ(load_err(write_plan(wrong)), TIGRIS_ERR_BAD_OPERATOR);
}
