// The PyTorch QDQ export of zoo/ (mobilenet_v2_224_qdq_fbgemm.onnx, as torch.onnx.export
// wrote it: Constant-node operands, ConstantOfShape -> Cast bias zero points, uint8 -> uint8
// Casts, per-channel weights) folds into an int8 plan and matches the graph evaluated as the
// ONNX specification defines it, layer by layer (qdq_layers.h): each layer computed from the
// plan's own inputs gives >= 99% of its values equal and none more than one step apart; the
// cumulative figures and the end-to-end step difference and argmax are printed.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "e2e/qdq_layers.h"
#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;

std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
}

TEST(ZooQdq, MobilenetV2FbgemmFoldsIntoInt8WithoutRunTimeCasts) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
  compiler::Model m = compiler::load_model(zoo("mobilenet_v2_224_qdq_fbgemm.onnx"));
  const compiler::ModelSummary& s = m.summary();
  ASSERT_TRUE(s.supported()) << s.unsupported_operators.at(0).name << ": " << s.unsupported_operators[0].reason;
  EXPECT_EQ(s.dtype, "int8");
  EXPECT_EQ(s.inputs.at(0).dtype, "float32");
  EXPECT_EQ(s.outputs.at(0).dtype, "float32");
  // 52 convolutions (their 35 ReLU6 Clips fused), 10 Adds, the pool, the classifier: nothing else runs,
  // no Cast (uint8 -> uint8, quantize, dequantize) and no copy.
  std::map<std::string, int> ops;
  for (const compiler::OperatorSummary& o : s.ops) ++ops[o.type];
  EXPECT_EQ(ops["Conv"] + ops["DepthwiseConv"], 52);
  EXPECT_EQ(ops["Add"], 10);
  EXPECT_EQ(ops["GlobalAveragePool"], 1);
  EXPECT_EQ(ops["Gemm"], 1);
  EXPECT_EQ(s.operators, 64u);
  int clipped = 0;
  for (const ir::Node& n : m.graph().nodes) clipped += n.attrs.has("fused_clip");
  EXPECT_EQ(clipped, 35);  // the ReLU6 after every expansion and depthwise conv
}

TEST(ZooQdq, MobilenetV2FbgemmMatchesTheSpecificationLayerByLayer) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
  NpyArray in = read_npy(zoo("mobilenet_v2_224_qdq_fbgemm.input.npy"));
  QdqComparison c = compare_qdq_layers(file_bytes(zoo("mobilenet_v2_224_qdq_fbgemm.onnx")),
                                       "mobilenet_v2_224_qdq_fbgemm.onnx", in.floats(), 16u << 20);
  ASSERT_EQ(c.error, "");
  print_comparison("mobilenet_v2_224_qdq_fbgemm", c);
  ASSERT_EQ(c.isolated.size(), 63u);  // every quantized layer (the classifier writes the float output)
  for (const LayerDiff& d : c.isolated) {
    EXPECT_GE(d.equal_share(), 0.99) << d.name;
    EXPECT_LE(d.max_steps, 1) << d.name;
    // The values that differ are near-ties of the requantization: within 1/128 step of one.
    EXPECT_LT(d.tie_distance, 1.0 / 128) << d.name;
  }
  EXPECT_EQ(c.argmax, c.reference_argmax);
  // The zoo's own evaluation of this graph by the specification (M.onnxref_output.npy, float32
  // arithmetic between the Q/DQ where this interpreter uses double) is itself several steps
  // from the interpreter's: the network amplifies single-step roundings (the cumulative
  // columns above), so two faithful evaluations part. Both pick the same class as the plan.
  std::vector<float> shipped = read_npy(zoo("mobilenet_v2_224_qdq_fbgemm.onnxref_output.npy")).floats();
  ASSERT_EQ(shipped.size(), c.reference_output.size());
  const double step = 0.007954751141369343;  // the output's scale (meta.json)
  double interp = 0;
  for (size_t i = 0; i < shipped.size(); ++i) interp = std::max(interp, std::fabs(shipped[i] - c.reference_output[i]));
  std::printf("  onnxref_output.npy: %.1f steps from the interpreter, argmax %d\n", interp / step,
              argmax_of(std::vector<double>(shipped.begin(), shipped.end())));
  EXPECT_EQ(argmax_of(std::vector<double>(shipped.begin(), shipped.end())), c.argmax);
}

}  // namespace

namespace {

TEST(ZooQdq, MobilenetV2FbgemmBandedGivesTheSameBytes) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << models_dir() << " is absent";
  compiler::Model m = compiler::load_model(zoo("mobilenet_v2_224_qdq_fbgemm.onnx"));
  NpyArray in = read_npy(zoo("mobilenet_v2_224_qdq_fbgemm.input.npy"));
  CompiledRun whole = compile_and_run(m, 16u << 20, in.data);
  ASSERT_EQ(whole.run.error, "");
  compiler::Budgets probe;
  probe.fast = 16u << 20;
  compiler::ScheduleResult s = compiler::schedule(m, probe);
  uint64_t lo = s.fast.minimum_for_partition_bytes, hi = s.fast.scheduled_peak_bytes;
  for (uint64_t budget : {lo + (hi - lo) / 4, uint64_t{64} * 1024, lo}) {
    CompiledRun parts = compile_and_run(m, budget, in.data);
    ASSERT_EQ(parts.run.error, "") << budget;
    PlanShape shape = shape_of(parts.compile);
    EXPECT_GT(shape.stages, 1u) << budget;
    EXPECT_GT(shape.tiled, 0u) << budget;
    EXPECT_EQ(parts.run.outputs.at(0), whole.run.outputs.at(0)) << "at " << budget << " bytes";
  }
}

}  // namespace
