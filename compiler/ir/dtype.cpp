#include "compiler/ir/dtype.h"

namespace tigris::ir {

size_t dtype_size(DType t) {
  switch (t) {
  case DType::Float32: return 4;
  case DType::UInt8: return 1;
  case DType::Int8: return 1;
  case DType::UInt16: return 2;
  case DType::Int16: return 2;
  case DType::Int32: return 4;
  case DType::Int64: return 8;
  case DType::Bool: return 1;
  case DType::Float16: return 2;
  case DType::Float64: return 8;
  case DType::UInt32: return 4;
  case DType::UInt64: return 8;
  case DType::Complex64: return 8;
  case DType::Complex128: return 16;
  case DType::BFloat16: return 2;
  case DType::String:
  case DType::Undefined: return 0;
  }
  return 0;
}

std::string dtype_name(DType t) {
  switch (t) {
  case DType::Float32: return "float32";
  case DType::UInt8: return "uint8";
  case DType::Int8: return "int8";
  case DType::UInt16: return "uint16";
  case DType::Int16: return "int16";
  case DType::Int32: return "int32";
  case DType::Int64: return "int64";
  case DType::String: return "string";
  case DType::Bool: return "bool";
  case DType::Float16: return "float16";
  case DType::Float64: return "float64";
  case DType::UInt32: return "uint32";
  case DType::UInt64: return "uint64";
  case DType::Complex64: return "complex64";
  case DType::Complex128: return "complex128";
  case DType::BFloat16: return "bfloat16";
  case DType::Undefined: return "undefined";
  }
  return "undefined";
}

bool dtype_storable(DType t) {
  switch (t) {
  case DType::Float32:
  case DType::UInt8:
  case DType::Int8:
  case DType::Int16:
  case DType::Int32:
  case DType::Int64:
  case DType::Bool: return true;
  default: return false;
  }
}

DType dtype_from_code(int32_t onnx_code) {
  if (onnx_code < 0 || onnx_code > static_cast<int32_t>(DType::BFloat16)) return DType::Undefined;
  return static_cast<DType>(onnx_code);
}

}  // namespace tigris::ir
