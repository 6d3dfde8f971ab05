// Serializing the in-memory model (model.h) to .tflite bytes.
//
// The writer emits: file identifier TFL3, Model.version 3, both op-code fields
// (deprecated_builtin_code = min(code, 127), builtin_code = code), and every carried table
// and field, laid out as FlatBuffers' object API (Python's builder) lays them out: children
// before parents in field order, fields in declaration order, defaults omitted, vtables
// shared when their field offsets agree, buffer data 4-aligned like any vector. A file
// written that way (vww_96_int8 as shipped) round-trips to identical bytes. It refuses (ModelError) a
// model with uncarried parts (a lenient read) or an index that points nowhere.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/tflite/model.h"

namespace tigris::tflite {

std::vector<uint8_t> write_model(const Model& m);

// Writes to `path` atomically: a temporary file beside it, then a rename. On any error
// (ModelError) nothing is left at `path` or beside it. Returns the bytes written.
size_t write_model_file(const Model& m, const std::string& path);

}  // namespace tigris::tflite
