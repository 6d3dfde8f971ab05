// int16-vs-tflm: the int16 (16x8) kernels against a local TensorFlow Lite Micro build.
//   int16-vs-tflm write DIR   writes single-operator 16x8 models (and a float TRANSPOSE_CONV)
//                             covering what the seanet set does not: DEPTHWISE_CONV_2D,
//                             FULLY_CONNECTED (per channel, per tensor, int32 bias), CONV_2D with
//                             an int32 bias, MUL, ADD with ReLU and zero points, QUANTIZE
//                             (float -> int16, int16 <-> int8), DEQUANTIZE, SOFTMAX, LOGISTIC and
//                             TANH (power-of-two and general scales), MEAN, CONCATENATION,
//                             RESHAPE, AVERAGE_POOL_2D, MAX_POOL_2D, LEAKY_RELU (negative alpha),
//                             PAD (non-zero zero point), TRANSPOSE_CONV (SAME, odd output)
//   int16-vs-tflm check DIR   compiles each DIR/<m>.tflite at 16M and at its floor, runs it on
//                             DIR/<m>/input_k.npy and compares with DIR/<m>/output_k.npy (what
//                             tools/tflm-reference's tflm_ref writes): integer outputs byte for
//                             byte, float outputs within 1e-5 relative. Exit 1 on a difference.
// scripts/int16-vs-tflm.sh runs both around tflm_ref. Weights are seeded: the models are the
// same on every run.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "compiler/api.h"
#include "compiler_support/npy.h"
#include "compiler_support/plan_runner.h"
#include "export/tflite/writer.h"

namespace {

using namespace tigris::tflite;
namespace fs = std::filesystem;

struct T {
  std::string name;
  std::vector<int32_t> shape;
  TensorType type;
  std::vector<float> scales = {};
  std::vector<int64_t> zps = {};
  int qd = 0;
  std::vector<uint8_t> data = {};
};

template <class X>
std::vector<uint8_t> bytes(const std::vector<X>& v) {
  std::vector<uint8_t> b(v.size() * sizeof(X));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}

struct Builder {
  Model m;
  SubGraph sg;
  Builder() { m.buffers.resize(1); }
  int add(const T& t) {
    Tensor x;
    x.name = t.name;
    x.shape = t.shape;
    x.type = t.type;
    if (!t.scales.empty()) {
      Quantization q;
      q.scale = t.scales;
      q.zero_point = t.zps;
      q.quantized_dimension = t.qd;
      x.quantization = q;
    }
    if (!t.data.empty()) {
      m.buffers.push_back(Buffer{t.data});
      x.buffer = static_cast<uint32_t>(m.buffers.size() - 1);
    }
    sg.tensors.push_back(x);
    return static_cast<int>(sg.tensors.size() - 1);
  }
  void op(int32_t code, std::vector<int32_t> in, std::vector<int32_t> out, Options o = {}) {
    m.operator_codes.push_back(OperatorCode{code, std::nullopt, 1});
    Operator p;
    p.opcode_index = static_cast<uint32_t>(m.operator_codes.size() - 1);
    p.inputs = in;
    p.outputs = out;
    p.options = o;
    sg.operators.push_back(p);
  }
  void write(const std::string& path, std::vector<int32_t> ins, std::vector<int32_t> outs) {
    sg.inputs = ins;
    sg.outputs = outs;
    m.subgraphs = {sg};
    write_model_file(m, path);
  }
};

std::mt19937 rng(5);
std::vector<int8_t> rand8(size_t n) {
  std::vector<int8_t> v(n);
  for (auto& x : v) x = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
  return v;
}
std::vector<int64_t> rand64(size_t n, int64_t r) {
  std::vector<int64_t> v(n);
  for (auto& x : v) x = static_cast<int64_t>(rng() % static_cast<uint64_t>(2 * r + 1)) - r;
  return v;
}
std::vector<int32_t> rand32(size_t n, int32_t r) {
  std::vector<int32_t> v(n);
  for (auto& x : v) x = static_cast<int32_t>(rng() % static_cast<uint32_t>(2 * r + 1)) - r;
  return v;
}
std::vector<float> scales(size_t n, float base) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = base * (0.5f + static_cast<float>(rng() % 1000) / 1000.0f);
  return v;
}
const auto I16 = TensorType::Int16, I8 = TensorType::Int8, F32 = TensorType::Float32;

template <class O>
Options opt(OptionsType t, O o) {
  Options x;
  x.type = t;
  x.value = o;
  return x;
}

