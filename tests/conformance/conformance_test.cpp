// ONNX backend node tests (Debian libonnx-testdata): every test not listed in skipped.txt is
// compiled, run on the host runtime and compared with the shipped outputs (rtol 1e-4,
// atol 1e-5 for floats, exact otherwise). Operands the runtime cannot take at run time
// (shapes, axes, pads, scales, a Loop's trip count, an If condition that decides whether an
// optional holds a value, fed as graph inputs) are frozen into initializers from the test's
// own input files first: any operand the compiler names as "computed at run time". Each node test is a test of its own (Onnx/NodeTest.
// MatchesShippedOutputs/<name>; --gtest_filter picks some); TIGRIS_CONFORMANCE_ALL=1 runs the
// skipped tests too (to see which now pass). Values stored as SequenceProto or OptionalProto
// are compared element by element with the plan's outputs (one per element); such inputs
// become one plan input per element (expand_inputs).
#include <gtest/gtest.h>
#include <onnx/onnx-data_pb.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
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

// The tensors a plan holds for one stored value of type `type`: a TensorProto itself, a
// SequenceProto's elements, an OptionalProto's value (none when empty).
std::vector<onnx::TensorProto> stored_tensors(const std::string& bytes, const onnx::TypeProto& type) {
  if (type.has_sequence_type()) {
    onnx::SequenceProto s;
    if (!s.ParseFromString(bytes)) throw std::runtime_error("a SequenceProto does not parse");
    return {s.tensor_values().begin(), s.tensor_values().end()};
  }
  if (type.has_optional_type()) {
    onnx::OptionalProto o;
    if (!o.ParseFromString(bytes)) throw std::runtime_error("an OptionalProto does not parse");
    if (o.has_tensor_value()) return {o.tensor_value()};
    if (o.has_sequence_value())
      return {o.sequence_value().tensor_values().begin(), o.sequence_value().tensor_values().end()};
    return {};
  }
  onnx::TensorProto t;
  t.ParseFromString(bytes);
  return {t};
}

onnx::ValueInfoProto tensor_input(const std::string& name, const onnx::TensorProto& t) {
  onnx::ValueInfoProto vi;
  vi.set_name(name);
  auto* tt = vi.mutable_type()->mutable_tensor_type();
  tt->set_elem_type(t.data_type());
  auto* shape = tt->mutable_shape();
  for (int64_t d : t.dims()) shape->add_dim()->set_dim_value(d);
  return vi;
}

onnx::NodeProto make_node(const std::string& op, const std::vector<std::string>& in, const std::string& out) {
  onnx::NodeProto n;
  n.set_op_type(op);
  for (const auto& s : in) n.add_input(s);
  n.add_output(out);
  return n;
}

