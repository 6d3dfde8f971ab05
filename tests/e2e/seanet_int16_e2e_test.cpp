// The 127 int16 (16x8) single-operator models of TensorFlow Lite Micro's integration tests
// (tflite-micro/seanet/: ADD, CONV_2D, LEAKY_RELU, PAD, QUANTIZE, STRIDED_SLICE, SUB,
// TRANSPOSE_CONV), compiled from their .tflite files and run on <name>_input<i>_<dtype>.csv:
// every output element equals <name>_golden_<dtype>.csv, untiled at 16M and at the model's
// floor (banded where the scheduler bands). The goldens come from the TFLite interpreter;
// TensorFlow Lite Micro, which these kernels follow, differs from three of them by one in a
// few elements (its SUB forms the rescaling quotients in float32): there the expected value
// is TensorFlow Lite Micro's, as its own build prints it (tools/tflm-reference seanet_check).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;
namespace fs = std::filesystem;

std::string seanet_dir() { return models_dir() + "/tflite-micro/seanet/"; }

// (model, element) -> TensorFlow Lite Micro's value where it differs from the golden.
const std::map<std::pair<std::string, size_t>, int64_t>& tflm_differs() {
  static const std::map<std::pair<std::string, size_t>, int64_t> m = {
      {{"sub0", 533}, -20182}, {{"sub0", 646}, 16970}, {{"sub1", 616}, -26079}, {{"sub3", 947}, -10483}};
  return m;
}

std::vector<std::string> seanet_models() {
  std::vector<std::string> out;
  if (!fs::is_directory(seanet_dir())) return out;
  for (const auto& e : fs::directory_iterator(seanet_dir()))
    if (e.path().extension() == ".tflite") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<int64_t> read_csv(const std::string& path) {
  std::ifstream f(path);
  std::vector<int64_t> v;
  std::string tok;
  while (std::getline(f, tok, ',')) {
    std::stringstream ss(tok);
    int64_t x;
    while (ss >> x) v.push_back(x);
  }
  return v;
}

// The CSV of `base` with whichever dtype suffix exists, as little-endian bytes; element size 0
// when absent.
struct Array {
  std::vector<int64_t> values;
  size_t elem = 0;
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> b(values.size() * elem);
    for (size_t i = 0; i < values.size(); ++i) {
      if (elem == 2) {
        int16_t x = static_cast<int16_t>(values[i]);
        std::memcpy(&b[i * 2], &x, 2);
      } else {
        int32_t x = static_cast<int32_t>(values[i]);
        std::memcpy(&b[i * 4], &x, 4);
      }
    }
    return b;
  }
};

Array read_array(const std::string& base) {
  Array a;
  if (fs::exists(base + "_int16.csv")) {
    a.values = read_csv(base + "_int16.csv");
    a.elem = 2;
  } else if (fs::exists(base + "_int32.csv")) {
    a.values = read_csv(base + "_int32.csv");
    a.elem = 4;
  }
  return a;
}

std::vector<int64_t> decode(const std::vector<uint8_t>& b, size_t elem) {
  std::vector<int64_t> v;
  for (size_t i = 0; i + elem <= b.size(); i += elem) {
    if (elem == 2) {
      int16_t x;
      std::memcpy(&x, &b[i], 2);
      v.push_back(x);
    } else {
      int32_t x;
      std::memcpy(&x, &b[i], 4);
      v.push_back(x);
    }
  }
  return v;
}

class Seanet : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string base = seanet_dir() + GetParam();
    for (int i = 0;; ++i) {
      Array a = read_array(base + "_input" + std::to_string(i));
      if (a.elem == 0) break;
      inputs_.push_back(a.bytes());
    }
    expected_ = read_array(base + "_golden");
    ASSERT_FALSE(inputs_.empty());
    ASSERT_NE(expected_.elem, 0u) << "no golden for " << GetParam();
    for (const auto& [key, value] : tflm_differs())
      if (key.first == GetParam()) expected_.values.at(key.second) = value;
    model_ = compiler::load_model(base + ".tflite");
  }

  // Compiles at `fast` and checks every element; returns the plan's shape.
  PlanShape check(uint64_t fast) {
    compiler::Budgets b;
    b.fast = fast;
    compiler::CompileResult c = compiler::compile(model_, b);
    EXPECT_TRUE(c.ok()) << GetParam() << " at " << fast << ": " << c.error;
    if (!c.ok()) return {};
    PlanRun r = run_plan(c.plan, inputs_, static_cast<uint32_t>(c.schedule.slow.peak_bytes + (1u << 20)));
    EXPECT_EQ(r.error, "") << GetParam() << " at " << fast;
    if (!r.error.empty()) return {};
    std::vector<int64_t> got = decode(r.outputs.at(0), expected_.elem);
    EXPECT_EQ(got.size(), expected_.values.size()) << GetParam();
    size_t bad = 0, first = 0;
    for (size_t i = 0; i < std::min(got.size(), expected_.values.size()); ++i)
      if (got[i] != expected_.values[i] && bad++ == 0) first = i;
    EXPECT_EQ(bad, 0u) << GetParam() << " at " << fast << ": " << bad << " elements differ, first " << first << " ("
                       << got[first] << " vs " << expected_.values[first] << ")";
    return shape_of(c);
  }

  std::vector<std::vector<uint8_t>> inputs_;
  Array expected_;
  compiler::Model model_;
};

TEST_P(Seanet, MatchesTheGoldenUntiled) { EXPECT_EQ(check(16u << 20).stages, 1u); }

TEST_P(Seanet, MatchesTheGoldenAtItsFloor) {
  compiler::Budgets b;
  b.fast = 16u << 20;
  uint64_t floor = compiler::schedule(model_, b).fast.minimum_for_partition_bytes;
  ASSERT_GT(floor, 0u);
  check(floor);
}

INSTANTIATE_TEST_SUITE_P(Models, Seanet, ::testing::ValuesIn(seanet_models()),
                         [](const auto& info) { return info.param; });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Seanet);

// Operators with a band form (as their int8 twins) run banded at the floor of their model:
// the same bytes come out of row bands and 2-D tiles. (PAD and STRIDED_SLICE run whole, as
// the int8 ones do.)
TEST(SeanetBanded, BandedOperatorsAreBandedAtTheirFloor) {
  if (!fs::is_directory(seanet_dir())) GTEST_SKIP() << seanet_dir() << " is absent";
  for (const char* name : {"add14", "conv0", "leaky_relu0", "quantize0", "sub0", "transpose_conv0"}) {
    compiler::Model m = compiler::load_model(seanet_dir() + name + ".tflite");
    compiler::Budgets b;
    b.fast = 16u << 20;
    b.fast = compiler::schedule(m, b).fast.minimum_for_partition_bytes;
    compiler::CompileResult c = compiler::compile(m, b);
    ASSERT_TRUE(c.ok()) << name << ": " << c.error;
    EXPECT_GT(shape_of(c).tiled, 0u) << name << " is not banded at its floor " << b.fast;
  }
}

// All of them are there (the test would pass vacuously on a partial folder).
TEST(SeanetSet, HoldsTheWholeSet) {
  if (!fs::is_directory(seanet_dir())) GTEST_SKIP() << seanet_dir() << " is absent";
  EXPECT_EQ(seanet_models().size(), 127u);
}

}  // namespace
