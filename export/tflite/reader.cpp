// Reading a .tflite file: verify, convert the carried tables, range-check every index.
#include "export/tflite/reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>

#include "export/tflite/reader_context.h"
#include "export/tflite/reader_options.h"
#include "tflite_schema_generated.h"

namespace tigris::tflite {
namespace {

namespace fb = tigris::tflite::fb;
using detail::ReadContext;
using detail::slots_below;
using detail::to_vector;


std::optional<Quantization> read_quantization(const fb::QuantizationParameters* q, const std::string& owner,
                                              const ReadContext& ctx) {
  if (!q) return std::nullopt;
  ctx.check_slots(q, "QuantizationParameters", slots_below(7));
  Quantization out;
  // TensorFlow Lite Micro ignores a record's details (custom quantization): a lenient read
  // drops them as it does; a strict read refuses, since the writer could not keep them.
  if (q->details_type() != fb::QuantizationDetails::NONE || q->details() != nullptr) {
    if (!ctx.lenient)
      ctx.uncarried(owner + " has quantization details (type " + std::to_string(static_cast<int>(q->details_type())) +
                    "), which are not supported");
    out.details_dropped = true;
  }
  out.min = to_vector(q->min());
  out.max = to_vector(q->max());
  out.scale = to_vector(q->scale());
  out.zero_point = to_vector(q->zero_point());
  out.quantized_dimension = q->quantized_dimension();
  return out;
}

Tensor read_tensor(const fb::Tensor* t, size_t index, const ReadContext& ctx) {
  ctx.check_slots(t, "Tensor", slots_below(11));
  Tensor out;
  out.name = t->name() ? t->name()->str() : std::string();
  std::string owner = tensor_owner(index, out.name);
  if (t->sparsity()) ctx.uncarried(owner + " is sparse, which is not supported");
  if (t->variant_tensors() && t->variant_tensors()->size() > 0)
    ctx.uncarried(owner + " has variant subtypes, which are not supported");
  if (t->external_buffer() != 0) ctx.uncarried(owner + " uses an external buffer, which is not supported");
  out.shape = to_vector(t->shape());
  out.type = static_cast<TensorType>(t->type());
  out.buffer = t->buffer();
  out.quantization = read_quantization(t->quantization(), owner, ctx);
  out.is_variable = t->is_variable();
  if (t->shape_signature()) out.shape_signature = to_vector(t->shape_signature());
  out.has_rank = t->has_rank();
  return out;
}

Operator read_operator(const fb::Operator* o, size_t index, const Model& m, const ReadContext& ctx) {
  ctx.check_slots(o, "Operator", slots_below(14));
  Operator out;
  out.opcode_index = o->opcode_index();
  std::string owner = "operator " + std::to_string(index);
  if (out.opcode_index >= m.operator_codes.size())
    ctx.fatal(owner + ": operator code index " + std::to_string(out.opcode_index) + " is out of range for " +
              std::to_string(m.operator_codes.size()) +
              (m.operator_codes.size() == 1 ? " operator code" : " operator codes"));
  owner += " (" + operator_kind(m, out) + ")";
  out.inputs = to_vector(o->inputs());
  out.outputs = to_vector(o->outputs());
  out.intermediates = to_vector(o->intermediates());
  if (o->mutating_variable_inputs())
    for (auto b : *o->mutating_variable_inputs()) out.mutating_variable_inputs.push_back(b != 0);
  if (o->custom_options()) out.custom_options = to_vector(o->custom_options());
  out.custom_options_format = o->custom_options_format();
  out.debug_metadata_index = o->debug_metadata_index();
  if (o->large_custom_options_offset() != 0 || o->large_custom_options_size() != 0)
    ctx.uncarried(owner + " keeps custom options outside the FlatBuffer, which is not supported");
  if (o->builtin_options_2_type() != fb::BuiltinOptions2::NONE || o->builtin_options_2())
    ctx.uncarried(owner + " has BuiltinOptions2 (type " +
                  std::to_string(static_cast<int>(o->builtin_options_2_type())) + "), which are not supported");
  out.options = detail::read_options(o, static_cast<uint8_t>(o->builtin_options_type()), owner, ctx);
  return out;
}

SubGraph read_subgraph(const fb::SubGraph* g, const Model& m, const ReadContext& ctx) {
  ctx.check_slots(g, "SubGraph", slots_below(6));
  SubGraph out;
  if (g->tensors())
    for (flatbuffers::uoffset_t i = 0; i < g->tensors()->size(); ++i)
      out.tensors.push_back(read_tensor(g->tensors()->Get(i), i, ctx));
  out.inputs = to_vector(g->inputs());
  out.outputs = to_vector(g->outputs());
  if (g->operators())
    for (flatbuffers::uoffset_t i = 0; i < g->operators()->size(); ++i)
      out.operators.push_back(read_operator(g->operators()->Get(i), i, m, ctx));
  out.name = g->name() ? g->name()->str() : std::string();
  out.debug_metadata_index = g->debug_metadata_index();
  return out;
}

void read_buffers(const fb::Model* fm, Model& m, const ReadContext& ctx) {
  if (!fm->buffers()) return;
  for (flatbuffers::uoffset_t i = 0; i < fm->buffers()->size(); ++i) {
    const fb::Buffer* b = fm->buffers()->Get(i);
    ctx.check_slots(b, "Buffer", slots_below(3));
    // offset 1 with no size is a placeholder some writers use; anything else means data
    // stored after the FlatBuffer, which TFLite Micro never reads.
    if (b->offset() > 1 || b->size() != 0)
      ctx.uncarried("buffer " + std::to_string(i) + " stores its data outside the FlatBuffer (offset " +
                    std::to_string(b->offset()) + ", size " + std::to_string(b->size()) + "), which is not supported");
    m.buffers.push_back(Buffer{to_vector(b->data())});
  }
}

void read_signatures(const fb::Model* fm, Model& m, const ReadContext& ctx) {
  if (!fm->signature_defs()) return;
  auto maps = [&](const flatbuffers::Vector<flatbuffers::Offset<fb::TensorMap>>* v) {
    std::vector<TensorMap> out;
    if (v)
      for (const fb::TensorMap* t : *v) {
        ctx.check_slots(t, "TensorMap", slots_below(2));
        out.push_back({t->name() ? t->name()->str() : std::string(), t->tensor_index()});
      }
    return out;
  };
  for (const fb::SignatureDef* s : *fm->signature_defs()) {
    ctx.check_slots(s, "SignatureDef", 0b10111);  // slot 3 (deprecated_tag) is not carried
    SignatureDef out;
    out.inputs = maps(s->inputs());
    out.outputs = maps(s->outputs());
    out.signature_key = s->signature_key() ? s->signature_key()->str() : std::string();
    out.subgraph_index = s->subgraph_index();
    m.signature_defs.push_back(std::move(out));
  }
}

void read_model_table(const fb::Model* fm, Model& m, const ReadContext& ctx) {
  ctx.check_slots(fm, "Model", slots_below(10));
  if ((fm->external_buffer_groups() && fm->external_buffer_groups()->size() > 0) ||
      (fm->external_buffers() && fm->external_buffers()->size() > 0))
    ctx.uncarried("the model keeps buffers in external files, which is not supported");
  m.version = fm->version();
  if (fm->operator_codes())
    for (const fb::OperatorCode* c : *fm->operator_codes()) {
      ctx.check_slots(c, "OperatorCode", slots_below(4));
      OperatorCode oc;
      oc.code = std::max<int32_t>(c->deprecated_builtin_code(), c->builtin_code());
      if (c->custom_code()) oc.custom_code = c->custom_code()->str();
      oc.version = c->version();
      m.operator_codes.push_back(std::move(oc));
    }
  if (fm->description()) m.description = fm->description()->str();
  read_buffers(fm, m, ctx);
  m.metadata_buffer = to_vector(fm->metadata_buffer());
  if (fm->metadata())
    for (const fb::Metadata* md : *fm->metadata()) {
      ctx.check_slots(md, "Metadata", slots_below(2));
      m.metadata.push_back({md->name() ? md->name()->str() : std::string(), md->buffer()});
    }
  read_signatures(fm, m, ctx);
  if (!fm->subgraphs() || fm->subgraphs()->size() == 0) ctx.fatal("the model has no subgraph");
  for (const fb::SubGraph* g : *fm->subgraphs()) m.subgraphs.push_back(read_subgraph(g, m, ctx));
}

}  // namespace

bool looks_like_tflite(std::span<const uint8_t> bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, "TFL3", 4) == 0;
}

