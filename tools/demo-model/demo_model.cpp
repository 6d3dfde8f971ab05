// tigris-demo-model: the data `make demo` runs, made here rather than downloaded.
//
//   tigris-demo-model write DIR      -> DIR/demo.onnx, DIR/demo_input.npy, DIR/demo_expected.npy
//   tigris-demo-model compare A.npy B.npy [--tolerance T]
//
// The network: 1x3x64x64 image -> 3 x (Conv 3x3 + Relu [+ MaxPool 2x2]) -> GlobalAveragePool
// -> Flatten -> Gemm -> 1x10 logits, weights from a seeded generator. demo_expected.npy is
// the network's output on demo_input.npy from reference.cpp's own forward pass.
#include <onnx/onnx_pb.h>
#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "tools/demo-model/network.h"
#include "tools/tigris/arrays.h"
#include "tools/tigris/cli_errors.h"
#include "tools/tigris/files.h"

namespace tigris::demo {
namespace {

// xorshift32: small, deterministic on every platform.
class Random {
 public:
  explicit Random(uint32_t seed) : s_(seed ? seed : 1u) {}
  float uniform(float lo, float hi) {
    s_ ^= s_ << 13;
    s_ ^= s_ >> 17;
    s_ ^= s_ << 5;
    return lo + (hi - lo) * static_cast<float>(s_ >> 8) / static_cast<float>(1u << 24);
  }

 private:
  uint32_t s_;
};

std::vector<float> uniform(Random& rng, size_t n, float limit) {
  std::vector<float> v(n);
  for (float& x : v) x = rng.uniform(-limit, limit);
  return v;
}

void add_initializer(onnx::GraphProto& g, const std::string& name, const std::vector<int64_t>& dims,
                     const std::vector<float>& values) {
  onnx::TensorProto* t = g.add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  for (const int64_t d : dims) t->add_dims(d);
  t->set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
}

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& type, const std::string& name,
                          const std::vector<std::string>& inputs, const std::string& output) {
  onnx::NodeProto* n = g.add_node();
  n->set_op_type(type);
  n->set_name(name);
  for (const auto& i : inputs) n->add_input(i);
  n->add_output(output);
  return n;
}

void set_ints(onnx::NodeProto* n, const std::string& name, const std::vector<int64_t>& values) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (const int64_t v : values) a->add_ints(v);
}