void write_models(const std::string& dir) {
  {  // depthwise 3x3 s2 SAME mult 2, per-channel, int64 bias, relu6
    Builder b;
    int x = b.add({"x", {1, 9, 9, 4}, I16, {0.0005f}, {0}});
    int w = b.add({"w", {1, 3, 3, 8}, I8, scales(8, 0.01f), std::vector<int64_t>(8, 0), 3, bytes(rand8(72))});
    int bb = b.add({"b",
                    {8},
                    TensorType::Int64,
                    std::vector<float>(8, 1e-6f),
                    std::vector<int64_t>(8, 0),
                    0,
                    bytes(rand64(8, 200000))});
    int y = b.add({"y", {1, 5, 5, 8}, I16, {0.0001f}, {0}});
    DepthwiseConv2DOptions o;
    o.padding = Padding::Same;
    o.stride_h = o.stride_w = 2;
    o.depth_multiplier = 2;
    o.activation = Activation::Relu6;
    b.op(op::kDepthwiseConv2D, {x, w, bb}, {y}, opt(OptionsType::DepthwiseConv2D, o));
    b.write(dir + "/dw16.tflite", {x}, {y});
  }
  {  // fully connected per-channel int64 bias, relu
    Builder b;
    int x = b.add({"x", {2, 16}, I16, {0.0007f}, {0}});
    int w = b.add({"w", {8, 16}, I8, scales(8, 0.01f), std::vector<int64_t>(8, 0), 0, bytes(rand8(128))});
    int bb = b.add({"b", {8}, TensorType::Int64, {1e-6f}, {0}, 0, bytes(rand64(8, 300000))});
    int y = b.add({"y", {2, 8}, I16, {0.0009f}, {0}});
    FullyConnectedOptions o;
    o.activation = Activation::Relu;
    b.op(op::kFullyConnected, {x, w, bb}, {y}, opt(OptionsType::FullyConnected, o));
    b.write(dir + "/fc16.tflite", {x}, {y});
  }
  {  // fully connected per-tensor, int32 bias
    Builder b;
    int x = b.add({"x", {1, 16}, I16, {0.0007f}, {0}});
    int w = b.add({"w", {8, 16}, I8, {0.01f}, {0}, 0, bytes(rand8(128))});
    int bb = b.add({"b", {8}, TensorType::Int32, {1e-6f}, {0}, 0, bytes(rand32(8, 300000))});
    int y = b.add({"y", {1, 8}, I16, {0.0009f}, {0}});
    FullyConnectedOptions o;
    b.op(op::kFullyConnected, {x, w, bb}, {y}, opt(OptionsType::FullyConnected, o));
    b.write(dir + "/fc16_pt32.tflite", {x}, {y});
  }
  {  // conv int32 bias (int32 accumulator), stride 2 SAME, 3x3, relu
    Builder b;
    int x = b.add({"x", {1, 7, 7, 3}, I16, {0.0004f}, {0}});
    int w = b.add({"w", {5, 3, 3, 3}, I8, scales(5, 0.01f), std::vector<int64_t>(5, 0), 0, bytes(rand8(135))});
    int bb = b.add({"b", {5}, TensorType::Int32, {1e-6f}, {0}, 0, bytes(rand32(5, 100000))});
    int y = b.add({"y", {1, 4, 4, 5}, I16, {0.0003f}, {0}});
    Conv2DOptions o;
    o.padding = Padding::Same;
    o.stride_h = o.stride_w = 2;
    o.activation = Activation::Relu;
    b.op(op::kConv2D, {x, w, bb}, {y}, opt(OptionsType::Conv2D, o));
    b.write(dir + "/conv16_b32.tflite", {x}, {y});
  }
  {  // mul with broadcast
    Builder b;
    int x = b.add({"x", {1, 4, 4, 8}, I16, {0.0003f}, {0}});
    int z = b.add({"z", {8}, I16, {0.0002f}, {0}});
    int y = b.add({"y", {1, 4, 4, 8}, I16, {0.00001f}, {0}});
    b.op(op::kMul, {x, z}, {y}, opt(OptionsType::Mul, MulOptions{}));
    b.write(dir + "/mul16.tflite", {x, z}, {y});
  }
  {  // add with relu and nonzero zero points
    Builder b;
    int x = b.add({"x", {1, 3, 5, 4}, I16, {0.0003f}, {100}});
    int z = b.add({"z", {1, 3, 5, 4}, I16, {0.0005f}, {-50}});
    int y = b.add({"y", {1, 3, 5, 4}, I16, {0.0006f}, {20}});
    AddSubOptions o;
    o.activation = Activation::Relu;
    b.op(op::kAdd, {x, z}, {y}, opt(OptionsType::Add, o));
    b.write(dir + "/add16_relu.tflite", {x, z}, {y});
  }
  {  // quantize float -> int16
    Builder b;
    int x = b.add({"x", {1, 4, 4, 8}, F32, {}, {}});
    int y = b.add({"y", {1, 4, 4, 8}, I16, {0.00004f}, {0}});
    b.op(op::kQuantize, {x}, {y});
    b.write(dir + "/quant_f_i16.tflite", {x}, {y});
  }
  {  // quantize int16 -> int8
    Builder b;
    int x = b.add({"x", {1, 4, 4, 8}, I16, {0.0001f}, {0}});
    int y = b.add({"y", {1, 4, 4, 8}, I8, {0.02f}, {-5}});
    b.op(op::kQuantize, {x}, {y});
    b.write(dir + "/quant_i16_i8.tflite", {x}, {y});
  }
  {  // quantize int8 -> int16
    Builder b;
    int x = b.add({"x", {1, 4, 4, 8}, I8, {0.02f}, {7}});
    int y = b.add({"y", {1, 4, 4, 8}, I16, {0.0001f}, {0}});
    b.op(op::kQuantize, {x}, {y});
    b.write(dir + "/quant_i8_i16.tflite", {x}, {y});
  }
  {  // dequantize int16 -> float
    Builder b;
    int x = b.add({"x", {1, 4, 4, 8}, I16, {0.0001f}, {3}});
    int y = b.add({"y", {1, 4, 4, 8}, F32, {}, {}});
    b.op(op::kDequantize, {x}, {y});
    b.write(dir + "/dequant_i16.tflite", {x}, {y});
  }
  {  // softmax int16
    Builder b;
    int x = b.add({"x", {1, 3, 10}, I16, {0.0004f}, {0}});
    int y = b.add({"y", {1, 3, 10}, I16, {1.0f / 32768}, {0}});
    SoftmaxOptions o;
    o.beta = 1.0f;
    b.op(op::kSoftmax, {x}, {y}, opt(OptionsType::Softmax, o));
    b.write(dir + "/softmax16.tflite", {x}, {y});
  }
  for (int tanh = 0; tanh < 2; ++tanh)
    for (int pot = 0; pot < 2; ++pot) {
      Builder b;
      int x = b.add({"x", {1, 4, 4, 8}, I16, {pot ? 1.0f / 4096 : 0.00037f}, {0}});
      int y = b.add({"y", {1, 4, 4, 8}, I16, {1.0f / 32768}, {0}});
      b.op(tanh ? op::kTanh : op::kLogistic, {x}, {y});
      b.write(dir + (tanh ? "/tanh16" : "/logistic16") + (pot ? "_pot" : "") + ".tflite", {x}, {y});
    }
  {  // mean over H, W keep dims
    Builder b;
    int x = b.add({"x", {1, 6, 6, 8}, I16, {0.0004f}, {0}});
    int ax = b.add({"axes", {2}, TensorType::Int32, {}, {}, 0, bytes(std::vector<int32_t>{1, 2})});
    int y = b.add({"y", {1, 1, 1, 8}, I16, {0.0001f}, {0}});
    ReducerOptions o;
    o.keep_dims = true;
    b.op(op::kMean, {x, ax}, {y}, opt(OptionsType::Reducer, o));
    b.write(dir + "/mean16.tflite", {x}, {y});
  }
  {  // mean over the last axis, no keep dims
    Builder b;
    int x = b.add({"x", {1, 5, 12}, I16, {0.0004f}, {0}});
    int ax = b.add({"axes", {1}, TensorType::Int32, {}, {}, 0, bytes(std::vector<int32_t>{2})});
    int y = b.add({"y", {1, 5}, I16, {0.0003f}, {0}});
    ReducerOptions o;
    b.op(op::kMean, {x, ax}, {y}, opt(OptionsType::Reducer, o));
    b.write(dir + "/mean16_last.tflite", {x}, {y});
  }
  {  // concat axis 3
    Builder b;
    int x = b.add({"x", {1, 3, 3, 4}, I16, {0.0004f}, {0}});
    int z = b.add({"z", {1, 3, 3, 2}, I16, {0.0004f}, {0}});
    int y = b.add({"y", {1, 3, 3, 6}, I16, {0.0004f}, {0}});
    ConcatenationOptions o;
    o.axis = 3;
    b.op(op::kConcatenation, {x, z}, {y}, opt(OptionsType::Concatenation, o));
    b.write(dir + "/concat16.tflite", {x, z}, {y});
  }
  {  // reshape
    Builder b;
    int x = b.add({"x", {1, 3, 3, 4}, I16, {0.0004f}, {0}});
    int s = b.add({"s", {2}, TensorType::Int32, {}, {}, 0, bytes(std::vector<int32_t>{1, 36})});
    int y = b.add({"y", {1, 36}, I16, {0.0004f}, {0}});
    b.op(op::kReshape, {x, s}, {y});
    b.write(dir + "/reshape16.tflite", {x}, {y});
  }
  for (int avg = 0; avg < 2; ++avg) {
    Builder b;
    int x = b.add({"x", {1, 9, 9, 4}, I16, {0.0004f}, {0}});
    int y = b.add({"y", {1, 5, 5, 4}, I16, {0.0004f}, {0}});
    Pool2DOptions o;
    o.padding = Padding::Same;
    o.stride_h = o.stride_w = 2;
    o.filter_h = o.filter_w = 3;
    b.op(avg ? op::kAveragePool2D : op::kMaxPool2D, {x}, {y}, opt(OptionsType::Pool2D, o));
    b.write(dir + (avg ? "/avgpool16.tflite" : "/maxpool16.tflite"), {x}, {y});
  }
  {  // leaky relu negative alpha
    Builder b;
    int x = b.add({"x", {1, 4, 4, 8}, I16, {0.0004f}, {0}});
    int y = b.add({"y", {1, 4, 4, 8}, I16, {0.0003f}, {0}});
    LeakyReluOptions o;
    o.alpha = -0.2f;
    b.op(op::kLeakyRelu, {x}, {y}, opt(OptionsType::LeakyRelu, o));
    b.write(dir + "/leaky16_neg.tflite", {x}, {y});
  }
  {  // pad int16 with nonzero zero point (TFLM fills raw 0)
    Builder b;
    int x = b.add({"x", {1, 3, 3, 2}, I16, {0.0004f}, {5}});
    int p = b.add({"p", {4, 2}, TensorType::Int32, {}, {}, 0, bytes(std::vector<int32_t>{0, 0, 1, 2, 2, 1, 0, 0})});
    int y = b.add({"y", {1, 6, 6, 2}, I16, {0.0004f}, {5}});
    b.op(op::kPad, {x, p}, {y}, opt(OptionsType::Pad, NoFieldOptions{}));
    b.write(dir + "/pad16_zp.tflite", {x}, {y});
  }
  std::uniform_real_distribution<float> uf(-1.0f, 1.0f);
  {  // float transpose conv, stride 2 SAME, 3x3, bias
    Builder b;
    int sh = b.add({"shape", {4}, TensorType::Int32, {}, {}, 0, bytes(std::vector<int32_t>{1, 6, 8, 3})});
    std::vector<float> wv(3 * 3 * 3 * 5);
    for (auto& v : wv) v = uf(rng);
    int w = b.add({"w", {3, 3, 3, 5}, F32, {}, {}, 0, bytes(wv)});
    int x = b.add({"x", {1, 3, 4, 5}, F32, {}, {}});
    int bb = b.add({"b", {3}, F32, {}, {}, 0, bytes(std::vector<float>{0.1f, -0.2f, 0.3f})});
    int y = b.add({"y", {1, 6, 8, 3}, F32, {}, {}});
    TransposeConvOptions o;
    o.padding = Padding::Same;
    o.stride_h = o.stride_w = 2;
    b.op(op::kTransposeConv, {sh, w, x, bb}, {y}, opt(OptionsType::TransposeConv, o));
    b.write(dir + "/tconv_f32.tflite", {x}, {y});
  }
  {  // int16 transpose conv, stride 2 SAME, odd output, 4x3 kernel, int64 bias, constant shape
    Builder b;
    int sh = b.add({"shape", {4}, TensorType::Int32, {}, {}, 0, bytes(std::vector<int32_t>{1, 7, 9, 4})});
    int w =
        b.add({"w", {4, 4, 3, 6}, I8, scales(4, 0.01f), std::vector<int64_t>(4, 0), 0, bytes(rand8(4 * 4 * 3 * 6))});
    int x = b.add({"x", {1, 4, 5, 6}, I16, {0.0004f}, {0}});
    int bb = b.add({"b", {4}, TensorType::Int64, {1e-6f}, {0}, 0, bytes(rand64(4, 100000))});
    int y = b.add({"y", {1, 7, 9, 4}, I16, {0.0009f}, {0}});
    TransposeConvOptions o;
    o.padding = Padding::Same;
    o.stride_h = o.stride_w = 2;
    b.op(op::kTransposeConv, {sh, w, x, bb}, {y}, opt(OptionsType::TransposeConv, o));
    b.write(dir + "/tconv16_same.tflite", {x}, {y});
  }
}

