// Writes the reader fuzz seed corpora, small hand-built files (none is a copy of a shared
// model): make_reader_corpus <tests/fuzz/readers>, which fills corpus_tflite/, corpus_onnx/
// and corpus_npy/. TFLite models come from export/tflite/writer.h, ONNX models from
// tests/unit/compiler/onnx_builder.h, arrays from the CLI's own writers.
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "export/tflite/model.h"
#include "export/tflite/writer.h"
#include "tools/tigris/arrays.h"
#include "tools/tigris/state_file.h"
#include "tools/tigris/zip.h"
#include "unit/compiler/onnx_builder.h"

namespace {

using namespace tigris;
namespace tfl = tigris::tflite;

void save(const std::string& path, const std::vector<uint8_t>& b) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
}

template <class T>
std::vector<uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(T));
  if (!b.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

tfl::Tensor ttensor(const std::string& name, std::vector<int32_t> shape, tfl::TensorType type, uint32_t buffer,
                    std::vector<float> scales = {}, std::vector<int64_t> zps = {}) {
  tfl::Tensor t;
  t.name = name;
  t.shape = std::move(shape);
  t.type = type;
  t.buffer = buffer;
  if (!scales.empty()) {
    tfl::Quantization q;
    q.scale = std::move(scales);
    q.zero_point = std::move(zps);
    t.quantization = q;
  }
  return t;
}

// int8 FULLY_CONNECTED with per-channel weights and a fused RELU6.
std::vector<uint8_t> tflite_fc() {
  tfl::Model m;
  m.buffers.resize(4);
  m.buffers[1].data = bytes_of(std::vector<int8_t>{4, -8, 2, 0, 1, 1, 1, 1});
  m.buffers[2].data = bytes_of(std::vector<int32_t>{40, -5});
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kFullyConnected, std::nullopt, 1});
  tfl::SubGraph sg;
  sg.tensors = {ttensor("x", {1, 4}, tfl::TensorType::Int8, 0, {0.5f}, {0}),
                ttensor("w", {2, 4}, tfl::TensorType::Int8, 1, {0.25f, 0.125f}, {0, 0}),
                ttensor("b", {2}, tfl::TensorType::Int32, 2, {0.125f, 0.0625f}, {0, 0}),
                ttensor("y", {1, 2}, tfl::TensorType::Int8, 0, {0.25f}, {-10})};
  sg.tensors[1].quantization->quantized_dimension = 0;
  tfl::Operator op;
  op.inputs = {0, 1, 2};
  op.outputs = {3};
  tfl::FullyConnectedOptions o;
  o.activation = tfl::Activation::Relu6;
  op.options.type = tfl::OptionsType::FullyConnected;
  op.options.value = o;
  sg.operators.push_back(op);
  sg.inputs = {0};
  sg.outputs = {3};
  m.subgraphs.push_back(sg);
  return tfl::write_model(m);
}

// float32 CONV_2D (3x3, SAME) then a float FULLY_CONNECTED: something export can band.
std::vector<uint8_t> tflite_conv(int size) {
  tfl::Model m;
  m.buffers.resize(4);
  m.buffers[1].data = bytes_of(std::vector<float>(4 * 3 * 3 * 2, 0.25f));
  m.buffers[2].data = bytes_of(std::vector<float>(4, 0.5f));
  m.operator_codes.push_back(tfl::OperatorCode{tfl::op::kConv2D, std::nullopt, 1});
  tfl::SubGraph sg;
  sg.tensors = {ttensor("x", {1, size, size, 2}, tfl::TensorType::Float32, 0),
                ttensor("w", {4, 3, 3, 2}, tfl::TensorType::Float32, 1), ttensor("b", {4}, tfl::TensorType::Float32, 2),
                ttensor("y", {1, size, size, 4}, tfl::TensorType::Float32, 0)};
  tfl::Operator op;
  op.inputs = {0, 1, 2};
  op.outputs = {3};
  tfl::Conv2DOptions o;
  o.padding = tfl::Padding::Same;
  o.stride_w = 1;
  o.stride_h = 1;
  o.activation = tfl::Activation::Relu;
  op.options.type = tfl::OptionsType::Conv2D;
  op.options.value = o;
  sg.operators.push_back(op);
  sg.inputs = {0};
  sg.outputs = {3};
  m.subgraphs.push_back(sg);
  return tfl::write_model(m);
}

