// Loading: bad inputs give one-line errors of the right kind; free dimensions are bound
// with a warning naming the input, axis and symbol; opset conventions are honoured.
#include <gtest/gtest.h>

#include "compiler/api.h"
#include "compiler/ir/graph.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;
using compiler::ErrorKind;

test::OnnxBuilder relu_model(const std::vector<int64_t>& dims, const std::vector<std::string>& symbols = {}) {
  test::OnnxBuilder b;
  b.input("x", dims, onnx::TensorProto::FLOAT, symbols);
  b.node("Relu", {"x"}, {"y"});
  b.output("y", std::vector<int64_t>(dims.size(), 0));
  return b;
}

ErrorKind error_kind(const std::vector<uint8_t>& bytes, std::string* message, const compiler::LoadOptions& opts = {}) {
  try {
    compiler::load_model_bytes(bytes, "m.onnx", opts);
  } catch (const compiler::CompileError& e) {
    *message = e.what();
    return e.kind();
  }
  *message = "";
  return ErrorKind::Internal;
}

bool one_line(const std::string& s) { return !s.empty() && s.find('\n') == std::string::npos; }

TEST(Frontend, MissingFileIsAnIoError) {
  try {
    compiler::load_model("/nonexistent/dir/model.onnx");
    FAIL() << "no error";
  } catch (const compiler::CompileError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Io);
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/model.onnx"), std::string::npos);
    EXPECT_TRUE(one_line(e.what()));
  }
}

TEST(Frontend, TruncatedAndCorruptModelsAreParseErrors) {
  std::vector<uint8_t> good = relu_model({1, 4}).bytes();
  std::string msg;
  std::vector<uint8_t> truncated(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(good.size() / 2));
  ErrorKind k = error_kind(truncated, &msg);
  EXPECT_TRUE(k == ErrorKind::Parse || k == ErrorKind::Invalid) << msg;
  EXPECT_NE(msg.find("m.onnx"), std::string::npos);
  EXPECT_TRUE(one_line(msg));
  EXPECT_EQ(error_kind({0xff, 0xff, 0xff, 0x07, 0x01}, &msg), ErrorKind::Parse);
  EXPECT_EQ(msg, "m.onnx: not a valid ONNX model (truncated or corrupt protobuf)");
  EXPECT_EQ(error_kind({}, &msg), ErrorKind::Parse);
}

