// inspect: plan data from the loader (asserted as data), its text and JSON through
// the binary, ONNX description of hand-checked models, and the error lines.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli/cli_harness.h"
#include "cli/test_plans.h"
#include "compiler/report/format.h"
#include "compiler/report/plan_inspection.h"
#include "tigris_loader.h"

using namespace tigris::clitest;

namespace {

tigris::report::PlanInspection inspect_bytes(const std::vector<uint8_t>& bytes, const std::string& name) {
  tigris_plan_t plan{};
  tigris_plan_limits_t need{};
  const tigris_error_t err = tigris_plan_load_ex(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan, &need);
  EXPECT_EQ(err, TIGRIS_OK) << tigris_error_str(err);
  return tigris::report::inspect_plan(plan, need, name, bytes.size());
}

}  // namespace

TEST(InspectPlan, DataFromTheLoadedPlan) {
  const auto bytes = write_plan(conv_relu_plan());
  const auto r = inspect_bytes(bytes, "dir/cr.tgrs");
  EXPECT_EQ(r.schema, 11u);
  EXPECT_EQ(r.model_name, "conv_relu");
  EXPECT_TRUE(r.show_model_name);
  EXPECT_EQ(r.num_ops, 2u);
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].shape, (std::vector<int64_t>{1, 2, 8, 8}));  // NHWC stored, NCHW declared
  EXPECT_EQ(r.inputs[0].stored_shape, (std::vector<int64_t>{1, 8, 8, 2}));
  EXPECT_EQ(r.inputs[0].layout, "NHWC");
  EXPECT_EQ(r.inputs[0].bytes, 512u);
  ASSERT_EQ(r.op_types.size(), 2u);
  EXPECT_EQ(r.op_types[0].type, "Conv");
  EXPECT_EQ(r.op_types[0].weight_bytes, 304u);
  EXPECT_EQ(r.op_types[1].type, "Relu");
  EXPECT_EQ(r.total_weight_bytes, 304u);
  EXPECT_EQ(r.memory.fast_arena_required, 4096u);  // schema 11: the stated scheduled peak
  EXPECT_EQ(r.memory.budget, 5000u);
  EXPECT_EQ(r.memory.unscheduled_peak, 1234u);
  EXPECT_EQ(r.memory.weight_bytes, 304u);
  EXPECT_FALSE(r.memory.lz4);
  EXPECT_FALSE(r.memory.xip);
  EXPECT_TRUE(r.build_flags.empty());
  ASSERT_EQ(r.stages.size(), 2u);
  EXPECT_EQ(r.stages[0].weight_bytes, 304u);
  EXPECT_EQ(r.stages[0].tiling, "untiled");
  EXPECT_EQ(r.stages[1].inputs, (std::vector<std::string>{"y"}));
  EXPECT_EQ(r.tiled_stages, 0u);
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_EQ(r.steps[0].weight, "w");
  EXPECT_EQ(r.steps[1].stage, 1u);
}

