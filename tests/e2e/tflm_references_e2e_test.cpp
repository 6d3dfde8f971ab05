// Every TFLite model that has TensorFlow Lite Micro references, found by walking the
// reference folders (refs/<model>.tflm/ for tflite/, refs/tflite-micro/<model>/ for
// tflite-micro/), compiled from its .tflite file and run on every recorded input: int8 and
// int16 outputs byte for byte, float32 within 1e-5 relative. Each runs untiled at 16M and
// at its floor (the smallest budget the scheduler plans for; one byte less is refused);
// float models also at shrinking budgets between the two (banded, chained stages), since a
// float model is where a lost fused activation showed (hello_world_float).
// Stateful models (a STATEFUL file: TensorFlow Lite Micro ran the inputs in order on one
// interpreter, never reset) run theirs in order on one state buffer, prepared once with
// tigris_state_init, at every budget. Models listed in tflm_refused.txt are not converted
// yet: TflmRefused checks they still are refused, with the listed reason, so the list
// shrinks as operators land.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>

#include "tests/e2e/tflite_support.h"

namespace {

using namespace tigris;
using namespace tigris::test;
namespace fs = std::filesystem;

struct RefModel {
  std::string name, model_path, ref_dir;
};

std::string param_name(const RefModel& m) {
  std::string s = m.name;
  for (char& c : s)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return s;
}

// tflm_refused.txt: `<model> <the text its refusal contains>` per line, # comments.
std::map<std::string, std::string> refused_models() {
  std::map<std::string, std::string> out;
  std::ifstream in(TIGRIS_TFLM_REFUSED_LIST);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    out[line.substr(0, space)] = space == std::string::npos ? "" : line.substr(line.find_first_not_of(' ', space));
  }
  return out;
}

// Reference folders with their model file, in name order: the converted ones, or
// (`refused`) the ones tflm_refused.txt lists.
std::vector<RefModel> reference_models(bool refused = false) {
  const std::map<std::string, std::string> listed = refused_models();
  std::vector<RefModel> out;
  const std::string root = models_dir();
  if (!fs::is_directory(root + "/refs")) return out;
  auto add = [&](const std::string& name, const std::string& model, const fs::path& dir) {
    if (fs::exists(model) && listed.count(name) == static_cast<size_t>(refused))
      out.push_back({name, model, dir.string() + "/"});
  };
  for (const auto& e : fs::directory_iterator(root + "/refs")) {
    const std::string dir = e.path().filename().string();
    const std::string suffix = ".tflm";
    if (e.is_directory() && dir.size() > suffix.size() && dir.ends_with(suffix)) {
      const std::string name = dir.substr(0, dir.size() - suffix.size());
      add(name, root + "/tflite/" + name + ".tflite", e.path());
    }
  }
  if (fs::is_directory(root + "/refs/tflite-micro"))
    for (const auto& e : fs::directory_iterator(root + "/refs/tflite-micro"))
      if (e.is_directory()) {
        const std::string name = e.path().filename().string();
        add(name, root + "/tflite-micro/" + name + ".tflite", e.path());
      }
  std::sort(out.begin(), out.end(), [](const RefModel& a, const RefModel& b) { return a.name < b.name; });
  return out;
}

struct RefCase {
  std::vector<std::vector<uint8_t>> inputs;  // model input order
  NpyArray output;
};

// input_<k>.npy (one input) or input_<k>_<i>.npy (input i), and output_<k>.npy.
std::vector<RefCase> reference_cases(const RefModel& m) {
  std::vector<RefCase> out;
  for (int k = 0;; ++k) {
    const std::string base = m.ref_dir + "input_" + std::to_string(k);
    const std::string output = m.ref_dir + "output_" + std::to_string(k) + ".npy";
    if (!fs::exists(output)) break;
    RefCase c;
    if (fs::exists(base + ".npy")) {
      c.inputs.push_back(read_npy(base + ".npy").data);
    } else {
      for (int i = 0; fs::exists(base + "_" + std::to_string(i) + ".npy"); ++i)
        c.inputs.push_back(read_npy(base + "_" + std::to_string(i) + ".npy").data);
    }
    if (c.inputs.empty()) break;
    c.output = read_npy(output);
    out.push_back(std::move(c));
  }
  return out;
}

