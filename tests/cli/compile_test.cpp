// compile writes a plan only when every check passes and never leaves a partial or
// stale file; analyze's figures agree with what the runtime measures on the plan, and
// the plan's output agrees with the demo generator's independent forward pass.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/cli_harness.h"
#include "tigris_loader.h"

using namespace tigris::clitest;

namespace {

class CompileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const CliResult w = run_program(TIGRIS_DEMO_MODEL_BINARY, {"write", dir.path()});
    ASSERT_EQ(w.exit_code, 0) << w.err;
  }
  CliResult run(const std::vector<std::string>& args) { return run_cli(args, dir.path()); }
  bool is_plan(const std::string& name) {
    const auto b = read_bytes(dir.file(name));
    return b.size() > 4 && std::string(b.begin(), b.begin() + 4) == "TGRS";
  }
  TempDir dir;
  const std::vector<std::string> demo_files = {"demo.onnx", "demo_expected.npy", "demo_input.npy"};
};

}  // namespace

TEST_F(CompileTest, WritesNextToTheModelOrToOutput) {
  EXPECT_EQ(run({"compile", "demo.onnx", "-m", "192K+1M"}).exit_code, 0);
  EXPECT_TRUE(is_plan("demo.tgrs"));
  EXPECT_EQ(run({"compile", "demo.onnx", "--mem", "192K", "--mem", "1M", "-o", "other.tgrs"}).exit_code, 0);
  EXPECT_EQ(read_bytes(dir.file("other.tgrs")), read_bytes(dir.file("demo.tgrs")));  // deterministic
  // Compiling again replaces an earlier plan.
  EXPECT_EQ(run({"compile", "demo.onnx", "-m", "256K+1M", "-o", "other.tgrs"}).exit_code, 0);
  EXPECT_NE(read_bytes(dir.file("other.tgrs")), read_bytes(dir.file("demo.tgrs")));
}

TEST_F(CompileTest, FailureRemovesAStalePlanAndLeavesNothingElse) {
  ASSERT_EQ(run({"compile", "demo.onnx", "-m", "192K+1M"}).exit_code, 0);
  const CliResult r = run({"compile", "demo.onnx", "-m", "512+1M"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("(removed the earlier demo.tgrs)\n"), std::string::npos) << r.err;
  EXPECT_EQ(dir.entries(), demo_files);
}

TEST_F(CompileTest, BudgetErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> failures = {
      {{"compile", "demo.onnx", "-m", "192K+1M", "-f", "16K"}, "Error: no plan written: the plan is "},
  };
  for (const auto& [args, message] : failures) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 1) << args[3];
    EXPECT_EQ(r.err.substr(0, message.size()), message);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  const std::vector<std::pair<std::vector<std::string>, std::string>> usage = {
      {{"compile", "demo.onnx"}, "--mem is required"},
      {{"compile", "demo.onnx", "-m", "256K+"}, "empty memory pool"},
      {{"compile", "demo.onnx", "-m", "0"}, "Error: Fast-memory budget must be greater than zero"},
      {{"compile", "demo.onnx", "-m", "192K+0"}, "Error: Slow-memory budget must be greater than zero"},
      {{"compile", "demo.onnx", "-m", "5000M"}, "Error: Fast-memory budget exceeds the uint32 plan-format limit"},
      {{"compile", "demo.onnx", "-m", "1K+2K+3K"}, "3 memory pools given; the planner supports a fast and a slow pool"},
      {{"compile", "demo.onnx", "-m", "12Q"}, "invalid size '12Q' for --mem"},
      {{"compile", "demo.onnx", "-m", "256K", "--input-shape", "image"}, "expected name:1x3x224x224"},
      {{"compile", "demo.onnx", "-m", "256K", "-o", "demo.onnx"}, "the output demo.onnx is the model itself"},
      {{"compile", "demo.onnx", "-m", "256K", "--frobnicate"}, "--frobnicate"},
  };
  for (const auto& [args, message] : usage) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(dir.entries(), demo_files);
}

