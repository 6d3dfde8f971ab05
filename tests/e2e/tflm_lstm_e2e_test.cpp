// The UNIDIRECTIONAL_SEQUENCE_LSTM models TensorFlow Lite Micro ships, against its outputs
// (refs/tflite-micro/<model>/: the inputs were run in order on one interpreter, so h and c
// carry over): compiled, the state initialised once, then every input run in sequence on it;
// outputs byte for byte, the float model's too (TflmReferences checks the same models with a
// float tolerance; the float LSTM follows TensorFlow Lite Micro's order of operations, so its
// bits match), untiled at 16M and at the scheduler's floor.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;
namespace fs = std::filesystem;

std::string ref_dir(const std::string& m) { return models_dir() + "/refs/tflite-micro/" + m + "/"; }

class TflmLstm : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    const std::string m = GetParam();
    const std::string path = models_dir() + "/tflite-micro/" + m + ".tflite";
    if (!fs::exists(path) || !fs::exists(ref_dir(m) + "STATEFUL")) GTEST_SKIP() << "no model or references";
    for (int k = 0; fs::exists(ref_dir(m) + "output_" + std::to_string(k) + ".npy"); ++k) {
      inputs_.push_back(read_npy(ref_dir(m) + "input_" + std::to_string(k) + ".npy").data);
      outputs_.push_back(read_npy(ref_dir(m) + "output_" + std::to_string(k) + ".npy").data);
    }
    ASSERT_FALSE(inputs_.empty());
    model_ = compiler::load_model(path);
  }

  // Returns the plan's stage count.
  size_t check_at(uint64_t fast) {
    compiler::Budgets b;
    b.fast = fast;
    compiler::CompileResult c = compiler::compile(model_, b);
    EXPECT_TRUE(c.ok()) << GetParam() << " at " << fast << ": " << c.error;
    if (!c.ok()) return 0;
    std::vector<uint8_t> state;  // prepared by the first run, then carried
    for (size_t k = 0; k < inputs_.size(); ++k) {
      PlanRun r =
          run_plan(c.plan, {inputs_[k]}, static_cast<uint32_t>(c.schedule.slow.peak_bytes + (1u << 20)), 0, &state);
      EXPECT_EQ(r.error, "") << GetParam() << " input " << k << " at " << fast;
      if (!r.error.empty()) return 0;
      EXPECT_EQ(r.outputs.at(0), outputs_[k])
          << GetParam() << " input " << k << " (in sequence) at " << fast << " differs from TensorFlow Lite Micro";
    }
    return c.schedule.stages.size();
  }

  std::vector<std::vector<uint8_t>> inputs_, outputs_;
  compiler::Model model_;
};

TEST_P(TflmLstm, EveryInputInSequenceAt16M) { EXPECT_EQ(check_at(16u << 20), 1u); }

TEST_P(TflmLstm, EveryInputInSequenceAtItsFloor) {
  compiler::Budgets b;
  b.fast = 16u << 20;
  const uint64_t floor = compiler::schedule(model_, b).fast.minimum_for_partition_bytes;
  ASSERT_GT(floor, 0u);
  check_at(floor);
}

INSTANTIATE_TEST_SUITE_P(Models, TflmLstm,
                         ::testing::Values("trained_lstm", "trained_lstm_int8", "micro_speech_lstm",
                                           "dtln_noise_suppression"));

}  // namespace
