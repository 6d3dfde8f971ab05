// The main of every test suite: GoogleTest's, except that a run in which nothing passed, nothing
// failed and something was skipped exits with 77, CTest's SKIP_RETURN_CODE. A CTest case runs a
// whole GoogleTest suite (tests/CMakeLists.txt), so only a case whose every test skipped is
// reported as skipped, and a skip can never hide a failure (a regular expression on the output
// could: "[  SKIPPED ]" appears beside "[  FAILED  ]").
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const int status = RUN_ALL_TESTS();
  const testing::UnitTest& run = *testing::UnitTest::GetInstance();
  if (status == 0 && run.successful_test_count() == 0 && run.failed_test_count() == 0 &&
      run.skipped_test_count() > 0)
    return 77;
  return status;
}