Model read_model(std::span<const uint8_t> bytes, const std::string& file, ReadOptions opts) {
  if (!looks_like_tflite(bytes)) throw ModelError(file, "not a TFLite file (no TFL3 identifier)");
  if (bytes.size() >= FLATBUFFERS_MAX_BUFFER_SIZE) throw ModelError(file, "the file is too large for a FlatBuffer");
  flatbuffers::Verifier::Options vopts;
  vopts.max_depth = 128;
  vopts.max_tables = 50'000'000;
  flatbuffers::Verifier verifier(bytes.data(), bytes.size(), vopts);
  if (!fb::VerifyModelBuffer(verifier))
    throw ModelError(file, "not a valid TFLite FlatBuffer (the verifier rejects it)");
  Model m;
  m.version = 0;
  ReadContext ctx{file, opts.lenient, &m};
  read_model_table(fb::GetModel(bytes.data()), m, ctx);
  check_model_indices(m, file);
  return m;
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ModelError(path, std::string("cannot open: ") + std::strerror(errno));
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) throw ModelError(path, "read error");
  return bytes;
}

Model read_model_file(const std::string& path, ReadOptions opts) {
  std::vector<uint8_t> bytes = read_file_bytes(path);
  return read_model(bytes, path, opts);
}

}  // namespace tigris::tflite
