// KERNEL_DISABLED: this suite's loader sees a build without the activation kernels.
#include "unit/loader/loader_fixture.h"

using namespace lf;

namespace {

TEST(KernelDisabled, PlanUsingALeftOutKernelIsRefused) {
  auto r = load(write_plan(conv_relu()));  // conv + relu: relu's family is left out
  EXPECT_EQ(r.err, TIGRIS_ERR_KERNEL_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
}

TEST(KernelDisabled, PlanWithoutItLoads) {
  PlanDesc p = conv_relu();
  p.ops[1].type = TIGRIS_OP_NEG;  // math family, still in the build
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
}

}  // namespace