std::vector<uint8_t> onnx_gemm() {
  test::OnnxBuilder b;
  b.input("x", {1, 2, 2, 2});
  b.init("w", {3, 8}, std::vector<float>(24, 0.5f));
  b.init("bias", {3}, {1, 2, 3});
  b.node("Flatten", {"x"}, {"f"});
  auto& n = b.node("Gemm", {"f", "w", "bias"}, {"y"}, "fc");
  test::OnnxBuilder::attr(n, "transB", int64_t{1});
  b.output("y", {1, 3});
  return b.bytes();
}

std::vector<uint8_t> onnx_conv(int size) {
  test::OnnxBuilder b;
  b.input("x", {1, 2, size, size});
  b.init("w", {4, 2, 3, 3}, std::vector<float>(72, 0.25f));
  b.init("bias", {4}, {0, 1, 2, 3});
  auto& c = b.node("Conv", {"x", "w", "bias"}, {"c"}, "conv");
  test::OnnxBuilder::attr(c, "pads", std::vector<int64_t>{1, 1, 1, 1});
  b.node("Relu", {"c"}, {"r"});
  auto& p = b.node("MaxPool", {"r"}, {"y"}, "pool");
  test::OnnxBuilder::attr(p, "kernel_shape", std::vector<int64_t>{2, 2});
  test::OnnxBuilder::attr(p, "strides", std::vector<int64_t>{2, 2});
  b.output("y", {1, 4, size / 2, size / 2});
  return b.bytes();
}

std::vector<uint8_t> onnx_symbolic() {
  test::OnnxBuilder b;
  b.input("x", {0, 8}, onnx::TensorProto::FLOAT, {"batch"});
  b.node("Relu", {"x"}, {"y"});
  b.output("y", {0, 8});
  return b.bytes();
}

cli::Array array(int dtype, std::vector<int64_t> shape, size_t elem) {
  cli::Array a;
  a.dtype = dtype;
  a.shape = std::move(shape);
  a.data.resize(static_cast<size_t>(cli::element_count(a.shape)) * elem);
  for (size_t i = 0; i < a.data.size(); i++) a.data[i] = static_cast<uint8_t>(i * 7 + 1);
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const std::string dir = argv[1];
  save(dir + "/corpus_tflite/fc_int8.tflite", tflite_fc());
  save(dir + "/corpus_tflite/conv_f32.tflite", tflite_conv(8));
  save(dir + "/corpus_tflite/conv_f32_big.tflite", tflite_conv(96));  // over the 64 KiB budget
  save(dir + "/corpus_onnx/gemm.onnx", onnx_gemm());
  save(dir + "/corpus_onnx/conv_relu_pool.onnx", onnx_conv(8));
  save(dir + "/corpus_onnx/conv_relu_pool_big.onnx", onnx_conv(96));
  save(dir + "/corpus_onnx/symbolic_batch.onnx", onnx_symbolic());
  const cli::Array f32 = array(1, {1, 3, 4}, 4), i8 = array(3, {2, 5}, 1), scalar = array(7, {}, 8);
  save(dir + "/corpus_npy/f32.npy", cli::write_npy(f32));
  save(dir + "/corpus_npy/i8.npy", cli::write_npy(i8));
  save(dir + "/corpus_npy/i64_scalar.npy", cli::write_npy(scalar));
  save(dir + "/corpus_npy/two.npz", cli::write_npz({{"x", f32}, {"y", i8}}));
  // A --state file of a 16-byte state (the fuzz target decodes it for the plan it names).
  save(dir + "/corpus_npy/sixteen.state",
       cli::encode_state_file(0x0123456789abcdefull, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}));
  return 0;
}
