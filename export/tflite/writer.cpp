// Serializing the in-memory model with the flatc-generated builders. Children are built
// before their parents in field order (tensors, operators, ... then the tables that hold
// them), the order FlatBuffers' object API uses.
#include "export/tflite/writer.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "tflite_schema_generated.h"

namespace tigris::tflite {
namespace {

namespace fb = tigris::tflite::fb;
using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

int8_t i8(auto v) { return static_cast<int8_t>(v); }

template <class T>
Offset<flatbuffers::Vector<T>> vec(FlatBufferBuilder& b, const std::vector<T>& v) {
  return b.CreateVector(v);
}

Offset<void> empty_table(FlatBufferBuilder& b) { return Offset<void>(b.EndTable(b.StartTable())); }

Offset<void> write_options(FlatBufferBuilder& b, const Options& o) {
  if (o.type == OptionsType::None) return 0;
  if (auto* c = o.get<Conv2DOptions>())
    return fb::CreateConv2DOptions(b, i8(c->padding), c->stride_w, c->stride_h, i8(c->activation),
                                   c->dilation_w, c->dilation_h, i8(c->quantized_bias_type)).Union();
  if (auto* c = o.get<DepthwiseConv2DOptions>())
    return fb::CreateDepthwiseConv2DOptions(b, i8(c->padding), c->stride_w, c->stride_h,
                                            c->depth_multiplier, i8(c->activation), c->dilation_w,
                                            c->dilation_h).Union();
  if (auto* c = o.get<Pool2DOptions>())
    return fb::CreatePool2DOptions(b, i8(c->padding), c->stride_w, c->stride_h, c->filter_w,
                                   c->filter_h, i8(c->activation)).Union();
  if (auto* c = o.get<FullyConnectedOptions>())
    return fb::CreateFullyConnectedOptions(b, i8(c->activation), c->weights_format, c->keep_num_dims,
                                           c->asymmetric_quantize_inputs,
                                           i8(c->quantized_bias_type)).Union();
  if (auto* c = o.get<SoftmaxOptions>()) return fb::CreateSoftmaxOptions(b, c->beta).Union();
  if (auto* c = o.get<ConcatenationOptions>())
    return fb::CreateConcatenationOptions(b, c->axis, i8(c->activation)).Union();
  if (auto* c = o.get<AddSubOptions>()) {
    if (o.type == OptionsType::Sub)
      return fb::CreateSubOptions(b, i8(c->activation), c->pot_scale_int16).Union();
    return fb::CreateAddOptions(b, i8(c->activation), c->pot_scale_int16).Union();
  }
  if (auto* c = o.get<MulOptions>()) return fb::CreateMulOptions(b, i8(c->activation)).Union();
  if (auto* c = o.get<IntListOptions>()) {
    Offset<flatbuffers::Vector<int32_t>> values = c->values ? vec(b, *c->values) : 0;
    if (o.type == OptionsType::Squeeze) return fb::CreateSqueezeOptions(b, values).Union();
    return fb::CreateReshapeOptions(b, values).Union();
  }
  if (auto* c = o.get<ResizeOptions>()) {
    if (o.type == OptionsType::ResizeBilinear)
      return fb::CreateResizeBilinearOptions(b, c->align_corners, c->half_pixel_centers).Union();
    return fb::CreateResizeNearestNeighborOptions(b, c->align_corners, c->half_pixel_centers).Union();
  }
  if (auto* c = o.get<ReducerOptions>()) return fb::CreateReducerOptions(b, c->keep_dims).Union();
  if (auto* c = o.get<StridedSliceOptions>())
    return fb::CreateStridedSliceOptions(b, c->begin_mask, c->end_mask, c->ellipsis_mask,
                                         c->new_axis_mask, c->shrink_axis_mask, c->offset).Union();
  if (auto* c = o.get<LeakyReluOptions>()) return fb::CreateLeakyReluOptions(b, c->alpha).Union();
  return empty_table(b);  // NoFieldOptions
}

Offset<fb::QuantizationParameters> write_quantization(FlatBufferBuilder& b, const Quantization& q) {
  auto mn = q.min.empty() ? 0 : vec(b, q.min);
  auto mx = q.max.empty() ? 0 : vec(b, q.max);
  auto sc = q.scale.empty() ? 0 : vec(b, q.scale);
  auto zp = q.zero_point.empty() ? 0 : vec(b, q.zero_point);
  return fb::CreateQuantizationParameters(b, mn, mx, sc, zp, fb::QuantizationDetails::NONE, 0,
                                          q.quantized_dimension);
}

Offset<fb::Tensor> write_tensor(FlatBufferBuilder& b, const Tensor& t) {
  auto shape = vec(b, t.shape);
  auto name = t.name.empty() ? 0 : b.CreateString(t.name);
  auto quant = t.quantization ? write_quantization(b, *t.quantization) : 0;
  auto signature = t.shape_signature ? vec(b, *t.shape_signature) : 0;
  return fb::CreateTensor(b, shape, i8(t.type), t.buffer, name, quant, t.is_variable, 0, signature,
                          t.has_rank);
}

Offset<fb::Operator> write_operator(FlatBufferBuilder& b, const Operator& o) {
  auto inputs = vec(b, o.inputs);
  auto outputs = vec(b, o.outputs);
  auto options = write_options(b, o.options);
  auto custom = o.custom_options ? vec(b, *o.custom_options) : 0;
  Offset<flatbuffers::Vector<uint8_t>> mutating = 0;
  if (!o.mutating_variable_inputs.empty()) {
    std::vector<uint8_t> bytes(o.mutating_variable_inputs.begin(), o.mutating_variable_inputs.end());
    mutating = b.CreateVector(bytes);
  }
  auto intermediates = o.intermediates.empty() ? 0 : vec(b, o.intermediates);
  return fb::CreateOperator(b, o.opcode_index, inputs, outputs,
                            static_cast<fb::BuiltinOptions>(o.options.type), options, custom,
                            o.custom_options_format, mutating, intermediates, 0, 0, fb::BuiltinOptions2::NONE, 0, o.debug_metadata_index);
}

Offset<fb::SubGraph> write_subgraph(FlatBufferBuilder& b, const SubGraph& g) {
  std::vector<Offset<fb::Tensor>> tensors;
  for (const Tensor& t : g.tensors) tensors.push_back(write_tensor(b, t));
  auto tv = b.CreateVector(tensors);
  auto inputs = vec(b, g.inputs);
  auto outputs = vec(b, g.outputs);
  std::vector<Offset<fb::Operator>> ops;
  for (const Operator& o : g.operators) ops.push_back(write_operator(b, o));
  auto ov = b.CreateVector(ops);
  auto name = g.name.empty() ? 0 : b.CreateString(g.name);
  return fb::CreateSubGraph(b, tv, inputs, outputs, ov, name, g.debug_metadata_index);
}

Offset<fb::SignatureDef> write_signature(FlatBufferBuilder& b, const SignatureDef& s) {
  auto maps = [&](const std::vector<TensorMap>& v) {
    std::vector<Offset<fb::TensorMap>> out;
    for (const TensorMap& t : v)
      out.push_back(fb::CreateTensorMap(b, b.CreateString(t.name), t.tensor_index));
    return b.CreateVector(out);
  };
  auto inputs = maps(s.inputs);
  auto outputs = maps(s.outputs);
  auto key = b.CreateString(s.signature_key);
  return fb::CreateSignatureDef(b, inputs, outputs, key, s.subgraph_index);
}

Offset<fb::Buffer> write_buffer(FlatBufferBuilder& b, const Buffer& buf) {
  Offset<flatbuffers::Vector<uint8_t>> data = 0;
  if (!buf.data.empty()) {
    b.ForceVectorAlignment(buf.data.size(), sizeof(uint8_t), 16);
    data = b.CreateVector(buf.data);
  }
  return fb::CreateBuffer(b, data);
}

}  // namespace

std::vector<uint8_t> write_model(const Model& m) {
  if (!m.uncarried.empty())
    throw ModelError("", "the model holds parts that cannot be written: " + m.uncarried.front());
  check_model_indices(m, "");
  FlatBufferBuilder b(1 << 16);
  std::vector<Offset<fb::OperatorCode>> codes;
  for (const OperatorCode& c : m.operator_codes) {
    auto custom = c.custom_code ? b.CreateString(*c.custom_code) : 0;
    codes.push_back(fb::CreateOperatorCode(b, i8(std::min<int32_t>(c.code, 127)), custom, c.version, c.code));
  }
  auto code_vec = b.CreateVector(codes);
  std::vector<Offset<fb::SubGraph>> graphs;
  for (const SubGraph& g : m.subgraphs) graphs.push_back(write_subgraph(b, g));
  auto graph_vec = b.CreateVector(graphs);
  auto description = m.description ? b.CreateString(*m.description) : 0;
  std::vector<Offset<fb::Buffer>> buffers;
  for (const Buffer& buf : m.buffers) buffers.push_back(write_buffer(b, buf));
  auto buffer_vec = b.CreateVector(buffers);
  auto metadata_buffer = m.metadata_buffer.empty() ? 0 : vec(b, m.metadata_buffer);
  std::vector<Offset<fb::Metadata>> metadata;
  for (const Metadata& md : m.metadata)
    metadata.push_back(fb::CreateMetadata(b, b.CreateString(md.name), md.buffer));
  auto metadata_vec = m.metadata.empty() ? 0 : b.CreateVector(metadata);
  std::vector<Offset<fb::SignatureDef>> signatures;
  for (const SignatureDef& s : m.signature_defs) signatures.push_back(write_signature(b, s));
  auto signature_vec = m.signature_defs.empty() ? 0 : b.CreateVector(signatures);
  auto root = fb::CreateModel(b, 3, code_vec, graph_vec, description, buffer_vec, metadata_buffer,
                              metadata_vec, signature_vec);
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
