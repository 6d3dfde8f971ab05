// The demo network: a small image classifier with seeded weights, held as plain
// arrays so the ONNX writer and the float reference forward pass share one definition.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tigris::demo {

struct ConvLayer {
  std::string name;
  int in_ch = 0, out_ch = 0, kernel = 3, pad = 1;
  std::vector<float> weight;  // OIHW
  std::vector<float> bias;
};

struct Network {
  int channels = 3, height = 0, width = 0;  // NCHW input, batch 1
  std::vector<ConvLayer> convs;             // each followed by Relu, then MaxPool 2x2 except the last
  int classes = 0;
  std::vector<float> fc_weight;  // [classes, last out_ch] (Gemm transB = 1)
  std::vector<float> fc_bias;
};

// Deterministic for a seed: weights uniform in +-sqrt(6 / fan_in) (He uniform).
Network make_network(uint32_t seed);

// A seeded input, uniform in [-1, 1], NCHW.
std::vector<float> make_input(const Network& net, uint32_t seed);

// Straightforward float forward pass (double accumulation): the logits.
std::vector<float> reference_forward(const Network& net, const std::vector<float>& input);

}  // namespace tigris::demo
