#include "compiler/frontend/onnx/tensor_proto.h"

#include <cstring>

#include "compiler/ir/error.h"

namespace tigris::frontend::onnx {

namespace {

using ir::CompileError;
using ir::DType;
using ir::ErrorKind;

template <typename T>
void append(std::vector<uint8_t>& out, T value) {
  uint8_t bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.insert(out.end(), bytes, bytes + sizeof(T));
}

// Elements stored one per int32 (int8, uint8, int16, uint16, bool, float16 bit patterns).
void decode_int32_field(const ::onnx::TensorProto& p, DType dtype, std::vector<uint8_t>& out) {
  for (int32_t v : p.int32_data()) {
    switch (ir::dtype_size(dtype)) {
    case 1: append<uint8_t>(out, static_cast<uint8_t>(v)); break;
    case 2: append<uint16_t>(out, static_cast<uint16_t>(v)); break;
    default: append<int32_t>(out, v); break;
    }
  }
}

std::vector<uint8_t> decode_typed_fields(const ::onnx::TensorProto& p, DType dtype) {
  std::vector<uint8_t> out;
  switch (dtype) {
  case DType::Float32:
  case DType::Complex64:
    for (float v : p.float_data()) append(out, v);
    break;
  case DType::Int64:
    for (int64_t v : p.int64_data()) append(out, v);
    break;
  case DType::Float64:
  case DType::Complex128:
    for (double v : p.double_data()) append(out, v);
    break;
  case DType::UInt32:
    for (uint64_t v : p.uint64_data()) append(out, static_cast<uint32_t>(v));
    break;
  case DType::UInt64:
    for (uint64_t v : p.uint64_data()) append(out, v);
    break;
  case DType::String:
    throw CompileError(ErrorKind::Unsupported, "tensor '" + p.name() + "' holds strings", {}, {p.name()});
  default: decode_int32_field(p, dtype, out); break;
  }
  return out;
}

}  // namespace

ir::TensorValue tensor_from_proto(const ::onnx::TensorProto& p) {
  if (p.data_location() == ::onnx::TensorProto::EXTERNAL)
    throw CompileError(ErrorKind::Unsupported,
                       "tensor '" + p.name() +
                           "' keeps its data in an external file; external data is not supported "
                           "(save the model with its weights inside)",
                       {}, {p.name()});
  ir::TensorValue value;
  value.dtype = ir::dtype_from_code(p.data_type());
  if (value.dtype == DType::Undefined)
    throw CompileError(ErrorKind::Invalid,
                       "tensor '" + p.name() + "' has unknown data type " + std::to_string(p.data_type()), {},
                       {p.name()});
  for (int64_t d : p.dims()) {
    if (d < 0)
      throw CompileError(ErrorKind::Invalid, "tensor '" + p.name() + "' has a negative dimension", {}, {p.name()});
    value.shape.push_back(d);
  }
  if (p.has_raw_data()) {
    value.data.assign(p.raw_data().begin(), p.raw_data().end());
  } else {
    value.data = decode_typed_fields(p, value.dtype);
  }
  uint64_t expected = static_cast<uint64_t>(ir::num_elements(value.shape)) * ir::dtype_size(value.dtype);
  if (value.data.size() != expected)
    throw CompileError(ErrorKind::Invalid,
                       "tensor '" + p.name() + "' holds " + std::to_string(value.data.size()) +
                           " bytes of data; its shape " + ir::shape_str(value.shape) + " needs " +
                           std::to_string(expected),
                       {}, {p.name()});
  return value;
}

ir::TensorValue tensor_from_bytes(const std::string& bytes, const std::string& what) {
  ::onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) throw CompileError(ErrorKind::Parse, what + " is not a serialized ONNX tensor");
  return tensor_from_proto(proto);
}

}  // namespace tigris::frontend::onnx
