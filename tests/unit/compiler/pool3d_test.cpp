// 3-D pools (separate_3d_pools: an H x W pool then a D pool) against a direct evaluation of the
// ONNX definition over each 3-D window: padding, strides, dilations, both count_include_pad
// settings and LpPool, on values that make every window different.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "compiler/api.h"
#include "compiler_support/plan_runner.h"
#include "compiler_support/raw_bytes.h"
#include "onnx_builder.h"

namespace {

using namespace tigris;

struct Pool3d {
  std::string op;
  std::vector<int64_t> k, s, pads, dil;  // pads: d, h, w begins then ends
  int64_t count_include_pad = 0, p = 2;
};

constexpr int64_t N = 1, C = 2, D = 4, H = 5, W = 6;

std::vector<int64_t> out_dims(const Pool3d& c) {
  std::vector<int64_t> in = {D, H, W}, out;
  for (int a = 0; a < 3; ++a) out.push_back((in[a] + c.pads[a] + c.pads[a + 3] - ((c.k[a] - 1) * c.dil[a] + 1)) / c.s[a] + 1);
  return out;
}

// The definition: every window of the NCDHW input, pads excluded from max and p-norm.
std::vector<float> direct(const Pool3d& c, const std::vector<float>& x) {
  std::vector<int64_t> in = {D, H, W}, o = out_dims(c);
  std::vector<float> y;
  for (int64_t nc = 0; nc < N * C; ++nc)
    for (int64_t od = 0; od < o[0]; ++od)
      for (int64_t oh = 0; oh < o[1]; ++oh)
        for (int64_t ow = 0; ow < o[2]; ++ow) {
          double sum = 0, mx = -INFINITY;
          int64_t count = 0;
          for (int64_t kd = 0; kd < c.k[0]; ++kd)
            for (int64_t kh = 0; kh < c.k[1]; ++kh)
              for (int64_t kw = 0; kw < c.k[2]; ++kw) {
                int64_t d = od * c.s[0] - c.pads[0] + kd * c.dil[0], h = oh * c.s[1] - c.pads[1] + kh * c.dil[1],
                        w = ow * c.s[2] - c.pads[2] + kw * c.dil[2];
                if (d < 0 || d >= D || h < 0 || h >= H || w < 0 || w >= W) continue;
                double v = x[static_cast<size_t>(((nc * D + d) * H + h) * W + w)];
                sum += c.op == "LpPool" ? std::pow(std::fabs(v), static_cast<double>(c.p)) : v;
                mx = std::max(mx, v);
                ++count;
              }
          if (c.op == "MaxPool") y.push_back(static_cast<float>(mx));
          else if (c.op == "LpPool") y.push_back(static_cast<float>(std::pow(sum, 1.0 / static_cast<double>(c.p))));
          else y.push_back(static_cast<float>(sum / static_cast<double>(c.count_include_pad ? c.k[0] * c.k[1] * c.k[2] : count)));
        }
  return y;
}

std::vector<float> compiled(const Pool3d& c, const std::vector<float>& x, int64_t fast) {
  test::OnnxBuilder b(13);
  std::vector<int64_t> o = out_dims(c);
  b.input("x", {N, C, D, H, W});
  b.output("y", {N, C, o[0], o[1], o[2]});
  auto& n = b.node(c.op, {"x"}, {"y"}, "pool3d");
  test::OnnxBuilder::attr(n, "kernel_shape", c.k);
  test::OnnxBuilder::attr(n, "strides", c.s);
  test::OnnxBuilder::attr(n, "pads", c.pads);
  if (c.op == "MaxPool") test::OnnxBuilder::attr(n, "dilations", c.dil);
  if (c.op == "AveragePool") test::OnnxBuilder::attr(n, "count_include_pad", c.count_include_pad);
  if (c.op == "LpPool") test::OnnxBuilder::attr(n, "p", c.p);
  compiler::Model m = compiler::load_model_bytes(b.bytes(), "pool3d.onnx");
  EXPECT_TRUE(m.summary().supported()) << m.summary().unsupported_operators.at(0).reason;
  compiler::Budgets budget;
  budget.fast = fast;
  compiler::CompileResult r = compiler::compile(m, budget);
  EXPECT_TRUE(r.ok()) << r.error;
  if (!r.ok()) return {};
  test::PlanRun run = test::run_plan(r.plan, {test::floats(x)}, fast);
  EXPECT_EQ(run.error, "");
  return run.error.empty() ? test::values_of<float>(run.outputs.at(0)) : std::vector<float>{};
}

TEST(Pool3d, MatchesTheDefinitionOverEveryWindow) {
  std::vector<float> x(static_cast<size_t>(N * C * D * H * W));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 37 % 101)) / 10.0f - 5.0f;
  const std::vector<Pool3d> cases = {
      {"MaxPool", {2, 3, 2}, {2, 1, 2}, {1, 1, 0, 0, 1, 1}, {1, 1, 2}},
      {"AveragePool", {2, 3, 2}, {2, 1, 2}, {1, 1, 0, 0, 1, 1}, {1, 1, 1}, 0},
      {"AveragePool", {2, 3, 2}, {2, 1, 2}, {1, 1, 0, 0, 1, 1}, {1, 1, 1}, 1},
      {"AveragePool", {3, 2, 2}, {1, 2, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, 0},
      {"LpPool", {2, 2, 2}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, 0, 2},
  };
  for (const Pool3d& c : cases)
    for (int64_t fast : {int64_t{1} << 20, int64_t{2048}}) {
      SCOPED_TRACE(c.op + " count_include_pad " + std::to_string(c.count_include_pad) + " fast " + std::to_string(fast));
      std::vector<float> want = direct(c, x), got = compiled(c, x, fast);
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5 * std::max(1.0f, std::fabs(want[i]))) << i;
    }
}

}  // namespace
