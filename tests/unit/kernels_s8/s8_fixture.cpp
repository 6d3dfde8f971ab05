#include "s8_fixture.h"

#include <algorithm>

#include "tigris_kernels_s8.h"

namespace s8test {

uint16_t PlanFixture::quant_channels(float scale, int32_t zero_point, std::vector<int32_t> mult,
                                     std::vector<int32_t> shift) {
  tigris_quant_param_t q{};
  q.scale = scale;
  q.zero_point = zero_point;
  q.num_channels = (uint16_t)mult.size();
  q.multiplier_off = (uint16_t)quant_data_.size();
  quant_data_.insert(quant_data_.end(), mult.begin(), mult.end());
  q.shift_off = (uint16_t)quant_data_.size();
  quant_data_.insert(quant_data_.end(), shift.begin(), shift.end());
  q.page = 0;
  quants_.push_back(q);
  return (uint16_t)(quants_.size() - 1);
}

uint16_t PlanFixture::conv_quant(float in_scale, const std::vector<float>& w_scales, float out_scale,
                                 int32_t zero_point, bool fully_connected) {
  std::vector<int32_t> m, s;
  for (float ws : w_scales) {
    int32_t mm = 0;
    int ss = 0;
    tigris_s8::layer_multiplier(in_scale, ws, out_scale, fully_connected && w_scales.size() == 1, &mm, &ss);
    m.push_back(mm);
    s.push_back(ss);
  }
  return quant_channels(out_scale, zero_point, m, s);
}

uint16_t PlanFixture::tensor(std::vector<int32_t> shape, uint8_t dtype, uint16_t q) {
  tigris_tensor_t t{};
  uint32_t n = 1;
  for (int32_t d : shape) n *= (uint32_t)d;
  t.size_bytes = n * tigris_dtype_size(dtype);
  t.shape_off = (uint16_t)shape_pool_.size();
  t.ndim = (uint8_t)shape.size();
  t.dtype = dtype;
  t.quant_param_idx = q;
  shape_pool_.insert(shape_pool_.end(), shape.begin(), shape.end());
  tensors_.push_back(t);
  ptrs_.push_back(nullptr);
  return (uint16_t)(tensors_.size() - 1);
}

uint16_t PlanFixture::weight(const void* data, size_t bytes) {
  while (blob_.size() % 16) blob_.push_back(0);
  tigris_weight_entry_t w{};
  w.offset = (uint32_t)blob_.size();
  w.size_bytes = (uint32_t)bytes;
  const uint8_t* p = (const uint8_t*)data;
  blob_.insert(blob_.end(), p, p + bytes);
  weights_.push_back(w);
  return (uint16_t)(weights_.size() - 1);
}

uint16_t PlanFixture::op(uint8_t type, std::vector<uint16_t> ins, std::vector<uint16_t> outs) {
  tigris_op_t o{};
  o.op_type = type;
  o.num_inputs = (uint8_t)ins.size();
  o.num_outputs = (uint8_t)outs.size();
  o.weight_idx = TIGRIS_NONE;
  o.bias_idx = TIGRIS_NONE;
  o.act_min = -128;
  o.act_max = 127;
  ops_.push_back(o);
  op_ins_.push_back(ins);
  op_outs_.push_back(outs);
  return (uint16_t)(ops_.size() - 1);
}

void PlanFixture::attr(uint16_t op, uint8_t kind, std::vector<uint8_t> data) {
  attrs_.push_back({op, kind, std::move(data)});
}

void PlanFixture::attr_i32(uint16_t op, uint8_t kind, const std::vector<int32_t>& v) {
  std::vector<uint8_t> d(v.size() * 4);
  std::memcpy(d.data(), v.data(), d.size());
  attr(op, kind, d);
}

void PlanFixture::attr_f32(uint16_t op, uint8_t kind, const std::vector<float>& v) {
  std::vector<uint8_t> d(v.size() * 4);
  std::memcpy(d.data(), v.data(), d.size());
  attr(op, kind, d);
}

const tigris_plan_t* PlanFixture::finalize() {
  index_pool_.clear();
  for (size_t i = 0; i < ops_.size(); i++) {
    ops_[i].inputs_off = (uint16_t)index_pool_.size();
    index_pool_.insert(index_pool_.end(), op_ins_[i].begin(), op_ins_[i].end());
    ops_[i].outputs_off = (uint16_t)index_pool_.size();
    index_pool_.insert(index_pool_.end(), op_outs_[i].begin(), op_outs_[i].end());
  }
  plantest::lay_out_attributes(attrs_, attr_records_, attr_pool_);
  // 16-aligned blob storage so weight pointers look like a real plan's.
  blob_aligned_storage_.assign(blob_.size() + 16, 0);
  uint8_t* base = blob_aligned_storage_.data();
  while ((uintptr_t)base % 16) base++;
  if (!blob_.empty()) std::memcpy(base, blob_.data(), blob_.size());

  header_.magic = TIGRIS_MAGIC;
  header_.version = TIGRIS_SCHEMA_VERSION;
  header_.num_tensors = (uint16_t)tensors_.size();
  header_.num_ops = (uint16_t)ops_.size();
  header_.num_weights = (uint16_t)weights_.size();
  header_.num_quant_params = (uint16_t)quants_.size();
  static const char kStrings[] = "";
  plan_ = tigris_plan_t{};
  plan_.header = &header_;
  plan_.tensors = tensors_.data();
  plan_.ops = ops_.data();
  plan_.index_pool = index_pool_.data();
  plan_.shape_pool = shape_pool_.data();
  plan_.strings = kStrings;
  plan_.weight_entries = weights_.empty() ? nullptr : weights_.data();
  plan_.weight_blob = weights_.empty() ? nullptr : base;
  plan_.op_attributes = attr_records_.empty() ? nullptr : attr_records_.data();
  plan_.op_attribute_data = attr_pool_.data();
  plan_.num_op_attributes = (uint16_t)attr_records_.size();
  plan_.quant_params = quants_.empty() ? nullptr : quants_.data();
  plan_.quant_data = quant_data_.empty() ? nullptr : quant_data_.data();
  plan_.num_quant_params = (uint16_t)quants_.size();
  return &plan_;
}

int PlanFixture::run(uint16_t i, const tigris_tile_ctx_t& tile) {
  tigris_mem_t mem{};
  mem.tensor_ptrs = ptrs_.data();
  mem.num_tensors = (uint16_t)ptrs_.size();
  mem.tile = tile;
  return tigris_dispatch_kernel_s8(&plan_, &plan_.ops[i], i, &mem, nullptr);
}

Bytes random_bytes(size_t n, uint32_t seed, int lo, int hi) {
  Bytes v(n);
  uint32_t x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    v[i] = (int8_t)(lo + (int)(x % (uint32_t)(hi - lo + 1)));
  }
  return v;
}

Mult qm(double real) {
  Mult r{0, 0};
  tigris_s8::quantize_multiplier(real, &r.m, &r.s);
  return r;
}

}  // namespace s8test
