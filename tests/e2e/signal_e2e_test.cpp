// TensorFlow Lite Micro's audio preprocessor (the signal library's front end of micro_speech)
// on inputs the random references do not reach: 12 frames in sequence (signal_inputs.h:
// silence, a full-scale sweep, full-scale noise, alternating extremes, DC, quiet noise),
// against TFLM's outputs for the same sequence on one interpreter (data/signal/*.npy, made
// with a scratch build of ../shared/tools/tflm-reference), at 16M and at the floor. Also:
// silence gives the hand-derived floor feature, and tigris_state_init resets the noise
// estimate as TFLM's Reset does (the first reference output comes back). And micro_speech's
// whole pipeline (audio -> features -> scores) chained on two plans, against TFLM's.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>

#include "tests/e2e/signal_inputs.h"
#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;
namespace fs = std::filesystem;

std::string model_path(const std::string& m) { return models_dir() + "/tflite-micro/" + m + ".tflite"; }

std::vector<uint8_t> frame_bytes(int k) {
  std::vector<int16_t> x = signal_frame(k);
  std::vector<uint8_t> b(x.size() * 2);
  std::memcpy(b.data(), x.data(), b.size());
  return b;
}

compiler::CompileResult compiled(const std::string& m, uint64_t fast) {
  compiler::Model model = compiler::load_model(model_path(m));
  compiler::Budgets b;
  b.fast = fast;
  if (fast == 0) {
    b.fast = 16u << 20;
    b.fast = compiler::schedule(model, b).fast.minimum_for_partition_bytes;
  }
  return compiler::compile(model, b);
}

PlanRun run(const compiler::CompileResult& c, const std::vector<uint8_t>& in, std::vector<uint8_t>* state) {
  return run_plan(c.plan, {in}, static_cast<uint32_t>(c.schedule.slow.peak_bytes + in.size() + (1u << 20)), 0, state);
}

class SignalSequence : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!fs::exists(model_path(GetParam()))) GTEST_SKIP() << "no model " << model_path(GetParam());
  }
};

// The 12-frame sequence against TFLM, untiled and at the floor.
TEST_P(SignalSequence, MatchesTflmOnSweepsSilenceAndNoise) {
  const NpyArray ref = read_npy(std::string(TIGRIS_SIGNAL_REFS) + "/" + GetParam() + ".npy");
  ASSERT_EQ(ref.shape, (std::vector<int64_t>{kSignalSteps, 40}));
  const size_t row = ref.data.size() / kSignalSteps;
  for (uint64_t fast : {uint64_t{16u << 20}, uint64_t{0}}) {
    compiler::CompileResult c = compiled(GetParam(), fast);
    ASSERT_TRUE(c.ok()) << c.error;
    std::vector<uint8_t> state;
    for (int k = 0; k < kSignalSteps; ++k) {
      PlanRun r = run(c, frame_bytes(k), &state);
      ASSERT_EQ(r.error, "") << "frame " << k;
      const std::vector<uint8_t> expect(ref.data.begin() + static_cast<long>(k * row),
                                        ref.data.begin() + static_cast<long>((k + 1) * row));
      EXPECT_EQ(r.outputs.at(0), expect) << GetParam() << " frame " << k << " (in sequence, at "
                                         << (fast ? std::to_string(fast) : std::string("the floor"))
                                         << ") differs from TensorFlow Lite Micro";
    }
  }
}

// Silence: every stage yields 0, the log 0; the int8 tail maps 0 to (0·256 + 333) / 666 − 128
// = −128, the float tail to 0.
TEST_P(SignalSequence, SilenceGivesTheFloorFeature) {
  compiler::CompileResult c = compiled(GetParam(), 16u << 20);
  ASSERT_TRUE(c.ok()) << c.error;
  std::vector<uint8_t> state;
  PlanRun r = run(c, std::vector<uint8_t>(2 * kFrame, 0), &state);
  ASSERT_EQ(r.error, "");
  const bool int8 = GetParam().find("int8") != std::string::npos;
  EXPECT_EQ(r.outputs.at(0), std::vector<uint8_t>(int8 ? 40 : 160, int8 ? 0x80 : 0x00));
}