// ---- check ----

bool compare(const std::vector<uint8_t>& got, const tigris::test::NpyArray& ref, std::string* why) {
  if (ref.descr != "<f4") {
    if (got == ref.data) return true;
    size_t i = 0;
    while (i < std::min(got.size(), ref.data.size()) && got[i] == ref.data[i]) ++i;
    *why = "bytes differ from byte " + std::to_string(i);
    return false;
  }
  std::vector<float> g(got.size() / 4), r = ref.floats();
  if (!g.empty()) std::memcpy(g.data(), got.data(), g.size() * 4);
  if (g.size() != r.size()) return *why = "sizes differ", false;
  for (size_t i = 0; i < r.size(); ++i)
    if (std::fabs(g[i] - r[i]) > 1e-5 * std::fabs(r[i]) + 1e-6) {
      *why = "element " + std::to_string(i) + ": " + std::to_string(g[i]) + " vs " + std::to_string(r[i]);
      return false;
    }
  return true;
}

// The model at `fast`: "ok" or what differs.
std::string check_at(const tigris::compiler::Model& m, const std::string& refs, uint64_t fast) {
  tigris::compiler::Budgets b;
  b.fast = fast;
  tigris::compiler::CompileResult c = tigris::compiler::compile(m, b);
  if (!c.ok()) return "compile: " + c.error;
  for (int k = 0; fs::exists(refs + "/output_" + std::to_string(k) + ".npy"); ++k) {
    std::vector<std::vector<uint8_t>> inputs;
    std::string one = refs + "/input_" + std::to_string(k) + ".npy";
    if (fs::exists(one)) {
      inputs.push_back(tigris::test::read_npy(one).data);
    } else {
      for (int i = 0; fs::exists(refs + "/input_" + std::to_string(k) + "_" + std::to_string(i) + ".npy"); ++i)
        inputs.push_back(
            tigris::test::read_npy(refs + "/input_" + std::to_string(k) + "_" + std::to_string(i) + ".npy").data);
    }
    tigris::test::PlanRun r = tigris::test::run_plan(c.plan, inputs, 1u << 24);
    if (!r.error.empty()) return "input " + std::to_string(k) + ": " + r.error;
    std::string why;
    if (!compare(r.outputs.at(0), tigris::test::read_npy(refs + "/output_" + std::to_string(k) + ".npy"), &why))
      return "input " + std::to_string(k) + ": " + why;
  }
  return "ok";
}

