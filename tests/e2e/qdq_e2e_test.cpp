// QDQ ONNX end to end: mobilenet_v2_035_96_2cls_qdq.onnx (uint8 activations, int8 weights,
// int32 biases, float32 boundary) folded into an int8 plan, run on the int8 kernels.
// Reference: the QDQ graph evaluated as the ONNX spec defines it (onnx_reference.h:
// QuantizeLinear / DequantizeLinear exactly, float math between them), on the seeded input
// of refs/. The int8 kernels requantize in integers (TFLite's arithmetic) where the QDQ graph
// rounds float sums: intermediate tensors differ from the reference by 1-2 steps here and
// there (measured per layer), and on this input the two outputs end 2 output steps above
// it. The bound asserted is 2 steps (0.00058, the output range being 0..0.0735).
// refs/mobilenet_v2_035_96_2cls_qdq.output.npy (PyTorch's own quantized model) is not
// used: it gives (0.0496, 0.0) where this QDQ graph evaluated by the spec gives
// (0.0424, 0.0727) and the float model (0.0428, 0.0726), so it does not describe this graph.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>

#include "e2e/onnx_reference.h"
#include "tests/e2e/tflite_support.h"
#include "tigris_loader.h"

namespace {

using namespace tigris;
using namespace tigris::test;

std::string model_path() { return models_dir() + "/onnx/mobilenet_v2_035_96_2cls_qdq.onnx"; }

// The output's quantization step, from the plan.
double output_step(const std::vector<uint8_t>& plan_bytes) {
  tigris_plan_t plan;
  EXPECT_EQ(tigris_plan_load(plan_bytes.data(), static_cast<uint32_t>(plan_bytes.size()), &plan), TIGRIS_OK);
  const tigris_quant_param_t* q = tigris_tensor_quant(&plan, &plan.tensors[plan.model_outputs[0]]);
  EXPECT_NE(q, nullptr);
  return q ? q->scale : 0.0;
}

class QdqMobilenet : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
    input_ = read_npy(models_dir() + "/refs/mobilenet_v2_035_96_2cls_qdq.input.npy");
    std::ifstream f(model_path(), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    ASSERT_TRUE(proto_.ParseFromString(bytes));
    std::vector<float> x = input_.floats();
    want_ = OnnxReference(proto_).run(RefTensor{input_.shape, std::vector<double>(x.begin(), x.end())});
  }

  // Output within two quantization steps of the QDQ reference; returns the plan's shape.
  PlanShape check(uint64_t fast) {
    compiler::Model m = compiler::load_model(model_path());
    CompiledRun r = compile_and_run(m, fast, input_.data);
    EXPECT_EQ(r.run.error, "");
    if (!r.run.error.empty()) return {};
    double step = output_step(r.compile.plan);
    NpyArray got;
    got.data = r.run.outputs.at(0);
    std::vector<float> y = got.floats();
    EXPECT_EQ(y.size(), want_.v.size());
    for (size_t i = 0; i < std::min(y.size(), want_.v.size()); ++i)
      EXPECT_LE(std::fabs(y[i] - want_.v[i]), 2 * step * 1.001)
          << "output " << i << ": " << y[i] << " vs " << want_.v[i];
    EXPECT_LE(r.run.fast_peak, r.run.fast_size);
    return shape_of(r.compile);
  }

  NpyArray input_;
  onnx::ModelProto proto_;
  RefTensor want_;
};

TEST_F(QdqMobilenet, FoldsIntoAnInt8ModelWithAFloatBoundary) {
  compiler::Model m = compiler::load_model(model_path());
  const compiler::ModelSummary& s = m.summary();
  EXPECT_TRUE(s.supported());
  EXPECT_EQ(s.dtype, "int8");
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].dtype, "float32");  // declared; stored int8, converted by tigris_input_write
  EXPECT_EQ(s.inputs[0].shape, (std::vector<int64_t>{1, 3, 96, 96}));
  EXPECT_EQ(s.outputs[0].dtype, "float32");
  // Every Q/DQ folded: 52 Conv, 10 Add, GAP, Flatten, Gemm; the 35 Clips fused.
  EXPECT_LT(s.operators, 70u);
}

TEST_F(QdqMobilenet, WithinTwoStepsOfTheQdqReferenceUntiled) { EXPECT_EQ(check(64u << 20).stages, 1u); }

TEST_F(QdqMobilenet, WithinTwoStepsOfTheQdqReferenceAtTightBudgets) {
  std::vector<uint64_t> budgets = shrinking_budgets(compiler::load_model(model_path()));
  ASSERT_FALSE(budgets.empty());
  size_t tiled = 0;
  for (uint64_t b : budgets) {
    PlanShape s = check(b);
    EXPECT_GT(s.stages, 1u) << "budget " << b;
    tiled += s.tiled;
  }
  EXPECT_GT(tiled, 0u);
}

// The 1280 -> 2 classifier held its int8 input row with the output (1312 B, the floor); in int8
// input-channel bands it keeps its 2-byte output, an int32 accumulator of it and a band of
// input columns, and the floor falls to 480 B (set by a 1x1 Conv's 2-D tile). At the floor the
// classifier runs in input-channel bands, within two steps of the QDQ reference.
TEST_F(QdqMobilenet, Int8InputChannelBandsLowerTheFloor) {
  compiler::Model m = compiler::load_model(model_path());
  compiler::Budgets b;
  b.fast = 1;
  const uint64_t floor = compiler::schedule(m, b).fast.minimum_for_partition_bytes;
  EXPECT_EQ(floor, 480u);
  b.fast = floor;
  const compiler::CompileResult r = compiler::compile(m, b);
  ASSERT_TRUE(r.ok()) << r.error;
  bool input_channels = false;
  for (const compiler::StageSummary& st : r.schedule.stages)
    input_channels = input_channels || (st.kind == "input-channel bands" &&
                                         st.decision.find("int32 accumulator") != std::string::npos);
  EXPECT_TRUE(input_channels);
  check(floor);
}

}  // namespace
