// Test models: a float accumulator kept in a TFLite resource variable,
//   CALL_ONCE(init: acc = {1, -2, 3, -4}); s = READ_VARIABLE(acc) + x;
//   ASSIGN_VARIABLE(acc, s); y = RELU(s)
// so each run's output is relu(initial + the sum of every input so far). Values derived by
// hand: x = {10, 20, 30, 40} -> {11, 18, 33, 36}; then x = {-100, 1, 1, 1} -> s = {-89, 19,
// 34, 37}, y = {0, 19, 34, 37}. `residual` adds x once more at the end (y = relu(s) + x), so
// the whole graph needs more fast memory than its largest operator: at its floor the plan has
// several stages and the variable crosses them through slow memory.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "export/tflite/model.h"
#include "export/tflite/writer.h"

namespace tigris::test {

inline std::vector<uint8_t> tflite_accumulator_model(bool with_init = true, bool residual = false) {
  namespace tfl = tigris::tflite;
  tfl::Model m;
  m.buffers.resize(2);
  const float init[4] = {1, -2, 3, -4};
  m.buffers[1].data.resize(16);
  std::memcpy(m.buffers[1].data.data(), init, 16);
  for (int32_t code : {tfl::op::kCallOnce, tfl::op::kVarHandle, tfl::op::kReadVariable, tfl::op::kAdd,
                       tfl::op::kAssignVariable, tfl::op::kRelu})
    m.operator_codes.push_back(tfl::OperatorCode{code, std::nullopt, 1});
  auto tensor = [](const std::string& name, std::vector<int32_t> shape, tfl::TensorType type, uint32_t buffer) {
    tfl::Tensor t;
    t.name = name;
    t.shape = std::move(shape);
    t.type = type;
    t.buffer = buffer;
    return t;
  };
  auto op = [](uint32_t code, std::vector<int32_t> in, std::vector<int32_t> out, tfl::OptionsType type,
               decltype(tfl::Options::value) value = std::monostate{}) {
    tfl::Operator o;
    o.opcode_index = code;
    o.inputs = std::move(in);
    o.outputs = std::move(out);
    o.options.type = type;
    o.options.value = std::move(value);
    return o;
  };
  const tfl::VarHandleOptions handle{"", "acc"};
  tfl::SubGraph main;
  main.tensors = {tensor("x", {1, 4}, tfl::TensorType::Float32, 0),
                  tensor("acc", {}, tfl::TensorType::Resource, 0),
                  tensor("acc_value", {1, 4}, tfl::TensorType::Float32, 0),
                  tensor("sum", {1, 4}, tfl::TensorType::Float32, 0),
                  tensor("y", {1, 4}, tfl::TensorType::Float32, 0),
                  tensor("y_plus_x", {1, 4}, tfl::TensorType::Float32, 0)};
  if (with_init) main.operators.push_back(op(0, {}, {}, tfl::OptionsType::CallOnce, tfl::CallOnceOptions{1}));
  main.operators.push_back(op(1, {}, {1}, tfl::OptionsType::VarHandle, handle));
  main.operators.push_back(op(2, {1}, {2}, tfl::OptionsType::ReadVariable, tfl::NoFieldOptions{}));
  main.operators.push_back(op(3, {2, 0}, {3}, tfl::OptionsType::Add, tfl::AddSubOptions{}));
  main.operators.push_back(op(4, {1, 3}, {}, tfl::OptionsType::AssignVariable, tfl::NoFieldOptions{}));
  main.operators.push_back(op(5, {3}, {4}, tfl::OptionsType::None));
  if (residual) main.operators.push_back(op(3, {4, 0}, {5}, tfl::OptionsType::Add, tfl::AddSubOptions{}));
  main.inputs = {0};
  main.outputs = {residual ? 5 : 4};
  m.subgraphs.push_back(main);
  if (with_init) {
    tfl::SubGraph init;
    init.tensors = {tensor("acc", {}, tfl::TensorType::Resource, 0),
                    tensor("acc_init", {1, 4}, tfl::TensorType::Float32, 1)};
    init.operators.push_back(op(1, {}, {0}, tfl::OptionsType::VarHandle, handle));
    init.operators.push_back(op(4, {0, 1}, {}, tfl::OptionsType::AssignVariable, tfl::NoFieldOptions{}));
    m.subgraphs.push_back(init);
  }
  return tfl::write_model(m);
}

}  // namespace tigris::test