int check(const std::string& dir) {
  std::vector<fs::path> models;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".tflite") models.push_back(e.path());
  std::sort(models.begin(), models.end());
  int failures = 0;
  for (const fs::path& p : models) {
    const std::string refs = dir + "/" + p.stem().string();
    if (!fs::exists(refs + "/output_0.npy")) {
      std::printf("%-16s no references in %s\n", p.stem().c_str(), refs.c_str());
      ++failures;
      continue;
    }
    tigris::compiler::Model m = tigris::compiler::load_model(p.string());
    tigris::compiler::Budgets b;
    b.fast = 16u << 20;
    const uint64_t floor = tigris::compiler::schedule(m, b).fast.minimum_for_partition_bytes;
    const std::string untiled = check_at(m, refs, 16u << 20), tight = check_at(m, refs, floor);
    std::printf("%-16s 16M: %s   floor %llu: %s\n", p.stem().c_str(), untiled.c_str(),
                static_cast<unsigned long long>(floor), tight.c_str());
    failures += untiled != "ok" || tight != "ok";
  }
  std::printf("%zu models, %d differ from TensorFlow Lite Micro\n", models.size(), failures);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3 || (std::string(argv[1]) != "write" && std::string(argv[1]) != "check")) {
    std::fprintf(stderr, "usage: int16-vs-tflm write|check DIR\n");
    return 2;
  }
  try {
    if (std::string(argv[1]) == "write") {
      fs::create_directories(argv[2]);
      write_models(argv[2]);
      return 0;
    }
    return check(argv[2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "Error: %s\n", e.what());
    return 1;
  }
}