bool float_output(const RefCase& c) { return c.output.descr == "<f4"; }

class TflmReferences : public ::testing::TestWithParam<RefModel> {
 protected:
  void SetUp() override {
    cases_ = reference_cases(GetParam());
    ASSERT_FALSE(cases_.empty()) << "no input/output pairs in " << GetParam().ref_dir;
    model_ = compiler::load_model(GetParam().model_path);
  }

  // Compile at `fast`, run every case in order on one state buffer; returns the plan's shape.
  PlanShape check_all(uint64_t fast) {
    PlanShape shape;
    compiler::Budgets b;
    b.fast = fast;
    compiler::CompileResult c = compiler::compile(model_, b);
    EXPECT_TRUE(c.ok()) << GetParam().name << " at " << fast << ": " << c.error;
    if (!c.ok()) return shape;
    shape = shape_of(c);
    std::vector<uint8_t> state;
    for (size_t k = 0; k < cases_.size(); ++k) {
      size_t in_bytes = 0;
      for (const auto& in : cases_[k].inputs) in_bytes += in.size();
      PlanRun r = run_plan(c.plan, cases_[k].inputs,
                           static_cast<uint32_t>(c.schedule.slow.peak_bytes + in_bytes + (1u << 20)), 0, &state);
      EXPECT_EQ(r.error, "") << GetParam().name << " input " << k << " at " << fast;
      if (!r.error.empty()) return shape;
      EXPECT_LE(r.fast_peak, r.fast_size);
      expect_matches(r.outputs.at(0), cases_[k], "input " + std::to_string(k) + " at " + std::to_string(fast));
    }
    return shape;
  }

  void expect_matches(const std::vector<uint8_t>& got, const RefCase& ref, const std::string& at) {
    if (!float_output(ref)) {
      EXPECT_EQ(got, ref.output.data) << GetParam().name << " " << at << " differs from TensorFlow Lite Micro";
      return;
    }
    NpyArray g;
    g.data = got;
    std::vector<float> gv = g.floats(), rv = ref.output.floats();
    ASSERT_EQ(gv.size(), rv.size()) << at;
    for (size_t i = 0; i < rv.size(); ++i) {
      const double d = std::fabs(static_cast<double>(gv[i]) - rv[i]);
      EXPECT_LE(d, 1e-5 * std::fabs(static_cast<double>(rv[i])) + 1e-6)
          << GetParam().name << " " << at << " element " << i << ": " << gv[i] << " vs " << rv[i];
    }
  }

  uint64_t floor_budget() {
    compiler::Budgets b;
    b.fast = 16u << 20;
    return compiler::schedule(model_, b).fast.minimum_for_partition_bytes;
  }

  std::vector<RefCase> cases_;
  compiler::Model model_;
};

TEST_P(TflmReferences, EveryInputUntiledAt16M) { EXPECT_EQ(check_all(16u << 20).stages, 1u); }

TEST_P(TflmReferences, EveryInputAtItsFloor) {
  const uint64_t floor = floor_budget();
  ASSERT_GT(floor, 0u);
  check_all(floor);
  compiler::Budgets b;
  b.fast = floor - 1;
  EXPECT_FALSE(compiler::schedule(model_, b).fast.fits) << GetParam().name << " fits below its floor " << floor;
}