TEST(Frontend, ExternalDataIsRefusedNamingTheInitializer) {
  test::OnnxBuilder b;
  b.input("x", {1, 4});
  b.init("w", {1, 4}, {1, 2, 3, 4});
  auto* w = b.proto().mutable_graph()->mutable_initializer(0);
  w->clear_float_data();
  w->set_data_location(onnx::TensorProto::EXTERNAL);
  auto* e = w->add_external_data();
  e->set_key("location");
  e->set_value("weights.bin");
  b.node("Add", {"x", "w"}, {"y"});
  b.output("y", {1, 4});
  std::string msg;
  EXPECT_EQ(error_kind(b.bytes(), &msg), ErrorKind::Unsupported);
  EXPECT_NE(msg.find("'w'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("external"), std::string::npos) << msg;
  EXPECT_TRUE(one_line(msg));
}

TEST(Frontend, CheckerFailureIsInvalid) {
  test::OnnxBuilder b;
  b.input("x", {1, 4});
  b.node("Relu", {"nowhere"}, {"y"});
  b.output("y", {1, 4});
  std::string msg;
  EXPECT_EQ(error_kind(b.bytes(), &msg), ErrorKind::Invalid);
  EXPECT_EQ(msg.rfind("m.onnx: invalid ONNX model: ", 0), 0u) << msg;
  EXPECT_TRUE(one_line(msg));
}

TEST(Frontend, FreeDimensionsAreBoundToOneWithAWarning) {
  compiler::Model m = compiler::load_model_bytes(relu_model({0, 3, 0}, {"batch", "len"}).bytes(), "m.onnx");
  ASSERT_EQ(m.warnings().size(), 2u);
  EXPECT_EQ(m.warnings()[0], "input 'x' axis 0 (batch) is unset; using 1 (--input-shape overrides)");
  EXPECT_EQ(m.warnings()[1], "input 'x' axis 2 (len) is unset; using 1 (--input-shape overrides)");
  EXPECT_EQ(m.summary().inputs[0].shape, (std::vector<int64_t>{1, 3, 1}));
  EXPECT_EQ(m.summary().outputs[0].shape, (std::vector<int64_t>{1, 3, 1}));
}

TEST(Frontend, InputShapeBindsFreeDimensionsWithoutWarning) {
  compiler::LoadOptions opts;
  opts.input_shapes.push_back({"x", {2, 3, 5}});
  compiler::Model m = compiler::load_model_bytes(relu_model({0, 3, 0}, {"batch", "len"}).bytes(), "m.onnx", opts);
  EXPECT_TRUE(m.warnings().empty());
  EXPECT_EQ(m.summary().outputs[0].shape, (std::vector<int64_t>{2, 3, 5}));
}

TEST(Frontend, BadInputShapesAreUsageErrors) {
  std::string msg;
  compiler::LoadOptions unknown;
  unknown.input_shapes.push_back({"nope", {1, 3, 1}});
  EXPECT_EQ(error_kind(relu_model({0, 3, 0}).bytes(), &msg, unknown), ErrorKind::Usage);
  EXPECT_NE(msg.find("'nope'"), std::string::npos);
  compiler::LoadOptions rank;
  rank.input_shapes.push_back({"x", {1, 3}});
  EXPECT_EQ(error_kind(relu_model({0, 3, 0}).bytes(), &msg, rank), ErrorKind::Usage);
  compiler::LoadOptions fixed;
  fixed.input_shapes.push_back({"x", {1, 4, 1}});
  EXPECT_EQ(error_kind(relu_model({0, 3, 0}).bytes(), &msg, fixed), ErrorKind::Usage);
  EXPECT_NE(msg.find("axis 1"), std::string::npos) << msg;
}

// TFLite bytes go to the TFLite reader (whatever the file name): a truncated FlatBuffer is a
// parse error naming the file, not an ONNX protobuf error.
TEST(Frontend, TfliteBytesAreRecognized) {
  std::vector<uint8_t> bytes = {0x1c, 0, 0, 0, 'T', 'F', 'L', '3', 0, 0, 0, 0};
  std::string msg;
  EXPECT_EQ(error_kind(bytes, &msg), ErrorKind::Parse);
  EXPECT_NE(msg.find("m.onnx"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("protobuf"), std::string::npos) << msg;
}

TEST(Frontend, UnsupportedOperatorsAreNamedAndRefusedAtCompile) {
  test::OnnxBuilder b;
  b.input("x", {2, 3});
  b.node("RandomUniformLike", {"x"}, {"h"}, "hard");
  b.node("MeanVarianceNormalization", {"h"}, {"y"}, "mvn");
  b.output("y", {2, 3});
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
  ASSERT_EQ(m.summary().unsupported_operators.size(), 2u);
  EXPECT_EQ(m.summary().unsupported_operators[0].name, "hard");
  EXPECT_EQ(m.summary().unsupported_operators[0].type, "RandomUniformLike");
  compiler::Budgets budget;
  budget.fast = 1 << 20;
  compiler::CompileResult r = compiler::compile(m, budget);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.error.rfind("cannot compile: 2 unsupported operators: hard (RandomUniformLike", 0), 0u) << r.error;
  EXPECT_NE(r.error.find("mvn (MeanVarianceNormalization"), std::string::npos);
  EXPECT_TRUE(one_line(r.error));
}

// Resize at opset 10 has asymmetric coordinates and floor rounding; at 11+ half_pixel and
// round_prefer_floor unless the node says otherwise.
const ir::Node& only(const compiler::Model& m, const std::string& op) {
  for (const ir::Node& n : m.graph().nodes)
    if (n.op == op) return n;
  throw std::runtime_error("no " + op);
}

TEST(Frontend, ResizeDefaultsFollowTheOpset) {
  for (int opset : {10, 13}) {
    test::OnnxBuilder b(opset);
    b.input("x", {1, 2, 4, 4});
    b.init("scales", {4}, {1, 1, 1.5f, 1.5f});
    if (opset == 10) {
      b.node("Resize", {"x", "scales"}, {"y"});
    } else {
      b.init("roi", {0}, {});
      b.node("Resize", {"x", "roi", "scales"}, {"y"});
    }
    b.output("y", {0, 0, 0, 0});
    compiler::Model m = compiler::load_model_bytes(b.bytes(), "m.onnx");
    const ir::Node& r = only(m, "Resize");
    EXPECT_EQ(r.attrs.get_string("coordinate_transformation_mode", ""), opset == 10 ? "asymmetric" : "half_pixel");
    EXPECT_EQ(r.attrs.get_string("nearest_mode", ""), opset == 10 ? "floor" : "round_prefer_floor");
    EXPECT_EQ(r.attrs.get_floats("scales"), (std::vector<float>{1, 1, 1.5f, 1.5f}));
    EXPECT_EQ(r.inputs.size(), 1u);
  }
}

}  // namespace