void set_int(onnx::NodeProto* n, const std::string& name, int64_t value) {
  onnx::AttributeProto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void declare(onnx::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& dims) {
  v->set_name(name);
  auto* tensor = v->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  for (const int64_t d : dims) tensor->mutable_shape()->add_dim()->set_dim_value(d);
}

std::vector<uint8_t> onnx_bytes(const Network& net) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.set_producer_name("tigris-demo-model");
  model.add_opset_import()->set_version(13);
  onnx::GraphProto& g = *model.mutable_graph();
  g.set_name("demo");
  declare(g.add_input(), "image", {1, net.channels, net.height, net.width});
  // Intermediate shapes are declared too (value_info), so `tigris inspect` can show MACs.
  std::string x = "image";
  int64_t size = net.height;
  for (size_t i = 0; i < net.convs.size(); ++i) {
    const ConvLayer& L = net.convs[i];
    const std::string n = std::to_string(i + 1);
    declare(g.add_value_info(), L.name + "_out", {1, L.out_ch, size, size});
    declare(g.add_value_info(), "relu" + n + "_out", {1, L.out_ch, size, size});
    if (i + 1 < net.convs.size()) {
      size /= 2;
      declare(g.add_value_info(), "pool" + n + "_out", {1, L.out_ch, size, size});
    }
    add_initializer(g, L.name + ".weight", {L.out_ch, L.in_ch, L.kernel, L.kernel}, L.weight);
    add_initializer(g, L.name + ".bias", {L.out_ch}, L.bias);
    onnx::NodeProto* conv = add_node(g, "Conv", L.name, {x, L.name + ".weight", L.name + ".bias"}, L.name + "_out");
    set_ints(conv, "kernel_shape", {L.kernel, L.kernel});
    set_ints(conv, "pads", {L.pad, L.pad, L.pad, L.pad});
    set_ints(conv, "strides", {1, 1});
    x = add_node(g, "Relu", "relu" + std::to_string(i + 1), {L.name + "_out"}, "relu" + std::to_string(i + 1) + "_out")
            ->output(0);
    if (i + 1 < net.convs.size()) {
      onnx::NodeProto* pool =
          add_node(g, "MaxPool", "pool" + std::to_string(i + 1), {x}, "pool" + std::to_string(i + 1) + "_out");
      set_ints(pool, "kernel_shape", {2, 2});
      set_ints(pool, "strides", {2, 2});
      x = pool->output(0);
    }
  }
  declare(g.add_value_info(), "gap_out", {1, net.convs.back().out_ch, 1, 1});
  declare(g.add_value_info(), "flatten_out", {1, net.convs.back().out_ch});
  x = add_node(g, "GlobalAveragePool", "gap", {x}, "gap_out")->output(0);
  onnx::NodeProto* flatten = add_node(g, "Flatten", "flatten", {x}, "flatten_out");
  set_int(flatten, "axis", 1);
  const int features = net.convs.back().out_ch;
  add_initializer(g, "fc.weight", {net.classes, features}, net.fc_weight);
  add_initializer(g, "fc.bias", {net.classes}, net.fc_bias);
  onnx::NodeProto* fc = add_node(g, "Gemm", "fc", {"flatten_out", "fc.weight", "fc.bias"}, "logits");
  set_int(fc, "transB", 1);
  declare(g.add_output(), "logits", {1, net.classes});

  std::string bytes;
  if (!model.SerializeToString(&bytes)) throw cli::Failure("cannot serialize the demo model");
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

cli::Array float_array(const std::vector<int64_t>& shape, const std::vector<float>& values) {
  cli::Array a{1, shape, std::vector<uint8_t>(values.size() * sizeof(float))};
  std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

std::vector<float> floats_of(const cli::Array& a, const std::string& where) {
  if (a.dtype != 1) throw cli::Failure(where + ": expected a float32 array");
  std::vector<float> v(a.data.size() / sizeof(float));
  std::memcpy(v.data(), a.data.data(), v.size() * sizeof(float));
  return v;
}

void write_demo(const std::string& dir) {
  const Network net = make_network(2024);
  const std::vector<float> input = make_input(net, 7);
  const std::vector<float> expected = reference_forward(net, input);
  using cli::IfExists;
  cli::write_file_atomic(dir + "/demo.onnx", onnx_bytes(net), IfExists::kReplace);
  cli::write_file_atomic(dir + "/demo_input.npy",
                         cli::write_npy(float_array({1, net.channels, net.height, net.width}, input)),
                         IfExists::kReplace);
  cli::write_file_atomic(dir + "/demo_expected.npy", cli::write_npy(float_array({1, net.classes}, expected)),
                         IfExists::kReplace);
}

// Max |a - b| over the elements; fails when shapes differ or the difference exceeds the
// tolerance relative to the largest reference magnitude (at least 1).
int compare(const std::string& a_path, const std::string& b_path, double tolerance) {
  const cli::Array a = cli::read_npy(cli::read_file(a_path), a_path);
  const cli::Array b = cli::read_npy(cli::read_file(b_path), b_path);
  if (a.shape != b.shape) throw cli::Failure(a_path + " and " + b_path + " have different shapes");
  const std::vector<float> x = floats_of(a, a_path), y = floats_of(b, b_path);
  double diff = 0, scale = 1;
  for (size_t i = 0; i < x.size(); ++i) {
    diff = std::max(diff, std::fabs(static_cast<double>(x[i]) - y[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(y[i])));
  }
  const bool ok = diff <= tolerance * scale;
  std::printf("%s: max |difference| from the reference %.3g over %zu values: %s\n", a_path.c_str(), diff, x.size(),
              ok ? "match" : "MISMATCH");
  return ok ? 0 : 1;
}

}  // namespace

Network make_network(uint32_t seed) {
  Random rng(seed);
  Network net;
  net.height = net.width = 64;
  int in = net.channels;
  for (const int out : {8, 16, 32}) {
    ConvLayer L;
    L.name = "conv" + std::to_string(net.convs.size() + 1);
    L.in_ch = in;
    L.out_ch = out;
    const float limit = std::sqrt(6.0f / static_cast<float>(in * L.kernel * L.kernel));
    L.weight = uniform(rng, static_cast<size_t>(out) * in * L.kernel * L.kernel, limit);
    L.bias = uniform(rng, static_cast<size_t>(out), 0.1f);
    net.convs.push_back(std::move(L));
    in = out;
  }
  net.classes = 10;
  net.fc_weight = uniform(rng, static_cast<size_t>(net.classes) * in, std::sqrt(6.0f / static_cast<float>(in)));
  net.fc_bias = uniform(rng, static_cast<size_t>(net.classes), 0.1f);
  return net;
}

std::vector<float> make_input(const Network& net, uint32_t seed) {
  Random rng(seed);
  return uniform(rng, static_cast<size_t>(net.channels) * net.height * net.width, 1.0f);
}

}  // namespace tigris::demo

int main(int argc, char** argv) {
  CLI::App app{"Write the demo model and data, or compare an output with the reference."};
  app.require_subcommand(1, 1);
  std::string dir, a, b;
  double tolerance = 1e-4;
  CLI::App* write = app.add_subcommand("write", "Write demo.onnx, demo_input.npy and demo_expected.npy into DIR.");
  write->add_option("DIR", dir)->required();
  CLI::App* cmp = app.add_subcommand("compare", "Compare OUTPUT.npy with REFERENCE.npy.");
  cmp->add_option("OUTPUT", a)->required();
  cmp->add_option("REFERENCE", b)->required();
  cmp->add_option("--tolerance", tolerance, "allowed max difference, relative to the reference's magnitude");
  CLI11_PARSE(app, argc, argv);
  try {
    if (write->parsed()) {
      tigris::demo::write_demo(dir);
      return 0;
    }
    return tigris::demo::compare(a, b, tolerance);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "Error: %s\n", e.what());
    return 1;
  }
}
