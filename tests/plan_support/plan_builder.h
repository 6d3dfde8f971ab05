// Building small plans for runtime tests: records added to a plan writer description
// (compiler/plan/plan_writer.h), then written and loaded by the runtime loader. Shared by the
// executor and banded-path suites (tests/unit/exec, tests/unit/bands).
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "compiler/plan/plan_writer.h"
#include "tigris.h"
#include "tigris_loader.h"

namespace plantest {

using tigris::plan::OpDesc;
using tigris::plan::PlanDesc;
using tigris::plan::StageDesc;
using tigris::plan::TensorDesc;
using tigris::plan::WeightDesc;
using Bytes = std::vector<uint8_t>;

inline uint16_t add_tensor(PlanDesc& p, const std::string& name, std::vector<int32_t> shape, uint8_t flags = 0,
                           uint8_t dtype = TIGRIS_DTYPE_FLOAT32, uint16_t quant = TIGRIS_NONE) {
  TensorDesc t;
  t.name = name;
  t.shape = std::move(shape);
  t.dtype = dtype;
  t.flags = flags;
  t.quant = quant;
  p.tensors.push_back(t);
  return (uint16_t)(p.tensors.size() - 1);
}

inline uint16_t add_op(PlanDesc& p, uint8_t type, std::vector<uint16_t> ins, std::vector<uint16_t> outs,
                       uint16_t weight = TIGRIS_NONE) {
  OpDesc o;
  o.name = "op" + std::to_string(p.ops.size());
  o.type = type;
  o.inputs = std::move(ins);
  o.outputs = std::move(outs);
  o.weight = weight;
  p.ops.push_back(o);
  return (uint16_t)(p.ops.size() - 1);
}

inline void add_stage(PlanDesc& p, std::vector<uint16_t> ops, std::vector<uint16_t> ins, std::vector<uint16_t> outs) {
  StageDesc s;
  s.ops = std::move(ops);
  s.inputs = std::move(ins);
  s.outputs = std::move(outs);
  p.stages.push_back(s);
}

inline uint16_t add_weight_bytes(PlanDesc& p, Bytes data) {
  WeightDesc w;
  w.name = "w" + std::to_string(p.weights.size());
  w.data = std::move(data);
  p.weights.push_back(w);
  return (uint16_t)(p.weights.size() - 1);
}

inline uint16_t add_weight(PlanDesc& p, const std::vector<float>& values) {
  Bytes b(values.size() * 4);
  std::memcpy(b.data(), values.data(), b.size());
  return add_weight_bytes(p, std::move(b));
}

// A loaded plan together with the bytes it points into, and the loader's verdict.
struct Loaded {
  Bytes bytes;
  tigris_plan_t plan{};
  tigris_error_t err = TIGRIS_ERR_NULL;
};

inline tigris_error_t load(const PlanDesc& d, Loaded* out) {
  out->bytes = tigris::plan::write_plan(d);
  out->err = tigris_plan_load(out->bytes.data(), (uint32_t)out->bytes.size(), &out->plan);
  return out->err;
}

}  // namespace plantest
