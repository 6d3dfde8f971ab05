// The SIGNAL_* opcodes through the loader's rule and the float dispatcher, on hand-laid plans:
// attributes decoded in their documented order, the state carried from input to output,
// bad attributes and tables refused by the rule, out-of-range filter bank tables by the kernel.
#include <gtest/gtest.h>

#include "runtime/src/plan/op_rules.h"
#include "tigris_kernels.h"
#include "unit/kernels_f32/plan_fixture.h"

namespace {

std::vector<uint8_t> u16s(std::initializer_list<uint16_t> v) {
  std::vector<uint8_t> b;
  for (uint16_t x : v) b.push_back(static_cast<uint8_t>(x)), b.push_back(static_cast<uint8_t>(x >> 8));
  return b;
}

uint16_t table(fixture::Plan& p, const std::vector<int16_t>& v) { return p.weight_bytes(v.data(), v.size() * 2); }

// Runs op on the buffers of the last p.mem() (filled with p.set since).
int run(fixture::Plan& p, uint16_t op, tigris_mem_t* mem) {
  const tigris_plan_t* plan = p.plan();
  return tigris_dispatch_kernel(plan, &plan->ops[op], op, mem, nullptr);
}

TEST(SignalOps, WindowRuleAndKernel) {
  fixture::Plan p;
  const uint16_t x = p.tensor({2, 4}, TIGRIS_DTYPE_INT16), y = p.tensor({2, 4}, TIGRIS_DTYPE_INT16);
  const uint16_t op = p.op(TIGRIS_OP_SIGNAL_WINDOW, {x}, {y});
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({table(p, {4096, 8192, 16384, -4096})}));
  p.attr_i32(op, TIGRIS_ATTR_SIGNAL, {12});
  ASSERT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
  tigris_mem_t* mem = p.mem();
  p.set<int16_t>(x, {100, 100, 100, 100, -8, 1, 2, 3});
  ASSERT_EQ(run(p, op, mem), 0);
  EXPECT_EQ(p.get<int16_t>(y), (std::vector<int16_t>{100, 200, 400, -100, -8, 2, 8, -3}));  // each row of 4
  p.attr_i32(op, TIGRIS_ATTR_SIGNAL, {32});  // shift past int32
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
  p.attr_i32(op, TIGRIS_ATTR_SIGNAL, {12});
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({table(p, {1, 2, 3})}));  // window shorter than a row
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
}

TEST(SignalOps, SpectralSubtractionCarriesTheStateThroughItsOperands) {
  fixture::Plan p;
  const uint16_t x = p.tensor({2}, TIGRIS_DTYPE_INT32), s = p.tensor({2}, TIGRIS_DTYPE_INT32);
  const uint16_t y = p.tensor({2}, TIGRIS_DTYPE_INT32), s2 = p.tensor({2}, TIGRIS_DTYPE_INT32);
  const uint16_t op = p.op(TIGRIS_OP_SIGNAL_SPECTRAL_SUBTRACTION, {x, s}, {y, s2});
  // smoothing, 1 - smoothing, alternates, min remaining, smoothing bits, subtraction bits, clamping
  p.attr_i32(op, TIGRIS_ATTR_SIGNAL, {1638, 14746, 0, 16384, 1638, 10, 14, 0});
  ASSERT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
  tigris_mem_t* mem = p.mem();
  p.set<int32_t>(x, {1000, 1000});
  p.set<int32_t>(s, {102375, 5});
  ASSERT_EQ(run(p, op, mem), 0);
  // channel 0 as the second step of signal_math_test; channel 1 (alternate: keeps the estimate)
  EXPECT_EQ(p.get<int32_t>(s2), (std::vector<int32_t>{194514, 5}));
  EXPECT_EQ(p.get<int32_t>(y), (std::vector<int32_t>{810, 999}));  // (1024000 - 5) >> 10
  EXPECT_EQ(p.get<int32_t>(s), (std::vector<int32_t>{102375, 5}));  // the input state is read only
  p.attr_i32(op, TIGRIS_ATTR_SIGNAL, {1638, 14746, 0, 16384, 1638, 10, 14});  // 7 values
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
}

TEST(SignalOps, FilterBankTablesOutsideTheSpectrumAreRefusedByTheKernel) {
  fixture::Plan p;
  const uint16_t x = p.tensor({4}, TIGRIS_DTYPE_INT32), y = p.tensor({1}, TIGRIS_DTYPE_INT64);
  const uint16_t op = p.op(TIGRIS_OP_SIGNAL_FILTER_BANK, {x}, {y});
  const uint16_t w = table(p, {1, 2, 3}), u = table(p, {0, 0, 0});
  const uint16_t freq = table(p, {0, 1}), starts = table(p, {0, 1}), widths = table(p, {1, 2});
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({w, u, freq, starts, widths}));
  p.attr_i32(op, TIGRIS_ATTR_SIGNAL, {1});
  ASSERT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
  tigris_mem_t* mem = p.mem();
  p.set<int32_t>(x, {7, 10, 100, 1000});
  ASSERT_EQ(run(p, op, mem), 0);
  EXPECT_EQ(p.get<int64_t>(y), (std::vector<int64_t>{2 * 10 + 3 * 100}));
  const uint16_t far = table(p, {0, 3});  // channel 1 would read bins 3 and 4 of 4
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({w, u, far, starts, widths}));
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);  // contents are the kernel's to check
  mem = p.mem();
  p.set<int32_t>(x, {7, 10, 100, 1000});
  EXPECT_EQ(run(p, op, mem), -1);
  EXPECT_EQ(p.get<int64_t>(y), (std::vector<int64_t>{0}));  // nothing written
}

TEST(SignalOps, RfftRuleChecksLengthsAndTwiddles) {
  fixture::Plan p;
  const uint16_t x = p.tensor({1, 12}, TIGRIS_DTYPE_INT16), y = p.tensor({1, 18}, TIGRIS_DTYPE_INT16);
  const uint16_t op = p.op(TIGRIS_OP_SIGNAL_RFFT, {x}, {y});
  p.attr(op, TIGRIS_ATTR_CONSTANTS, u16s({table(p, std::vector<int16_t>(24, 0))}));
  p.attr_i32(op, TIGRIS_ATTR_SIGNAL, {16});
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_OK);
  p.attr_i32(op, TIGRIS_ATTR_SIGNAL, {14});  // half of 14 is 7: no radix-7 butterfly
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
  p.attr_i32(op, TIGRIS_ATTR_SIGNAL, {8});  // shorter than the input
  EXPECT_EQ(tigris_rt::check_operator(p.plan(), op), TIGRIS_ERR_BAD_OPERATOR);
}

}  // namespace
