// Element types, numbered as ONNX TensorProto.DataType (the plan format uses the same codes).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace tigris::ir {

enum class DType : uint8_t {
  Undefined = 0,
  Float32 = 1,
  UInt8 = 2,
  Int8 = 3,
  UInt16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Float64 = 11,
  UInt32 = 12,
  UInt64 = 13,
  Complex64 = 14,
  Complex128 = 15,
  BFloat16 = 16,
};

// Bytes per element; 0 for types without a fixed size (string, undefined).
size_t dtype_size(DType t);

// "float32", "int8", ... (numpy spelling).
std::string dtype_name(DType t);

// True when a plan can store tensors of this type (runtime tigris_dtype_size != 0).
bool dtype_storable(DType t);

DType dtype_from_code(int32_t onnx_code);

}  // namespace tigris::ir
