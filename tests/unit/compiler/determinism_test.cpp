// The same model and budgets give byte-identical plans, loaded twice or compiled twice.
#include <gtest/gtest.h>

#include "compiler/api.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;

std::vector<uint8_t> plan_of(const std::vector<uint8_t>& model, uint64_t fast) {
  compiler::Model m = compiler::load_model_bytes(model, "m.onnx");
  compiler::Budgets b;
  b.fast = fast;
  compiler::CompileResult r = compiler::compile(m, b);
  EXPECT_TRUE(r.ok()) << r.error;
  return r.plan;
}

TEST(Determinism, SameInputSameBytes) {
  test::OnnxBuilder b;
  b.input("x", {1, 3, 8, 8});
  b.init("w", {4, 3, 3, 3}, std::vector<float>(108, 0.5f));
  b.init("w2", {4, 1, 3, 3}, std::vector<float>(36, 0.25f));
  b.node("Conv", {"x", "w"}, {"c"});
  auto& dw = b.node("Conv", {"c", "w2"}, {"d"});
  test::OnnxBuilder::attr(dw, "group", int64_t{4});
  b.node("Add", {"d", "d"}, {"s"});
  b.node("Flatten", {"s"}, {"y"});
  b.output("y", {1, 64});
  std::vector<uint8_t> model = b.bytes();
  for (uint64_t fast : {uint64_t{1} << 20, uint64_t{3000}}) {
    std::vector<uint8_t> first = plan_of(model, fast);
    EXPECT_FALSE(first.empty());
    EXPECT_EQ(first, plan_of(model, fast));
  }
}

TEST(Determinism, RealModelTwice) {
  if (!TIGRIS_HAVE_MODELS) GTEST_SKIP() << "models folder is absent";
  std::string path = std::string(TIGRIS_MODELS_DIR) + "/onnx/mobilenet_v2_035_96_2cls.onnx";
  compiler::Model m = compiler::load_model(path);
  compiler::Budgets b;
  b.fast = 64u << 20;
  const uint64_t whole = compiler::schedule(m, b).fast.scheduled_peak_bytes;
  b.fast = 1;  // below everything: the report states the floor
  const uint64_t lo = compiler::schedule(m, b).fast.minimum_for_partition_bytes;
  b.fast = lo + (whole - lo) / 4;  // several stages
  compiler::CompileResult r1 = compiler::compile(m, b);
  compiler::CompileResult r2 = compiler::compile(compiler::load_model(path), b);
  ASSERT_TRUE(r1.ok()) << r1.error;
  EXPECT_GT(r1.schedule.stages.size(), 1u);
  EXPECT_EQ(r1.plan, r2.plan);
}

}  // namespace