// A run-time input holding a sequence or an optional becomes one plan input per element
// ("<name>[i]"; an optional tensor "<name>.value") rebuilt by SequenceConstruct / Optional
// nodes placed first: the length and presence, which a model's input type does not give,
// come from the test's data.
void expand_inputs(Case& c, const std::vector<std::string>& files) {
  std::set<std::string> runtime;
  for (const auto& name : runtime_inputs(c.model)) runtime.insert(name);
  auto* g = c.model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  inputs.Swap(g->mutable_input());
  std::vector<onnx::NodeProto> first;
  size_t k = 0;
  for (const auto& vi : inputs) {
    if (!runtime.count(vi.name())) {
      *g->add_input() = vi;
      continue;
    }
    if (k >= files.size()) throw std::runtime_error("fewer input files than inputs");
    const std::string& bytes = files[k++];
    const onnx::TypeProto& type = vi.type();
    std::vector<onnx::TensorProto> values = stored_tensors(bytes, type);
    if (!type.has_sequence_type() && !type.has_optional_type()) {
      // Symbolic extents (a SequenceMap test's "N") take the test data's: the shapes are static.
      bool symbolic = false;
      for (const auto& d : type.tensor_type().shape().dim()) symbolic = symbolic || !d.has_dim_value();
      *g->add_input() = symbolic && type.tensor_type().shape().dim_size() == values[0].dims_size()
                            ? tensor_input(vi.name(), values[0])
                            : vi;
      c.inputs.push_back(values[0]);
      c.input_names.push_back(vi.name());
      continue;
    }
    const bool seq = type.has_sequence_type() || type.optional_type().elem_type().has_sequence_type();
    std::vector<std::string> names;
    for (size_t i = 0; i < values.size(); ++i) {
      names.push_back(seq ? vi.name() + "[" + std::to_string(i) + "]" : vi.name() + ".value");
      *g->add_input() = tensor_input(names.back(), values[i]);
      c.inputs.push_back(values[i]);
      c.input_names.push_back(names.back());
    }
    if (type.has_sequence_type()) {
      first.push_back(make_node("SequenceConstruct", names, vi.name()));
      if (names.empty()) first.back() = make_node("SequenceEmpty", {}, vi.name());
      continue;
    }
    onnx::OptionalProto o;
    o.ParseFromString(bytes);
    std::string held;
    if (o.has_sequence_value()) {
      held = vi.name() + ".sequence";
      first.push_back(make_node("SequenceConstruct", names, held));
    } else if (o.has_tensor_value()) {
      held = names[0];
    }
    first.push_back(
        make_node("Optional", held.empty() ? std::vector<std::string>{} : std::vector<std::string>{held}, vi.name()));
    if (held.empty()) {
      auto* a = first.back().add_attribute();
      a->set_name("type");
      a->set_type(onnx::AttributeProto::TYPE_PROTO);
      *a->mutable_tp() = type.optional_type().elem_type();
    }
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
  nodes.Swap(g->mutable_node());
  for (const auto& n : first) *g->add_node() = n;
  for (const auto& n : nodes) *g->add_node() = n;
}

Case read_case(const fs::path& dir) {
  Case c;
  std::string bytes = read_text(dir / "model.onnx");
  if (!c.model.ParseFromString(bytes)) throw std::runtime_error("model.onnx does not parse");
  std::vector<std::string> files;
  for (int k = 0;; ++k) {
    fs::path in = dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb");
    if (!fs::exists(in)) break;
    files.push_back(read_text(in));
  }
  for (int k = 0;; ++k) {
    fs::path out = dir / "test_data_set_0" / ("output_" + std::to_string(k) + ".pb");
    if (!fs::exists(out)) break;
    if (k >= c.model.graph().output_size()) throw std::runtime_error("more output files than outputs");
    for (auto& t : stored_tensors(read_text(out), c.model.graph().output(k).type())) c.outputs.push_back(t);
  }
  expand_inputs(c, files);
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
void add_dynamic_operand(const std::string& reason, std::vector<std::string>& names) {
  const std::string key = "operand '";
  size_t at = reason.find(key);
  if (at == std::string::npos || reason.find("computed at run time") == std::string::npos) return;
  size_t end = reason.find('\'', at + key.size());
  names.push_back(reason.substr(at + key.size(), end - at - key.size()));
}

std::vector<std::string> dynamic_operands(const compiler::ModelSummary& s) {
  std::vector<std::string> names;
  for (const auto& u : s.unsupported_operators) add_dynamic_operand(u.reason, names);
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
    std::vector<std::string> inputs = runtime_inputs(c.model);
    std::optional<compiler::Model> loaded;
    std::vector<std::string> dyn;
    try {
      loaded.emplace(compiler::load_model_bytes(std::vector<uint8_t>(bytes.begin(), bytes.end()), dir.filename()));
      dyn = dynamic_operands(loaded->summary());
    } catch (const std::exception& e) {
      // The frontend refuses some run-time operands (a sequence position) while loading.
      add_dynamic_operand(e.what(), dyn);
      if (dyn.empty()) throw;
    }
    bool froze = false;
    for (const std::string& d : dyn)
      if (std::find(inputs.begin(), inputs.end(), d) != inputs.end()) {
        freeze(c, d);
        froze = true;
      }
    if (froze) continue;
    if (!loaded) return "a run-time operand the test cannot freeze";
    compiler::Model& m = *loaded;
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
