// tigris codegen through the binary: console output, file names, the generated text's
// figures (derived by hand from the plans of cli/test_plans.h) and every error path.
#include "codegen/codegen_fixture.h"

using namespace tigris::codegentest;

namespace {

class CodegenCli : public ::testing::Test {
 protected:
  void SetUp() override {
    write_bytes(dir.file("conv.tgrs"), write_plan(conv_relu_plan()));
    write_bytes(dir.file("relu8.tgrs"), write_plan(relu_int8_plan()));
    write_bytes(dir.file("exp8.tgrs"), write_plan(int8_exp_plan()));
  }
  CliResult codegen(std::vector<std::string> args) {
    args.insert(args.begin(), "codegen");
    return run_cli(args, dir.path());
  }
  std::string text(const std::string& name) { return read_text(dir.file(name)); }
  TempDir dir;
};

}  // namespace

TEST_F(CodegenCli, AppConsoleAndDefaultOutputBesideThePlan) {
  const CliResult r = codegen({"conv.tgrs"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string source = text("conv.c");
  EXPECT_EQ(r.out,
            "C source written to conv.c\n"
            "  backend   reference\n"
            "  format    app\n"
            "  size      " +
                std::to_string(source.size()) + " bytes\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"conv.c", "conv.tgrs", "exp8.tgrs", "relu8.tgrs"}));
}

TEST_F(CodegenCli, HeaderCommentStatesThePlan) {
  ASSERT_EQ(codegen({"conv.tgrs", "-o", "out.c"}).exit_code, 0);
  const std::string s = text("out.c");
  // conv_relu_plan: 2 ops (Conv, Relu), 2 stages, weights 288 + 16 bytes, budget 5000 B.
  EXPECT_NE(s.find(" *   model       conv_relu, schema 11,"), std::string::npos) << s;
  EXPECT_NE(s.find(" *   ops         2: Conv 1, Relu 1\n"), std::string::npos);
  EXPECT_NE(s.find(" *   stages      2 (0 tiled, 0 in chains)\n"), std::string::npos);
  EXPECT_NE(s.find(" *   weights     304 B, loaded by stage\n"), std::string::npos);
  EXPECT_NE(s.find(" *   budget      4.88 KiB fast;"), std::string::npos);
  EXPECT_NE(s.find(" *   XIP         no\n"), std::string::npos);
  EXPECT_NE(s.find(" *   input       x 1x8x8x2 float32, 512 B\n"), std::string::npos);
  EXPECT_NE(s.find(" *   output      z 1x8x8x4 float32, 1024 B\n"), std::string::npos);
  // Sizes: the plan states a 4096-byte scheduled peak and a 2048-byte slow peak.
  EXPECT_NE(s.find("#define TIGRIS_CODEGEN_FAST_ARENA_BYTES 4096u"), std::string::npos);
  EXPECT_NE(s.find("#define TIGRIS_CODEGEN_SLOW_ARENA_BYTES 2048u"), std::string::npos);
  EXPECT_NE(s.find("#define TIGRIS_CODEGEN_NUM_TENSORS 3u"), std::string::npos);
  // The trim line: float32 ops keep the float data, no op on int16 data leaves the int16 kernels out.
  EXPECT_EQ(s.find("-DTIGRIS_NO_KERNEL_FLOAT32"), std::string::npos);
  EXPECT_NE(s.find("-DTIGRIS_NO_KERNEL_INT16"), std::string::npos);
  // No chain, no tileable record and no If / While: the band and control-flow machinery goes too.
  EXPECT_NE(s.find("-DTIGRIS_NO_BANDS"), std::string::npos);
  EXPECT_NE(s.find("-DTIGRIS_NO_CONTROL_FLOW"), std::string::npos);
  // No WEIGHT_BLOCKS section: nor the block placement and the LZ4 decoder.
  EXPECT_NE(s.find("-DTIGRIS_NO_WEIGHT_BLOCKS"), std::string::npos);
  EXPECT_NE(s.find("-DTIGRIS_NO_STATE"), std::string::npos);  // no state entry
  // No model input or output declared in another dtype: nor the interface's conversions.
  EXPECT_NE(s.find("-DTIGRIS_NO_IFACE_CONVERSION"), std::string::npos);
  // The plan's operators, in opcode order: no other op of the CONV and ACTIVATION families.
  EXPECT_NE(s.find("-DTIGRIS_ONLY_OPS=TIGRIS_OP_CONV,TIGRIS_OP_RELU\n"), std::string::npos) << s;
}

TEST_F(CodegenCli, TrimKeepsTheWeightBlocksOfAPlanWithThem) {
  auto p = conv_relu_plan();
  p.version = 9;
  tigris_tile_plan_v11_t t{};
  p.tile_plans = {t};
  p.stages[1].tile_plan = 0;
  p.compression = TIGRIS_COMPRESSION_LZ4;
  p.weight_blocks = {WeightBlockDesc{0, 0, 2}};
  write_bytes(dir.file("blocks.tgrs"), write_plan(p));
  const CliResult r = codegen({"blocks.tgrs", "-o", "blocks.c"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string s = text("blocks.c");
  EXPECT_EQ(s.find("-DTIGRIS_NO_WEIGHT_BLOCKS"), std::string::npos) << s;
  EXPECT_NE(s.find("-DTIGRIS_NO_BANDS"), std::string::npos);
}

TEST_F(CodegenCli, TrimKeepsTheBandsOfABandedPlan) {
  auto p = conv_relu_plan();
  tigris_tile_plan_v11_t t{};
  t.choices.tileable = 1;
  t.choices.axis = TIGRIS_TILE_AXIS_HEIGHT;
  t.choices.tile_height = 2;
  t.choices.tile_extent_wide = 2;
  t.facts.tile_extent = 2;  // 8 rows in bands of 2, halo 2 (3x3, stride 1)
  t.facts.num_tiles = 4;
  t.facts.original_extent = 8;
  t.facts.halo = 2;
  t.facts.band_axis = 1;
  t.facts.band = TIGRIS_TILE_BAND(TIGRIS_BAND_KIND_STRIPE, 0);
  p.tile_plans = {t};
  p.stages[0].tile_plan = 0;
  write_bytes(dir.file("banded.tgrs"), write_plan(p));
  const CliResult r = codegen({"banded.tgrs", "-o", "banded.c"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string s = text("banded.c");
  EXPECT_NE(s.find(" *   stages      2 (1 tiled, 0 in chains)\n"), std::string::npos) << s;
  EXPECT_EQ(s.find("-DTIGRIS_NO_BANDS"), std::string::npos);
  EXPECT_NE(s.find("-DTIGRIS_NO_CONTROL_FLOW"), std::string::npos);
}

// A build without control flow refuses any SUBGRAPHS section (loader step 11), so a plan with
// one keeps the control-flow path even without an If or While.
TEST_F(CodegenCli, TrimKeepsControlFlowForAPlanWithGraphs) {
  auto p = conv_relu_plan();
  p.subgraphs = {SubgraphDesc{0, 2, {0}, {2}}};  // the main graph alone
  write_bytes(dir.file("graphs.tgrs"), write_plan(p));
  const CliResult r = codegen({"graphs.tgrs", "-o", "graphs.c"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string s = text("graphs.c");
  EXPECT_EQ(s.find("-DTIGRIS_NO_CONTROL_FLOW"), std::string::npos) << s;
  EXPECT_NE(s.find("-DTIGRIS_NO_BANDS"), std::string::npos);
}

// An int8 op writing quantized int16 data (TFLite's int8 -> int16 softmax) needs the int16
// kernels' build: a runtime without them refuses it (loader step 28), so codegen keeps them.
TEST_F(CodegenCli, TrimKeepsInt16ForAnInt8OpWritingInt16) {
  for (const bool int16_out : {false, true}) {
    PlanDesc p;
    p.model_name = "softmax16";
    p.budget = 256;
    p.peak = 64;
    p.scheduled_peak = 64;
    p.quant = {QuantDesc{0.05f, 0, {1 << 30}, {0}},
               QuantDesc{int16_out ? 1.0f / 65536.0f : 1.0f / 256.0f, int16_out ? -32768 : -128, {1 << 30}, {0}}};
    TensorDesc x = tensor("x", {1, 10}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_INT8);
    TensorDesc y = tensor("y", {1, 10}, TIGRIS_TENSOR_MODEL_OUTPUT, int16_out ? TIGRIS_DTYPE_INT16 : TIGRIS_DTYPE_INT8);
    x.quant = 0;
    y.quant = 1;
    p.tensors = {x, y};
    p.ops = {op(TIGRIS_OP_SOFTMAX, "softmax", {0}, {1})};
    p.stages = {stage({0}, {0}, {1}, 64)};
    p.model_inputs = {0};
    p.model_outputs = {1};
    write_bytes(dir.file("softmax16.tgrs"), write_plan(p));
    const CliResult r = codegen({"softmax16.tgrs", "-o", "softmax16.c"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string s = text("softmax16.c");
    EXPECT_EQ(s.find("-DTIGRIS_NO_KERNEL_INT16") == std::string::npos, int16_out) << s;
    EXPECT_NE(s.find("-DTIGRIS_NO_KERNEL_FLOAT32"), std::string::npos) << s;
  }
}

TEST_F(CodegenCli, OneStaticAssertionPerRuntimeLimit) {
  ASSERT_EQ(codegen({"conv.tgrs", "-o", "out.c"}).exit_code, 0);
  const std::string s = text("out.c");
  EXPECT_EQ(count_of(s, "TIGRIS_STATIC_ASSERT("), 7u);
  // 3 tensors; one stage input and output at most; no chains (spatial ops count only in
  // chains), no subgraphs.
  EXPECT_NE(s.find("TIGRIS_STATIC_ASSERT(TIGRIS_MAX_TENSORS >= 3, "), std::string::npos);
  EXPECT_NE(s.find("TIGRIS_STATIC_ASSERT(TIGRIS_MAX_STAGE_INPUTS >= 1, "), std::string::npos);
  EXPECT_NE(s.find("TIGRIS_STATIC_ASSERT(TIGRIS_MAX_STAGE_OUTPUTS >= 1, "), std::string::npos);
  EXPECT_NE(s.find("TIGRIS_STATIC_ASSERT(TIGRIS_MAX_CHAIN_STAGES >= 0, "), std::string::npos);
  EXPECT_NE(s.find("TIGRIS_STATIC_ASSERT(TIGRIS_MAX_SPATIAL_OPS_PER_STAGE >= 0, "), std::string::npos);
  EXPECT_NE(s.find("TIGRIS_STATIC_ASSERT(TIGRIS_MAX_SUBGRAPHS >= 0, "), std::string::npos);
  EXPECT_NE(s.find("TIGRIS_STATIC_ASSERT(TIGRIS_MAX_SUBGRAPH_DEPTH >= 0, "), std::string::npos);
  EXPECT_NE(s.find("tigris_executor_workspace_required(plan)"), std::string::npos);
  EXPECT_NE(s.find("tigris_run_with_workspace_buffer("), std::string::npos);
}

TEST_F(CodegenCli, CoreWritesThePairWithThePrefix) {
  const CliResult r = codegen({"conv.tgrs", "--format", "core", "--name", "kws", "-o", "kws_core.c"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string source = text("kws_core.c"), header = text("kws_core.h");
  EXPECT_EQ(r.out,
            "C source written to kws_core.c\n"
            "  backend   reference\n"
            "  format    core\n"
            "  header    kws_core.h (" +
                std::to_string(header.size()) +
                " bytes)\n"
                "  name      kws\n"
                "  size      " +
                std::to_string(source.size()) + " bytes\n");
  EXPECT_NE(source.find("#include \"kws_core.h\""), std::string::npos);
  EXPECT_NE(header.find("int kws_init(const uint8_t *plan_data"), std::string::npos);
  EXPECT_NE(header.find("#define KWS_FAST_ARENA_BYTES 4096u"), std::string::npos);
  EXPECT_EQ(source.find("int main("), std::string::npos);
  EXPECT_EQ(source.find("static int kws_init("), std::string::npos);  // external linkage in a core
}

TEST_F(CodegenCli, CoreHeaderPathAndDefaultName) {
  const CliResult r = codegen({"conv.tgrs", "--format", "core", "--header", "inc.h"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  header    inc.h ("), std::string::npos);
  EXPECT_NE(r.out.find("  name      tigris_codegen\n"), std::string::npos);
  EXPECT_NE(text("conv.c").find("#include \"inc.h\""), std::string::npos);
  EXPECT_NE(text("inc.h").find("int tigris_codegen_run("), std::string::npos);
}

TEST_F(CodegenCli, AcceleratedBackendsPrepareAndReleaseInt8Plans) {
  ASSERT_EQ(codegen({"relu8.tgrs", "-b", "cmsis-nn", "-o", "cm.c"}).exit_code, 0);
  const std::string cm = text("cm.c");
  EXPECT_NE(cm.find("tigris_cmsis_nn_prepare(&tigris_codegen_plan_, &tigris_codegen_mem_)"), std::string::npos);
  EXPECT_NE(cm.find("tigris_cmsis_nn_deinit(&tigris_codegen_mem_)"), std::string::npos);
  EXPECT_NE(cm.find("tigris_cmsis_nn_fast_arena_required(&tigris_codegen_plan_)"), std::string::npos);
  EXPECT_NE(cm.find("tigris_dispatch_kernel_cmsis_nn"), std::string::npos);
  EXPECT_NE(cm.find("extern const uint8_t tigris_plan_start[];"), std::string::npos);
  EXPECT_NE(cm.find(" *   backend     cmsis-nn: 0 ops native, 1 on the int8 reference"), std::string::npos);

  const CliResult esp_run = codegen({"relu8.tgrs", "-b", "esp-nn", "-o", "esp.c"});
  ASSERT_EQ(esp_run.exit_code, 0) << esp_run.err;
  const std::string esp = text("esp.c");
  EXPECT_NE(esp.find("tigris_esp_nn_prepare(&tigris_codegen_plan_, &tigris_codegen_mem_)"), std::string::npos);
  EXPECT_NE(esp.find("tigris_esp_nn_deinit();"), std::string::npos);
  EXPECT_NE(esp.find("void app_main(void)"), std::string::npos);
  EXPECT_NE(esp.find("MALLOC_CAP_SPIRAM"), std::string::npos);
  EXPECT_NE(esp.find("esp_partition_mmap("), std::string::npos);
}

TEST_F(CodegenCli, FloatPlansFallBackToTheFloatReference) {
  const CliResult r = codegen({"conv.tgrs", "-b", "cmsis-nn", "-o", "cm.c"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  backend   cmsis-nn (float32 plan: float reference kernels)\n"), std::string::npos);
  const std::string s = text("cm.c");
  EXPECT_NE(s.find("tigris_dispatch_kernel, NULL"), std::string::npos);
  EXPECT_EQ(s.find("tigris_cmsis_nn_prepare"), std::string::npos);
  EXPECT_EQ(s.find("TIGRIS_HAS_CMSIS_NN"), std::string::npos);
}

// A float32 section of an int8 plan (dequantize, then Exp) runs on the float reference behind
// an accelerated backend: the adapters hand every call they do not take to the int8 reference
// dispatcher, which hands float32 ops to the float one.
TEST_F(CodegenCli, FloatSectionsOfInt8PlansRunOnTheFloatReference) {
  for (const char* backend : {"cmsis-nn", "esp-nn"}) {
    ASSERT_EQ(codegen({"exp8.tgrs", "-b", backend, "-o", "exp8.c"}).exit_code, 0) << backend;
    EXPECT_NE(text("exp8.c").find(std::string(" *   backend     ") + backend +
                                  ": 0 ops native, 1 on the int8 reference, 1 on the float reference"),
              std::string::npos)
        << backend;
  }
}

TEST_F(CodegenCli, UsageErrorsExitTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {"conv.tgrs", "--header", "x.h"},
      {"conv.tgrs", "--name", "x"},
      {"conv.tgrs", "--format", "core", "--name", "9lives"},
      {"conv.tgrs", "--format", "core", "--name", "a-b"},
      {"conv.tgrs", "--format", "library"},
      {"conv.tgrs", "-b", "tpu"},
      {"conv.tgrs", "-o", "conv.tgrs"},
      {"conv.tgrs", "--format", "core", "--header", "x.c", "-o", "x.c"},
      {},
  };
  for (const auto& args : cases) {
    const CliResult r = codegen(args);
    EXPECT_EQ(r.exit_code, 2) << testing::PrintToString(args) << r.err;
    EXPECT_EQ(r.err.rfind("Error: ", 0), 0u) << r.err;
    EXPECT_EQ(count_of(r.err, "\n"), 1u) << r.err;
  }
  EXPECT_NE(codegen({"conv.tgrs", "--name", "x"}).err.find("--name is only used with --format core"),
            std::string::npos);
  EXPECT_NE(codegen({"conv.tgrs", "-b", "tpu"}).err.find("unknown backend 'tpu'; choose reference, esp-nn or cmsis-nn"),
            std::string::npos);
  EXPECT_NE(codegen({"conv.tgrs", "-o", "conv.tgrs"}).err.find("the output conv.tgrs is the plan itself"),
            std::string::npos);
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"conv.tgrs", "exp8.tgrs", "relu8.tgrs"}));
}

TEST_F(CodegenCli, FailuresExitOneAndWriteNothing) {
  write_bytes(dir.file("notes.txt"), {'h', 'i'});
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"missing.tgrs"}, "Error: missing.tgrs: no such file\n"},
      {{"notes.txt"}, "Error: notes.txt: not a TiGrIS plan; compile the model first (tigris compile)\n"},
      {{"conv.tgrs", "-o", "notes.txt"},
       "Error: notes.txt exists and is not C generated by tigris codegen; not replaced\n"},
  };
  for (const auto& [args, message] : cases) {
    const CliResult r = codegen(args);
    EXPECT_EQ(r.exit_code, 1) << testing::PrintToString(args);
    EXPECT_EQ(r.err, message);
    EXPECT_EQ(r.out, "");
  }
  EXPECT_EQ(dir.entries(), (std::vector<std::string>{"conv.tgrs", "exp8.tgrs", "notes.txt", "relu8.tgrs"}));
  // The reference backend runs the same plan.
  EXPECT_EQ(codegen({"exp8.tgrs", "-o", "exp8.c"}).exit_code, 0);
}
