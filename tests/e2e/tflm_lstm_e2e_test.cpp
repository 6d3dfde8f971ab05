// The UNIDIRECTIONAL_SEQUENCE_LSTM models TensorFlow Lite Micro ships, against its outputs
// (refs/tflite-micro/<model>/: the inputs were run in order on one interpreter, so h and c
// carry over): compiled, the state initialised once (tigris_state_init), then every input run
// in sequence with tigris_run_with_state; outputs byte for byte (float ones too), untiled at
// 16M and at the scheduler's floor.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;
namespace fs = std::filesystem;

std::string ref_dir(const std::string& m) { return models_dir() + "/refs/tflite-micro/" + m + "/"; }

// Runs every input in order on one state buffer; returns the outputs (caller order) or an error.
std::vector<std::vector<uint8_t>> run_sequence(const std::vector<uint8_t>& bytes,
                                               const std::vector<std::vector<uint8_t>>& inputs, uint32_t slow_size,
                                               std::string& error) {
  std::vector<std::vector<uint8_t>> outs;
  tigris_plan_t plan;
  if (tigris_plan_load(bytes.data(), static_cast<uint32_t>(bytes.size()), &plan) != TIGRIS_OK) {
    error = "plan load";
    return outs;
  }
  const size_t state_size = tigris_state_required(&plan);
  if (state_size == 0) {
    error = "the plan keeps no state";
    return outs;
  }
  std::vector<uint8_t> state(state_size);
  if (tigris_state_init(&plan, state.data(), state.size()) != TIGRIS_EXEC_OK) {
    error = "state init";
    return outs;
  }
  const uint32_t fast_size = tigris_fast_arena_required(&plan);
  std::unique_ptr<void, FreeDeleter> fast(std::aligned_alloc(64, (fast_size + 64) / 64 * 64));
  std::unique_ptr<void, FreeDeleter> slow(std::aligned_alloc(64, (slow_size + 63) / 64 * 64));
  std::vector<uint8_t> ws(tigris_executor_workspace_required(&plan) + 64);
  tigris_kernel_fn kernel =
      tigris_plan_data_dtype(&plan) == TIGRIS_DTYPE_INT8 ? tigris_dispatch_kernel_s8 : tigris_dispatch_kernel;
  for (const std::vector<uint8_t>& input : inputs) {
    std::vector<void*> ptrs(plan.header->num_tensors, nullptr);
    tigris_mem_t mem;
    if (tigris_mem_init(&mem, ptrs.data(), plan.header->num_tensors, fast.get(), fast_size, slow.get(), slow_size) !=
        TIGRIS_MEM_OK) {
      error = "mem init";
      return outs;
    }
    const uint16_t t = plan.model_inputs[0];
    std::vector<uint8_t> stored = to_stored(plan, t, input);
    if (tigris_input_write(&plan, &mem, t, stored.data(), static_cast<uint32_t>(stored.size())) != TIGRIS_OK) {
      error = "input write";
      return outs;
    }
    tigris_exec_error_t xe =
        tigris_run_with_state(&plan, &mem, kernel, nullptr, nullptr, ws.data(), ws.size(), state.data(), state.size());
    if (xe != TIGRIS_EXEC_OK) {
      error = std::string("run: ") + tigris_exec_error_str(xe);
      return outs;
    }
    const uint16_t o = plan.model_outputs[0];
    std::vector<uint8_t> out(tigris_iface_bytes(&plan, o));
    if (tigris_output_read(&plan, &mem, o, out.data(), static_cast<uint32_t>(out.size())) != TIGRIS_OK) {
      error = "output read";
      return outs;
    }
    outs.push_back(to_caller(plan, o, out));
  }
  return outs;
}

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
    std::string error;
    std::vector<std::vector<uint8_t>> got =
        run_sequence(c.plan, inputs_, static_cast<uint32_t>(c.schedule.slow.peak_bytes + (1u << 20)), error);
    EXPECT_EQ(error, "") << GetParam() << " at " << fast;
    EXPECT_EQ(got.size(), outputs_.size());
    for (size_t k = 0; k < got.size() && k < outputs_.size(); ++k)
      EXPECT_EQ(got[k], outputs_[k]) << GetParam() << " input " << k << " (in sequence) at " << fast
                                     << " differs from TensorFlow Lite Micro";
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
