// Golden tests: the text of analyze and compile (and the demo's inspect and run lines that
// carry no timing) pinned on the bundled demo model and on the small shared ONNX models.
// Each golden file holds the command, stdout, stderr and exit status. Set
// TIGRIS_UPDATE_GOLDEN=1 to rewrite them after an intended change (a compiler change
// moves these figures too), and review the diff before committing it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>

#include "cli/cli_harness.h"

using namespace tigris::clitest;

namespace {

struct GoldenCase {
  std::string name;               // golden/<name>.txt
  std::string model;              // "demo", or a file in the shared models' onnx/ folder
  std::vector<std::string> args;  // after `tigris`; the model is referred to by file name
};

// Names the case in test output instead of dumping its bytes.
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::string golden_path(const std::string& name) {
  return std::string(TIGRIS_SOURCE_DIR) + "/tests/cli/golden/" + name + ".txt";
}

std::string transcript(const std::vector<std::string>& args, const CliResult& r) {
  std::string cmd = "$ tigris";
  for (const auto& a : args) cmd += " " + a;
  return cmd + "\n" + r.out + "[stderr]\n" + r.err + "[exit " + std::to_string(r.exit_code) + "]\n";
}

// Puts the case's model in `dir` under its plain file name; false when it is unavailable.
bool stage_model(const GoldenCase& c, const TempDir& dir) {
  if (c.model == "demo") {
    const CliResult w = run_program(TIGRIS_DEMO_MODEL_BINARY, {"write", dir.path()});
    EXPECT_EQ(w.exit_code, 0) << w.err;
    return w.exit_code == 0;
  }
  const std::string source = std::string(TIGRIS_MODELS_DIR) + "/onnx/" + c.model;
  if (!TIGRIS_HAVE_MODELS || !std::filesystem::exists(source)) return false;
  std::filesystem::create_symlink(source, dir.file(c.model));
  return true;
}

void check_golden(const GoldenCase& c) {
  TempDir dir;
  if (!stage_model(c, dir)) GTEST_SKIP() << c.model << " is not available";
  const std::string actual = transcript(c.args, run_cli(c.args, dir.path()));
  const std::string path = golden_path(c.name);
  if (std::getenv("TIGRIS_UPDATE_GOLDEN")) {
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    write_bytes(path, std::vector<uint8_t>(actual.begin(), actual.end()));
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << "no golden file " << path << "; run with TIGRIS_UPDATE_GOLDEN=1";
  EXPECT_EQ(actual, read_text(path)) << "golden " << c.name << " differs";
}

const std::vector<GoldenCase>& cases() {
  static const std::vector<GoldenCase> all = {
      {"demo_analyze_no_budget", "demo", {"analyze", "demo.onnx"}},
      {"demo_analyze_fits", "demo", {"analyze", "demo.onnx", "-m", "192K+1M", "-f", "64K"}},
      {"demo_analyze_verbose", "demo", {"analyze", "demo.onnx", "-m", "192K", "-m", "1M", "-v"}},
      {"demo_analyze_does_not_fit", "demo", {"analyze", "demo.onnx", "-m", "512+1M", "-f", "16K"}},
      {"demo_compile", "demo", {"compile", "demo.onnx", "-m", "192K+1M", "-f", "64K"}},
      {"demo_compile_does_not_fit", "demo", {"compile", "demo.onnx", "-m", "512+1M"}},
      {"demo_compile_flash_exceeded", "demo", {"compile", "demo.onnx", "-m", "192K+1M", "-f", "16K"}},
      {"demo_inspect_onnx", "demo", {"inspect", "demo.onnx"}},
      {"conv_relu_chain_analyze", "conv_relu_chain.onnx", {"analyze", "conv_relu_chain.onnx", "-m", "32K+256K", "-v"}},
      {"conv_relu_chain_compile", "conv_relu_chain.onnx", {"compile", "conv_relu_chain.onnx", "-m", "64K+256K"}},
      {"ds_cnn_analyze", "ds_cnn.onnx", {"analyze", "ds_cnn.onnx", "-m", "64K+256K", "-f", "128K", "-v"}},
      {"ds_cnn_compile", "ds_cnn.onnx", {"compile", "ds_cnn.onnx", "-m", "64K+256K", "-f", "128K"}},
      {"tcn_analyze", "tcn.onnx", {"analyze", "tcn.onnx", "-m", "12K+64K"}},
      {"fc_autoencoder_analyze", "fc_autoencoder.onnx", {"analyze", "fc_autoencoder.onnx", "-m", "1K+4K"}},
      {"linear_3op_compile", "linear_3op.onnx", {"compile", "linear_3op.onnx", "-m", "4K"}},
  };
  return all;
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

}  // namespace

TEST_P(Golden, TextMatches) { check_golden(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Cli, Golden, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) { return info.param.name; });
