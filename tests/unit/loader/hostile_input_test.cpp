// Hostile input: plans that loaded and then made a kernel misbehave (findings of the mutation
// check and the load-plus-run fuzzer, docs/plan-format.md "Fuzzing"), rebuilt with the plan
// writer. Each must now be refused by the loader with the documented code.
#include "unit/loader/loader_fixture.h"

using namespace lf;

namespace {

// Offset field of weight entry i (12-byte entries at the start of WEIGHTS).
size_t weight_offset_field(const Bytes& b, uint32_t i) { return sec(b, TIGRIS_SEC_WEIGHTS) + 12u * i + 4u; }

}  // namespace

// Finding: a mutated conv_relu_chain plan moved a float weight to an odd offset; the float
// conv then read it through a misaligned float pointer (UBSan). Weights start 16-aligned.
TEST(LoaderHostile, MisalignedWeightOffsetIsBadSection) {
  const Bytes good = write_plan(conv_relu());
  ASSERT_EQ(load_err(good), TIGRIS_OK);
  for (uint32_t delta : {1u, 2u, 4u, 8u}) {
    Bytes b = good;
    // Weight 0 (288 bytes) is followed by the 16-byte bias: a small shift stays in the blob.
    put32(b, weight_offset_field(b, 0), get32(b, weight_offset_field(b, 0)) + delta);
    EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION) << "offset +" << delta;
  }
  Bytes b = good;  // the bias entry too
  put32(b, weight_offset_field(b, 1), get32(b, weight_offset_field(b, 1)) - 3u);
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
}

// The same at schema 4, whose blob starts right after the 12-byte entries.
TEST(LoaderHostile, MisalignedWeightOffsetOldSchema) {
  PlanDesc p = conv_relu();
  p.version = 4;
  const Bytes good = write_plan(p);
  ASSERT_EQ(load_err(good), TIGRIS_OK);
  Bytes b = good;
  put32(b, weight_offset_field(b, 0), get32(b, weight_offset_field(b, 0)) + 1u);
  EXPECT_EQ(load_err(b), TIGRIS_ERR_BAD_SECTION);
}

// Finding: mutated kws_ref_model / vww_96_int8 plans stored requantization shifts the
// fixed-point helpers cannot take (a shift of an int32 by 32 or more, UBSan in
// s8_fixed_point.h from s8_conv.cpp). Stored factors outside the helpers' range are refused.
TEST(LoaderHostile, RequantShiftOutOfRangeIsBadOperator) {
  ASSERT_EQ(load_err(write_plan(int8_conv())), TIGRIS_OK);
  EXPECT_EQ(load_err(write_plan(int8_conv(31))), TIGRIS_OK);   // x * 2^31 wraps: defined
  EXPECT_EQ(load_err(write_plan(int8_conv(-31))), TIGRIS_OK);  // the right shift's limit
  for (int32_t shift : {32, 40, 127, -32, -40, -128, INT32_MIN, INT32_MAX})
    EXPECT_EQ(load_err(write_plan(int8_conv(shift))), TIGRIS_ERR_BAD_OPERATOR) << "shift " << shift;
}

TEST(LoaderHostile, RequantMultiplierNegativeIsBadOperator) {
  EXPECT_EQ(load_err(write_plan(int8_conv(-8, 0))), TIGRIS_OK);  // a flushed factor
  EXPECT_EQ(load_err(write_plan(int8_conv(-8, INT32_MAX))), TIGRIS_OK);
  EXPECT_EQ(load_err(write_plan(int8_conv(-8, -1))), TIGRIS_ERR_BAD_OPERATOR);
  EXPECT_EQ(load_err(write_plan(int8_conv(-8, INT32_MIN))), TIGRIS_ERR_BAD_OPERATOR);
}

namespace {

// x int8 [1,8] (scale s_in) -> op -> y int8 [1,8] (scale s_out): the kernel derives its
// factor from s_in / s_out (QuantizeMultiplier) rather than reading one from the plan.
PlanDesc int8_unary(uint8_t type, float s_in, float s_out) {
  PlanDesc p;
  p.model_name = "int8_unary";
  p.scheduled_peak = 256;
  p.tensors = {tensor("x", {1, 8}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_INT8),
               tensor("y", {1, 8}, TIGRIS_TENSOR_MODEL_OUTPUT, TIGRIS_DTYPE_INT8)};
  p.quant = {QuantDesc{s_in, 0, {1073741824}, {0}}, QuantDesc{s_out, 0, {1073741824}, {0}}};
  p.tensors[0].quant = 0;
  p.tensors[1].quant = 1;
  p.ops = {op(type, "op", {0}, {1})};
  p.stages = {stage({0}, {0}, {1})};
  p.model_inputs = {0};
  p.model_outputs = {1};
  return p;
}

}  // namespace

// The same UB through a derived factor: scales whose ratio reaches 2^30 give a shift past 31.
TEST(LoaderHostile, DerivedRequantFactorOutOfRangeIsBadOperator) {
  EXPECT_EQ(load_err(write_plan(int8_unary(TIGRIS_OP_RELU, 0.5f, 0.25f))), TIGRIS_OK);
  EXPECT_EQ(load_err(write_plan(int8_unary(TIGRIS_OP_RELU, 0.5f, 1e-9f))), TIGRIS_OK);  // 5e8 < 2^30
  EXPECT_EQ(load_err(write_plan(int8_unary(TIGRIS_OP_RELU, 4.0f, 1e-9f))), TIGRIS_ERR_BAD_OPERATOR);
  EXPECT_EQ(load_err(write_plan(int8_unary(TIGRIS_OP_RELU, 1e30f, 1.0f))), TIGRIS_ERR_BAD_OPERATOR);
  EXPECT_EQ(load_err(write_plan(int8_unary(TIGRIS_OP_SIGMOID, 1.0f / 16, 1.0f / 256))), TIGRIS_OK);
  EXPECT_EQ(load_err(write_plan(int8_unary(TIGRIS_OP_SIGMOID, 8.0f, 1.0f / 256))), TIGRIS_ERR_BAD_OPERATOR);
}