TEST_F(CompileTest, RefusesToReplaceSomethingThatIsNotAPlan) {
  write_bytes(dir.file("notes.tgrs"), {'h', 'i'});
  const CliResult r = run({"compile", "demo.onnx", "-m", "192K+1M", "-o", "notes.tgrs"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "Error: notes.tgrs exists and is not a TiGrIS plan; not replaced\n");
  EXPECT_EQ(read_text(dir.file("notes.tgrs")), "hi");
}

TEST_F(CompileTest, BadModelsGiveOneLineAndNoFile) {
  auto model = read_bytes(dir.file("demo.onnx"));
  write_bytes(dir.file("cut.onnx"),
              std::vector<uint8_t>(model.begin(), model.begin() + static_cast<long>(model.size() / 2)));
  write_bytes(dir.file("text.onnx"), {'n', 'o', 't', ' ', 'a', ' ', 'm', 'o', 'd', 'e', 'l'});
  for (const std::string cmd : {"analyze", "compile"}) {
    for (const std::string file : {"missing.onnx", "cut.onnx", "text.onnx"}) {
      const CliResult r = run({cmd, file, "-m", "192K"});
      EXPECT_EQ(r.exit_code, 1) << cmd << " " << file;
      EXPECT_EQ(r.err.rfind("Error: " + file, 0), 0u) << r.err;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
      EXPECT_EQ(r.out, "");
    }
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("cut.tgrs")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("text.tgrs")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.tgrs")));
}

TEST_F(CompileTest, AnalysisFiguresAreWhatTheRuntimeMeasures) {
  for (const std::string budget : {"176K", "192K", "256K"}) {
    const CliResult a = run({"analyze", "demo.onnx", "-m", budget + "+1M", "--json"});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    const auto analysis = nlohmann::json::parse(a.out);
    ASSERT_EQ(analysis["fast"]["verdict"], "fits") << budget;
    const uint64_t fast_budget = analysis["fast"]["budget_bytes"];
    const uint64_t scheduled = analysis["fast"]["scheduled_peak_bytes"];
    EXPECT_LE(scheduled, fast_budget);

    ASSERT_EQ(run({"compile", "demo.onnx", "-m", budget + "+1M", "-o", "p.tgrs"}).exit_code, 0);
    const CliResult r = run({"run", "p.tgrs", "--input", "demo_input.npy", "--output", "out.npy", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto run_report = nlohmann::json::parse(r.out);
    // The run used an arena of exactly the plan's stated requirement: the scheduled peak.
    EXPECT_EQ(run_report["memory"]["fast_capacity_bytes"], scheduled) << budget;
    EXPECT_LE(run_report["memory"]["fast_peak_bytes"].get<uint64_t>(), scheduled) << budget;
    EXPECT_EQ(run_report["memory"]["slow_peak_bytes"], analysis["slow"]["peak_bytes"]) << budget;
    const CliResult cmp =
        run_program(TIGRIS_DEMO_MODEL_BINARY, {"compare", "out.npy", "demo_expected.npy"}, dir.path());
    EXPECT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
    std::filesystem::remove(dir.file("out.npy"));
  }
}

// -c lz4 and --xip: the plan is written with per-stage LZ4 blocks (the line says how much
// of the fast budget holds decompressed weights) or the XIP flag, and runs in exactly its
// budget to the demo generator's independent output.
TEST_F(CompileTest, Lz4AndXipPlansRunAtTheirBudget) {
  for (const std::vector<std::string>& extra : {std::vector<std::string>{"-c", "lz4"}, {"--xip"}}) {
    std::vector<std::string> args = {"compile", "demo.onnx", "-m", "64K+1M", "-o", "p.tgrs"};
    args.insert(args.end(), extra.begin(), extra.end());
    const CliResult c = run(args);
    ASSERT_EQ(c.exit_code, 0) << c.err;
    const bool lz4 = extra[0] == "-c";
    EXPECT_EQ(c.out.find("fast memory holds decompressed weights\n") != std::string::npos, lz4) << c.out;
    const std::vector<uint8_t> bytes = read_bytes(dir.file("p.tgrs"));
    tigris_plan_t plan;
    ASSERT_EQ(tigris_plan_load(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan), TIGRIS_OK);
    EXPECT_EQ(plan.num_weight_blocks > 0, lz4);
    EXPECT_EQ((plan.header->flags & TIGRIS_FLAG_XIP) != 0, !lz4);
    EXPECT_LE(tigris_fast_arena_required(&plan), 64u * 1024);
    const CliResult r = run({"run", "p.tgrs", "--input", "demo_input.npy", "--output", "out.npy"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const CliResult cmp =
        run_program(TIGRIS_DEMO_MODEL_BINARY, {"compare", "out.npy", "demo_expected.npy"}, dir.path());
    EXPECT_EQ(cmp.exit_code, 0) << cmp.out << cmp.err;
    std::filesystem::remove(dir.file("out.npy"));
  }
  EXPECT_EQ(run({"compile", "demo.onnx", "-m", "64K", "-c", "zip"}).exit_code, 2);
}
