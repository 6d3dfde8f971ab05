// A small in-memory plan for operator-rule and kernel tests: fills tigris_plan_t directly
// (tensors, ops, pools, attributes, weights) without the writer or loader, and owns one
// buffer per tensor for kernel calls.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <vector>

#include "plan_support/attribute_table.h"
#include "tigris.h"
#include "tigris_mem.h"

namespace fixture {

class Plan {
 public:
  uint16_t tensor(std::initializer_list<int32_t> shape, uint8_t dtype = TIGRIS_DTYPE_FLOAT32, uint8_t flags = 0) {
    return tensor(std::vector<int32_t>(shape), dtype, flags);
  }
  uint16_t tensor(const std::vector<int32_t>& shape, uint8_t dtype = TIGRIS_DTYPE_FLOAT32, uint8_t flags = 0) {
    tigris_tensor_t t{};
    t.shape_off = (uint16_t)shapes_.size();
    t.ndim = (uint8_t)shape.size();
    t.dtype = dtype;
    t.flags = flags;
    t.quant_param_idx = TIGRIS_NONE;
    uint64_t n = 1;
    for (int32_t d : shape) {
      shapes_.push_back(d);
      n *= (uint64_t)d;
    }
    t.size_bytes = (uint32_t)(n * tigris_dtype_size(dtype));
    tensors_.push_back(t);
    return (uint16_t)(tensors_.size() - 1);
  }
  tigris_tensor_t& t(uint16_t i) { return tensors_[i]; }

  uint16_t quant(float scale, int32_t zp, uint16_t channels = 1) {
    tigris_quant_param_t q{};
    q.scale = scale;
    q.zero_point = zp;
    q.num_channels = channels;
    quants_.push_back(q);
    return (uint16_t)(quants_.size() - 1);
  }

  uint16_t weight_bytes(const void* data, size_t bytes) {
    while (blob_.size() % 16) blob_.push_back(0);
    tigris_weight_entry_t w{};
    w.offset = (uint32_t)blob_.size();
    w.size_bytes = (uint32_t)bytes;
    const uint8_t* p = static_cast<const uint8_t*>(data);
    blob_.insert(blob_.end(), p, p + bytes);
    weights_.push_back(w);
    return (uint16_t)(weights_.size() - 1);
  }
  uint16_t weight(const std::vector<float>& v) { return weight_bytes(v.data(), v.size() * 4); }
  uint16_t weight_i32(const std::vector<int32_t>& v) { return weight_bytes(v.data(), v.size() * 4); }

  uint16_t op(uint8_t type, std::initializer_list<uint16_t> ins, std::initializer_list<uint16_t> outs) {
    return op(type, std::vector<uint16_t>(ins), std::vector<uint16_t>(outs));
  }
  uint16_t op(uint8_t type, const std::vector<uint16_t>& ins, const std::vector<uint16_t>& outs) {
    tigris_op_t o{};
    o.op_type = type;
    o.num_inputs = (uint8_t)ins.size();
    o.num_outputs = (uint8_t)outs.size();
    o.inputs_off = (uint16_t)index_.size();
    index_.insert(index_.end(), ins.begin(), ins.end());
    o.outputs_off = (uint16_t)index_.size();
    index_.insert(index_.end(), outs.begin(), outs.end());
    o.weight_idx = TIGRIS_NONE;
    o.bias_idx = TIGRIS_NONE;
    o.act_min = -128;
    o.act_max = 127;
    ops_.push_back(o);
    return (uint16_t)(ops_.size() - 1);
  }
  tigris_op_t& o(uint16_t i) { return ops_[i]; }

  // Sets (or replaces) an attribute of an op.
  void attr(uint16_t op, uint8_t kind, const std::vector<uint8_t>& data) {
    for (Attr& a : attrs_)
      if (a.op == op && a.kind == kind) {
        a.data = data;
        return;
      }
    attrs_.push_back({op, kind, data});
  }
  void attr_i32(uint16_t op, uint8_t kind, const std::vector<int32_t>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    attr(op, kind, b);
  }
  void attr_f32(uint16_t op, uint8_t kind, const std::vector<float>& v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    attr(op, kind, b);
  }

