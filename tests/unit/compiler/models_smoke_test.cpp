// The shared ONNX models load, normalize, schedule and emit plans the runtime loader accepts.
#include <gtest/gtest.h>

#include <filesystem>

#include "compiler/api.h"
#include "tigris_loader.h"

namespace {

using namespace tigris::compiler;

const char* kModels[] = {"linear_3op", "conv_relu_chain",          "ds_cnn",           "fc_autoencoder",
                         "tcn",        "mobilenet_v2_035_96_2cls", "mobilenet_v2_224", "unet_small_128"};

class ModelSmoke : public ::testing::TestWithParam<const char*> {};

TEST_P(ModelSmoke, CompilesToALoadablePlan) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << TIGRIS_MODELS_DIR << " is absent";
  std::string path = std::string(TIGRIS_MODELS_DIR) + "/onnx/" + GetParam() + ".onnx";
  Model m = load_model(path);
  const ModelSummary& s = m.summary();
  for (const auto& u : s.unsupported_operators) ADD_FAILURE() << u.name << " " << u.type << ": " << u.reason;
  Budgets b;
  b.fast = 64u << 20;
  CompileResult r = compile(m, b);
  ASSERT_TRUE(r.ok()) << r.error;
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(r.plan.data(), static_cast<uint32_t>(r.plan.size()), &plan), TIGRIS_OK);
  EXPECT_EQ(plan.header->num_ops, s.operators);
  EXPECT_EQ(plan.scheduled_peak, r.schedule.fast.scheduled_peak_bytes);
}

INSTANTIATE_TEST_SUITE_P(Onnx, ModelSmoke, ::testing::ValuesIn(kModels),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
