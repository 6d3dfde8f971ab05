// Loader test fixture: small plan descriptions built with the plan writer, byte patching
// helpers (offsets read independently from the directory), and a load wrapper that checks
// the all-zero-on-failure rule on every call.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "compiler/plan/plan_writer.h"
#include "tigris_loader.h"
#include "unit/plan_writer/byte_reader.h"

namespace lf {

using namespace tigris::plan;
using Bytes = std::vector<uint8_t>;

inline TensorDesc tensor(const std::string& name, std::vector<int32_t> shape, uint8_t flags = 0,
                         uint8_t dtype = TIGRIS_DTYPE_FLOAT32) {
  TensorDesc t;
  t.name = name;
  t.shape = std::move(shape);
  t.flags = flags;
  t.dtype = dtype;
  return t;
}

inline tigris_spatial_t window(uint8_t k, uint8_t s, uint16_t pad) {
  tigris_spatial_t sp{};
  sp.kernel_h = sp.kernel_w = k;
  sp.stride_h = sp.stride_w = s;
  sp.pad_top = sp.pad_bottom = sp.pad_left = sp.pad_right = pad;
  sp.dilation_h = sp.dilation_w = 1;
  sp.group = 1;
  return sp;
}

inline OpDesc op(uint8_t type, const std::string& name, std::vector<uint16_t> in, std::vector<uint16_t> out) {
  OpDesc o;
  o.type = type;
  o.name = name;
  o.inputs = std::move(in);
  o.outputs = std::move(out);
  return o;
}

inline StageDesc stage(std::vector<uint16_t> ops, std::vector<uint16_t> in, std::vector<uint16_t> out) {
  StageDesc s;
  s.ops = std::move(ops);
  s.inputs = std::move(in);
  s.outputs = std::move(out);
  return s;
}

inline WeightDesc weight(const std::string& name, size_t bytes) {
  WeightDesc w;
  w.name = name;
  w.data.resize(bytes);
  for (size_t i = 0; i < bytes; ++i) w.data[i] = static_cast<uint8_t>(i * 13 + 5);
  return w;
}

// x [1,H,8,2] -> conv 3x3 s1 p1 (w, b) -> y [1,H,8,4] -> relu -> z; stage 0 = conv, stage 1 = relu.
inline PlanDesc conv_relu(int32_t h = 8) {
  PlanDesc p;
  p.model_name = "conv_relu";
  p.budget = 5000;
  p.peak = 1234;
  p.scheduled_peak = 4096;
  p.slow_peak = 2048;
  p.tensors = {tensor("x", {1, h, 8, 2}, TIGRIS_TENSOR_MODEL_INPUT), tensor("y", {1, h, 8, 4}),
               tensor("z", {1, h, 8, 4}, TIGRIS_TENSOR_MODEL_OUTPUT)};
  OpDesc c = op(TIGRIS_OP_CONV, "conv", {0}, {1});
  c.spatial = window(3, 1, 1);
  c.weight = 0;
  c.bias = 1;
  p.ops = {c, op(TIGRIS_OP_RELU, "relu", {1}, {2})};
  p.stages = {stage({0}, {0}, {1}), stage({1}, {1}, {2})};
  p.weights = {weight("w", 4 * 3 * 3 * 2 * 4), weight("b", 4 * 4)};
  p.model_inputs = {0};
  p.model_outputs = {2};
  return p;
}

// x int8 [1,4,4,2] -> conv 1x1 (int8 w, int32 b) -> y int8 [1,4,4,3]; y's quant param
// carries the per-channel requantization factors the int8 kernels read.
inline PlanDesc int8_conv(int32_t shift = -8, int32_t multiplier = 1518500250) {
  PlanDesc p;
  p.model_name = "int8_conv";
  p.scheduled_peak = 1024;
  p.tensors = {tensor("x", {1, 4, 4, 2}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_INT8),
               tensor("y", {1, 4, 4, 3}, TIGRIS_TENSOR_MODEL_OUTPUT, TIGRIS_DTYPE_INT8)};
  p.quant = {QuantDesc{0.05f, 1, {1073741824}, {0}},
             QuantDesc{0.1f, -2, {multiplier, multiplier, multiplier}, {shift, shift, -1}}};
  p.tensors[0].quant = 0;
  p.tensors[1].quant = 1;
  OpDesc c = op(TIGRIS_OP_CONV, "conv", {0}, {1});
  c.spatial = window(1, 1, 0);
  c.weight = 0;
  c.bias = 1;
  p.ops = {c};
  p.stages = {stage({0}, {0}, {1})};
  p.weights = {weight("w", 3 * 2), weight("b", 3 * 4)};
  p.model_inputs = {0};
  p.model_outputs = {1};
  return p;
}

// A v11 tile record for a stage; facts given by the caller (hand-derived in each test).
// x int8 [1,10] -> Softmax -> y [1,10]: int8 (steps of 1/256 from -128) or TFLite's int16 form
// (steps of 1/65536 from -32768), the output quantization the loader's softmax rule asks for.
inline PlanDesc int8_softmax(uint8_t out_dtype) {
  PlanDesc p;
  p.model_name = "int8_softmax";
  p.scheduled_peak = 1024;
  p.tensors = {tensor("x", {1, 10}, TIGRIS_TENSOR_MODEL_INPUT, TIGRIS_DTYPE_INT8),
               tensor("y", {1, 10}, TIGRIS_TENSOR_MODEL_OUTPUT, out_dtype)};
  const bool int16 = out_dtype == TIGRIS_DTYPE_INT16;
  p.quant = {QuantDesc{0.05f, 0, {1073741824}, {0}},
             QuantDesc{int16 ? 1.0f / 65536.0f : 1.0f / 256.0f, int16 ? -32768 : -128, {1073741824}, {0}}};
  p.tensors[0].quant = 0;
  p.tensors[1].quant = 1;
  p.ops = {op(TIGRIS_OP_SOFTMAX, "softmax", {0}, {1})};
  p.stages = {stage({0}, {0}, {1})};
  p.model_inputs = {0};
  p.model_outputs = {1};
  return p;
}

inline tigris_tile_plan_v11_t tile_record(uint8_t axis, uint32_t band, tigris_tile_facts_t facts,
                                          uint16_t tile_width = 0, uint16_t flags = 0) {
  tigris_tile_plan_v11_t t{};
  t.choices.tileable = 1;
  t.choices.axis = axis;
  t.choices.tile_height = static_cast<uint16_t>(band > 0xFFFF ? 0xFFFF : band);
  t.choices.tile_extent_wide = band;
  t.choices.tile_width = tile_width;
  t.choices.flags = flags;
  t.facts = facts;
  return t;
}

inline tigris_tile_facts_t facts(uint32_t tile, uint32_t tiles, uint32_t extent, uint16_t halo, uint8_t axis,
                                 uint8_t kind, uint8_t mode = 0) {
  tigris_tile_facts_t f{};
  f.tile_extent = tile;
  f.num_tiles = tiles;
  f.original_extent = extent;
  f.halo = halo;
  f.band_axis = axis;
  f.band = TIGRIS_TILE_BAND(kind, mode);
  return f;
}

inline bool all_zero(const tigris_plan_t& p) {
  tigris_plan_t z;
  std::memset(&z, 0, sizeof(z));
  return std::memcmp(&z, &p, sizeof(p)) == 0;
}

struct Loaded {
  tigris_error_t err;
  tigris_plan_t plan;
  tigris_plan_limits_t required;
};

// Loads with the plan and limits pre-filled with garbage: failure must zero the plan.
inline Loaded load(const Bytes& b) {
  Loaded r;
  std::memset(&r.plan, 0xA5, sizeof(r.plan));
  std::memset(&r.required, 0xA5, sizeof(r.required));
  r.err = tigris_plan_load_ex(b.data(), static_cast<uint32_t>(b.size()), &r.plan, &r.required);
  if (r.err != TIGRIS_OK) {
    EXPECT_TRUE(all_zero(r.plan)) << "failed load exposed a partial plan (" << r.err << ")";
  }
  return r;
}

inline tigris_error_t load_err(const Bytes& b) { return load(b).err; }

inline uint32_t sec(const Bytes& b, uint32_t id) { return tigris_test::ByteReader{b}.directory().at(id); }
inline uint32_t dir_entry(const Bytes& b, uint32_t id) {
  tigris_test::ByteReader r{b};
  for (uint32_t at = r.u32(12);; at += 8) {
    if (r.u32(at) == id) return at;
    if (r.u32(at) == 0) throw std::runtime_error("no such section");
  }
}
inline void put8(Bytes& b, size_t off, uint8_t v) { b.at(off) = v; }
inline void put16(Bytes& b, size_t off, uint16_t v) { std::memcpy(&b.at(off + 1) - 1, &v, 2); }
inline void put32(Bytes& b, size_t off, uint32_t v) { std::memcpy(&b.at(off + 3) - 3, &v, 4); }
inline uint32_t get32(const Bytes& b, size_t off) { return tigris_test::ByteReader{b}.u32(off); }
inline uint16_t get16(const Bytes& b, size_t off) { return tigris_test::ByteReader{b}.u16(off); }

// Remove a section from the directory (entries after it move up; its bytes stay).
inline void drop_section(Bytes& b, uint32_t id) {
  size_t at = dir_entry(b, id);
  for (; get32(b, at) != 0; at += 8) std::memmove(&b[at], &b[at + 8], 8);
}

}  // namespace lf
