// Small editing helpers over the in-memory model: adding buffers, tensors, constants and
// operator codes, and dropping what nothing refers to (with every index remapped).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/tflite/model.h"

namespace tigris::tflite {

// Appends a buffer holding `data`; returns its index.
uint32_t add_buffer(Model& m, std::vector<uint8_t> data);

// Appends a tensor to subgraph `g`; returns its index.
int32_t add_tensor(SubGraph& g, Tensor t);

// A constant int32 tensor with its own buffer.
int32_t add_int32_constant(Model& m, SubGraph& g, const std::string& name, const std::vector<int32_t>& shape,
                           const std::vector<int32_t>& values);

// Index of the operator code for builtin `code` (at least `version`), added if missing.
uint32_t operator_code_index(Model& m, int32_t code, int32_t version = 1);

// Removes tensors of subgraph 0 that no operator, graph input/output or signature uses,
// then buffers (other than 0) no tensor or metadata uses; remaps every index.
void drop_unreferenced(Model& m);

}  // namespace tigris::tflite
