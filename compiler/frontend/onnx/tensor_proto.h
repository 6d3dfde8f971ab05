// ONNX TensorProto <-> IR constant values (initializers, Constant attributes, test vectors).
#pragma once

#include <onnx/onnx_pb.h>

#include "compiler/ir/attribute.h"

namespace tigris::frontend::onnx {

// Decode a TensorProto into little-endian row-major bytes of its dtype. Throws
// CompileError(Unsupported) for external data, (Invalid) when the data does not match the shape.
ir::TensorValue tensor_from_proto(const ::onnx::TensorProto& proto);

// Parse a serialized TensorProto (a test vector's input_0.pb); throws CompileError(Parse).
ir::TensorValue tensor_from_bytes(const std::string& bytes, const std::string& what);

}  // namespace tigris::frontend::onnx
