// Serializing the in-memory model (model.h) to .tflite bytes.
//
// The writer emits: file identifier TFL3, Model.version 3, every buffer's data 16-aligned
// in the file, both op-code fields (deprecated_builtin_code = min(code, 127),
// builtin_code = code), and every carried table and field. It refuses (ModelError) a
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