// The noise estimate carries over (a frame after others differs from the same frame first)
// and tigris_state_init restores TFLM's freshly reset estimate.
TEST_P(SignalSequence, StateInitResetsTheNoiseEstimate) {
  const std::string refs = models_dir() + "/refs/tflite-micro/" + GetParam() + "/";
  if (!fs::exists(refs + "output_0.npy")) GTEST_SKIP() << "no references in " << refs;
  compiler::CompileResult c = compiled(GetParam(), 16u << 20);
  ASSERT_TRUE(c.ok()) << c.error;
  const std::vector<uint8_t> first = read_npy(refs + "input_0.npy").data;
  const std::vector<uint8_t> fresh = read_npy(refs + "output_0.npy").data;
  std::vector<uint8_t> state;
  for (int k = 0; k < 4; ++k) ASSERT_EQ(run(c, frame_bytes(5 + k % 3), &state).error, "");
  PlanRun carried = run(c, first, &state);
  ASSERT_EQ(carried.error, "");
  EXPECT_NE(carried.outputs.at(0), fresh) << "the noise estimate did not carry over";
  tigris_plan_t plan;
  ASSERT_EQ(tigris_plan_load(c.plan.data(), static_cast<uint32_t>(c.plan.size()), &plan), TIGRIS_OK);
  ASSERT_EQ(tigris_state_init(&plan, state.data(), state.size()), TIGRIS_EXEC_OK);
  PlanRun reset = run(c, first, &state);
  ASSERT_EQ(reset.error, "");
  EXPECT_EQ(reset.outputs.at(0), fresh);
}

// micro_speech's whole pipeline, chained on TiGrIS as TFLM's example chains it: 49 features
// (480 samples every 320) from audio_preprocessor_int8 on one state, then micro_speech_quantized
// on the 49 × 40 features; both against TFLM's run of the same second of audio
// (signal_second(); data/signal/micro_speech_*.npy), with each plan at 16M and at its floor.
TEST(SignalMicroSpeech, WholePipelineMatchesTflm) {
  const std::string pre = "audio_preprocessor_int8", ms = "micro_speech_quantized";
  if (!fs::exists(model_path(pre)) || !fs::exists(model_path(ms))) GTEST_SKIP() << "no models";
  const std::string refs = std::string(TIGRIS_SIGNAL_REFS) + "/";
  const std::vector<uint8_t> want_features = read_npy(refs + "micro_speech_features.npy").data;
  const std::vector<uint8_t> want_scores = read_npy(refs + "micro_speech_scores.npy").data;
  const std::vector<int16_t> audio = signal_second();
  for (uint64_t fast : {uint64_t{16u << 20}, uint64_t{0}}) {
    compiler::CompileResult cp = compiled(pre, fast), cm = compiled(ms, fast);
    ASSERT_TRUE(cp.ok() && cm.ok()) << cp.error << cm.error;
    std::vector<uint8_t> state, features;
    for (int k = 0; k < 49; ++k) {
      std::vector<uint8_t> frame(2 * kFrame);
      std::memcpy(frame.data(), audio.data() + 320 * k, frame.size());
      PlanRun r = run(cp, frame, &state);
      ASSERT_EQ(r.error, "") << "window " << k;
      features.insert(features.end(), r.outputs.at(0).begin(), r.outputs.at(0).end());
    }
    EXPECT_EQ(features, want_features) << "features at budget " << fast;
    PlanRun s = run(cm, features, nullptr);
    ASSERT_EQ(s.error, "");
    EXPECT_EQ(s.outputs.at(0), want_scores) << "scores at budget " << fast;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SignalSequence,
                         ::testing::Values("audio_preprocessor_int8", "audio_preprocessor_float"));

}  // namespace
