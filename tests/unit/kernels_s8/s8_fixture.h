// A tiny in-memory plan for int8 kernel tests: tensors, one or more ops, weights,
// quant params and attributes filled straight into a tigris_plan_t (no loader), plus
// a memory block whose tensor pointers the test binds to its own buffers.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/s8/s8_kernels.h"
#include "kernels/s8/s8_op.h"
#include "kernels/s8/s8_params.h"
#include "plan_support/attribute_table.h"
#include "tigris.h"
#include "tigris_mem.h"

namespace s8test {

using Bytes = std::vector<int8_t>;

class PlanFixture {
 public:
  // Per-tensor quant param (multiplier/shift of in/out = 1 placeholder); returns its index.
  uint16_t quant(float scale, int32_t zero_point) { return quant_channels(scale, zero_point, {0}, {0}); }
  // Quant param with per-channel requantization factors.
  uint16_t quant_channels(float scale, int32_t zero_point, std::vector<int32_t> mult, std::vector<int32_t> shift);
  // Conv-style output quant: factors of in_scale * w_scale[c] / out_scale as TFLite computes
  // them (a per-tensor FULLY_CONNECTED forms the product in float32).
  uint16_t conv_quant(float in_scale, const std::vector<float>& w_scales, float out_scale, int32_t zero_point,
                      bool fully_connected = false);

  uint16_t tensor(std::vector<int32_t> shape, uint8_t dtype = TIGRIS_DTYPE_INT8, uint16_t q = TIGRIS_NONE);
  uint16_t weight(const void* data, size_t bytes);
  uint16_t weight_i8(const Bytes& w) { return weight(w.data(), w.size()); }
  uint16_t weight_i32(const std::vector<int32_t>& b) { return weight(b.data(), b.size() * 4); }

  // An op; returns its index. Its record is editable through op(i) until finalize().
  uint16_t op(uint8_t type, std::vector<uint16_t> ins, std::vector<uint16_t> outs);
  tigris_op_t& op_record(uint16_t i) { return ops_[i]; }
  void attr(uint16_t op, uint8_t kind, std::vector<uint8_t> data);
  void attr_i32(uint16_t op, uint8_t kind, const std::vector<int32_t>& v);
  void attr_f32(uint16_t op, uint8_t kind, const std::vector<float>& v);

  // Build the plan (call once, after every add).
  const tigris_plan_t* finalize();
  const tigris_plan_t* plan() const { return &plan_; }

  // Bind a tensor's buffer for the next run.
  void bind(uint16_t tensor, void* data) { ptrs_.at(tensor) = data; }
  // Run op `i` through tigris_dispatch_kernel_s8 with `tile` as the tile context.
  int run(uint16_t i, const tigris_tile_ctx_t& tile = tigris_tile_ctx_t{});

 private:
  std::vector<tigris_tensor_t> tensors_;
  std::vector<int32_t> shape_pool_;
  std::vector<tigris_op_t> ops_;
  std::vector<std::vector<uint16_t>> op_ins_, op_outs_;
  std::vector<uint16_t> index_pool_;
  std::vector<tigris_weight_entry_t> weights_;
  std::vector<uint8_t> blob_;
  std::vector<tigris_quant_param_t> quants_;
  std::vector<int32_t> quant_data_;
  using Attr = plantest::AttrSpec;
  std::vector<Attr> attrs_;
  std::vector<tigris_op_attribute_t> attr_records_;
  std::vector<uint8_t> attr_pool_;
  std::vector<void*> ptrs_;
  tigris_file_header_t header_{};
  tigris_plan_t plan_{};
  std::vector<uint8_t> blob_aligned_storage_;
};

// Deterministic pseudo-random int8 data.
Bytes random_bytes(size_t n, uint32_t seed, int lo = -128, int hi = 127);

// TFLite QuantizeMultiplier as (multiplier, shift) for assertions.
struct Mult {
  int32_t m;
  int s;
};
Mult qm(double real);

}  // namespace s8test
