// The output-file rule every command follows (docs/cli.md, "Output files"): an output is
// never one of the inputs or another output (links included), an existing file is replaced
// only when it holds what the command writes there, and nothing partial is left behind.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "cli/cli_harness.h"
#include "cli/test_plans.h"

using namespace tigris::clitest;

namespace {

class OutputRuleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult w = run_program(TIGRIS_DEMO_MODEL_BINARY, {"write", dir.path()});
    ASSERT_EQ(w.exit_code, 0) << w.err;
    write_bytes(dir.file("relu.tgrs"), write_plan(relu_plan()));
    write_bytes(dir.file("notes.txt"), {'k', 'e', 'e', 'p'});
  }
  CliResult run(const std::vector<std::string>& args) { return run_cli(args, dir.path()); }
  // The command failed with one `Error:` line, exit `code`, and every file is as it was.
  void expect_refused(const std::vector<std::string>& args, int code, const std::string& message) {
    const auto before = snapshot();
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, code) << args[0] << " " << r.err;
    EXPECT_EQ(r.err.rfind("Error: ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(snapshot(), before) << r.err;
  }
  std::vector<std::pair<std::string, std::vector<uint8_t>>> snapshot() {
    std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
    for (const std::string& name : dir.entries()) {
      const std::string path = dir.file(name);
      files.push_back({name, std::filesystem::is_regular_file(path) ? read_bytes(path) : std::vector<uint8_t>{}});
    }
    return files;
  }
  TempDir dir;
};

}  // namespace

TEST_F(OutputRuleTest, AnOutputThatIsAnInputIsAUsageError) {
  ASSERT_EQ(run({"compile", "demo.onnx", "-m", "192K+1M", "-o", "demo.tgrs"}).exit_code, 0);
  std::filesystem::create_symlink("demo.onnx", dir.file("link.onnx"));
  std::filesystem::create_hard_link(dir.file("demo.tgrs"), dir.file("hard.tgrs"));
  const std::string is_model = "is the model";
  expect_refused({"compile", "demo.onnx", "-m", "192K", "-o", "demo.onnx"}, 2, "the output demo.onnx is the model");
  expect_refused({"compile", "demo.onnx", "-m", "192K", "-o", "link.onnx"}, 2, "the output link.onnx is the model");
  expect_refused({"compile", "demo.onnx", "-m", "192K", "-o", "./sub/../demo.onnx"}, 2, is_model);
  expect_refused({"export", "demo.onnx", "-o", "demo.onnx"}, 2, "the output demo.onnx is the model");
  expect_refused({"export", "link.onnx", "-o", "demo.onnx"}, 2, is_model);
  expect_refused({"codegen", "demo.tgrs", "-o", "hard.tgrs"}, 2, "the output hard.tgrs is the plan demo.tgrs");
  expect_refused({"codegen", "demo.tgrs", "--format", "core", "--header", "demo.tgrs"}, 2, "is the plan");
  expect_refused({"run", "relu.tgrs", "-i", "demo_input.npy", "-o", "demo_input.npy"}, 2, "is the input");
  expect_refused({"run", "relu.tgrs", "-i", "x=demo_input.npy", "-o", "./demo_input.npy"}, 2, "is the input");
  expect_refused({"analyze", "demo.onnx", "-m", "192K", "--svg", "demo.onnx"}, 2, is_model);
}

TEST_F(OutputRuleTest, TwoOutputsThatAreOneFileAreAUsageError) {
  ASSERT_EQ(run({"compile", "demo.onnx", "-m", "192K+1M"}).exit_code, 0);
  expect_refused({"codegen", "demo.tgrs", "--format", "core", "--header", "x.c", "-o", "x.c"}, 2,
                 "two outputs are one file: x.c and x.c");
  ASSERT_EQ(run({"codegen", "demo.tgrs", "--format", "core", "-o", "x.c"}).exit_code, 0);
  std::filesystem::create_symlink("x.c", dir.file("y.h"));
  expect_refused({"codegen", "demo.tgrs", "--format", "core", "--header", "y.h", "-o", "x.c"}, 2,
                 "two outputs are one file");
}

TEST_F(OutputRuleTest, AnUnrelatedFileIsNeverReplaced) {
  ASSERT_EQ(run({"compile", "demo.onnx", "-m", "192K+1M"}).exit_code, 0);
  const std::string kept = "exists and is not ";
  expect_refused({"compile", "demo.onnx", "-m", "192K", "-o", "notes.txt"}, 1,
                 "notes.txt exists and is not a TiGrIS plan; not replaced");
  expect_refused({"export", "demo.onnx", "-o", "notes.txt"}, 1, "notes.txt exists and is not a TFLite model");
  expect_refused({"codegen", "demo.tgrs", "-o", "notes.txt"}, 1, kept);
  expect_refused({"codegen", "demo.tgrs", "--format", "core", "--header", "notes.txt"}, 1, kept);
  std::filesystem::copy_file(dir.file("notes.txt"), dir.file("notes.npy"));
  expect_refused({"run", "relu.tgrs", "-i", "demo_input.npy", "-o", "notes.npy"}, 1, "not a .npy array");
  expect_refused({"analyze", "demo.onnx", "-m", "192K", "--svg", "notes.txt"}, 1, "not an SVG picture");
  expect_refused({"analyze", "demo.onnx", "-m", "192K", "--svg", "demo.tgrs"}, 1, kept);
}

// An earlier output of the same kind is replaced in one step, and no temporary file is left.
TEST_F(OutputRuleTest, AnEarlierOutputIsReplaced) {
  ASSERT_EQ(run({"compile", "demo.onnx", "-m", "192K+1M"}).exit_code, 0);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(run({"codegen", "demo.tgrs", "--format", "core", "-o", "x.c"}).exit_code, 0);
    EXPECT_EQ(run({"analyze", "demo.onnx", "-m", "192K", "--svg", "t.svg"}).exit_code, 0);
  }
  for (const std::string& name : dir.entries()) EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
  EXPECT_TRUE(std::filesystem::exists(dir.file("x.h")));
}