TEST(InspectPlan, TextThroughTheBinary) {
  TempDir dir;
  const auto bytes = write_plan(conv_relu_plan());
  write_bytes(dir.file("cr.tgrs"), bytes);
  const CliResult r = run_cli({"inspect", "cr.tgrs"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const std::string size = tigris::report::format_bytes(bytes.size());
  EXPECT_EQ(r.out, "cr.tgrs   plan, schema 11, model conv_relu, 2 operators, 2 stages, 0 tiled, " + size +
                       "\n"
                       "  input    x   1x2x8x8 float32   (stored float32, NHWC)\n"
                       "  output   z   1x4x8x8 float32   (stored float32, NHWC)\n"
                       "operators   count   weights\n"
                       "  Conv          1     304 B\n"
                       "  Relu          1       0 B\n"
                       "  total         2     304 B\n"
                       "memory\n"
                       "  fast arena    4.00 KiB   required to run\n"
                       "  budget        4.88 KiB   compiled for\n"
                       "  unscheduled   1.21 KiB\n"
                       "  weights       304 B      loaded by stage, uncompressed\n"
                       "runtime build   default limits suffice\n");
}

TEST(InspectPlan, VerboseAddsTables) {
  TempDir dir;
  write_bytes(dir.file("conv_relu.tgrs"), write_plan(conv_relu_plan()));
  const CliResult r = run_cli({"inspect", "-v", "conv_relu.tgrs"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("model conv_relu"), std::string::npos);  // the name equals the file stem
  for (const char* section : {"\nstages\n", "\nsteps\n", "\nparameters\n", "\ntensors\n", "\nweights\n"}) {
    EXPECT_NE(r.out.find(section), std::string::npos) << section;
  }
  EXPECT_NE(r.out.find("  0 conv: kernel 3x3, stride 1x1, pads 1,1,1,1, dilation 1x1, group 1, weight w, bias b\n"),
            std::string::npos)
      << r.out;
}

TEST(InspectPlan, JsonIsVersionedAndComplete) {
  TempDir dir;
  write_bytes(dir.file("cr.tgrs"), write_plan(conv_relu_plan()));
  const CliResult r = run_cli({"inspect", "--json", "cr.tgrs"}, dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inspection_version"], 1);
  EXPECT_EQ(j["format"], "plan");
  EXPECT_EQ(j["schema"], 11);
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({1, 2, 8, 8}));
  EXPECT_EQ(j["inputs"][0]["stored_shape"], nlohmann::json({1, 8, 8, 2}));
  EXPECT_EQ(j["memory"]["fast_arena_required_bytes"], 4096);
  EXPECT_EQ(j["memory"]["weight_bytes"], 304);
  EXPECT_EQ(j["stages"].size(), 2u);
  EXPECT_EQ(j["steps"][0]["spatial"]["kernel"], nlohmann::json({3, 3}));
  EXPECT_EQ(j["runtime_build"]["flags"].size(), 0u);
}

TEST(InspectPlan, LinearTensorsKeepTheirOrder) {
  const auto bytes = write_plan(relu_plan(TIGRIS_TENSOR_LINEAR));
  const auto r = inspect_bytes(bytes, "relu.tgrs");
  EXPECT_EQ(r.inputs[0].shape, (std::vector<int64_t>{1, 2, 3, 4}));
  EXPECT_EQ(r.inputs[0].layout, "as declared");
}

TEST(InspectErrors, OneLineAndExitOne) {
  TempDir dir;
  write_bytes(dir.file("text.onnx"), {'h', 'e', 'l', 'l', 'o'});
  write_bytes(dir.file("empty.tgrs"), {});
  auto plan = write_plan(conv_relu_plan());
  plan.resize(plan.size() - 8);
  write_bytes(dir.file("cut.tgrs"), plan);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"missing.onnx", "Error: missing.onnx: no such file\n"},
      {"text.onnx", "Error: text.onnx: not an ONNX model, TFLite model or TiGrIS plan\n"},
      {"empty.tgrs", "Error: empty.tgrs: empty file\n"},
      {"cut.tgrs", "Error: cut.tgrs: plan size does not match the buffer length (loader error -5)\n"},
      {".", "Error: .: is a directory\n"},
  };
  for (const auto& [file, message] : cases) {
    const CliResult r = run_cli({"inspect", file}, dir.path());
    EXPECT_EQ(r.exit_code, 1) << file;
    EXPECT_EQ(r.err, message);
    EXPECT_EQ(r.out, "");
  }
}

TEST(InspectErrors, LegacyPlanNamesItsSchema) {
#if TIGRIS_HAVE_MODELS
  const CliResult r =
      run_cli({"inspect", std::string(TIGRIS_MODELS_DIR) + "/plans/legacy_schema1_conv_relu_chain.tgrs"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(": plan schema 1; this runtime reads schemas 4 to 11 (compile the model again)\n"),
            std::string::npos)
      << r.err;
#else
  GTEST_SKIP() << "models folder absent";
#endif
}

TEST(InspectPlan, Lz4BlocksAndXipAreReported) {
  PlanDesc desc = conv_relu_plan();
  desc.flags = TIGRIS_FLAG_XIP;
  desc.compression = TIGRIS_COMPRESSION_LZ4;
  desc.weight_blocks = {WeightBlockDesc{0, 0, 2}};  // the conv's weight and bias, stage 0
  const auto bytes = write_plan(desc);
  const auto r = inspect_bytes(bytes, "lz.tgrs");
  EXPECT_TRUE(r.memory.xip);
  EXPECT_TRUE(r.memory.lz4);
  ASSERT_EQ(r.weight_blocks.size(), 1u);
  EXPECT_EQ(r.weight_blocks[0].stage, 0u);
  EXPECT_GT(r.memory.compressed_weight_bytes, 0u);
  EXPECT_EQ(r.memory.compressed_weight_bytes, r.weight_blocks[0].compressed_bytes);
  // The arena holds the stated peak plus the decompressed block.
  EXPECT_GE(r.memory.decompressed_weights, 304u);
  EXPECT_EQ(r.memory.fast_arena_required, 4096u + r.memory.decompressed_weights);

  TempDir dir;
  write_bytes(dir.file("lz.tgrs"), bytes);
  const CliResult text = run_cli({"inspect", "lz.tgrs"}, dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("required to run; 4.00 KiB activations, " +
                          tigris::report::format_bytes(r.memory.decompressed_weights) + " decompressed weights\n"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("read in place (XIP), LZ4 " + tigris::report::format_bytes(r.memory.compressed_weight_bytes)),
            std::string::npos)
      << text.out;
}

TEST(InspectErrors, PlanBeyondTheBuildLimitsNamesTheFlags) {
  // 600 tensors in a chain of ReLUs: more than the default TIGRIS_MAX_TENSORS (512).
  PlanDesc p;
  p.model_name = "long";
  p.budget = p.peak = p.scheduled_peak = 64;
  StageDesc s;
  for (uint16_t i = 0; i < 600; ++i) {
    const uint8_t flags = i == 0 ? TIGRIS_TENSOR_MODEL_INPUT : i == 599 ? TIGRIS_TENSOR_MODEL_OUTPUT : 0;
    const std::string index = std::to_string(i);
    p.tensors.push_back(tensor(std::string("t").append(index), {1, 4}, flags));
    if (i) {
      p.ops.push_back(op(TIGRIS_OP_RELU, std::string("r").append(index), {static_cast<uint16_t>(i - 1)}, {i}));
      s.ops.push_back(static_cast<uint16_t>(i - 1));
    }
  }
  s.inputs = {0};
  s.outputs = {599};
  s.peak_bytes = 64;
  p.stages = {s};
  p.model_inputs = {0};
  p.model_outputs = {599};
  TempDir dir;
  write_bytes(dir.file("long.tgrs"), write_plan(p));
  const CliResult r = run_cli({"inspect", "long.tgrs"}, dir.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "Error: long.tgrs: plan exceeds the executor limits of this build; build the runtime with "
            "-DTIGRIS_MAX_TENSORS=600\n");
}
