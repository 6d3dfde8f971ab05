// Serializing the in-memory model (model.h) to .tflite bytes.
//
// Every table is built the way FlatBuffers' Python object API (Pack) builds it: children
// first, in field order, then the table with its fields added in declaration order,
// skipping defaults; vtables shared as the Python builder shares them. A model written by
// that API (vww_96_int8, pretrainedResnet_quant and str_ww_ref_model as shipped) round-trips
// to the same bytes, so an exported file grows only by what the rewrite adds.
#include "export/tflite/writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "tflite_schema_generated.h"

namespace tigris::tflite {
namespace {

namespace fb = tigris::tflite::fb;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;
using flatbuffers::uoffset_t;

// FlatBufferBuilder whose vtable sharing works like the Python builder's (which wrote the
// MLPerf Tiny models as shipped): two tables share a vtable when their field offsets agree,
// whatever their object sizes; the first vtable written is kept.
class PackBuilder : public FlatBufferBuilder {
 public:
  PackBuilder() : FlatBufferBuilder(1 << 16) { DedupVtables(false); }

  uoffset_t EndSharedTable(uoffset_t start) {
    uoffset_t table = EndTable(start);  // writes a fresh vtable just below the table
    const uint8_t* vt = buf_.data();
    auto vt_size = flatbuffers::ReadScalar<flatbuffers::voffset_t>(vt);
    std::string key(reinterpret_cast<const char*>(vt), vt_size);
    key[2] = key[3] = 0;  // the object size is not part of the key
    auto [it, fresh] = vtables_.try_emplace(std::move(key), GetSize());
    if (!fresh) {
      buf_.pop(vt_size);
      flatbuffers::WriteScalar(buf_.data_at(table), static_cast<flatbuffers::soffset_t>(it->second) -
                                                        static_cast<flatbuffers::soffset_t>(table));
    }
    return table;
  }

 private:
  std::map<std::string, uoffset_t> vtables_;  // vtable bytes -> its offset from the end
};

// One table, fields added in the order of the calls (declaration order).
class Table {
 public:
  explicit Table(PackBuilder& b) : b_(b), start_(b.StartTable()) {}
  template <class T, class D>
  Table& scalar(flatbuffers::voffset_t field, T v, D def) {
    b_.AddElement<T>(field, v, static_cast<T>(def));
    return *this;
  }
  template <class T>
  Table& offset(flatbuffers::voffset_t field, Offset<T> o) {
    b_.AddOffset(field, o);
    return *this;
  }
  template <class T = void>
  Offset<T> end() {
    return Offset<T>(b_.EndSharedTable(start_));
  }

