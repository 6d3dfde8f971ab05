// The CLI on TFLite models: analyze shows TensorFlow Lite Micro's arena and export rows
// (figures of docs/export.md / the export spec for vww_96_int8: 72.00 KiB head, -24.69 KiB),
// compile writes a plan from the .tflite file, and run gives TFLite Micro's output bytes.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include "tests/cli/cli_harness.h"

namespace {

using namespace tigris::clitest;

std::string tflite(const std::string& model) { return std::string(TIGRIS_MODELS_DIR) + "/tflite/" + model + ".tflite"; }
std::string tflm_ref(const std::string& model, const std::string& file) {
  return std::string(TIGRIS_MODELS_DIR) + "/refs/" + model + ".tflm/" + file;
}

#define REQUIRE_MODEL(m) \
  if (!TIGRIS_HAVE_MODELS || !std::filesystem::exists(tflite(m))) GTEST_SKIP() << m << " is not available"

TEST(TfliteCli, AnalyzeShowsTheTfliteMicroRows) {
  REQUIRE_MODEL("vww_96_int8");
  CliResult r = run_cli({"analyze", tflite("vww_96_int8")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  TFLite Micro arena    72.00 KiB    its planner and reduction scratch; persistent allocations "
                       "and other kernel scratch excluded\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  TFLite Micro export   -24.69 KiB   head 72.00 KiB -> 45.00 KiB, persistent +2.31 KiB, "
                       "+0.25% MACs, reference kernels on arm-none-eabi\n"),
            std::string::npos)
      << r.out;
}

TEST(TfliteCli, AnalyzeJsonHasTheArenaBytes) {
  REQUIRE_MODEL("vww_96_int8");
  CliResult r = run_cli({"analyze", "--json", tflite("vww_96_int8")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["model"]["format"], "tflite");
  EXPECT_EQ(j["tflite_micro"]["tensor_arena_bytes"], 73728);
  EXPECT_EQ(j["tflite_micro"]["export"]["written"], true);
  EXPECT_EQ(j["tflite_micro"]["export"]["total_change_bytes"], -25280);
}

TEST(TfliteCli, AnalyzeKwsExportWritesNothing) {
  REQUIRE_MODEL("kws_ref_model");
  CliResult r = run_cli({"analyze", tflite("kws_ref_model")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("TFLite Micro export   none"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no rewrite lowers the arena, reference kernels on arm-none-eabi"), std::string::npos) << r.out;
}

TEST(TfliteCli, OnnxModelsHaveNoTfliteMicroRows) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder absent";
  CliResult r = run_cli({"analyze", "--json", std::string(TIGRIS_MODELS_DIR) + "/onnx/conv_relu_chain.onnx"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::parse(r.out)["tflite_micro"].is_null());
}

// compile at a budget that partitions the model, then run on TFLM's input 0: the .npy
// written holds exactly TFLM's output bytes (1x2 int8, the file's last two bytes).
TEST(TfliteCli, CompileAndRunGiveTfliteMicroOutput) {
  REQUIRE_MODEL("vww_96_int8");
  TempDir dir;
  CliResult c = run_cli({"compile", "-m", "64k", tflite("vww_96_int8"), "-o", dir.file("vww.tgrs")});
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  for (int k = 0; k < 2; ++k) {
    std::string out = dir.file("out" + std::to_string(k) + ".npy");
    CliResult r = run_cli(
        {"run", dir.file("vww.tgrs"), "-i", tflm_ref("vww_96_int8", "input_" + std::to_string(k) + ".npy"), "-o", out});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    std::vector<uint8_t> got = read_bytes(out),
                         want = read_bytes(tflm_ref("vww_96_int8", "output_" + std::to_string(k) + ".npy"));
    ASSERT_GE(got.size(), 2u);
    ASSERT_GE(want.size(), 2u);
    EXPECT_EQ(std::vector<uint8_t>(got.end() - 2, got.end()), std::vector<uint8_t>(want.end() - 2, want.end()))
        << "input " << k;
  }
}

}  // namespace

namespace {

TEST(TfliteCli, InspectVww) {
  REQUIRE_MODEL("vww_96_int8");
  CliResult r = run_cli({"inspect", tflite("vww_96_int8")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind(tflite("vww_96_int8") + "   TFLite, schema 3, 31 operators in the file, 325.48 KiB\n", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("  input    input_1_int8    1x96x96x3 int8\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  CONV_2D                14"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  activations   int8\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  weights       28 int8 weight tensors, 27 of 28 per channel, symmetric\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\nconverts yes\n"), std::string::npos) << r.out;
}

TEST(TfliteCli, InspectHybridModelListsTheReasons) {
  REQUIRE_MODEL("kws_ref_model_float32");
  CliResult r = run_cli({"inspect", "--json", tflite("kws_ref_model_float32")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["format"], "tflite");
  EXPECT_EQ(j["converts"], false);
  ASSERT_EQ(j["reasons"].size(), 5u);
  EXPECT_EQ(j["reasons"][0],
            "operator 0 (CONV_2D): hybrid operator (float32 activations, INT8 weights); "
            "TFLite Micro refuses hybrid models too");
  CliResult text = run_cli({"inspect", tflite("kws_ref_model_float32")});
  EXPECT_NE(text.out.find("\nconverts no, 5 reasons\n  operator 0 (CONV_2D): hybrid"), std::string::npos) << text.out;
}

}  // namespace

namespace {

// A model Vela compiled for an Ethos-U NPU: one line naming the NPU operator, exit 1, no file.
TEST(TfliteCli, EthosUModelIsRefusedNamingTheNpuOperator) {
  const std::string model = std::string(TIGRIS_MODELS_DIR) + "/tflite-micro/person_detect_vela.tflite";
  if (!TIGRIS_HAVE_MODELS || !std::filesystem::exists(model)) GTEST_SKIP() << model << " is not available";
  TempDir dir;
  CliResult r = run_cli({"compile", model, "-m", "16M", "-o", dir.file("p.tgrs")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "Error: " + model +
                       ": cannot convert the TFLite model: 1 reason: operator 0 (ethos-u): an Arm Ethos-U NPU operator "
                       "(a Vela command stream, which runs only on the NPU); compile the model as it was before "
                       "Vela\n");
  EXPECT_TRUE(dir.entries().empty());
}

}  // namespace
