// Hostile inputs: files that are not regular files or are too large, foreign files given to
// export, values the commands cannot use, unknown names. Each gives one `Error:` line naming
// what and where, exit 1 (2 for the command line), and no output file.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "cli/cli_harness.h"
#include "cli/test_plans.h"
#include "unit/compiler/onnx_builder.h"

using namespace tigris::clitest;

namespace {

class HostileInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult w = run_program(TIGRIS_DEMO_MODEL_BINARY, {"write", dir.path()});
    ASSERT_EQ(w.exit_code, 0) << w.err;
    write_bytes(dir.file("relu.tgrs"), write_plan(relu_plan()));
  }
  CliResult run(const std::vector<std::string>& args) { return run_cli(args, dir.path()); }
  // One `Error:` line starting with `message`, exit `code`, no new file.
  void expect_error(const std::vector<std::string>& args, int code, const std::string& message) {
    const auto before = dir.entries();
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, code) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_EQ(r.err.rfind("Error: " + message, 0), 0u) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_EQ(dir.entries(), before) << r.err;
  }
  // Every command that reads `path` as its main input refuses it with `why`.
  void expect_every_command_refuses(const std::string& path, const std::string& why) {
    expect_error({"inspect", path}, 1, path + ": " + why);
    expect_error({"analyze", path, "-m", "192K"}, 1, path + ": " + why);
    expect_error({"compile", path, "-m", "192K", "-o", "p.tgrs"}, 1, path + ": " + why);
    expect_error({"export", path, "-o", "e.tflite"}, 1, path + ": " + why);
    expect_error({"codegen", path, "-o", "c.c"}, 1, path + ": " + why);
    expect_error({"run", path, "-i", "demo_input.npy", "-o", "y.npy"}, 1, path + ": " + why);
    expect_error({"run", "relu.tgrs", "-i", path, "-o", "y.npy"}, 1, path + ": " + why);
  }
  TempDir dir;
};

}  // namespace

TEST_F(HostileInputTest, EndlessInputsAreRefused) {
  expect_every_command_refuses("/dev/zero", "not a regular file");
  ASSERT_EQ(::mkfifo(dir.file("fifo").c_str(), 0600), 0);
  expect_every_command_refuses(dir.file("fifo"), "not a regular file");  // and no wait for a writer
}

TEST_F(HostileInputTest, OversizedInputsAreRefusedBeforeReading) {
  const std::string big = dir.file("big.onnx");
  write_bytes(big, {});
  std::error_code ec;
  std::filesystem::resize_file(big, (uint64_t{2} << 30) + 1, ec);  // sparse: nothing is written
  if (ec) GTEST_SKIP() << "no sparse files here: " << ec.message();
  expect_every_command_refuses(big, "larger than 2 GiB");
}

TEST_F(HostileInputTest, ExportNamesTheFileItCannotRead) {
  std::filesystem::create_directory(dir.file("folder"));
  write_bytes(dir.file("empty.tflite"), {});
  write_bytes(dir.file("random.tflite"), {0x13, 0x99, 0x42, 0x07, 0xfe, 0x00, 0x31, 0x77, 0x05});
  expect_error({"export", "folder"}, 1, "folder: is a directory");
  expect_error({"export", "missing.tflite"}, 1, "missing.tflite: no such file");
  expect_error({"export", "empty.tflite"}, 1, "no model written: empty.tflite: empty file");
  expect_error({"export", "random.tflite"}, 1, "no model written: random.tflite: not a TFLite model");
  expect_error({"export", "demo.onnx"}, 1, "no model written: demo.onnx: an ONNX model; export takes TFLite models");
  expect_error({"export", "relu.tgrs"}, 1, "no model written: relu.tgrs: a TiGrIS plan");
}

TEST_F(HostileInputTest, UnsortedOnnxGraphIsOneCompleteLine) {
  tigris::test::OnnxBuilder b;
  b.input("x", {1, 4});
  b.output("z", {1, 4});
  b.node("Relu", {"y"}, {"z"}, "second");
  b.node("Relu", {"x"}, {"y"}, "first");
  write_bytes(dir.file("unsorted.onnx"), b.bytes());
  const CliResult r = run({"analyze", "unsorted.onnx"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("Error: unsorted.onnx: invalid ONNX model: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("OpType: Relu is not output of any previous nodes.\n"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST_F(HostileInputTest, RunNamesWhatItCannotUse) {
  expect_error({"run", "relu.tgrs", "-i", "bogus=x.npy", "-o", "y.npy"}, 1,
               "--input bogus=x.npy: the model has no input 'bogus'; its inputs are x\n");
  expect_error({"run", "relu.tgrs", "-i", "demo_input.npy", "-o", "y.npy", "--fast", "0"}, 2,
               "--fast must be greater than zero, not '0' (the plan requires 192 bytes)");
}

TEST_F(HostileInputTest, UnusableValuesAreUsageErrors) {
  for (const std::string cmd : {"analyze", "compile"}) {
    for (const std::string mem : {"0", "-5", "0.1", "5000M"}) {
      expect_error({cmd, "demo.onnx", "-m", mem}, 2, "Fast-memory budget ");
    }
  }
  expect_error({"compile", "demo.onnx", "-m", "192K+0"}, 2, "Slow-memory budget must be greater than zero");
  ASSERT_EQ(run({"compile", "demo.onnx", "-m", "192K+1M"}).exit_code, 0);
  expect_error({"codegen", "demo.tgrs", "-b", "foo"}, 2, "unknown backend 'foo'");
  expect_error({"frobnicate"}, 2, "unknown command 'frobnicate'; the commands are ");
  expect_error({"frobnicate", "demo.onnx"}, 2, "unknown command 'frobnicate'");
}