 private:
  PackBuilder& b_;
  uoffset_t start_;
};

template <class T>
Offset<flatbuffers::Vector<T>> vec(PackBuilder& b, const std::vector<T>& v) {
  return b.CreateVector(v);
}

template <class T>
Offset<flatbuffers::Vector<T>> vec_or_null(PackBuilder& b, const std::vector<T>& v) {
  return v.empty() ? 0 : b.CreateVector(v);
}

template <class T>
Offset<flatbuffers::Vector<Offset<T>>> tables(PackBuilder& b, const std::vector<Offset<T>>& v) {
  return b.CreateVector(v);
}

int8_t i8(auto v) { return static_cast<int8_t>(v); }

Offset<void> write_options(PackBuilder& b, const Options& o) {
  if (o.type == OptionsType::None) return 0;
  if (auto* c = o.get<Conv2DOptions>()) {
    using T = fb::Conv2DOptions;
    return Table(b)
        .scalar(T::VT_PADDING, i8(c->padding), 0)
        .scalar(T::VT_STRIDE_W, c->stride_w, 0)
        .scalar(T::VT_STRIDE_H, c->stride_h, 0)
        .scalar(T::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0)
        .scalar(T::VT_DILATION_W_FACTOR, c->dilation_w, 1)
        .scalar(T::VT_DILATION_H_FACTOR, c->dilation_h, 1)
        .scalar(T::VT_QUANTIZED_BIAS_TYPE, i8(c->quantized_bias_type), 0)
        .end();
  }
  if (auto* c = o.get<DepthwiseConv2DOptions>()) {
    using T = fb::DepthwiseConv2DOptions;
    return Table(b)
        .scalar(T::VT_PADDING, i8(c->padding), 0)
        .scalar(T::VT_STRIDE_W, c->stride_w, 0)
        .scalar(T::VT_STRIDE_H, c->stride_h, 0)
        .scalar(T::VT_DEPTH_MULTIPLIER, c->depth_multiplier, 0)
        .scalar(T::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0)
        .scalar(T::VT_DILATION_W_FACTOR, c->dilation_w, 1)
        .scalar(T::VT_DILATION_H_FACTOR, c->dilation_h, 1)
        .end();
  }
  if (auto* c = o.get<TransposeConvOptions>()) {
    using T = fb::TransposeConvOptions;
    return Table(b)
        .scalar(T::VT_PADDING, i8(c->padding), 0)
        .scalar(T::VT_STRIDE_W, c->stride_w, 0)
        .scalar(T::VT_STRIDE_H, c->stride_h, 0)
        .scalar(T::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0)
        .scalar(T::VT_QUANTIZED_BIAS_TYPE, i8(c->quantized_bias_type), 0)
        .end();
  }
  if (auto* c = o.get<Pool2DOptions>()) {
    using T = fb::Pool2DOptions;
    return Table(b)
        .scalar(T::VT_PADDING, i8(c->padding), 0)
        .scalar(T::VT_STRIDE_W, c->stride_w, 0)
        .scalar(T::VT_STRIDE_H, c->stride_h, 0)
        .scalar(T::VT_FILTER_WIDTH, c->filter_w, 0)
        .scalar(T::VT_FILTER_HEIGHT, c->filter_h, 0)
        .scalar(T::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0)
        .end();
  }
  if (auto* c = o.get<FullyConnectedOptions>()) {
    using T = fb::FullyConnectedOptions;
    return Table(b)
        .scalar(T::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0)
        .scalar(T::VT_WEIGHTS_FORMAT, c->weights_format, 0)
        .scalar(T::VT_KEEP_NUM_DIMS, static_cast<uint8_t>(c->keep_num_dims), 0)
        .scalar(T::VT_ASYMMETRIC_QUANTIZE_INPUTS, static_cast<uint8_t>(c->asymmetric_quantize_inputs), 0)
        .scalar(T::VT_QUANTIZED_BIAS_TYPE, i8(c->quantized_bias_type), 0)
        .end();
  }
  if (auto* c = o.get<UnidirectionalSequenceLstmOptions>()) {
    using T = fb::UnidirectionalSequenceLSTMOptions;
    return Table(b)
        .scalar(T::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0)
        .scalar(T::VT_CELL_CLIP, c->cell_clip, 0.0f)
        .scalar(T::VT_PROJ_CLIP, c->proj_clip, 0.0f)
        .scalar(T::VT_TIME_MAJOR, static_cast<uint8_t>(c->time_major), 0)
        .scalar(T::VT_ASYMMETRIC_QUANTIZE_INPUTS, static_cast<uint8_t>(c->asymmetric_quantize_inputs), 0)
        .scalar(T::VT_DIAGONAL_RECURRENT_TENSORS, static_cast<uint8_t>(c->diagonal_recurrent_tensors), 0)
        .end();
  }
  if (auto* c = o.get<SoftmaxOptions>()) return Table(b).scalar(fb::SoftmaxOptions::VT_BETA, c->beta, 0.0f).end();
  if (auto* c = o.get<ConcatenationOptions>()) {
    using T = fb::ConcatenationOptions;
    return Table(b).scalar(T::VT_AXIS, c->axis, 0).scalar(T::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0).end();
  }
  if (auto* c = o.get<AddSubOptions>()) {
    using T = fb::AddOptions;  // SubOptions has the same two slots and defaults
    static_assert(int{T::VT_FUSED_ACTIVATION_FUNCTION} == int{fb::SubOptions::VT_FUSED_ACTIVATION_FUNCTION} &&
                  int{T::VT_POT_SCALE_INT16} == int{fb::SubOptions::VT_POT_SCALE_INT16});
    return Table(b)
        .scalar(T::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0)
        .scalar(T::VT_POT_SCALE_INT16, static_cast<uint8_t>(c->pot_scale_int16), 1)
        .end();
  }
  static_assert(int{fb::MulOptions::VT_FUSED_ACTIVATION_FUNCTION} == int{fb::DivOptions::VT_FUSED_ACTIVATION_FUNCTION});
  if (auto* c = o.get<MulOptions>())  // MulOptions or DivOptions: the same slot
    return Table(b).scalar(fb::MulOptions::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0).end();
  if (auto* c = o.get<IntListOptions>()) {
    static_assert(int{fb::ReshapeOptions::VT_NEW_SHAPE} == int{fb::SqueezeOptions::VT_SQUEEZE_DIMS});
    Offset<flatbuffers::Vector<int32_t>> values = c->values ? vec(b, *c->values) : 0;
    return Table(b).offset(fb::ReshapeOptions::VT_NEW_SHAPE, values).end();
  }
  if (auto* c = o.get<ResizeOptions>()) {
    if (o.type == OptionsType::ResizeBilinear) {
      using T = fb::ResizeBilinearOptions;
      return Table(b)
          .scalar(T::VT_ALIGN_CORNERS, static_cast<uint8_t>(c->align_corners), 0)
          .scalar(T::VT_HALF_PIXEL_CENTERS, static_cast<uint8_t>(c->half_pixel_centers), 0)
          .end();
    }
    using T = fb::ResizeNearestNeighborOptions;
    return Table(b)
        .scalar(T::VT_ALIGN_CORNERS, static_cast<uint8_t>(c->align_corners), 0)
        .scalar(T::VT_HALF_PIXEL_CENTERS, static_cast<uint8_t>(c->half_pixel_centers), 0)
        .end();
  }
  if (auto* c = o.get<ReducerOptions>())
    return Table(b).scalar(fb::ReducerOptions::VT_KEEP_DIMS, static_cast<uint8_t>(c->keep_dims), 0).end();
  if (auto* c = o.get<StridedSliceOptions>()) {
    using T = fb::StridedSliceOptions;
    return Table(b)
        .scalar(T::VT_BEGIN_MASK, c->begin_mask, 0)
        .scalar(T::VT_END_MASK, c->end_mask, 0)
        .scalar(T::VT_ELLIPSIS_MASK, c->ellipsis_mask, 0)
        .scalar(T::VT_NEW_AXIS_MASK, c->new_axis_mask, 0)
        .scalar(T::VT_SHRINK_AXIS_MASK, c->shrink_axis_mask, 0)
        .scalar(T::VT_OFFSET, static_cast<uint8_t>(c->offset), 0)
        .end();
  }
  if (auto* c = o.get<SVDFOptions>()) {
    using T = fb::SVDFOptions;
    return Table(b)
        .scalar(T::VT_RANK, c->rank, 0)
        .scalar(T::VT_FUSED_ACTIVATION_FUNCTION, i8(c->activation), 0)
        .scalar(T::VT_ASYMMETRIC_QUANTIZE_INPUTS, static_cast<uint8_t>(c->asymmetric_quantize_inputs), 0)
        .end();
  }
  if (auto* c = o.get<LeakyReluOptions>()) return Table(b).scalar(fb::LeakyReluOptions::VT_ALPHA, c->alpha, 0.0f).end();
  if (auto* c = o.get<CallOnceOptions>())
    return Table(b).scalar(fb::CallOnceOptions::VT_INIT_SUBGRAPH_INDEX, c->init_subgraph_index, 0).end();
  if (auto* c = o.get<IfOptions>())
    return Table(b)
        .scalar(fb::IfOptions::VT_THEN_SUBGRAPH_INDEX, c->then_subgraph_index, 0)
        .scalar(fb::IfOptions::VT_ELSE_SUBGRAPH_INDEX, c->else_subgraph_index, 0)
        .end();
  if (auto* c = o.get<WhileOptions>())
    return Table(b)
        .scalar(fb::WhileOptions::VT_COND_SUBGRAPH_INDEX, c->cond_subgraph_index, 0)
        .scalar(fb::WhileOptions::VT_BODY_SUBGRAPH_INDEX, c->body_subgraph_index, 0)
        .end();
  if (auto* c = o.get<VarHandleOptions>()) {
    Offset<flatbuffers::String> container = c->container.empty() ? 0 : b.CreateString(c->container);
    Offset<flatbuffers::String> shared_name = c->shared_name.empty() ? 0 : b.CreateString(c->shared_name);
    return Table(b)
        .offset(fb::VarHandleOptions::VT_CONTAINER, container)
        .offset(fb::VarHandleOptions::VT_SHARED_NAME, shared_name)
        .end();
  }
  return Table(b).end();  // NoFieldOptions
}

Offset<void> write_quantization(PackBuilder& b, const Quantization& q) {
  using T = fb::QuantizationParameters;
  auto mn = vec_or_null(b, q.min);
  auto mx = vec_or_null(b, q.max);
  auto sc = vec_or_null(b, q.scale);
  auto zp = vec_or_null(b, q.zero_point);
  return Table(b)
      .offset(T::VT_MIN, mn)
      .offset(T::VT_MAX, mx)
      .offset(T::VT_SCALE, sc)
      .offset(T::VT_ZERO_POINT, zp)
      .scalar(T::VT_QUANTIZED_DIMENSION, q.quantized_dimension, 0)
      .end();
}

Offset<void> write_tensor(PackBuilder& b, const Tensor& t) {
  using T = fb::Tensor;
  auto shape = vec(b, t.shape);
  auto name = t.name.empty() ? 0 : b.CreateString(t.name);
  auto quant = t.quantization ? write_quantization(b, *t.quantization) : 0;
  auto signature = t.shape_signature ? vec(b, *t.shape_signature) : 0;
  return Table(b)
      .offset(T::VT_SHAPE, shape)
      .scalar(T::VT_TYPE, i8(t.type), 0)
      .scalar(T::VT_BUFFER, t.buffer, 0u)
      .offset(T::VT_NAME, name)
      .offset(T::VT_QUANTIZATION, quant)
      .scalar(T::VT_IS_VARIABLE, static_cast<uint8_t>(t.is_variable), 0)
      .offset(T::VT_SHAPE_SIGNATURE, signature)
      .scalar(T::VT_HAS_RANK, static_cast<uint8_t>(t.has_rank), 0)
      .end();
}

Offset<void> write_operator(PackBuilder& b, const Operator& o) {
  using T = fb::Operator;
  auto inputs = vec(b, o.inputs);
  auto outputs = vec(b, o.outputs);
  auto options = write_options(b, o.options);
  auto custom = o.custom_options ? vec(b, *o.custom_options) : 0;
  Offset<flatbuffers::Vector<uint8_t>> mutating = 0;
  if (!o.mutating_variable_inputs.empty()) {
    std::vector<uint8_t> bytes(o.mutating_variable_inputs.begin(), o.mutating_variable_inputs.end());
    mutating = b.CreateVector(bytes);
  }
  auto intermediates = vec_or_null(b, o.intermediates);
  return Table(b)
      .scalar(T::VT_OPCODE_INDEX, o.opcode_index, 0u)
      .offset(T::VT_INPUTS, inputs)
      .offset(T::VT_OUTPUTS, outputs)
      .scalar(T::VT_BUILTIN_OPTIONS_TYPE, static_cast<uint8_t>(o.options.type), 0)
      .offset(T::VT_BUILTIN_OPTIONS, options)
      .offset(T::VT_CUSTOM_OPTIONS, custom)
      .scalar(T::VT_CUSTOM_OPTIONS_FORMAT, o.custom_options_format, 0)
      .offset(T::VT_MUTATING_VARIABLE_INPUTS, mutating)
      .offset(T::VT_INTERMEDIATES, intermediates)
      .scalar(T::VT_DEBUG_METADATA_INDEX, o.debug_metadata_index, -1)
      .end();
}

Offset<void> write_subgraph(PackBuilder& b, const SubGraph& g) {
  using T = fb::SubGraph;
  std::vector<Offset<void>> tensors, ops;
  for (const Tensor& t : g.tensors) tensors.push_back(write_tensor(b, t));
  auto tv = tables(b, tensors);
  auto inputs = vec(b, g.inputs);
  auto outputs = vec(b, g.outputs);
  for (const Operator& o : g.operators) ops.push_back(write_operator(b, o));
  auto ov = tables(b, ops);
  auto name = g.name.empty() ? 0 : b.CreateString(g.name);
  return Table(b)
      .offset(T::VT_TENSORS, tv)
      .offset(T::VT_INPUTS, inputs)
      .offset(T::VT_OUTPUTS, outputs)
      .offset(T::VT_OPERATORS, ov)
      .offset(T::VT_NAME, name)
      .scalar(T::VT_DEBUG_METADATA_INDEX, g.debug_metadata_index, -1)
      .end();
}

Offset<void> write_signature(PackBuilder& b, const SignatureDef& s) {
  using T = fb::SignatureDef;
  auto maps = [&](const std::vector<TensorMap>& v) {
    std::vector<Offset<void>> out;
    for (const TensorMap& t : v) {
      auto name = b.CreateString(t.name);
      out.push_back(Table(b)
                        .offset(fb::TensorMap::VT_NAME, name)
                        .scalar(fb::TensorMap::VT_TENSOR_INDEX, t.tensor_index, 0u)
                        .end());
    }
    return tables(b, out);
  };
  auto inputs = maps(s.inputs);
  auto outputs = maps(s.outputs);
  auto key = b.CreateString(s.signature_key);
  return Table(b)
      .offset(T::VT_INPUTS, inputs)
      .offset(T::VT_OUTPUTS, outputs)
      .offset(T::VT_SIGNATURE_KEY, key)
      .scalar(T::VT_SUBGRAPH_INDEX, s.subgraph_index, 0u)
      .end();
}

// The data vector gets the 4-byte alignment of any vector, as the object API gives it
// (it does not apply the schema's force_align); TFLite Micro reads it in place.
Offset<void> write_buffer(PackBuilder& b, const Buffer& buf) {
  auto data = vec_or_null(b, buf.data);
  return Table(b).offset(fb::Buffer::VT_DATA, data).end();
}

Offset<void> write_operator_code(PackBuilder& b, const OperatorCode& c) {
  using T = fb::OperatorCode;
  auto custom = c.custom_code ? b.CreateString(*c.custom_code) : 0;
  return Table(b)
      .scalar(T::VT_DEPRECATED_BUILTIN_CODE, i8(std::min<int32_t>(c.code, 127)), 0)
      .offset(T::VT_CUSTOM_CODE, custom)
      .scalar(T::VT_VERSION, c.version, 1)
      .scalar(T::VT_BUILTIN_CODE, c.code, 0)
      .end();
}

}  // namespace

std::vector<uint8_t> write_model(const Model& m) {
  if (!m.uncarried.empty())
    throw ModelError("", "the model holds parts that cannot be written: " + m.uncarried.front());
  for (const SubGraph& g : m.subgraphs)
    for (const Tensor& t : g.tensors)
      if (t.quantization && t.quantization->details_dropped)
        throw ModelError("", "the model holds parts that cannot be written: tensor '" + t.name +
                                 "' lost its quantization details in a lenient read");
  check_model_indices(m, "");
  using T = fb::Model;
  PackBuilder b;
  std::vector<Offset<void>> codes, graphs, buffers, metadata, signatures;
  for (const OperatorCode& c : m.operator_codes) codes.push_back(write_operator_code(b, c));
  auto code_vec = tables(b, codes);
  for (const SubGraph& g : m.subgraphs) graphs.push_back(write_subgraph(b, g));
  auto graph_vec = tables(b, graphs);
  auto description = m.description ? b.CreateString(*m.description) : 0;
  for (const Buffer& buf : m.buffers) buffers.push_back(write_buffer(b, buf));
  auto buffer_vec = tables(b, buffers);
  auto metadata_buffer = vec_or_null(b, m.metadata_buffer);
  for (const Metadata& md : m.metadata) {
    auto name = b.CreateString(md.name);
    metadata.push_back(
        Table(b).offset(fb::Metadata::VT_NAME, name).scalar(fb::Metadata::VT_BUFFER, md.buffer, 0u).end());
  }
  auto metadata_vec = m.metadata.empty() ? 0 : tables(b, metadata);
  for (const SignatureDef& s : m.signature_defs) signatures.push_back(write_signature(b, s));
  auto signature_vec = m.signature_defs.empty() ? 0 : tables(b, signatures);
  auto root = Table(b)
                  .scalar(T::VT_VERSION, 3u, 0u)
                  .offset(T::VT_OPERATOR_CODES, code_vec)
                  .offset(T::VT_SUBGRAPHS, graph_vec)
                  .offset(T::VT_DESCRIPTION, description)
                  .offset(T::VT_BUFFERS, buffer_vec)
                  .offset(T::VT_METADATA_BUFFER, metadata_buffer)
                  .offset(T::VT_METADATA, metadata_vec)
                  .offset(T::VT_SIGNATURE_DEFS, signature_vec)
                  .end<fb::Model>();
  fb::FinishModelBuffer(b, root);
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}
size_t write_model_file(const Model& m, const std::string& path) {
  std::vector<uint8_t> bytes = write_model(m);
  std::string tmp = path + ".tmp-tigris";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw ModelError(path, std::string("cannot write: ") + std::strerror(errno));
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw ModelError(path, "cannot write: write error");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw ModelError(path, "cannot write: " + ec.message());
  }
  return bytes.size();
}

}  // namespace tigris::tflite
