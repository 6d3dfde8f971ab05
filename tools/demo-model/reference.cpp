// The demo network's own forward pass, written directly from the operator
// definitions (ONNX Conv, Relu, MaxPool, GlobalAveragePool, Gemm), independent of
// the runtime's kernels: the demo compares the plan's output against it.
#include <algorithm>
#include <cmath>

#include "tools/demo-model/network.h"

namespace tigris::demo {
namespace {

struct Tensor {
  int c = 0, h = 0, w = 0;
  std::vector<float> v;  // CHW
  float at(int ci, int y, int x) const { return v[(static_cast<size_t>(ci) * h + y) * w + x]; }
};

Tensor conv_relu(const Tensor& in, const ConvLayer& L) {
  Tensor out{L.out_ch, in.h + 2 * L.pad - L.kernel + 1, in.w + 2 * L.pad - L.kernel + 1, {}};
  out.v.resize(static_cast<size_t>(out.c) * out.h * out.w);
  for (int o = 0; o < out.c; ++o)
    for (int y = 0; y < out.h; ++y)
      for (int x = 0; x < out.w; ++x) {
        double acc = L.bias[static_cast<size_t>(o)];
        for (int i = 0; i < in.c; ++i)
          for (int ky = 0; ky < L.kernel; ++ky)
            for (int kx = 0; kx < L.kernel; ++kx) {
              const int iy = y + ky - L.pad, ix = x + kx - L.pad;
              if (iy < 0 || iy >= in.h || ix < 0 || ix >= in.w) continue;
              acc += static_cast<double>(in.at(i, iy, ix)) *
                     L.weight[((static_cast<size_t>(o) * in.c + i) * L.kernel + ky) * L.kernel + kx];
            }
        out.v[(static_cast<size_t>(o) * out.h + y) * out.w + x] = static_cast<float>(std::max(acc, 0.0));
      }
  return out;
}

Tensor max_pool2(const Tensor& in) {
  Tensor out{in.c, in.h / 2, in.w / 2, {}};
  for (int c = 0; c < out.c; ++c)
    for (int y = 0; y < out.h; ++y)
      for (int x = 0; x < out.w; ++x) {
        out.v.push_back(std::max({in.at(c, 2 * y, 2 * x), in.at(c, 2 * y, 2 * x + 1), in.at(c, 2 * y + 1, 2 * x),
                                  in.at(c, 2 * y + 1, 2 * x + 1)}));
      }
  return out;
}

}  // namespace

std::vector<float> reference_forward(const Network& net, const std::vector<float>& input) {
  Tensor t{net.channels, net.height, net.width, input};
  for (size_t i = 0; i < net.convs.size(); ++i) {
    t = conv_relu(t, net.convs[i]);
    if (i + 1 < net.convs.size()) t = max_pool2(t);
  }
  std::vector<double> pooled(static_cast<size_t>(t.c), 0.0);
  for (int c = 0; c < t.c; ++c) {
    for (int y = 0; y < t.h; ++y)
      for (int x = 0; x < t.w; ++x) pooled[static_cast<size_t>(c)] += t.at(c, y, x);
    pooled[static_cast<size_t>(c)] /= static_cast<double>(t.h) * t.w;
  }
  std::vector<float> logits;
  for (int k = 0; k < net.classes; ++k) {
    double acc = net.fc_bias[static_cast<size_t>(k)];
    for (int c = 0; c < t.c; ++c) {
      acc += net.fc_weight[static_cast<size_t>(k) * t.c + c] * pooled[static_cast<size_t>(c)];
    }
    logits.push_back(static_cast<float>(acc));
  }
  return logits;
}

}  // namespace tigris::demo
