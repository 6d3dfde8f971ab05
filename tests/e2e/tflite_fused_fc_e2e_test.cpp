// Float TFLite FULLY_CONNECTED with a fused ReLU (tflite-micro/hello_world_float.tflite)
// against TensorFlow Lite Micro's outputs (refs/tflite-micro/hello_world_float/): the Gemm
// normalization keeps the fused activation.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;

TEST(TflmFusedFullyConnected, HelloWorldFloatMatchesTflm) {
  std::string dir = models_dir() + "/refs/tflite-micro/hello_world_float/";
  if (!TIGRIS_HAVE_MODELS || !std::filesystem::exists(dir + "input_0.npy")) GTEST_SKIP() << dir << " is absent";
  compiler::Model m = compiler::load_model(models_dir() + "/tflite-micro/hello_world_float.tflite");
  int relus = 0;
  for (const ir::Node& n : m.graph().nodes) relus += n.attrs.get_string("fused_activation", "") == "Relu";
  EXPECT_EQ(relus, 2);
  for (int k = 0; k < 4; ++k) {
    NpyArray in = read_npy(dir + "input_" + std::to_string(k) + ".npy");
    std::vector<float> want = read_npy(dir + "output_" + std::to_string(k) + ".npy").floats();
    CompiledRun r = compile_and_run(m, 1u << 20, in.data);
    ASSERT_EQ(r.run.error, "");
    NpyArray got;
    got.data = r.run.outputs.at(0);
    std::vector<float> y = got.floats();
    ASSERT_EQ(y.size(), want.size());
    for (size_t i = 0; i < y.size(); ++i) EXPECT_NEAR(y[i], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i]))) << k;
  }
}

}  // namespace
