// The export subcommand through CLI11: flags, report on stdout, Failure when nothing is
// written, usage errors for bad flag values.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>

#include <filesystem>

#include "tools/tigris/cli_errors.h"
#include "tools/tigris/export.h"

namespace {

using namespace tigris::cli;

std::string model_path(const std::string& name) {
  return std::string(TIGRIS_MODELS_DIR) + "/tflite/" + name + ".tflite";
}

// Parses argv with only the export subcommand registered and runs it.
void run(std::vector<std::string> args) {
  CLI::App app{"tigris"};
  Registry commands;
  register_export(app, commands);
  std::vector<const char*> argv{"tigris"};
  for (const std::string& a : args) argv.push_back(a.c_str());
  app.parse(static_cast<int>(argv.size()), const_cast<char**>(argv.data()));
  for (const Command& c : commands)
    if (c.app->parsed()) c.run();
}

TEST(ExportCli, WritesWithFlags) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent";
  auto out = std::filesystem::temp_directory_path() / ("tigris_export_cli_" + std::to_string(::getpid()) + ".tflite");
  testing::internal::CaptureStdout();
  run({"export", model_path("vww_96_int8"), "-o", out.string(), "--target", "lp64"});
  std::string text = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(std::filesystem::exists(out));
  EXPECT_NE(text.find("operators 2-3 computed in 4 row bands, +0.25% MACs; 46 operators after export\n"),
            std::string::npos);
  EXPECT_NE(text.find("  total change   -23.83 KiB\n"), std::string::npos);
  EXPECT_NE(text.find("wrote " + out.string() + "   "), std::string::npos);
  std::filesystem::remove(out);
}

TEST(ExportCli, NothingWrittenIsAFailure) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent";
  auto out =
      std::filesystem::temp_directory_path() / ("tigris_export_cli_kws_" + std::to_string(::getpid()) + ".tflite");
  testing::internal::CaptureStdout();
  try {
    run({"export", model_path("kws_ref_model"), "-o", out.string()});
    ADD_FAILURE() << "no failure";
  } catch (const Failure& e) {
    EXPECT_STREQ(e.what(), "no model written: no rewrite lowers the arena");
  }
  EXPECT_EQ(testing::internal::GetCapturedStdout(), model_path("kws_ref_model") + "   13 operators\n");
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(ExportCli, BadFlagsAreUsageErrors) {
  EXPECT_THROW(run({"export", "m.tflite", "--target", "riscv"}), CLI::ValidationError);
  EXPECT_THROW(run({"export", "m.tflite", "--max-runs", "0"}), CLI::ValidationError);
  EXPECT_THROW(run({"export"}), CLI::RequiredError);
}

}  // namespace
