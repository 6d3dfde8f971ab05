// The TFLite frontend's pieces for TensorFlow Lite Micro's audio front end, on models written
// here: a signal-library CUSTOM operator with FlexBuffer options (read, or refused naming the
// operator when malformed), CAST between plain integer types, and a CONCATENATION whose
// constant operands all hold one value (a PAD). Values derived by hand.
#include <gtest/gtest.h>

#include <cstring>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "export/tflite/model.h"
#include "export/tflite/writer.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;

template <class T>
std::vector<uint8_t> bytes(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

struct Builder {
  tfl::Model m;
  tfl::SubGraph sg;
  Builder() { m.buffers.resize(1); }
  int32_t tensor(std::vector<int32_t> shape, tfl::TensorType type, std::vector<uint8_t> data = {}) {
    tfl::Tensor t;
    t.name = "t" + std::to_string(sg.tensors.size());
    t.shape = std::move(shape);
    t.type = type;
    if (!data.empty()) {
      t.buffer = static_cast<uint32_t>(m.buffers.size());
      m.buffers.push_back(tfl::Buffer{std::move(data)});
    }
    sg.tensors.push_back(t);
    return static_cast<int32_t>(sg.tensors.size() - 1);
  }
  tfl::Operator& op(int32_t code, std::vector<int32_t> in, std::vector<int32_t> out, const char* custom = nullptr) {
    m.operator_codes.push_back(
        tfl::OperatorCode{code, custom ? std::optional<std::string>(custom) : std::nullopt, 1});
    tfl::Operator o;
    o.opcode_index = static_cast<uint32_t>(m.operator_codes.size() - 1);
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    sg.operators.push_back(o);
    return sg.operators.back();
  }
  std::vector<uint8_t> write(std::vector<int32_t> in, std::vector<int32_t> out) {
    sg.inputs = std::move(in);
    sg.outputs = std::move(out);
    m.subgraphs = {sg};
    return tfl::write_model(m);
  }
};

compiler::CompileResult compile(const std::vector<uint8_t>& model) {
  compiler::Model m = compiler::load_model_bytes(model, "signal.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  return compiler::compile(m, b);
}

// SignalWindow's options: the map {"shift": 12}, as the signal library writes it.
const std::vector<uint8_t> kShift12 = {0x73, 0x68, 0x69, 0x66, 0x74, 0x00, 0x01, 0x07,
                                       0x01, 0x01, 0x01, 0x0c, 0x04, 0x02, 0x24, 0x01};

std::vector<uint8_t> window_model(std::vector<uint8_t> options) {
  Builder b;
  const int32_t x = b.tensor({1, 4}, tfl::TensorType::Int16);
  const int32_t w = b.tensor({4}, tfl::TensorType::Int16, bytes<int16_t>({4096, 8192, -4096, 2048}));
  const int32_t y = b.tensor({1, 4}, tfl::TensorType::Int16);
  tfl::Operator& o = b.op(tfl::op::kCustom, {x, w}, {y}, "SignalWindow");
  o.custom_options = std::move(options);
  return b.write({x}, {y});
}

TEST(TfliteSignal, WindowOptionsAreRead) {
  compiler::CompileResult c = compile(window_model(kShift12));
  ASSERT_TRUE(c.ok()) << c.error;
  test::PlanRun r = test::run_plan(c.plan, {bytes<int16_t>({100, 100, 100, 100})}, 1 << 16);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.outputs.at(0), bytes<int16_t>({100, 200, -100, 50}));  // x * w >> 12
}

TEST(TfliteSignal, MalformedOptionsAreRefusedNamingTheOperator) {
  for (size_t cut : {size_t{0}, size_t{3}, size_t{9}, size_t{15}}) {
    std::vector<uint8_t> bad(kShift12.begin(), kShift12.begin() + static_cast<long>(cut));
    compiler::CompileResult c = compile(window_model(bad));
    EXPECT_FALSE(c.ok()) << cut;
    EXPECT_NE(c.error.find("SignalWindow"), std::string::npos) << c.error;
    EXPECT_NE(c.error.find("options"), std::string::npos) << c.error;
    EXPECT_EQ(c.error.find('\n'), std::string::npos) << c.error;
  }
  std::vector<uint8_t> wrong_key = kShift12;
  wrong_key[0] = 'S';  // "Shift": the option is missing
  compiler::CompileResult c = compile(window_model(wrong_key));
  EXPECT_NE(c.error.find("option 'shift' is missing"), std::string::npos) << c.error;
}

TEST(TfliteSignal, CastBetweenPlainIntegers) {
  Builder b;
  const int32_t x = b.tensor({4}, tfl::TensorType::Int16), y = b.tensor({4}, tfl::TensorType::Int32);
  const int32_t z = b.tensor({4}, tfl::TensorType::Int8);
  b.op(53, {x}, {y});  // CAST int16 -> int32
  b.op(53, {y}, {z});  // CAST int32 -> int8 (static_cast: keeps the low byte)
  compiler::CompileResult c = compile(b.write({x}, {z}));
  ASSERT_TRUE(c.ok()) << c.error;
  test::PlanRun r = test::run_plan(c.plan, {bytes<int16_t>({-5, 127, 300, -129})}, 1 << 16);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.outputs.at(0), bytes<int8_t>({-5, 127, 44, 127}));  // 300 = 0x12C, -129 = 0xFF7F
}

std::vector<uint8_t> concat_model(std::vector<int32_t> after) {
  Builder b;
  const int32_t z2 = b.tensor({2}, tfl::TensorType::Int32, bytes<int32_t>({0, 0}));
  const int32_t x = b.tensor({3}, tfl::TensorType::Int32);
  const int32_t tail = b.tensor({static_cast<int32_t>(after.size())}, tfl::TensorType::Int32, bytes<int32_t>(after));
  const int32_t y = b.tensor({5 + static_cast<int32_t>(after.size())}, tfl::TensorType::Int32);
  tfl::Operator& o = b.op(tfl::op::kConcatenation, {z2, x, tail}, {y});
  o.options.type = tfl::OptionsType::Concatenation;
  o.options.value = tfl::ConcatenationOptions{};
  return b.write({x}, {y});
}

TEST(TfliteSignal, ConcatenationOfConstantFillsIsAPad) {
  compiler::CompileResult c = compile(concat_model({0}));
  ASSERT_TRUE(c.ok()) << c.error;
  test::PlanRun r = test::run_plan(c.plan, {bytes<int32_t>({1, -2, 3})}, 1 << 16);
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.outputs.at(0), bytes<int32_t>({0, 0, 1, -2, 3, 0}));
  compiler::CompileResult mixed = compile(concat_model({0, 7}));  // not one fill value
  EXPECT_FALSE(mixed.ok());
  EXPECT_NE(mixed.error.find("not one fill value"), std::string::npos) << mixed.error;
}

}  // namespace
