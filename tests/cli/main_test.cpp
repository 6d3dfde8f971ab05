// The top level: --version, help, and the exit codes of the usage conventions.
#include <gtest/gtest.h>

#include "cli/cli_harness.h"

using namespace tigris::clitest;

TEST(Main, VersionNamesTheBundledRuntime) {
  const CliResult r = run_cli({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "tigris, version 0.13.0 (runtime 0.13.0; bundled)\n");
}

TEST(Main, HelpListsTheSubcommandsAndExitsZero) {
  const CliResult r = run_cli({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  for (const char* sub : {"analyze", "compile", "export", "inspect", "run"})
    EXPECT_NE(r.out.find(sub), std::string::npos) << sub;
  EXPECT_EQ(run_cli({"run", "--help"}).exit_code, 0);
}

// analyze and compile take TFLite models as well as ONNX ones, and say so.
TEST(Main, ModelHelpNamesBothFormats) {
  for (const char* sub : {"analyze", "compile"}) {
    const CliResult r = run_cli({sub, "--help"});
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find(".onnx or .tflite model"), std::string::npos) << sub << ":\n" << r.out;
  }
}

TEST(Main, UsageErrorsAreOneLineWithExitTwo) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{}, {"bogus"}, {"inspect"}, {"inspect", "--nope", "x"}}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("Error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}