INSTANTIATE_TEST_SUITE_P(Models, TflmReferences, ::testing::ValuesIn(reference_models()),
                         [](const auto& info) { return param_name(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TflmReferences);

// int8 MobileNetV2: its depthwise layers over many channels take channel bands at tight
// budgets (one row with every channel does not fit), and stay bit-exact with TFLite Micro.
// Without int8 channel bands its floor was 15 KiB (a 1x112x112x96 depthwise row with its
// window rows); with them 2.25 KiB (the classifier: its 1280 inputs and 1000 outputs, aligned);
// with output-channel bands the classifier holds its inputs and a band of outputs: 1600 bytes.
class TflmInt8ChannelBands : public TflmReferences {};

TEST_P(TflmInt8ChannelBands, ChosenAtTightBudgetsAndBitExact) {
  const uint64_t floor = floor_budget();
  EXPECT_LT(floor, 15360u) << "int8 channel bands no longer lower the floor";
  EXPECT_LT(floor, 2304u) << "int8 output-channel bands no longer lower the floor";
  for (uint64_t fast : {floor, uint64_t{8192}, uint64_t{64} * 1024}) {
    compiler::Budgets b;
    b.fast = fast;
    const compiler::CompileResult c = compiler::compile(model_, b);
    ASSERT_TRUE(c.ok()) << c.error;
    size_t channel_stages = 0, output_stages = 0;
    for (const compiler::StageSummary& s : c.schedule.stages) {
      channel_stages += s.kind == "channel bands" ? 1 : 0;
      output_stages += s.kind == "output-channel bands" ? 1 : 0;
    }
    // At 64 KiB a row of every channel fits: channel bands are a tight-budget form.
    if (fast < 64 * 1024) {
      EXPECT_GT(channel_stages, 0u) << "no channel bands at " << fast;
    }
    if (fast == floor) {
      EXPECT_GT(output_stages, 0u) << "no output-channel bands at the floor";
    }
    check_all(fast);
    // In an arena of exactly the plan's requirement the runtime holds all of it: the
    // measured peak is the scheduled one.
    const PlanRun r =
        run_plan(c.plan, cases_[0].inputs, static_cast<uint32_t>(c.schedule.slow.peak_bytes + (4u << 20)));
    ASSERT_EQ(r.error, "");
    EXPECT_EQ(r.fast_peak, r.fast_size) << "at " << fast;
  }
}

std::vector<RefModel> channel_band_models() {
  std::vector<RefModel> out;
  for (const RefModel& m : reference_models())
    if (m.name == "mobilenet_v2_quantized_1x3x224x224") out.push_back(m);
  return out;
}

INSTANTIATE_TEST_SUITE_P(Models, TflmInt8ChannelBands, ::testing::ValuesIn(channel_band_models()),
                         [](const auto& info) { return param_name(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TflmInt8ChannelBands);

// Models not converted yet: still refused, for the listed reason.
class TflmRefused : public ::testing::TestWithParam<RefModel> {};

TEST_P(TflmRefused, StillRefusedForTheListedReason) {
  const std::string reason = refused_models().at(GetParam().name);
  std::string error;
  try {
    compiler::Model m = compiler::load_model(GetParam().model_path);
    compiler::Budgets b;
    b.fast = 16u << 20;
    compiler::CompileResult c = compiler::compile(m, b);
    ASSERT_FALSE(c.ok()) << GetParam().name << " compiles now: take it off tests/e2e/tflm_refused.txt";
    error = c.error;
  } catch (const std::exception& e) {
    error = e.what();
  }
  EXPECT_NE(error.find(reason), std::string::npos) << GetParam().name << ": " << error;
}

INSTANTIATE_TEST_SUITE_P(Models, TflmRefused, ::testing::ValuesIn(reference_models(true)),
                         [](const auto& info) { return param_name(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TflmRefused);

// Float models: also several budgets between untiled and the floor (where there is room).
class TflmFloatReferences : public TflmReferences {};

TEST_P(TflmFloatReferences, EveryInputAtShrinkingBudgets) {
  for (uint64_t b : shrinking_budgets(model_)) check_all(b);
}

std::vector<RefModel> float_models() {
  std::vector<RefModel> out;
  for (const RefModel& m : reference_models()) {
    std::vector<RefCase> c = reference_cases(m);
    if (!c.empty() && float_output(c[0])) out.push_back(m);
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Models, TflmFloatReferences, ::testing::ValuesIn(float_models()),
                         [](const auto& info) { return param_name(info.param); });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(TflmFloatReferences);

}  // namespace
