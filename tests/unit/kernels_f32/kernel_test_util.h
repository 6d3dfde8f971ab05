// Helpers for the float kernel tests: deterministic data, kernel calls, band buffers.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "tigris_kernels.h"
#include "unit/kernels_f32/plan_fixture.h"

namespace kt {

// Deterministic values in [lo, hi) (LCG; independent of the library's RNGs).
inline std::vector<float> values(size_t n, uint32_t seed, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> v(n);
  uint32_t s = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    v[i] = lo + (hi - lo) * (float)((s >> 8) & 0xFFFF) / 65536.0f;
  }
  return v;
}

inline int run(fixture::Plan& p, uint16_t op, tigris_mem_t* mem) {
  const tigris_plan_t* plan = p.plan();
  return tigris_dispatch_kernel(plan, &plan->ops[op], op, mem, nullptr);
}

inline void expect_near(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5f) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], tol * (1.0f + std::fabs(want[i]))) << "element " << i;
}

// Rows [r0, r1) of every batch of an [N, H, rest] tensor, preceded by `prefix` junk rows.
inline std::vector<float> rows(const std::vector<float>& full, int n, int h, int row, int r0, int r1, int prefix = 0) {
  std::vector<float> out;
  for (int b = 0; b < n; ++b) {
    for (int j = 0; j < prefix * row; ++j) out.push_back(-777.0f);
    for (int r = r0; r < r1; ++r)
      out.insert(out.end(), full.begin() + ((size_t)b * h + r) * row, full.begin() + ((size_t)b * h + r + 1) * row);
  }
  return out;
}

// Band window of a sliding op for output rows [o0, o1): clamped input rows and effective pads.
struct Window {
  int i0, i1, pad_top, pad_bottom;
};
inline Window window(int o0, int o1, int stride, int ek, int pad_top, int in_h) {
  int a = o0 * stride - pad_top, b = (o1 - 1) * stride - pad_top + ek;
  return {a < 0 ? 0 : a, b > in_h ? in_h : b, a < 0 ? -a : 0, b > in_h ? b - in_h : 0};
}

}  // namespace kt
