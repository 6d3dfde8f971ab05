// analyze: free dimensions and their warning, the JSON report, exit status 0 whatever
// the verdict, and usage errors of the shared flags.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "cli/cli_harness.h"

using namespace tigris::clitest;

namespace {

// x [N,4] -> `type` -> y [N,4], N free.
std::vector<uint8_t> free_batch_relu(const std::string& type = "Relu") {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto& g = *m.mutable_graph();
  g.set_name("free_relu");
  for (auto* v : {g.add_input(), g.add_output()}) {
    v->set_name(v == &g.input(0) ? "x" : "y");
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("N");
    t->mutable_shape()->add_dim()->set_dim_value(4);
  }
  auto* n = g.add_node();
  n->set_op_type(type);
  n->add_input("x");
  n->add_output("y");
  std::string bytes;
  m.SerializeToString(&bytes);
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

class AnalyzeTest : public ::testing::Test {
 protected:
  void SetUp() override { write_bytes(dir.file("free.onnx"), free_batch_relu()); }
  CliResult run(const std::vector<std::string>& args) { return run_cli(args, dir.path()); }
  TempDir dir;
};

}  // namespace

TEST_F(AnalyzeTest, FreeDimensionIsBoundWithAWarning) {
  const CliResult r = run({"analyze", "free.onnx", "-m", "1K"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("warning: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(--input-shape overrides)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("  input    x   1x4 float32\n"), std::string::npos) << r.out;

  const CliResult bound = run({"analyze", "free.onnx", "-m", "1K", "--input-shape", "x:3x4"});
  ASSERT_EQ(bound.exit_code, 0) << bound.err;
  EXPECT_EQ(bound.err, "");
  EXPECT_NE(bound.out.find("  input    x   3x4 float32\n"), std::string::npos) << bound.out;

  const CliResult json = run({"analyze", "free.onnx", "-m", "1K", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(json.err, "");  // --json keeps stderr quiet
}

TEST_F(AnalyzeTest, JsonReport) {
  const CliResult r = run({"analyze", "free.onnx", "-m", "1K+2K", "-f", "4K", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["report"], "tigris-analysis");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["model"]["format"], "onnx");
  EXPECT_EQ(j["model"]["inputs"][0]["shape"], nlohmann::json({1, 4}));
  EXPECT_EQ(j["fast"]["budget_bytes"], 1024);
  EXPECT_EQ(j["fast"]["verdict"], "fits");
  EXPECT_LE(j["fast"]["scheduled_peak_bytes"].get<int>(), 1024);
  EXPECT_EQ(j["fast"]["stages"], 1);
  EXPECT_EQ(j["slow"]["budget_bytes"], 2048);
  for (const char* key : {"spill_bytes", "reload_bytes", "peak_bytes"}) EXPECT_TRUE(j["slow"][key].is_number()) << key;
  EXPECT_TRUE(j["flash"]["plan_bytes"].is_number());
  EXPECT_EQ(j["flash"]["budget_bytes"], 4096);
  EXPECT_EQ(j["stages"].size(), 1u);
  // Halving from a fit: the tried budgets are smaller, stopping at the first failure.
  for (const auto& b : j["budgets_tried"]) EXPECT_LT(b["budget_bytes"].get<int>(), 1024);
}

TEST_F(AnalyzeTest, TheVerdictNeverChangesTheExitStatus) {
  const CliResult tight = run({"analyze", "free.onnx", "-m", "16"});
  EXPECT_EQ(tight.exit_code, 0) << tight.err;
  EXPECT_NE(tight.out.find("does not fit 16 B fast memory"), std::string::npos) << tight.out;
  // A slow pool of 0 is display only for analyze.
  EXPECT_EQ(run({"analyze", "free.onnx", "-m", "1K", "-m", "0"}).exit_code, 0);
}

TEST_F(AnalyzeTest, UnsupportedOperatorsAreAVerdictForAnalyzeAndAFailureForCompile) {
  // A random-number operator has no place in a deterministic plan.
  write_bytes(dir.file("rand.onnx"), free_batch_relu("RandomUniformLike"));
  const CliResult a = run({"analyze", "rand.onnx", "-m", "1K"});
  EXPECT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("cannot compile: 1 unsupported operator\n  RandomUniformLike   "), std::string::npos) << a.out;
  const CliResult c = run({"compile", "rand.onnx", "-m", "1K"});
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_EQ(c.err.substr(c.err.find("Error:")), "Error: no plan written: cannot compile: 1 unsupported operator\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("rand.tgrs")));
}

TEST_F(AnalyzeTest, UsageErrors) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"analyze", "free.onnx", "-m", "1K+"}, "empty memory pool"},
      {{"analyze", "free.onnx", "-m", "1K", "-m", "2K", "-m", "3K"}, "3 memory pools given"},
      {{"analyze", "free.onnx", "-f", "lots"}, "invalid size 'lots' for --flash"},
      {{"analyze", "free.onnx", "--input-shape", "x:1xbx4"}, "dimensions must be integers"},
      {{"analyze", "free.onnx", "--input-shape", "x:0x4"}, "dimensions must be positive"},
      {{"analyze", "free.onnx", "--input-shape", "nope:1x4"}, "nope"},
      {{"analyze"}, "MODEL is required"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = run(args);
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}
