// Editing helpers over the in-memory model.
#include "export/tflite/edit.h"

#include <cstring>

namespace tigris::tflite {

uint32_t add_buffer(Model& m, std::vector<uint8_t> data) {
  m.buffers.push_back(Buffer{std::move(data)});
  return static_cast<uint32_t>(m.buffers.size() - 1);
}

int32_t add_tensor(SubGraph& g, Tensor t) {
  g.tensors.push_back(std::move(t));
  return static_cast<int32_t>(g.tensors.size() - 1);
}

int32_t add_int32_constant(Model& m, SubGraph& g, const std::string& name, const std::vector<int32_t>& shape,
                           const std::vector<int32_t>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    auto v = static_cast<uint32_t>(values[i]);
    for (int k = 0; k < 4; ++k) bytes[4 * i + k] = static_cast<uint8_t>(v >> (8 * k));  // little-endian
  }
  Tensor t;
  t.shape = shape;
  t.type = TensorType::Int32;
  t.name = name;
  t.buffer = add_buffer(m, std::move(bytes));
  return add_tensor(g, std::move(t));
}

uint32_t operator_code_index(Model& m, int32_t code, int32_t version) {
  for (size_t i = 0; i < m.operator_codes.size(); ++i) {
    OperatorCode& c = m.operator_codes[i];
    if (c.code == code && !c.custom_code) {
      if (c.version < version) c.version = version;
      return static_cast<uint32_t>(i);
    }
  }
  m.operator_codes.push_back(OperatorCode{code, std::nullopt, version});
  return static_cast<uint32_t>(m.operator_codes.size() - 1);
}

namespace {

void remap(std::vector<int32_t>& v, const std::vector<int32_t>& map) {
  for (int32_t& x : v)
    if (x >= 0) x = map[static_cast<size_t>(x)];
}

void drop_tensors(Model& m) {
  SubGraph& g = m.subgraphs[0];
  std::vector<bool> used(g.tensors.size(), false);
  auto mark = [&](const std::vector<int32_t>& v) {
    for (int32_t x : v)
      if (x >= 0) used[static_cast<size_t>(x)] = true;
  };
  mark(g.inputs);
  mark(g.outputs);
  for (const Operator& o : g.operators) mark(o.inputs), mark(o.outputs), mark(o.intermediates);
  for (const SignatureDef& s : m.signature_defs)
    if (s.subgraph_index == 0) {
      for (const TensorMap& t : s.inputs) used[t.tensor_index] = true;
      for (const TensorMap& t : s.outputs) used[t.tensor_index] = true;
    }
  std::vector<int32_t> map(g.tensors.size(), -1);
  std::vector<Tensor> kept;
  for (size_t i = 0; i < g.tensors.size(); ++i)
    if (used[i]) map[i] = static_cast<int32_t>(kept.size()), kept.push_back(std::move(g.tensors[i]));
  g.tensors = std::move(kept);
  remap(g.inputs, map);
  remap(g.outputs, map);
  for (Operator& o : g.operators) remap(o.inputs, map), remap(o.outputs, map), remap(o.intermediates, map);
  for (SignatureDef& s : m.signature_defs)
    if (s.subgraph_index == 0) {
      for (TensorMap& t : s.inputs) t.tensor_index = static_cast<uint32_t>(map[t.tensor_index]);
      for (TensorMap& t : s.outputs) t.tensor_index = static_cast<uint32_t>(map[t.tensor_index]);
    }
}

void drop_buffers(Model& m) {
  std::vector<bool> used(m.buffers.size(), false);
  used[0] = true;
  for (const SubGraph& g : m.subgraphs)
    for (const Tensor& t : g.tensors) used[t.buffer] = true;
  for (const Metadata& md : m.metadata) used[md.buffer] = true;
  for (int32_t b : m.metadata_buffer) used[static_cast<size_t>(b)] = true;
  std::vector<int32_t> map(m.buffers.size(), -1);
  std::vector<Buffer> kept;
  for (size_t i = 0; i < m.buffers.size(); ++i)
    if (used[i]) map[i] = static_cast<int32_t>(kept.size()), kept.push_back(std::move(m.buffers[i]));
  m.buffers = std::move(kept);
  for (SubGraph& g : m.subgraphs)
    for (Tensor& t : g.tensors) t.buffer = static_cast<uint32_t>(map[t.buffer]);
  for (Metadata& md : m.metadata) md.buffer = static_cast<uint32_t>(map[md.buffer]);
  remap(m.metadata_buffer, map);
}

}  // namespace

void drop_unreferenced(Model& m) {
  if (m.subgraphs.empty() || m.buffers.empty()) return;
  drop_tensors(m);
  drop_buffers(m);
}

}  // namespace tigris::tflite
