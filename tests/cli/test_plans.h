// Small plans for the CLI tests, written with the plan writer. Every figure a test
// expects is derived by hand from these descriptions.
#pragma once

#include "compiler/plan/plan_writer.h"

namespace tigris::clitest {

using namespace tigris::plan;

inline TensorDesc tensor(const std::string& name, std::vector<int32_t> shape, uint8_t flags = 0,
                         uint8_t dtype = TIGRIS_DTYPE_FLOAT32) {
  TensorDesc t;
  t.name = name;
  t.shape = std::move(shape);
  t.flags = flags;
  t.dtype = dtype;
  return t;
}

inline OpDesc op(uint8_t type, const std::string& name, std::vector<uint16_t> in, std::vector<uint16_t> out) {
  OpDesc o;
  o.type = type;
  o.name = name;
  o.inputs = std::move(in);
  o.outputs = std::move(out);
  return o;
}

inline StageDesc stage(std::vector<uint16_t> ops, std::vector<uint16_t> in, std::vector<uint16_t> out,
                       uint32_t peak = 0) {
  StageDesc s;
  s.ops = std::move(ops);
  s.inputs = std::move(in);
  s.outputs = std::move(out);
  s.peak_bytes = peak;
  return s;
}

// x [1,8,8,2] (NHWC; declared 1x2x8x8) -> conv 3x3 s1 p1 (w 288 B, b 16 B) -> y [1,8,8,4]
// -> relu -> z [1,8,8,4]; stage 0 = conv, stage 1 = relu.
inline PlanDesc conv_relu_plan() {
  PlanDesc p;
  p.model_name = "conv_relu";
  p.budget = 5000;
  p.peak = 1234;
  p.scheduled_peak = 4096;
  p.slow_peak = 2048;
  p.tensors = {tensor("x", {1, 8, 8, 2}, TIGRIS_TENSOR_MODEL_INPUT), tensor("y", {1, 8, 8, 4}),
               tensor("z", {1, 8, 8, 4}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  OpDesc c = op(TIGRIS_OP_CONV, "conv", {0}, {1});
  c.spatial.kernel_h = c.spatial.kernel_w = 3;
  c.spatial.stride_h = c.spatial.stride_w = 1;
  c.spatial.pad_top = c.spatial.pad_bottom = c.spatial.pad_left = c.spatial.pad_right = 1;
  c.spatial.dilation_h = c.spatial.dilation_w = 1;
  c.spatial.group = 1;
  c.weight = 0;
  c.bias = 1;
  p.ops = {c, op(TIGRIS_OP_RELU, "relu", {1}, {2})};
  p.stages = {stage({0}, {0}, {1}, 3072), stage({1}, {1}, {2}, 2048)};
  p.weights = {WeightDesc{"w", std::vector<uint8_t>(288, 1)}, WeightDesc{"b", std::vector<uint8_t>(16, 0)}};
  p.model_inputs = {0};
  p.model_outputs = {2};
  return p;
}

// x [1,2,3,4] float32 (NHWC; declared 1x4x2x3) -> relu -> y [1,2,3,4]; one stage.
inline PlanDesc relu_plan(uint8_t flags_extra = 0) {
  PlanDesc p;
  p.model_name = "relu";
  p.budget = 256;
  p.peak = 192;
  p.scheduled_peak = 192;
  p.tensors = {tensor("x", {1, 2, 3, 4}, TIGRIS_TENSOR_MODEL_INPUT | flags_extra),
               tensor("y", {1, 2, 3, 4}, TIGRIS_TENSOR_MODEL_OUTPUT | flags_extra)};
  p.ops = {op(TIGRIS_OP_RELU, "relu", {0}, {1})};
  p.stages = {stage({0}, {0}, {1}, 192)};
  p.model_inputs = {0};
  p.model_outputs = {1};
  return p;
}

}  // namespace tigris::clitest

namespace tigris::clitest {

// x [1,2,3,4] float32 (NHWC; declared 1x4x2x3) -> flatten -> y [1,24]: the output lists
// the input in stored order, so it shows where each declared element went.
inline PlanDesc flatten_plan() {
  PlanDesc p;
  p.model_name = "flatten";
  p.budget = 256;
  p.peak = 192;
  p.scheduled_peak = 192;
  p.tensors = {tensor("x", {1, 2, 3, 4}, TIGRIS_TENSOR_MODEL_INPUT), tensor("y", {1, 24}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  p.ops = {op(TIGRIS_OP_FLATTEN, "flatten", {0}, {1})};
  p.stages = {stage({0}, {0}, {1}, 192)};
  p.model_inputs = {0};
  p.model_outputs = {1};
  return p;
}

// a, b [1,2] -> add -> s [1,2] -> relu -> r [1,2]; s and r are both model outputs.
inline PlanDesc add_relu_plan() {
  PlanDesc p;
  p.model_name = "add_relu";
  p.budget = 256;
  p.peak = 128;
  p.scheduled_peak = 128;
  p.tensors = {tensor("a", {1, 2}, TIGRIS_TENSOR_MODEL_INPUT), tensor("b", {1, 2}, TIGRIS_TENSOR_MODEL_INPUT),
               tensor("s", {1, 2}, TIGRIS_TENSOR_MODEL_OUTPUT), tensor("r", {1, 2}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  p.ops = {op(TIGRIS_OP_ADD, "add", {0, 1}, {2}), op(TIGRIS_OP_RELU, "relu", {2}, {3})};
  p.stages = {stage({0, 1}, {0, 1}, {2, 3}, 128)};
  p.model_inputs = {0, 1};
  p.model_outputs = {2, 3};
  return p;
}

}  // namespace tigris::clitest

namespace tigris::clitest {

// x int8 [1,4] declared float32 (scale 0.5, zero point 1) -> relu -> y int8 [1,4], declared
// float32, same quantization: the runtime's interface converts at both ends.
inline PlanDesc relu_int8_plan() {
  PlanDesc p;
  p.model_name = "relu_int8";
  p.budget = 256;
  p.peak = 64;
  p.scheduled_peak = 64;
  QuantDesc q;
  q.scale = 0.5f;
  q.zero_point = 1;
  q.multipliers = {1 << 30};
  q.shifts = {1};
  p.quant = {q};
  TensorDesc x = tensor("x", {1, 4}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_INT8);
  TensorDesc y = tensor("y", {1, 4}, TIGRIS_TENSOR_MODEL_OUTPUT, TIGRIS_DTYPE_INT8);
  x.quant = y.quant = 0;
  x.iface_dtype = y.iface_dtype = TIGRIS_DTYPE_FLOAT32;
  p.tensors = {x, y};
  OpDesc relu = op(TIGRIS_OP_RELU, "relu", {0}, {1});
  relu.fused_act = TIGRIS_ACT_NONE;
  relu.act_min = 1;  // ReLU clamps at the zero point
  relu.act_max = 127;
  p.ops = {relu};
  p.stages = {stage({0}, {0}, {1}, 64)};
  p.model_inputs = {0};
  p.model_outputs = {1};
  return p;
}

}  // namespace tigris::clitest
