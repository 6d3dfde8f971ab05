// Helpers for executor and interface tests: plans built with the plan writer and loaded by
// the runtime loader, arenas, a trace recorder, and a small test kernel dispatcher whose
// results are easy to derive by hand (so the executor is tested without the real kernels).
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "compiler/plan/plan_writer.h"
#include "plan_support/plan_builder.h"
#include "plan_support/trace_recorder.h"
#include "tigris.h"
#include "tigris_executor.h"
#include "tigris_iface.h"
#include "tigris_loader.h"
#include "tigris_mem.h"
#include "tigris_trace.h"

namespace exectest {

using tigris::plan::OpDesc;
using tigris::plan::PlanDesc;
using tigris::plan::StageDesc;
using tigris::plan::TensorDesc;
using tigris::plan::WeightDesc;
using plantest::add_op;
using plantest::add_stage;
using plantest::add_tensor;
using plantest::add_weight;
using plantest::load;
using plantest::Loaded;
using plantest::Recorder;

constexpr uint32_t A = TIGRIS_TENSOR_ALIGN;
// The [1,2,2,4] float32 tensor most executor tests use, and its bytes (aligned for A <= 64).
constexpr uint32_t U = 64;
inline const std::vector<int32_t> kShape = {1, 2, 2, 4};

inline uint32_t aligned(uint32_t n) { return (n + A - 1) / A * A; }

// Arenas at a chosen misalignment from a 64-byte boundary.
struct Arena {
  std::vector<uint8_t> storage;
  uint8_t* p;
  uint32_t size;
  Arena(uint32_t bytes, uint32_t misalign = 0) : storage(bytes + 128, 0xCD), size(bytes) {
    p = (uint8_t*)(((uintptr_t)storage.data() + 63u) & ~(uintptr_t)63u) + misalign;
  }
};


// Readable names for kind sequences in assertion messages.
inline std::string kind_names(const std::vector<uint8_t>& kinds) {
  static const char* names[] = {"?",     "BEGIN", "END",  "TILE",    "LOAD", "SPILL",
                                "ALLOC", "RESET", "MOVE", "WEIGHTS", "OP",   "COPY"};
  std::string s;
  for (uint8_t k : kinds) {
    s += k < 12 ? names[k] : "?";
    s += ' ';
  }
  return s;
}

// Test dispatcher over float32 tensors: ReLU (max(x, 0)), Add of two tensors, Add of a
// tensor and its weight (element by element), Sub (a - b). It records every call and
// where the op's first output lives, and fails on request.
struct KernelLog {
  std::vector<uint16_t> ops;
  std::vector<bool> output_in_fast;
  int fail_at = -1;  // op index that returns an error
  tigris_mem_t* mem = nullptr;
};

inline int test_kernel(const tigris_plan_t* plan, const tigris_op_t* op, uint16_t op_index, tigris_mem_t* mem,
                       void* user) {
  KernelLog* log = static_cast<KernelLog*>(user);
  log->ops.push_back(op_index);
  const uint16_t* ins = tigris_op_inputs(plan, op);
  const uint16_t* outs = tigris_op_outputs(plan, op);
  float* y = (float*)mem->tensor_ptrs[outs[0]];
  const uint8_t* yb = (const uint8_t*)y;
  log->output_in_fast.push_back(yb >= mem->fast_base && yb < mem->fast_base + mem->fast_size);
  if ((int)op_index == log->fail_at) return -7;
  const uint32_t n = plan->tensors[outs[0]].size_bytes / 4;
  const float* a = (const float*)mem->tensor_ptrs[ins[0]];
  if (a == nullptr || y == nullptr) return -2;
  switch (op->op_type) {
  case TIGRIS_OP_RELU:
    for (uint32_t i = 0; i < n; ++i) y[i] = a[i] > 0.0f ? a[i] : 0.0f;
    return 0;
  case TIGRIS_OP_ADD:
  case TIGRIS_OP_SUB: {
    const float* b =
        op->num_inputs == 2 ? (const float*)mem->tensor_ptrs[ins[1]] : (const float*)tigris_op_weight(plan, op);
    if (b == nullptr) return -3;
    const float sign = op->op_type == TIGRIS_OP_SUB ? -1.0f : 1.0f;
    for (uint32_t i = 0; i < n; ++i) y[i] = a[i] + sign * b[i];
    return 0;
  }
  default: return -4;
  }
}

inline std::vector<float> iota(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * (float)i;
  return v;
}

inline std::vector<float> read_floats(const void* p, size_t n) {
  std::vector<float> v(n);
  memcpy(v.data(), p, n * 4);
  return v;
}

// One plan with its arenas and tensor table, traced and logged; inputs written, outputs read.
struct PlanRun {
  Loaded plan;
  Arena fast, slow;
  tigris_mem_t mem{};
  std::vector<void*> ptrs;
  Recorder rec;
  KernelLog log;
  tigris_exec_stats_t stats{};

  PlanRun(const PlanDesc& d, uint32_t fast_bytes, uint32_t slow_bytes) : fast(fast_bytes), slow(slow_bytes) {
    EXPECT_EQ(load(d, &plan), TIGRIS_OK);
    ptrs.resize(d.tensors.size());
    EXPECT_EQ(tigris_mem_init(&mem, ptrs.data(), (uint16_t)ptrs.size(), fast.p, fast_bytes, slow.p, slow_bytes),
              TIGRIS_MEM_OK);
    tigris_mem_set_trace(&mem, Recorder::fn, &rec);
    log.mem = &mem;
  }
  tigris_exec_error_t run() { return tigris_run(&plan.plan, &mem, test_kernel, &log, &stats); }
  void write(uint16_t t, const std::vector<float>& v) {
    ASSERT_EQ(tigris_input_write(&plan.plan, &mem, t, v.data(), (uint32_t)(v.size() * 4)), TIGRIS_OK);
  }
  // Place an input in slow directly and fill it (bypassing in-place placement).
  void write_slow(uint16_t t, const std::vector<float>& v) {
    ASSERT_EQ(tigris_mem_alloc_slow(&mem, t, (uint32_t)(v.size() * 4)), TIGRIS_MEM_OK);
    memcpy(ptrs[t], v.data(), v.size() * 4);
  }
  std::vector<float> read(uint16_t t, size_t n) {
    std::vector<float> v(n);
    EXPECT_EQ(tigris_output_read(&plan.plan, &mem, t, v.data(), (uint32_t)(n * 4)), TIGRIS_OK);
    return v;
  }
  bool in_slow(uint16_t t) const {
    const uint8_t* p = (const uint8_t*)ptrs[t];
    return p >= slow.p && p < slow.p + slow.size;
  }
};

}  // namespace exectest
