// Building small in-memory TFLite models for tests.
#pragma once

#include <string>
#include <vector>

#include "export/tflite/edit.h"
#include "export/tflite/model.h"

namespace tigris::test {

using namespace tigris::tflite;

struct ModelMaker {
  Model m;
  ModelMaker() {
    m.buffers.push_back({});
    m.subgraphs.emplace_back();
  }
  SubGraph& g() { return m.subgraphs[0]; }

  int32_t tensor(std::vector<int32_t> shape, TensorType type = TensorType::Int8, float scale = 0.5f,
                 int64_t zero_point = 0, const std::string& name = "") {
    Tensor t;
    t.shape = std::move(shape);
    t.type = type;
    t.name = name.empty() ? "t" + std::to_string(g().tensors.size()) : name;
    if (scale > 0) t.quantization = Quantization{{}, {}, {scale}, {zero_point}, 0};
    return add_tensor(g(), std::move(t));
  }
  // Constant int8 tensor filled with `value`, optional per-channel quantization on `axis`.
  int32_t weights(std::vector<int32_t> shape, int8_t value = 1, int channels = 1, int axis = 0) {
    Tensor t;
    t.shape = std::move(shape);
    t.type = TensorType::Int8;
    t.name = "w" + std::to_string(g().tensors.size());
    Quantization q;
    q.scale.assign(static_cast<size_t>(channels), 0.25f);
    q.zero_point.assign(static_cast<size_t>(channels), 0);
    q.quantized_dimension = axis;
    t.quantization = q;
    std::vector<uint8_t> data(static_cast<size_t>(element_count(t.shape)), static_cast<uint8_t>(value));
    t.buffer = add_buffer(m, std::move(data));
    return add_tensor(g(), std::move(t));
  }
  int32_t bias(int32_t n) {
    Tensor t;
    t.shape = {n};
    t.type = TensorType::Int32;
    t.name = "b" + std::to_string(g().tensors.size());
    t.quantization = Quantization{
        {}, {}, std::vector<float>(static_cast<size_t>(n), 0.125f), std::vector<int64_t>(static_cast<size_t>(n), 0), 0};
    t.buffer = add_buffer(m, std::vector<uint8_t>(static_cast<size_t>(4 * n), 0));
    return add_tensor(g(), std::move(t));
  }
  int32_t ints(std::vector<int32_t> shape, std::vector<int32_t> values) {
    return add_int32_constant(m, g(), "c" + std::to_string(g().tensors.size()), shape, values);
  }
  Operator& op(int32_t code, std::vector<int32_t> inputs, std::vector<int32_t> outputs, Options options = {}) {
    Operator o;
    o.opcode_index = operator_code_index(m, code);
    o.inputs = std::move(inputs);
    o.outputs = std::move(outputs);
    o.options = std::move(options);
    g().operators.push_back(std::move(o));
    return g().operators.back();
  }
  void io(std::vector<int32_t> inputs, std::vector<int32_t> outputs) {
    g().inputs = std::move(inputs);
    g().outputs = std::move(outputs);
  }
};

inline Options conv_options(int stride, Padding padding = Padding::Same, Activation act = Activation::None) {
  return {OptionsType::Conv2D, Conv2DOptions{padding, stride, stride, act, 1, 1, TensorType::Float32}};
}
inline Options depthwise_options(int stride, Padding padding = Padding::Same, Activation act = Activation::None) {
  return {OptionsType::DepthwiseConv2D, DepthwiseConv2DOptions{padding, stride, stride, 1, act, 1, 1}};
}
inline Options pool_options(int stride, int filter, Padding padding = Padding::Valid) {
  return {OptionsType::Pool2D, Pool2DOptions{padding, stride, stride, filter, filter, Activation::None}};
}

}  // namespace tigris::test
