// run --state FILE: a plan with state (a TFLite resource variable, compiler_support/
// tflite_accumulator.h, values derived by hand there) run as a stream: each run reads the
// file when it exists, else starts from the initial values, and writes the state back.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "cli/cli_harness.h"
#include "cli/test_plans.h"
#include "compiler_support/tflite_accumulator.h"
#include "tools/tigris/arrays.h"

using namespace tigris::clitest;
using tigris::cli::Array;

namespace {

std::vector<uint8_t> npy(const std::vector<float>& v) {
  std::vector<uint8_t> b(v.size() * 4);
  std::memcpy(b.data(), v.data(), b.size());
  return tigris::cli::write_npy(Array{1, {1, 4}, b});
}

std::vector<float> read_floats(const std::string& path) {
  const Array a = tigris::cli::read_npy(read_bytes(path), path);
  std::vector<float> v(a.data.size() / 4);
  std::memcpy(v.data(), a.data.data(), a.data.size());
  return v;
}

class StateRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    write_bytes(dir.file("acc.tflite"), tigris::test::tflite_accumulator_model());
    write_bytes(dir.file("x1.npy"), npy({10, 20, 30, 40}));
    write_bytes(dir.file("x2.npy"), npy({-100, 1, 1, 1}));
    ASSERT_EQ(run({"compile", "acc.tflite", "-m", "64K", "-o", "acc.tgrs"}).exit_code, 0);
  }
  CliResult run(const std::vector<std::string>& args) { return run_cli(args, dir.path()); }
  TempDir dir;
};

TEST_F(StateRunTest, ASequenceOfRunsWithOneFileIsTheStream) {
  CliResult r = run({"run", "acc.tgrs", "-i", "x1.npy", "-o", "y1.npy", "--state", "acc.state"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_floats(dir.file("y1.npy")), (std::vector<float>{11, 18, 33, 36}));
  r = run({"run", "acc.tgrs", "-i", "x2.npy", "-o", "y2.npy", "--state", "acc.state"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_floats(dir.file("y2.npy")), (std::vector<float>{0, 19, 34, 37}));
  // 24-byte header, then the variable: {-89, 19, 34, 37}.
  const std::vector<uint8_t> state = read_bytes(dir.file("acc.state"));
  ASSERT_EQ(state.size(), 24u + 16u);
  float values[4];
  std::memcpy(values, state.data() + 24, 16);
  EXPECT_EQ(std::vector<float>(values, values + 4), (std::vector<float>{-89, 19, 34, 37}));
  // Without --state every run starts from the initial values: relu({1, -2, 3, -4} + x2).
  r = run({"run", "acc.tgrs", "-i", "x2.npy", "-o", "y3.npy"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_floats(dir.file("y3.npy")), (std::vector<float>{0, 0, 4, 0}));
}

TEST_F(StateRunTest, InspectShowsTheStateBytes) {
  const CliResult r = run({"inspect", "acc.tgrs"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("state"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("16 B"), std::string::npos) << r.out;
}

TEST_F(StateRunTest, AnotherPlansOrAForeignFileIsRefusedAndKept) {
  ASSERT_EQ(run({"run", "acc.tgrs", "-i", "x1.npy", "-o", "y1.npy", "--state", "acc.state"}).exit_code, 0);
  // A plan compiled at another budget is another plan.
  ASSERT_EQ(run({"compile", "acc.tflite", "-m", "16M", "-o", "other.tgrs"}).exit_code, 0);
  const std::vector<uint8_t> kept = read_bytes(dir.file("acc.state"));
  CliResult r = run({"run", "other.tgrs", "-i", "x1.npy", "-o", "z.npy", "--state", "acc.state"});
  if (read_bytes(dir.file("other.tgrs")) != read_bytes(dir.file("acc.tgrs"))) {
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.err,
              "Error: acc.state: holds the state of another plan (delete it to start from this plan's "
              "initial values)\n");
    EXPECT_EQ(read_bytes(dir.file("acc.state")), kept);
  }
  write_bytes(dir.file("notes.txt"), {'h', 'i'});
  r = run({"run", "acc.tgrs", "-i", "x1.npy", "-o", "z.npy", "--state", "notes.txt"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Error: notes.txt exists and is not a TiGrIS state file; not replaced\n");
  EXPECT_EQ(read_bytes(dir.file("notes.txt")), (std::vector<uint8_t>{'h', 'i'}));
  write_bytes(dir.file("short.state"), std::vector<uint8_t>(kept.begin(), kept.begin() + 30));
  r = run({"run", "acc.tgrs", "-i", "x1.npy", "-o", "z.npy", "--state", "short.state"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Error: short.state: state file is damaged (6 state bytes, header says 16)\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("z.npy")));
}

TEST_F(StateRunTest, StateOnAPlanWithoutStateOrOnAnInputIsAUsageError) {
  write_bytes(dir.file("relu.tgrs"), write_plan(relu_plan()));
  write_bytes(dir.file("x.npy"), tigris::cli::write_npy(Array{1, {1, 4, 2, 3}, std::vector<uint8_t>(96, 0)}));
  CliResult r = run({"run", "relu.tgrs", "-i", "x.npy", "-o", "y.npy", "--state", "s.state"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("Error: --state: relu.tgrs keeps no state between runs", 0), 0u) << r.err;
  r = run({"run", "acc.tgrs", "-i", "x1.npy", "-o", "y.npy", "--state", "x1.npy"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run({"run", "acc.tgrs", "-i", "x1.npy", "-o", "y.npy", "--state", "y.npy"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("y.npy")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("s.state")));
}

}  // namespace
