// Range checks of every index a model holds (shared by the reader and the writer).
#include "export/tflite/model.h"

namespace tigris::tflite {
namespace {


// ---- Index checks ----------------------------------------------------------------------
void check_index(const std::string& file, const std::string& owner, const char* item, int64_t index, size_t count) {
  if (index >= 0 && static_cast<uint64_t>(index) < count) return;
  throw ModelError(file, owner + ": " + item + " index " + std::to_string(index) + " is out of range for " +
                             std::to_string(count) + " " + item + (count == 1 ? "" : "s"));
}

void check_subgraph_indices(const Model& m, size_t gi, const std::string& file) {
  const SubGraph& g = m.subgraphs[gi];
  size_t nt = g.tensors.size();
  std::string prefix = m.subgraphs.size() == 1 ? "model" : "subgraph " + std::to_string(gi);
  for (int32_t t : g.inputs) check_index(file, prefix + " inputs", "tensor", t, nt);
  for (int32_t t : g.outputs) check_index(file, prefix + " outputs", "tensor", t, nt);
  for (size_t i = 0; i < nt; ++i)
    check_index(file, tensor_owner(i, g.tensors[i].name), "buffer", g.tensors[i].buffer, m.buffers.size());
  for (size_t i = 0; i < g.operators.size(); ++i) {
    const Operator& o = g.operators[i];
    check_index(file, "operator " + std::to_string(i), "operator code", o.opcode_index, m.operator_codes.size());
    std::string owner = "operator " + std::to_string(i) + " (" + operator_kind(m, o) + ")";
    for (int32_t t : o.inputs)
      if (t != -1) check_index(file, owner, "tensor", t, nt);
    for (int32_t t : o.outputs) check_index(file, owner, "tensor", t, nt);
    for (int32_t t : o.intermediates) check_index(file, owner, "tensor", t, nt);
  }
}

}  // namespace

void check_model_indices(const Model& m, const std::string& file) {
  for (size_t gi = 0; gi < m.subgraphs.size(); ++gi) check_subgraph_indices(m, gi, file);
  for (const Metadata& md : m.metadata) check_index(file, "metadata " + md.name, "buffer", md.buffer, m.buffers.size());
  for (int32_t b : m.metadata_buffer) check_index(file, "metadata_buffer", "buffer", b, m.buffers.size());
  for (const SignatureDef& s : m.signature_defs) {
    std::string owner = "signature " + s.signature_key;
    check_index(file, owner, "subgraph", s.subgraph_index, m.subgraphs.size());
    size_t nt = m.subgraphs[s.subgraph_index].tensors.size();
    for (const TensorMap& t : s.inputs) check_index(file, owner, "tensor", t.tensor_index, nt);
    for (const TensorMap& t : s.outputs) check_index(file, owner, "tensor", t.tensor_index, nt);
  }
  if (m.buffers.empty()) throw ModelError(file, "the model has no buffers; buffer 0 must exist and be empty");
  if (!m.buffers[0].data.empty()) throw ModelError(file, "buffer 0 holds data; it must be the empty buffer");
}

}  // namespace tigris::tflite
