// ONNX backend node tests (Debian libonnx-testdata): every test not listed in skipped.txt is
// compiled, run on the host runtime and compared with the shipped outputs (rtol 1e-4,
// atol 1e-5 for floats, exact otherwise). Operands the runtime cannot take at run time
// (shapes, axes, pads, scales fed as graph inputs) are frozen into initializers from the
// test's own input files first. Each node test is a test of its own (Onnx/NodeTest.
// MatchesShippedOutputs/<name>; --gtest_filter picks some); TIGRIS_CONFORMANCE_ALL=1 runs the
// skipped tests too (to see which now pass).
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>

#include "compiler/api.h"
#include "compiler/frontend/onnx/tensor_proto.h"
#include "compiler_support/plan_runner.h"

namespace {

namespace fs = std::filesystem;
using namespace tigris;

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::map<std::string, std::string> load_skips() {
  std::map<std::string, std::string> skips;
  std::ifstream in(fs::path(TIGRIS_SOURCE_DIR) / "tests/conformance/skipped.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.find_first_of(" \t");
    std::string name = line.substr(0, sp);
    std::string reason = sp == std::string::npos ? "" : line.substr(line.find_first_not_of(" \t", sp));
    skips[name] = reason;
  }
  return skips;
}

struct Case {
  onnx::ModelProto model;
  std::vector<std::string> input_names;  // the model's run-time inputs, before any freezing
  std::vector<onnx::TensorProto> inputs, outputs;
};

// Graph inputs that are not initializers, in order.
std::vector<std::string> runtime_inputs(const onnx::ModelProto& m) {
  std::set<std::string> inits;
  for (const auto& i : m.graph().initializer()) inits.insert(i.name());
  std::vector<std::string> names;
  for (const auto& i : m.graph().input())
    if (!inits.count(i.name())) names.push_back(i.name());
  return names;
}

Case read_case(const fs::path& dir) {
  Case c;
  std::string bytes = read_text(dir / "model.onnx");
  if (!c.model.ParseFromString(bytes)) throw std::runtime_error("model.onnx does not parse");
  for (int k = 0;; ++k) {
    fs::path in = dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb");
    if (!fs::exists(in)) break;
    c.inputs.emplace_back();
    c.inputs.back().ParseFromString(read_text(in));
  }
  for (int k = 0;; ++k) {
    fs::path out = dir / "test_data_set_0" / ("output_" + std::to_string(k) + ".pb");
    if (!fs::exists(out)) break;
    c.outputs.emplace_back();
    c.outputs.back().ParseFromString(read_text(out));
  }
  c.input_names = runtime_inputs(c.model);
  return c;
}

// Move test input `name` into the model as an initializer.
void freeze(Case& c, const std::string& name) {
  for (size_t k = 0; k < c.input_names.size() && k < c.inputs.size(); ++k) {
    if (c.input_names[k] != name) continue;
    onnx::TensorProto init = c.inputs[k];
    init.set_name(name);
    *c.model.mutable_graph()->add_initializer() = init;
  }
}

// Run-time operands named by the unsupported-operator reasons ("operand 'X' is computed at
// run time").
std::vector<std::string> dynamic_operands(const compiler::ModelSummary& s) {
  std::vector<std::string> names;
  for (const auto& u : s.unsupported_operators) {
    const std::string key = "operand '";
    size_t at = u.reason.find(key);
    if (at == std::string::npos || u.reason.find("computed at run time") == std::string::npos) continue;
    size_t end = u.reason.find('\'', at + key.size());
    names.push_back(u.reason.substr(at + key.size(), end - at - key.size()));
  }
  return names;
}

std::string compare(const ir::TensorValue& want, const std::vector<uint8_t>& got) {
  if (want.data.size() != got.size())
    return "output has " + std::to_string(got.size()) + " bytes, expected " + std::to_string(want.data.size());
  if (want.dtype != ir::DType::Float32) return want.data == got ? "" : "integer/bool output differs";
  size_t n = got.size() / 4;
  for (size_t i = 0; i < n; ++i) {
    float a, b;
    std::memcpy(&a, &got[i * 4], 4);
    std::memcpy(&b, &want.data[i * 4], 4);
    if (std::isnan(b) && std::isnan(a)) continue;
    if (std::isinf(b) && a == b) continue;
    if (!(std::fabs(a - b) <= 1e-5 + 1e-4 * std::fabs(b)))
      return "element " + std::to_string(i) + " is " + std::to_string(a) + ", expected " + std::to_string(b);
  }
  return "";
}

// "" when the test passes, else why not.
std::string run_case(const fs::path& dir) {
  Case c = read_case(dir);
  for (int attempt = 0; attempt < 8; ++attempt) {
    std::string bytes = c.model.SerializeAsString();
    compiler::Model m = compiler::load_model_bytes(std::vector<uint8_t>(bytes.begin(), bytes.end()), dir.filename());
    std::vector<std::string> dyn = dynamic_operands(m.summary());
    std::vector<std::string> inputs = runtime_inputs(c.model);
    bool froze = false;
    for (const std::string& d : dyn)
      if (std::find(inputs.begin(), inputs.end(), d) != inputs.end()) {
        freeze(c, d);
        froze = true;
      }
    if (froze) continue;
    compiler::Budgets b;
    b.fast = 256u << 20;
    compiler::CompileResult r = compiler::compile(m, b);
    if (!r.ok()) return r.error;
    std::vector<std::vector<uint8_t>> feed;
    for (const auto& in_name : inputs) {
      for (size_t k = 0; k < c.input_names.size(); ++k)
        if (c.input_names[k] == in_name && k < c.inputs.size())
          feed.push_back(frontend::onnx::tensor_from_proto(c.inputs[k]).data);
    }
    uint64_t slow = 1u << 20;
    for (const auto& t : m.graph().tensors) slow += (t.bytes() + 63) / 64 * 64;
    test::PlanRun run = test::run_plan(r.plan, feed, static_cast<uint32_t>(std::min<uint64_t>(slow, 1u << 30)));
    if (!run.error.empty()) return run.error;
    if (run.outputs.size() != c.outputs.size()) return "output count differs";
    for (size_t k = 0; k < c.outputs.size(); ++k) {
      std::string diff = compare(frontend::onnx::tensor_from_proto(c.outputs[k]), run.outputs[k]);
      if (!diff.empty()) return "output " + std::to_string(k) + ": " + diff;
    }
    return "";
  }
  return "operands computed at run time remain";
}

// One test per node test directory, so a failure names it and ctest runs them in parallel.
std::vector<std::string> node_tests() {
  std::vector<std::string> names;
  fs::path root = TIGRIS_ONNX_TESTDATA_DIR;
  if (!fs::is_directory(root)) return names;
  for (const auto& e : fs::directory_iterator(root))
    if (e.is_directory()) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

const std::map<std::string, std::string>& skips() {
  static const std::map<std::string, std::string> s =
      std::getenv("TIGRIS_CONFORMANCE_ALL") ? std::map<std::string, std::string>{} : load_skips();
  return s;
}

TEST(OnnxConformance, TestDataIsPresent) {
  if (!fs::is_directory(TIGRIS_ONNX_TESTDATA_DIR))
    GTEST_SKIP() << "ONNX test data " << TIGRIS_ONNX_TESTDATA_DIR << " is absent (libonnx-testdata)";
  EXPECT_FALSE(node_tests().empty());
}

// Every line of skipped.txt names a test the data has (a renamed or removed test is noticed).
TEST(OnnxConformance, EverySkippedTestExists) {
  if (!fs::is_directory(TIGRIS_ONNX_TESTDATA_DIR)) GTEST_SKIP() << "ONNX test data is absent";
  std::vector<std::string> all = node_tests();
  for (const auto& [name, reason] : load_skips())
    EXPECT_TRUE(std::binary_search(all.begin(), all.end(), name)) << name << " (" << reason << ") is not a node test";
}

class NodeTest : public ::testing::TestWithParam<std::string> {};
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(NodeTest);

TEST_P(NodeTest, MatchesShippedOutputs) {
  const std::string& name = GetParam();
  auto skip = skips().find(name);
  if (skip != skips().end()) GTEST_SKIP() << skip->second;
  std::string why;
  try {
    why = run_case(fs::path(TIGRIS_ONNX_TESTDATA_DIR) / name);
  } catch (const std::exception& e) {
    why = e.what();
  }
  EXPECT_EQ(why, "") << name;
}

INSTANTIATE_TEST_SUITE_P(Onnx, NodeTest, ::testing::ValuesIn(node_tests()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
