// A small run of scripts/mutate-cli.sh (the full run, 600 files, takes minutes): 30 mutated
// or truncated copies of the shared models and plans through inspect, analyze, compile and
// export; every run exits 0, 1 or 2 with at most one `Error:` line, no signal, no hang and
// no partial output file.
#include <gtest/gtest.h>

#include <cstdlib>

#include "cli/cli_harness.h"

using namespace tigris::clitest;

TEST(MutateCli, DamagedFilesGiveCleanFailures) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent";
  if (std::system("command -v python3 >/dev/null 2>&1 && command -v iconv >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "python3 or iconv absent";
  }
  const CliResult r = run_program("/bin/bash", {std::string(TIGRIS_SOURCE_DIR) + "/scripts/mutate-cli.sh", "--count",
                                                "30", "--seed", "7", TIGRIS_CLI_BINARY, TIGRIS_MODELS_DIR});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(" 0 violations"), std::string::npos) << r.out << r.err;
}
