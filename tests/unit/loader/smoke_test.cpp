#include "loader_fixture.h"
using namespace lf;
TEST(LoaderSmoke, ConvReluLoads) {
  auto b = write_plan(conv_relu());
  auto r = load(b);
  EXPECT_EQ(r.err, TIGRIS_OK) << tigris_error_str(r.err);
}
