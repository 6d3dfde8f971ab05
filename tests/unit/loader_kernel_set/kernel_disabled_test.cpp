// KERNEL_DISABLED: this suite's loader sees a build without the activation kernels and without
// the int16 (16x8) kernels (TIGRIS_NO_KERNEL_INT16).
#include "unit/loader/loader_fixture.h"

using namespace lf;

namespace {

TEST(KernelDisabled, PlanUsingALeftOutKernelIsRefused) {
  auto r = load(write_plan(conv_relu()));  // conv + relu: relu's family is left out
  EXPECT_EQ(r.err, TIGRIS_ERR_KERNEL_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
}

TEST(KernelDisabled, PlanWithoutItLoads) {
  PlanDesc p = conv_relu();
  p.ops[1].type = TIGRIS_OP_NEG;  // math family, still in the build
  EXPECT_EQ(load_err(write_plan(p)), TIGRIS_OK);
}

// x [1,4,4,2] -> MaxPool 2x2 s2 -> y [1,2,2,2], both of `dtype` with one quant param.
PlanDesc max_pool(uint8_t dtype) {
  PlanDesc p;
  p.model_name = "max_pool";
  p.scheduled_peak = 1024;
  p.tensors = {tensor("x", {1, 4, 4, 2}, TIGRIS_TENSOR_MODEL_INPUT, dtype),
               tensor("y", {1, 2, 2, 2}, TIGRIS_TENSOR_MODEL_OUTPUT, dtype)};
  p.quant = {QuantDesc{0.05f, 0, {1073741824}, {0}}};
  p.tensors[0].quant = 0;
  p.tensors[1].quant = 0;
  OpDesc m = op(TIGRIS_OP_MAX_POOL, "pool", {0}, {1});
  m.spatial = window(2, 2, 0);
  p.ops = {m};
  p.stages = {stage({0}, {0}, {1})};
  p.model_inputs = {0};
  p.model_outputs = {1};
  return p;
}

TEST(KernelDisabled, Int16OpsAreRefusedWithoutTheInt16Kernels) {
  EXPECT_EQ(load_err(write_plan(max_pool(TIGRIS_DTYPE_INT8))), TIGRIS_OK);
  EXPECT_EQ(load_err(write_plan(max_pool(TIGRIS_DTYPE_INT16))), TIGRIS_ERR_KERNEL_DISABLED);
}

// An int8 op writing quantized int16 data (TFLite's int8 -> int16 softmax) is refused too, before
// its rule, so the int8 softmax of such a build keeps no int16 output path; even a plan whose
// int16 output is inconsistent gets KERNEL_DISABLED (the full build: BAD_OPERATOR, smoke_test).
TEST(KernelDisabled, Int8OpsWritingInt16AreRefusedWithoutTheInt16Kernels) {
  EXPECT_EQ(load_err(write_plan(int8_softmax(TIGRIS_DTYPE_INT8))), TIGRIS_OK);
  auto r = load(write_plan(int8_softmax(TIGRIS_DTYPE_INT16)));
  EXPECT_EQ(r.err, TIGRIS_ERR_KERNEL_DISABLED);
  EXPECT_TRUE(all_zero(r.plan));
  PlanDesc wrong = int8_softmax(TIGRIS_DTYPE_INT16);
  wrong.quant[1].zero_point = 0;
  EXPECT_EQ(load_err(write_plan(wrong)), TIGRIS_ERR_KERNEL_DISABLED);
  // An int8 softmax writing int8 data with the wrong quantization is still refused by its rule.
  PlanDesc bad8 = int8_softmax(TIGRIS_DTYPE_INT8);
  bad8.quant[1].zero_point = 0;
  EXPECT_EQ(load_err(write_plan(bad8)), TIGRIS_ERR_BAD_OPERATOR);
}

}  // namespace
