// TIGRIS_NO_ERROR_STRINGS: "ok" for success, one generic string per enum for every other code
// (the caller reads the numeric code), never a null pointer.
#include <cstring>

#include "tigris_executor.h"
#include "tigris_mem.h"
#include "unit/loader/loader_fixture.h"

namespace {

TEST(NoErrorStrings, OkAndOneGenericStringPerEnum) {
  EXPECT_STREQ(tigris_error_str(TIGRIS_OK), "ok");
  EXPECT_STREQ(tigris_mem_error_str(TIGRIS_MEM_OK), "ok");
  EXPECT_STREQ(tigris_exec_error_str(TIGRIS_EXEC_OK), "ok");
  const char* plan = tigris_error_str(TIGRIS_ERR_BAD_MAGIC);
  ASSERT_NE(plan, nullptr);
  EXPECT_NE(std::strstr(plan, "TIGRIS_NO_ERROR_STRINGS"), nullptr);
  EXPECT_STREQ(tigris_error_str(TIGRIS_ERR_FEATURE_DISABLED), plan);
  EXPECT_STREQ(tigris_error_str(static_cast<tigris_error_t>(-99)), plan);
  EXPECT_NE(std::strstr(tigris_mem_error_str(TIGRIS_MEM_ERR_OOM), "memory error"), nullptr);
  EXPECT_NE(std::strstr(tigris_exec_error_str(TIGRIS_EXEC_ERR_KERNEL), "execution error"), nullptr);
}

}  // namespace
