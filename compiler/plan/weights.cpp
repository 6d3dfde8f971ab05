#include "compiler/plan/weights.h"

#include <cstring>

#include "compiler/ir/error.h"
#include "compiler/passes/util.h"

namespace tigris::plan {

uint16_t WeightTable::add(const std::string& key, WeightDesc w) {
  if (entries_.size() >= 0xFFFF) throw ir::CompileError(ir::ErrorKind::Unsupported, "more than 65534 weights");
  uint16_t idx = static_cast<uint16_t>(entries_.size());
  entries_.push_back(std::move(w));
  index_[key] = idx;
  return idx;
}

uint16_t WeightTable::add_raw(const std::string& name, std::vector<uint8_t> data) {
  auto it = index_.find("\x1e" + name);
  if (it != index_.end() && entries_[it->second].data == data) return it->second;
  WeightDesc w;
  w.name = name;
  w.data = std::move(data);
  std::string key = "\x1e" + name;
  for (int i = 1; index_.count(key); ++i) key = "\x1e" + name + "#" + std::to_string(i);
  return add(key, std::move(w));
}

namespace {

std::vector<uint8_t> permuted(const ir::Tensor& w, const std::vector<int64_t>& perm) {
  return passes::transpose_data(w.data, w.shape, perm, ir::dtype_size(w.dtype));
}

}  // namespace

std::vector<uint8_t> conv_weight_ohwi(const ir::Tensor& w) { return permuted(w, {0, 2, 3, 1}); }

std::vector<uint8_t> depthwise_weight(const ir::Tensor& w) { return permuted(w, {2, 3, 1, 0}); }

std::vector<uint8_t> conv1d_weight(const ir::Tensor& w) { return permuted(w, {0, 2, 1}); }

std::vector<uint8_t> conv_transpose_weight(const ir::Tensor& w, int64_t group) {
  // ONNX [IC, OC/g, KH, KW] with IC = g * icg: view as [g, icg, ocg, KH, KW] -> [g, ocg, KH, KW, icg].
  int64_t ic = w.shape[0], ocg = w.shape[1], kh = w.shape[2], kw = w.shape[3];
  ir::Tensor view = w;
  view.shape = {group, ic / group, ocg, kh, kw};
  return passes::transpose_data(view.data, view.shape, {0, 2, 3, 4, 1}, ir::dtype_size(w.dtype));
}

std::vector<uint8_t> as_int32(const ir::Tensor& t) {
  std::vector<int64_t> v = passes::const_ints(t);
  std::vector<uint8_t> out(v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i) {
    int32_t x = static_cast<int32_t>(v[i]);
    std::memcpy(&out[i * 4], &x, 4);
  }
  return out;
}

}  // namespace tigris::plan
