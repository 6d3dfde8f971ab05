// int8 lookup tables (passes/int8_tables.cpp, plan op TABLE): a TFLite int8 SiLU
// (LOGISTIC then MUL of the input and the gate) becomes one TABLE op whose bytes equal the
// unfused LOGISTIC and MUL kernels' (each bit-exact with TensorFlow Lite Micro) on every int8
// input; hand-derived anchors: real 0 maps to the output zero point, and large inputs to
// y = x (the gate saturates at 255/256). A region that is not a function of one tensor, or
// whose gate is read elsewhere, stays as it is.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "export/tflite/model.h"
#include "export/tflite/writer.h"
#include "tigris_loader.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;

constexpr float kScaleX = 0.05f, kScaleY = 0.04f;
constexpr int kZeroX = -3, kZeroY = -20;

// x [1, 256] int8 -> LOGISTIC (1/256, -128) -> s; y = MUL(x, s). `gate_out`: s is also a
// model output (the gate is read outside the region, so nothing folds).
std::vector<uint8_t> silu_model(bool gate_out) {
  tfl::Model m;
  m.buffers.resize(1);
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kLogistic, std::nullopt, 1});
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kMul, std::nullopt, 1});
  tfl::SubGraph sg;
  auto tensor = [&](const std::string& name, float scale, int zp) {
    tfl::Tensor t;
    t.name = name;
    t.shape = {1, 256};
    t.type = tfl::TensorType::Int8;
    t.buffer = 0;
    t.quantization = tfl::Quantization{{}, {}, {scale}, {zp}, 0};
    sg.tensors.push_back(t);
  };
  tensor("x", kScaleX, kZeroX);
  tensor("s", 1.0f / 256.0f, -128);
  tensor("y", kScaleY, kZeroY);
  tfl::Operator logistic;
  logistic.opcode_index = 0;
  logistic.inputs = {0};
  logistic.outputs = {1};
  sg.operators.push_back(logistic);
  tfl::Operator mul;
  mul.opcode_index = 1;
  mul.inputs = {0, 1};
  mul.outputs = {2};
  mul.options.type = tfl::OptionsType::Mul;
  mul.options.value = tfl::MulOptions{tfl::Activation::None};
  sg.operators.push_back(mul);
  sg.inputs = {0};
  sg.outputs = gate_out ? std::vector<int32_t>{2, 1} : std::vector<int32_t>{2};
  m.subgraphs.push_back(sg);
  return tfl::write_model(m);
}

struct TableCompiled {
  std::vector<uint8_t> plan;
  std::vector<uint8_t> types;  // op types in plan order
};

TableCompiled compile_tables(const std::vector<uint8_t>& model) {
  compiler::Model m = compiler::load_model_bytes(model, "silu.tflite");
  compiler::Budgets b;
  b.fast = 1 << 16;
  compiler::CompileResult c = compiler::compile(m, b);
  EXPECT_TRUE(c.ok()) << c.error;
  TableCompiled r{c.plan, {}};
  tigris_plan_t p;
  if (tigris_plan_load(c.plan.data(), static_cast<uint32_t>(c.plan.size()), &p) == TIGRIS_OK)
    for (uint16_t i = 0; i < p.header->num_ops; ++i) r.types.push_back(p.ops[i].op_type);
  return r;
}

std::vector<uint8_t> every_int8() {
  std::vector<uint8_t> x(256);
  for (int v = 0; v < 256; ++v) x[static_cast<size_t>(v)] = static_cast<uint8_t>(v - 128);
  return x;
}

TEST(Int8Table, SiluBecomesOneTableWithTheUnfusedBytes) {
  TableCompiled fused = compile_tables(silu_model(false));
  TableCompiled unfused = compile_tables(silu_model(true));
  EXPECT_EQ(fused.types, (std::vector<uint8_t>{TIGRIS_OP_TABLE}));
  EXPECT_EQ(unfused.types, (std::vector<uint8_t>{TIGRIS_OP_SIGMOID, TIGRIS_OP_MUL}));
  test::PlanRun a = test::run_plan(fused.plan, {every_int8()}, 1 << 16);
  test::PlanRun b = test::run_plan(unfused.plan, {every_int8()}, 1 << 16);
  ASSERT_EQ(a.error, "");
  ASSERT_EQ(b.error, "");
  ASSERT_EQ(a.outputs.at(0).size(), 256u);
  EXPECT_EQ(a.outputs[0], b.outputs.at(0));
  // Hand-derived anchors: x = zx is real 0, so y = 0 -> zy; x = 127 is real 6.5, sigmoid 0.9985
  // -> gate byte 127 (255/256), y = 6.5 * 255/256 / 0.04 = 161.9 -> saturates at 127.
  const std::vector<uint8_t>& y = a.outputs[0];
  EXPECT_EQ(static_cast<int8_t>(y[static_cast<size_t>(kZeroX + 128)]), kZeroY);
  EXPECT_EQ(static_cast<int8_t>(y[255]), 127);
  // x = zx + 20 is real 1.0: sigmoid 0.731 -> gate 187/256 = 0.7305; y = 0.7305 / 0.04 = 18.26 -> zy + 18.
  EXPECT_EQ(static_cast<int8_t>(y[static_cast<size_t>(kZeroX + 20 + 128)]), kZeroY + 18);
}

TEST(Int8Table, OneTensorLessIsLive) {
  // Untiled, one stage: x, the gate and y are live together unfused; x and y with the table.
  compiler::Budgets b;
  b.fast = 1 << 20;
  compiler::Model fused = compiler::load_model_bytes(silu_model(false), "silu.tflite");
  compiler::Model unfused = compiler::load_model_bytes(silu_model(true), "silu.tflite");
  const uint64_t fused_peak = compiler::schedule(fused, b).fast.scheduled_peak_bytes;
  const uint64_t unfused_peak = compiler::schedule(unfused, b).fast.scheduled_peak_bytes;
  EXPECT_EQ(unfused_peak - fused_peak, 256u) << fused_peak << " vs " << unfused_peak;
}

}  // namespace
