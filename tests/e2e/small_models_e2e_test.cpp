// The small ONNX models compile and run, at one stage and partitioned, and match a plain
// independent interpreter of their ONNX graphs (onnx_reference.h) on a seeded input.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "e2e/onnx_reference.h"

namespace {

using namespace tigris;

class SmallModel : public ::testing::TestWithParam<const char*> {};

std::vector<float> run(const compiler::Model& m, uint64_t fast, const std::vector<float>& input, size_t* stages) {
  compiler::Budgets b;
  b.fast = fast;
  compiler::CompileResult r = compiler::compile(m, b);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return {};
  *stages = r.schedule.stages.size();
  std::vector<uint8_t> bytes(input.size() * 4);
  std::memcpy(bytes.data(), input.data(), bytes.size());
  test::PlanRun pr =
      test::run_plan(r.plan, {bytes}, static_cast<uint32_t>(r.schedule.slow.peak_bytes + bytes.size() + 4096));
  EXPECT_EQ(pr.error, "");
  if (!pr.error.empty()) return {};
  std::vector<float> out(pr.outputs.at(0).size() / 4);
  std::memcpy(out.data(), pr.outputs[0].data(), out.size() * 4);
  return out;
}

TEST_P(SmallModel, MatchesPlainInterpreter) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder " << TIGRIS_MODELS_DIR << " is absent";
  std::string path = std::string(TIGRIS_MODELS_DIR) + "/onnx/" + GetParam() + ".onnx";
  compiler::Model m = compiler::load_model(path);
  ASSERT_EQ(m.summary().inputs.size(), 1u);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> input(static_cast<size_t>(m.summary().inputs[0].bytes / 4));
  for (float& v : input) v = dist(rng);

  std::ifstream f(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  onnx::ModelProto proto;
  ASSERT_TRUE(proto.ParseFromString(bytes));
  test::RefTensor x{m.summary().inputs[0].shape, std::vector<double>(input.begin(), input.end())};
  test::RefTensor want = test::OnnxReference(proto).run(x);

  size_t stages = 0;
  std::vector<float> whole = run(m, 64u << 20, input, &stages);
  EXPECT_EQ(stages, 1u);
  compiler::Budgets probe;
  probe.fast = 64u << 20;
  uint64_t lo = compiler::schedule(m, probe).fast.minimum_for_partition_bytes;
  std::vector<float> parts = run(m, lo, input, &stages);
  for (const std::vector<float>* got : {&whole, &parts}) {
    ASSERT_EQ(got->size(), want.v.size());
    double max_ref = 0, max_err = 0;
    for (size_t i = 0; i < want.v.size(); ++i) {
      max_ref = std::max(max_ref, std::fabs(want.v[i]));
      max_err = std::max(max_err, std::fabs((*got)[i] - want.v[i]));
    }
    EXPECT_LE(max_err, 1e-4 * std::max(max_ref, 1e-3)) << "max error " << max_err;
  }
}

INSTANTIATE_TEST_SUITE_P(Onnx, SmallModel,
                         ::testing::Values("linear_3op", "conv_relu_chain", "ds_cnn", "fc_autoencoder", "tcn"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
