// inspect on ONNX: figures checked by hand on a model built here with the protobuf API.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <nlohmann/json.hpp>

#include "cli/cli_harness.h"
#include "compiler/report/format.h"
#include "compiler/report/onnx_inspection.h"

using namespace tigris::clitest;

namespace {

void declare(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims,
             const std::string& free_dim = "") {
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  for (const int64_t d : dims) {
    auto* dim = t->mutable_shape()->add_dim();
    if (d < 0) {
      dim->set_dim_param(free_dim);
    } else {
      dim->set_dim_value(d);
    }
  }
}

void initializer(onnx::GraphProto& g, const std::string& name, const std::vector<int64_t>& dims) {
  auto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  int64_t n = 1;
  for (const int64_t d : dims) {
    t->add_dims(d);
    n *= d;
  }
  t->set_raw_data(std::string(static_cast<size_t>(n) * 4, '\0'));
}

onnx::NodeProto* node(onnx::GraphProto& g, const std::string& type, std::vector<std::string> in,
                      const std::string& out) {
  auto* n = g.add_node();
  n->set_op_type(type);
  n->set_name(type + "_" + out);
  for (const auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

// x [N,3,10,10] -> Conv(4x3x3x3 + bias, no pads) -> c [declared 1x4x8x8] -> Relu -> r
// -> MaxPool 2x2 -> p (undeclared) -> Flatten -> f [declared 1x64] -> Gemm(64x5) -> y [1,5]
std::vector<uint8_t> small_model(bool declare_gemm_input) {
  onnx::ModelProto m;
  m.set_ir_version(8);
  m.add_opset_import()->set_version(13);
  auto& g = *m.mutable_graph();
  declare(g.add_input(), "x", {-1, 3, 10, 10}, "N");
  initializer(g, "w", {4, 3, 3, 3});
  initializer(g, "b", {4});
  initializer(g, "fw", {64, 5});
  auto* conv = node(g, "Conv", {"x", "w", "b"}, "c");
  auto* k = conv->add_attribute();
  k->set_name("kernel_shape");
  k->set_type(onnx::AttributeProto::INTS);
  k->add_ints(3);
  k->add_ints(3);
  node(g, "Relu", {"c"}, "r");
  node(g, "MaxPool", {"r"}, "p");
  node(g, "Flatten", {"p"}, "f");
  node(g, "Gemm", {"f", "fw"}, "y");
  declare(g.add_value_info(), "c", {1, 4, 8, 8});
  if (declare_gemm_input) declare(g.add_value_info(), "f", {1, 64});
  declare(g.add_output(), "y", {1, 5});
  std::string bytes;
  m.SerializeToString(&bytes);
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

}  // namespace

TEST(InspectOnnx, HandCheckedFigures) {
  const auto r = tigris::report::inspect_onnx(small_model(true), "m.onnx");
  EXPECT_EQ(r.ir_version, 8);
  ASSERT_EQ(r.opsets.size(), 1u);
  EXPECT_EQ(r.opsets[0].first, "ai.onnx");
  EXPECT_EQ(r.num_ops, 5u);
  ASSERT_EQ(r.inputs.size(), 1u);
  EXPECT_EQ(r.inputs[0].shape, (std::vector<int64_t>{-1, 3, 10, 10}));
  // Conv: output declared 1x4x8x8 = 256 outputs x 27 MACs each; weights 108 + 4 floats.
  ASSERT_EQ(r.steps.size(), 5u);
  EXPECT_EQ(r.steps[0].macs, 6912u);
  EXPECT_EQ(r.steps[0].weight_bytes, 448u);
  // Gemm: [1,64] x [64,5].
  EXPECT_EQ(r.steps[4].macs, 320u);
  EXPECT_EQ(r.steps[4].weight_bytes, 1280u);
  EXPECT_EQ(r.total_macs, 7232u);
  EXPECT_EQ(r.total_weight_bytes, 1728u);
  EXPECT_EQ(r.dense_initializers, 3u);
  EXPECT_EQ(r.declared_intermediates, 2u);
  ASSERT_FALSE(r.largest_activations.empty());
  EXPECT_EQ(r.largest_activations[0].name, "c");
  EXPECT_EQ(r.largest_activations[0].bytes, 1024u);
  EXPECT_EQ(r.largest_activations[0].producer, "step 0 Conv");
}

TEST(InspectOnnx, UndeclaredShapesLeaveMacsUnknown) {
  // Without f declared, the Gemm's M comes from its declared output y [1,5]: still known.
  // The conv with its output undeclared is computed from x only when x's batch is known.
  const auto r = tigris::report::inspect_onnx(small_model(false), "m.onnx");
  EXPECT_EQ(r.steps[4].macs, 320u);
  EXPECT_EQ(r.steps[0].macs, 6912u);  // from the declared output c
}

TEST(InspectOnnx, TextAndJsonThroughTheBinary) {
  TempDir dir;
  write_bytes(dir.file("m.onnx"), small_model(true));
  const CliResult text = run_cli({"inspect", "m.onnx"}, dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out.substr(0, text.out.find('\n')), "m.onnx   ONNX, IR 8, opsets ai.onnx 13, 5 operators in the file, " +
                                                         tigris::report::format_bytes(small_model(true).size()));
  EXPECT_NE(text.out.find("  input    x   ?x3x10x10 float32\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  Conv          1      448 B      25.9%   6,912    95.6%\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  total         5   1.69 KiB     100.0%   7,232   100.0%\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("initializers   3 dense, 0 sparse, 0 external\n"), std::string::npos);

  const CliResult json = run_cli({"inspect", "--json", "m.onnx"}, dir.path());
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["inspection_version"], 1);
  EXPECT_EQ(j["format"], "onnx");
  EXPECT_EQ(j["inputs"][0]["shape"], nlohmann::json({"N", 3, 10, 10}));
  EXPECT_EQ(j["macs"], 7232);
  EXPECT_EQ(j["weight_bytes"], 1728);
}

TEST(InspectOnnx, TruncatedModelIsOneLineError) {
  TempDir dir;
  auto bytes = small_model(true);
  for (const size_t keep : {bytes.size() / 2, size_t{40}, bytes.size() - 3}) {
    write_bytes(dir.file("t.onnx"), std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(keep)));
    const CliResult r = run_cli({"inspect", "t.onnx"}, dir.path());
    EXPECT_EQ(r.exit_code, 1) << keep;
    EXPECT_EQ(r.err.rfind("Error: t.onnx: truncated or corrupt ONNX model (", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
  }
}
