// Mutated and truncated model files never crash the compiler: they load, or they fail with
// one CompileError line that names the file.
#include <gtest/gtest.h>

#include <random>

#include "compiler/api.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;

std::vector<uint8_t> small_cnn() {
  test::OnnxBuilder b;
  b.input("x", {1, 2, 6, 6});
  b.init("w", {3, 2, 3, 3}, std::vector<float>(54, 0.1f));
  b.init("bias", {3}, {0.1f, 0.2f, 0.3f});
  auto& c = b.node("Conv", {"x", "w", "bias"}, {"c"});
  test::OnnxBuilder::attr(c, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"});
  auto& p = b.node("MaxPool", {"r"}, {"p"});
  test::OnnxBuilder::attr(p, "kernel_shape", std::vector<int64_t>{2, 2});
  test::OnnxBuilder::attr(p, "strides", std::vector<int64_t>{2, 2});
  b.node("Flatten", {"p"}, {"y"});
  b.output("y", {1, 27});
  return b.bytes();
}

void expect_clean(const std::vector<uint8_t>& bytes) {
  try {
    compiler::Model m = compiler::load_model_bytes(bytes, "mutant.onnx");
    compiler::Budgets b;
    b.fast = 1 << 20;
    compiler::compile(m, b);  // may refuse, must not crash
  } catch (const compiler::CompileError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.rfind("mutant.onnx", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST(Robustness, TruncatedFilesFailCleanly) {
  std::vector<uint8_t> good = small_cnn();
  for (size_t len = 0; len < good.size(); len += 7)
    expect_clean(std::vector<uint8_t>(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(len)));
}

TEST(Robustness, MutatedFilesFailCleanly) {
  std::vector<uint8_t> good = small_cnn();
  std::mt19937 rng(1234);
  for (int i = 0; i < 3000; ++i) {
    std::vector<uint8_t> m = good;
    int flips = 1 + static_cast<int>(rng() % 4);
    for (int f = 0; f < flips; ++f) m[rng() % m.size()] = static_cast<uint8_t>(rng());
    expect_clean(m);
  }
}

}  // namespace
