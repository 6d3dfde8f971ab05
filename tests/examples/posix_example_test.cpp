// examples/posix: the plain C program that loads a .tgrs from a file and runs it, against
// `tigris run` on the same plan and input bytes; and the README's C example is its code.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "cli/cli_harness.h"
#include "cli/float_bytes.h"
#include "cli/test_plans.h"

using namespace tigris::clitest;

namespace {

class PosixExample : public ::testing::Test {
 protected:
  CliResult example(const std::vector<std::string>& args) {
    return run_program(TIGRIS_POSIX_EXAMPLE, args, dir.path());
  }
  // The example's output bytes and `tigris run`'s for the same plan and input, both in the
  // model's own axis order.
  void expect_same_as_run(const std::string& plan, const std::string& input) {
    const CliResult ran = example({plan, "example.bin", input});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    EXPECT_NE(ran.out.find(": fast peak "), std::string::npos) << ran.out;
    std::filesystem::remove(dir.file("host.bin"));
    const CliResult host = run_cli({"run", plan, "--input", input, "--output", "host.bin"}, dir.path());
    ASSERT_EQ(host.exit_code, 0) << host.err;
    const std::vector<uint8_t> expected = read_bytes(dir.file("host.bin"));
    EXPECT_EQ(read_bytes(dir.file("example.bin")), expected);
    EXPECT_NE(expected, std::vector<uint8_t>(expected.size(), 0)) << "a trivial output proves nothing";
  }
  TempDir dir;
};

}  // namespace

TEST_F(PosixExample, RunsTheDemoPlanLikeTigrisRun) {
  ASSERT_EQ(run_program(TIGRIS_DEMO_MODEL_BINARY, {"write", dir.path()}).exit_code, 0);
  const CliResult c = run_cli({"compile", "demo.onnx", "-m", "192K+1M", "-o", "demo.tgrs"}, dir.path());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  write_bytes(dir.file("image.bin"), float_input(3 * 64 * 64, 5));
  expect_same_as_run("demo.tgrs", "image.bin");
}

// The demo's image is declared NCHW and stored NHWC: the example takes the model's order and
// moves the channels itself, so the NHWC bytes `tigris run --stored-order` takes give the
// same logits, and NCHW bytes fed as NHWC would not.
TEST_F(PosixExample, TakesTheModelsAxisOrderNotThePlans) {
  ASSERT_EQ(run_program(TIGRIS_DEMO_MODEL_BINARY, {"write", dir.path()}).exit_code, 0);
  ASSERT_EQ(run_cli({"compile", "demo.onnx", "-m", "96K+1M", "-o", "demo.tgrs"}, dir.path()).exit_code, 0);
  const std::vector<uint8_t> nchw = float_input(3 * 64 * 64, 9);
  std::vector<uint8_t> nhwc(nchw.size());
  for (size_t c = 0; c < 3; ++c) {
    for (size_t s = 0; s < 64 * 64; ++s) std::memcpy(&nhwc[(s * 3 + c) * 4], &nchw[(c * 64 * 64 + s) * 4], 4);
  }
  write_bytes(dir.file("nchw.bin"), nchw);
  write_bytes(dir.file("nhwc.bin"), nhwc);
  ASSERT_EQ(example({"demo.tgrs", "example.bin", "nchw.bin"}).exit_code, 0);
  ASSERT_EQ(run_cli({"run", "demo.tgrs", "-i", "nhwc.bin", "--stored-order", "-o", "stored.bin"}, dir.path()).exit_code,
            0);
  EXPECT_EQ(read_bytes(dir.file("example.bin")), read_bytes(dir.file("stored.bin")));
  ASSERT_EQ(example({"demo.tgrs", "swapped.bin", "nhwc.bin"}).exit_code, 0);
  EXPECT_NE(read_bytes(dir.file("swapped.bin")), read_bytes(dir.file("stored.bin")));
}

TEST_F(PosixExample, RunsAnInt8PlanLikeTigrisRun) {
  // Scale 0.5, zero point 1: -3 -> q -5, -0.5 -> 0, 1 -> 3, 2.5 -> 6; ReLU clamps q at 1,
  // so the declared float32 output is 0, 0, 1, 2.5.
  write_bytes(dir.file("relu8.tgrs"), write_plan(relu_int8_plan()));
  write_bytes(dir.file("x.bin"), floats({-3.0f, -0.5f, 1.0f, 2.5f}));
  expect_same_as_run("relu8.tgrs", "x.bin");
  EXPECT_EQ(read_bytes(dir.file("example.bin")), floats({0.0f, 0.0f, 1.0f, 2.5f}));
}

TEST_F(PosixExample, RunsAMultiStageRealModelLikeTigrisRun) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " TIGRIS_MODELS_DIR " is absent";
  const CliResult c =
      run_cli({"compile", TIGRIS_MODELS_DIR "/onnx/ds_cnn.onnx", "-m", "64K+1M", "-o", "ds_cnn.tgrs"}, dir.path());
  ASSERT_EQ(c.exit_code, 0) << c.err;
  write_bytes(dir.file("in.bin"), float_input(49 * 10, 3));  // 1x1x49x10 float32
  expect_same_as_run("ds_cnn.tgrs", "in.bin");
}

TEST_F(PosixExample, RefusesBadArgumentsAndLeavesNoOutput) {
  write_bytes(dir.file("relu8.tgrs"), write_plan(relu_int8_plan()));
  write_bytes(dir.file("short.bin"), float_input(3, 1));
  write_bytes(dir.file("notes.txt"), {'n', 'o'});
  EXPECT_EQ(example({"relu8.tgrs"}).exit_code, 2);
  const CliResult count = example({"relu8.tgrs", "out.bin"});
  EXPECT_EQ(count.exit_code, 2);
  EXPECT_EQ(count.err, "Error: the plan takes 1 inputs, 0 given\n");
  const CliResult size = example({"relu8.tgrs", "out.bin", "short.bin"});
  EXPECT_EQ(size.exit_code, 1);
  EXPECT_EQ(size.err, "Error: short.bin: 12 bytes, input 'x' takes 16\n");
  const CliResult plan = example({"notes.txt", "out.bin"});
  EXPECT_EQ(plan.exit_code, 1);
  EXPECT_EQ(plan.err, "Error: the plan: buffer smaller than the plan header\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.bin")));
}

// Every ```c block of the README is a verbatim part of examples/posix/main.c.
TEST(Readme, CExampleIsThePosixExamplesCode) {
  const std::string readme = read_text(TIGRIS_SOURCE_DIR "/README.md");
  const std::string program = read_text(TIGRIS_SOURCE_DIR "/examples/posix/main.c");
  size_t blocks = 0;
  for (size_t at = readme.find("```c\n"); at != std::string::npos; at = readme.find("```c\n", at + 1)) {
    const size_t end = readme.find("```", at + 5);
    ASSERT_NE(end, std::string::npos);
    const std::string block = readme.substr(at + 5, end - at - 5);
    EXPECT_NE(program.find(block), std::string::npos) << "README block not in examples/posix/main.c:\n" << block;
    ++blocks;
  }
  EXPECT_GE(blocks, 1u);
}
