// Hand-built plan tables (header, tensors, shapes) for memory tests that need tensor sizes
// and shapes but no executable plan, plus a trace recorder.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "tigris.h"
#include "tigris_mem.h"
#include "plan_support/trace_recorder.h"
#include "tigris_trace.h"

namespace memtest {

constexpr uint32_t A = TIGRIS_TENSOR_ALIGN;

using plantest::Recorder;

struct FakePlan {
  tigris_file_header_t header{};
  std::vector<tigris_tensor_t> tensors;
  std::vector<int32_t> shapes;
  tigris_plan_t plan{};

  // Add a tensor of the given shape and dtype; returns its index.
  uint16_t add(std::vector<int32_t> shape, uint8_t dtype = TIGRIS_DTYPE_INT8) {
    tigris_tensor_t t{};
    t.shape_off = (uint16_t)shapes.size();
    t.ndim = (uint8_t)shape.size();
    t.dtype = dtype;
    t.quant_param_idx = TIGRIS_NONE;
    uint32_t n = 1;
    for (int32_t d : shape) {
      n *= (uint32_t)d;
      shapes.push_back(d);
    }
    t.size_bytes = n * tigris_dtype_size(dtype);
    tensors.push_back(t);
    return (uint16_t)(tensors.size() - 1);
  }

  // Finalise pointers (call after the last add).
  const tigris_plan_t* get() {
    header.num_tensors = (uint16_t)tensors.size();
    plan.header = &header;
    plan.tensors = tensors.data();
    plan.shape_pool = shapes.data();
    return &plan;
  }
};


// An aligned byte buffer (alignment 64) with a chosen misalignment of its start.
struct Buffer {
  std::vector<uint8_t> storage;
  uint8_t* p;
  Buffer(size_t bytes, size_t misalign = 0) : storage(bytes + 128) {
    uintptr_t a = ((uintptr_t)storage.data() + 63u) & ~(uintptr_t)63u;
    p = (uint8_t*)a + misalign;
  }
};

}  // namespace memtest
