// Reading a .tflite file into the in-memory model (model.h).
//
// The bytes are checked by the FlatBuffers verifier, then every index is range-checked
// (operator codes, tensors, buffers, subgraphs). A file that uses a part of the schema the
// model does not carry (sparse tensors, quantization details, buffers stored outside the
// FlatBuffer, options tables TiGrIS does not know, fields newer than our schema, ...) is
// refused with a ModelError naming the part; a lenient read records those parts in
// Model::uncarried instead and keeps going (for tools that only look at the graph).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "export/tflite/model.h"

namespace tigris::tflite {

struct ReadOptions {
  bool lenient = false;  // record uncarried parts instead of refusing the file
};

// True if the bytes carry the TFLite file identifier "TFL3" at offset 4.
bool looks_like_tflite(std::span<const uint8_t> bytes);

// Reads a model from bytes; `file` names the source in error messages.
Model read_model(std::span<const uint8_t> bytes, const std::string& file, ReadOptions opts = {});

// Reads a model from a file. Throws ModelError (its what() names the file).
Model read_model_file(const std::string& path, ReadOptions opts = {});

// Whole-file read helper (throws ModelError when the file cannot be read).
std::vector<uint8_t> read_file_bytes(const std::string& path);

}  // namespace tigris::tflite