  // Lays out the plan; pointers stay valid until the fixture is changed again.
  const tigris_plan_t* plan() {
    plantest::lay_out_attributes(attrs_, attr_records_, attr_data_);
    header_ = tigris_file_header_t{};
    header_.magic = TIGRIS_MAGIC;
    header_.version = TIGRIS_SCHEMA_VERSION;
    header_.num_tensors = (uint16_t)tensors_.size();
    header_.num_ops = (uint16_t)ops_.size();
    header_.num_weights = (uint16_t)weights_.size();
    header_.num_quant_params = (uint16_t)quants_.size();
    plan_ = tigris_plan_t{};
    plan_.header = &header_;
    plan_.tensors = tensors_.data();
    plan_.ops = ops_.data();
    plan_.index_pool = index_.data();
    plan_.shape_pool = shapes_.data();
    plan_.strings = strings_;
    plan_.weight_entries = weights_.empty() ? nullptr : weights_.data();
    blob_.push_back(0);
    plan_.weight_blob = blob_.data();
    blob_.pop_back();
    plan_.op_attributes = attr_records_.empty() ? nullptr : attr_records_.data();
    plan_.op_attribute_data = attr_data_.data();
    plan_.num_op_attributes = (uint16_t)attr_records_.size();
    plan_.quant_params = quants_.empty() ? nullptr : quants_.data();
    plan_.num_quant_params = (uint16_t)quants_.size();
    return &plan_;
  }

  // ---- Kernel calls ---------------------------------------------------------------------

  // (Re)creates one zeroed buffer per tensor and a memory manager pointing at them.
  tigris_mem_t* mem() {
    buffers_.assign(tensors_.size(), std::vector<uint8_t>());
    ptrs_.assign(tensors_.size(), nullptr);
    for (size_t i = 0; i < tensors_.size(); ++i) {
      buffers_[i].assign(tensors_[i].size_bytes ? tensors_[i].size_bytes : 1, 0);  // exact: ASan sees overruns
      ptrs_[i] = buffers_[i].data();
    }
    mem_ = tigris_mem_t{};
    mem_.tensor_ptrs = ptrs_.data();
    mem_.num_tensors = (uint16_t)tensors_.size();
    return &mem_;
  }
  void** ptrs() { return ptrs_.data(); }
  template <typename T>
  void set(uint16_t tensor, const std::vector<T>& values) {
    std::memcpy(ptrs_[tensor], values.data(), values.size() * sizeof(T));
  }
  template <typename T>
  std::vector<T> get(uint16_t tensor) const {
    std::vector<T> v(tensors_[tensor].size_bytes / sizeof(T));
    std::memcpy(v.data(), ptrs_[tensor], v.size() * sizeof(T));
    return v;
  }
  // Points a tensor at caller storage (band buffers in tile tests).
  void bind(uint16_t tensor, void* p) { ptrs_[tensor] = p; }

 private:
  using Attr = plantest::AttrSpec;
  std::vector<tigris_tensor_t> tensors_;
  std::vector<tigris_op_t> ops_;
  std::vector<uint16_t> index_;
  std::vector<int32_t> shapes_;
  std::vector<tigris_weight_entry_t> weights_;
  std::vector<uint8_t> blob_;
  std::vector<tigris_quant_param_t> quants_;
  std::vector<Attr> attrs_;
  std::vector<tigris_op_attribute_t> attr_records_;
  std::vector<uint8_t> attr_data_;
  const char* strings_ = "";
  tigris_file_header_t header_{};
  tigris_plan_t plan_{};
  std::vector<std::vector<uint8_t>> buffers_;
  std::vector<void*> ptrs_;
  tigris_mem_t mem_{};
};

}  // namespace fixture
