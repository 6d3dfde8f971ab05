// Reading an operator's BuiltinOptions table (internal to the reader).
#pragma once

#include <cstdint>
#include <string>

#include "export/tflite/reader_context.h"

namespace tigris::tflite::detail {

// `op_table` is the fb::Operator; `owner` names the operator in messages.
Options read_options(const void* op_table, uint8_t tag, const std::string& owner, const ReadContext& ctx);

}  // namespace tigris::tflite::detail
